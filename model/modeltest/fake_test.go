package modeltest

import (
	"context"
	"testing"

	"github.com/agno-go/agno/model"
)

func generate(t *testing.T, f *Fake) {
	t.Helper()
	req := &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
	for _, err := range f.Generate(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFakeRecordsByDefault(t *testing.T) {
	f := New(Response{Content: "a"})
	generate(t, f)
	generate(t, f)
	if got := f.Requests(); len(got) != 2 || got[0].Messages[0].Content != "hi" {
		t.Fatalf("requests %+v, want 2 copies of the request", got)
	}
	if f.Calls() != 2 {
		t.Fatalf("calls %d, want 2", f.Calls())
	}
}

func TestFakeNoRecordCountsOnly(t *testing.T) {
	f := New(Response{Content: "a"})
	f.NoRecord = true
	generate(t, f)
	generate(t, f)
	if got := f.Requests(); got != nil {
		t.Fatalf("requests %+v, want none kept", got)
	}
	if f.Calls() != 2 {
		t.Fatalf("calls %d, want 2", f.Calls())
	}
}
