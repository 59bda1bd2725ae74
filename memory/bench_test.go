package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
	memstore "github.com/agno-go/agno/storage/memory"
)

// One automatic extraction: list 20 memories, build the prompt, one
// tool round (update_memory, so the store keeps its size) and the final
// answer. The model is the in-process fake, so this is the manager's own
// overhead.
func BenchmarkCreateUserMemories(b *testing.B) {
	ctx := context.Background()
	st := memstore.New()
	for i := range 20 {
		seed(b, st, &storage.Memory{MemoryID: fmt.Sprintf("m%02d", i), Memory: fmt.Sprintf("User fact number %d", i), UserID: "u", CreatedAt: int64(i + 1), UpdatedAt: int64(i + 1)})
	}
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "done"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "update_memory", `{"memory_id":"m07","memory":"User fact number 7, updated","topics":["facts"]}`)}}
	})
	m := newManager(b, ManagerConfig{Model: fake, Store: st})
	msgs := []model.Message{{Role: model.RoleUser, Content: "My seventh fact changed."}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.CreateUserMemories(ctx, "u", msgs, "a", ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderMemories(b *testing.B) {
	mems := make([]*storage.Memory, 20)
	for i := range mems {
		mems[i] = &storage.Memory{Memory: fmt.Sprintf("User fact number %d with a little more text to it", i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = RenderMemories(mems, true)
	}
}

// Summarize a 40-message conversation with a fenced JSON answer (the
// JSON-mode path: prompt with schema, tolerant parse).
func BenchmarkSummarize(b *testing.B) {
	var conv []model.Message
	for i := range 20 {
		conv = append(conv,
			model.Message{Role: model.RoleUser, Content: fmt.Sprintf("Question %d about the trip to Lisbon?", i)},
			model.Message{Role: model.RoleAssistant, Content: fmt.Sprintf("Answer %d with some detail about trams, food and weather.", i)},
		)
	}
	fake := modeltest.New(modeltest.Response{Content: "```json\n{\"summary\": \"The user planned a trip to Lisbon.\", \"topics\": [\"travel\", \"Lisbon\"]}\n```"})
	s, err := NewSummaryManager(SummaryConfig{Model: fake, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Summarize(ctx, conv); err != nil {
			b.Fatal(err)
		}
	}
}
