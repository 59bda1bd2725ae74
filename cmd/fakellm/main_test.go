package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs fakellm in-process and returns its base URL and a stop func
// that cancels it and returns run's error.
func start(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // drains until run returns
	return strings.TrimSpace(line), func() error {
		cancel()
		return <-done
	}
}

func TestToolCallThenAnswer(t *testing.T) {
	url, stop := start(t, "-tokens", "5", "-tool", "get_weather", "-tool-args", `{"city":"Paris"}`)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	m, err := openai.New(openai.Config{Compatible: true, ID: "fake-model", BaseURL: url, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	tools := []model.ToolDefinition{{Name: "get_weather"}}
	msgs := []model.Message{{Role: model.RoleUser, Content: "weather in Paris?"}}

	r, err := model.Collect(m.Generate(context.Background(), &model.Request{Stream: true, Messages: msgs, Tools: tools}))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Name != "get_weather" || r.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || r.Content != "" {
		t.Fatalf("first answer = %+v, want one get_weather call", r)
	}
	msgs = append(msgs,
		model.Message{Role: model.RoleAssistant, ToolCalls: r.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: r.ToolCalls[0].ID, Content: "sunny"})
	r, err = model.Collect(m.Generate(context.Background(), &model.Request{Stream: true, Messages: msgs, Tools: tools}))
	if err != nil {
		t.Fatal(err)
	}
	if r.ToolCalls != nil || r.Content != "token1 token2 token3 token4 token5 " || r.FinishReason != "stop" {
		t.Errorf("answer after the tool result = %+v", r)
	}
	// Without the tool offered there is no call.
	r, err = model.Collect(m.Generate(context.Background(), &model.Request{Messages: msgs[:1]}))
	if err != nil || r.ToolCalls != nil || r.Usage.OutputTokens != 5 {
		t.Errorf("plain answer = %+v, %v", r, err)
	}
	if err := stop(); err != nil {
		t.Errorf("run returned %v after cancel", err)
	}
}

func TestAPIKeyFlag(t *testing.T) {
	url, stop := start(t, "-api-key", "k1", "-models", "a,b")
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, url+"/models", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("models without key: %d", res.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer k1")
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || len(list.Data) != 2 || list.Data[1].ID != "b" {
		t.Errorf("models = %+v, %v", list, err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-tokens", "-1"}, {"-tool-args", "{nope"}, {"extra"}, {"-bogus"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err != errUsage {
			t.Errorf("%v: err = %v, want errUsage", args, err)
		}
	}
}

// TestBinarySignals builds the command and stops it as an operator would.
func TestBinarySignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "fakellm")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "-tokens", "3")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("no URL: %v", err)
		}
		url := strings.TrimSpace(line)
		client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
		res, err := client.Post(url+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		client.CloseIdleConnections()
		if res.StatusCode != 200 || !strings.Contains(string(body), "token1 token2 token3 ") {
			t.Errorf("%d %s", res.StatusCode, body)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%v: exit %v, want a clean exit", sig, err)
		}
	}
}
