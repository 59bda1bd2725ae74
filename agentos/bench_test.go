package agentos_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqlite"
)

// BenchmarkHTTPRun is POST /agents/{id}/runs over real HTTP against an
// in-process AgentOS, an OpenAI-wire fake model server and the storage
// named in the sub-benchmark. -cpu sets the client concurrency through
// SetParallelism. The end-to-end figure with separate processes is
// bench/run-agentos.sh.
func BenchmarkHTTPRun(b *testing.B) {
	for _, storeKind := range []string{"sqlite", "memory"} {
		for _, stream := range []bool{false, true} {
			name := storeKind + "/nonstream"
			if stream {
				name = storeKind + "/stream"
			}
			b.Run(name, func(b *testing.B) {
				benchHTTPRun(b, storeKind, stream)
			})
		}
	}
}

func benchHTTPRun(b *testing.B, storeKind string, stream bool) {
	llm := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "Hello from the bench agent"}}, NoRecord: true})
	defer llm.Close()
	m, err := openai.New(openai.Config{ID: "fake-model", BaseURL: llm.URL, APIKey: "k"})
	if err != nil {
		b.Fatal(err)
	}
	var store storage.Store = memory.New()
	if storeKind == "sqlite" {
		s, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(b.TempDir(), "agno.db")})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		store = s
	}
	a, err := agent.New(agent.Config{ID: "bench", Name: "Bench", Model: m, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	defer client.CloseIdleConnections()
	var seq atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			form := url.Values{"message": {"hi"}, "stream": {strconv.FormatBool(stream)}, "session_id": {"s" + strconv.FormatInt(seq.Add(1), 10)}}
			resp, err := client.Post(srv.URL+"/agents/bench/runs", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
			if err != nil {
				b.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), "COMPLETED") && !strings.Contains(string(body), "RunCompleted") {
				b.Errorf("%d %.200s", resp.StatusCode, body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	if s, ok := store.(*sqlite.Store); ok {
		st := s.Stats()
		b.ReportMetric(float64(st.Writes)/float64(b.N), "writes/run")
		b.ReportMetric(float64(st.Commits)/float64(b.N), "commits/run")
	}
}
