package memoriesapi

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
)

// fakeHost serves no store; its models are the test's.
type fakeHost struct {
	memory model.Model
	named  []string // provider:id asked of NamedModel
}

func (h *fakeHost) DataStore(*http.Request, string, string) (storage.Store, error) {
	return nil, errors.New("no store")
}

func (h *fakeHost) NamedModel(provider, id string) (model.Model, error) {
	h.named = append(h.named, provider+":"+id)
	return nil, errors.New("no key")
}

func (h *fakeHost) MemoryModel() model.Model { return h.memory }

// TestOptimizeModelFallbacks: the memory manager's model before agno's
// default; a model that cannot be used is the client's fault when named,
// the server's (503) when defaulted.
func TestOptimizeModelFallbacks(t *testing.T) {
	status := func(err error) int {
		var se *httpapi.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("error %v is no StatusError", err)
		}
		return se.Status
	}
	fake := modeltest.New()
	if m, err := New(&fakeHost{memory: fake}).optimizeModel(""); err != nil || m != fake {
		t.Errorf("without a spec got %v, %v; want the memory manager's model", m, err)
	}
	h := &fakeHost{}
	if _, err := New(h).optimizeModel(""); status(err) != http.StatusServiceUnavailable || len(h.named) != 1 || h.named[0] != defaultOptimizeModel {
		t.Errorf("default model: %v, asked %v", err, h.named)
	}
	if _, err := New(h).optimizeModel("openai:gpt-4o-mini"); status(err) != http.StatusBadRequest {
		t.Errorf("named model: %v", err)
	}
	if _, err := New(h).optimizeModel("no-colon"); status(err) != http.StatusBadRequest {
		t.Errorf("bad spec: %v", err)
	}
}
