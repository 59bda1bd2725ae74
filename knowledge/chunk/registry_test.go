package chunk

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
)

// upper is a program's own chunker: the whole document, upper-cased.
type upper struct{}

func (upper) Type() string { return "TestUpperChunker" }
func (upper) Chunk(_ context.Context, d *document.Document) ([]*document.Document, error) {
	c := d.Clone()
	c.Content = strings.ToUpper(c.Content)
	return []*document.Document{c}, nil
}

var registerUpper sync.Once // the registry is global: once per test binary

func TestRegistry(t *testing.T) {
	builtin := []string{TypeDocument, TypeFixedSize, TypeMarkdown, TypeRecursive, TypeRow}
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for _, name := range builtin {
		c, err := New(name, Config{Size: 100, Overlap: 10})
		if !slices.Contains(names, name) || err != nil || c.Type() != name {
			t.Errorf("New(%q): %v %v", name, c, err)
		}
	}
	_, err := New("SemanticChunker", Config{})
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `"SemanticChunker"`) || !strings.Contains(err.Error(), TypeFixedSize) {
		t.Errorf("unknown strategy: %v", err)
	}
	if _, err := New(TypeFixedSize, Config{Size: 10, Overlap: 10}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("the factory does not validate its options: %v", err)
	}

	registerUpper.Do(func() { Register("TestUpperChunker", func(Config) (Chunker, error) { return upper{}, nil }) })
	c, err := New("TestUpperChunker", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := c.Chunk(t.Context(), &document.Document{Content: "abc"}); out[0].Content != "ABC" {
		t.Errorf("own chunker: %q", out[0].Content)
	}
	for name, f := range map[string]Factory{
		"":                 func(Config) (Chunker, error) { return upper{}, nil },
		TypeFixedSize:      func(Config) (Chunker, error) { return upper{}, nil },
		"TestNilFactory":   nil,
		"TestUpperChunker": func(Config) (Chunker, error) { return upper{}, nil },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, f)
		}()
	}
}
