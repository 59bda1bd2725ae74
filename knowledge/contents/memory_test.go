package contents_test

import (
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/contentstest"
)

func TestMemoryConformance(t *testing.T) {
	contentstest.Run(t, func(*testing.T) contents.Store { return contents.NewMemory() })
}

func TestParseStatus(t *testing.T) {
	for in, want := range map[string]contents.Status{
		"completed": contents.StatusCompleted, "Completed": contents.StatusCompleted,
		"FAILED": contents.StatusFailed, "Failed: No reader provided": contents.StatusFailed,
		"processing": contents.StatusProcessing, "": contents.StatusProcessing, "queued": contents.StatusProcessing,
	} {
		if got := contents.ParseStatus(in); got != want {
			t.Errorf("ParseStatus(%q) = %q, want %q", in, got, want)
		}
	}
}
