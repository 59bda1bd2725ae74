package registryapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
)

// fakeHost serves a fixed registry and hides the entries named hidden.
type fakeHost struct {
	reg    *Registry
	hidden string
}

func (h fakeHost) Registry() *Registry                   { return h.reg }
func (h fakeHost) MayRead(_ *http.Request, e Entry) bool { return e.Name != h.hidden }

func TestRoutesOverAHost(t *testing.T) {
	var agents []*agent.Agent
	for _, name := range []string{"open", "secret"} {
		a, err := agent.New(agent.Config{Name: name, Model: modeltest.New()})
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	h := fakeHost{reg: Build(Config{}, agents, nil, nil), hidden: "secret"}
	serve := func(query string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		New(h).Routes()[0].Handler(rec, httptest.NewRequest(http.MethodGet, "/registry"+query, nil))
		return rec
	}

	rec := serve("?resource_type=agent")
	var page struct {
		Data []Entry `json:"data"`
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if page.Meta.TotalCount != 1 || len(page.Data) != 1 || page.Data[0].Name != "open" {
		t.Fatalf("agents = %+v, want only the one MayRead lets through", page)
	}

	// Present but empty is refused, as FastAPI refuses it.
	if rec := serve("?resource_type="); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Input should be 'tool', 'model', ") {
		t.Fatalf("empty resource_type: %d %s", rec.Code, rec.Body)
	}
}
