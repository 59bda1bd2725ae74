package tool_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/tool"
)

type preparedArgs struct {
	City string `json:"city"`
}

func TestPreparedIsSharedAndFollowsChanges(t *testing.T) {
	f := tool.Must(tool.New("weather", "Get the weather.", func(_ context.Context, a preparedArgs) (string, error) { return a.City, nil }))
	fns1, defs1, err := f.Prepared()
	if err != nil {
		t.Fatal(err)
	}
	fns2, defs2, _ := f.Prepared()
	if len(fns1) != 1 || fns1[0] != f || cap(fns1) != 1 || cap(defs1) != 1 {
		t.Fatalf("Prepared = %v (cap %d), want [f] with cap 1", fns1, cap(fns1))
	}
	if &fns1[0] != &fns2[0] || &defs1[0] != &defs2[0] {
		t.Fatal("a second Prepared built a new set; want the shared one")
	}
	if d := defs1[0]; d.Name != "weather" || d.Description != "Get the weather." || string(d.Parameters) != string(f.Parameters) {
		t.Fatalf("definition %+v does not describe the function", d)
	}

	// A copy is another function: it gets its own set.
	c := *f
	cfns, _, _ := c.Prepared()
	if cfns[0] != &c {
		t.Fatal("the copy's set names the original function")
	}

	// A changed description is seen (fields set before an agent holds it).
	f.Description = "Weather, now."
	_, defs3, _ := f.Prepared()
	if defs3[0].Description != "Weather, now." {
		t.Fatalf("definition kept the old description %q", defs3[0].Description)
	}
}

func TestPreparedValidates(t *testing.T) {
	f := &tool.Function{Name: "x"}
	if _, _, err := f.Prepared(); err == nil {
		t.Fatal("a function without a handler passed Prepared")
	}
}
