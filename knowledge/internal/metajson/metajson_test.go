package metajson

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	in := map[string]any{
		"int": 3, "float": 2.0, "tenth": 0.1, "num": json.Number("0.10"), "intnum": json.Number("7"),
		"big": json.Number("123456789012345678901234567890"), "large": 1e20, "html": "<a&b>", "é": "ü",
		"list": []any{1, 1.5, "x", nil, true}, "nested": map[string]any{"k": []string{"a"}},
	}
	s, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	// Python's json.dumps(..., ensure_ascii=False) of the same dict, keys sorted.
	want := `{"big": 123456789012345678901234567890, "float": 2.0, "html": "<a&b>", "int": 3, "intnum": 7, "large": 1e+20, ` +
		`"list": [1, 1.5, "x", null, true], "nested": {"k": ["a"]}, "num": 0.1, "tenth": 0.1, "é": "ü"}`
	if s != want {
		t.Errorf("Encode:\n got %s\nwant %s", s, want)
	}
	got, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]any{
		"int": int64(3), "float": 2.0, "tenth": 0.1, "num": 0.1, "intnum": int64(7),
		"big": json.Number("123456789012345678901234567890"), "large": 1e20, "html": "<a&b>", "é": "ü",
		"list": []any{int64(1), 1.5, "x", nil, true}, "nested": map[string]any{"k": []any{"a"}},
	}
	if diff := cmp.Diff(back, got); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	if m, err := Decode("null"); err != nil || m == nil || len(m) != 0 {
		t.Errorf("Decode(null) = %v, %v", m, err)
	}
}

func TestNotJSON(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Encode(map[string]any{"x": v}); !errors.Is(err, ErrNotJSON) {
			t.Errorf("Encode(%v) = %v, want ErrNotJSON", v, err)
		}
	}
}
