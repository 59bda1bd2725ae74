package run_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/agno-go/agno/run"
)

// JSONForm must give what an encoding and a decoding give, or refuse.
func TestJSONFormMatchesARoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var made, refused int
	for range 3000 {
		m := randomMap(rng, 3)
		got, ok := run.JSONForm(m)
		text, err := json.Marshal(m)
		if !ok {
			refused++
			continue
		}
		made++
		if err != nil {
			t.Fatalf("JSONForm took %#v, which does not encode: %v", m, err)
		}
		var want map[string]any
		if err := json.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("JSONForm(%#v)\n= %#v\nround trip gives %#v", m, got, want)
		}
		scribble(got) // a copy: m is not touched
		if again, _ := json.Marshal(m); string(again) != string(text) {
			t.Fatalf("JSONForm shares its input: %s became %s", text, again)
		}
	}
	if made < 1000 || refused < 300 {
		t.Fatalf("the generator covers too little: %d made, %d refused", made, refused)
	}
	for _, v := range []any{struct{ A int }{1}, float32(0.1), json.Number("1"), "\xff", math.NaN(), math.Inf(1), []string{"a"}} {
		if _, ok := run.JSONForm(map[string]any{"k": v}); ok {
			t.Errorf("JSONForm took %#v, which only an encoding can tell", v)
		}
	}
	if _, ok := run.JSONForm(map[string]any{"\xfe": 1}); ok {
		t.Error("JSONForm took a key that is not UTF-8")
	}
}

func scribble(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			scribble(e)
			x[k] = "scribbled"
		}
	case []any:
		for i, e := range x {
			scribble(e)
			x[i] = "scribbled"
		}
	}
}

func randomMap(rng *rand.Rand, depth int) map[string]any {
	if rng.IntN(12) == 0 {
		return nil
	}
	m := map[string]any{}
	for i := range rng.IntN(4) {
		m[randomString(rng)+string(rune('a'+i))] = randomValue(rng, depth)
	}
	return m
}

func randomValue(rng *rand.Rand, depth int) any {
	n := 12
	if depth <= 0 {
		n = 8
	}
	switch rng.IntN(n + 1) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return randomString(rng)
	case 3:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	case 4:
		return int64(rng.Uint64())
	case 5:
		return rng.IntN(1000) - 500
	case 6:
		return uint64(rng.Uint64())
	case 7:
		return int32(rng.Int32())
	case 8: // only an encoding can tell these
		return []any{float32(rng.Float32()), json.Number("12"), struct{ X int }{1}, math.Inf(-1)}[rng.IntN(4)]
	case 9, 10:
		return randomMap(rng, depth-1)
	case 11:
		if rng.IntN(8) == 0 {
			return []any(nil)
		}
		s := make([]any, rng.IntN(4))
		for i := range s {
			s[i] = randomValue(rng, depth-1)
		}
		return s
	default:
		return map[string]any(nil)
	}
}

func randomString(rng *rand.Rand) string {
	return []string{"", "x", "héllo", "<&>", "line\nbreak", "\u2028", "\xff\xfe", "😀", "a\x00b"}[rng.IntN(9)]
}
