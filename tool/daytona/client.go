package daytona

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The Daytona REST API as the official SDKs use it:
//
//	POST {api}/sandbox                     create (CreateSandbox body)
//	GET  {api}/sandbox/{id}                get (Sandbox: id, state, toolboxProxyUrl, errorReason)
//	POST {api}/sandbox/{id}/start          start
//	POST {toolbox}/process/execute         {"command","cwd"?} -> {"exitCode","result"}
//	POST {toolbox}/process/code-run        {"code","language"} -> {"exitCode","result"}
//
// {toolbox} is the sandbox's toolboxProxyUrl + "/" + id; a sandbox without
// one is reached through the older {api}/toolbox/{id}/toolbox route. Every
// request carries "Authorization: Bearer <key>" and, when set,
// X-Daytona-Organization-ID.

const (
	stateStarted = "started"
	defaultAPI   = "https://app.daytona.io/api"
)

type sandbox struct {
	ID              string `json:"id"`
	State           string `json:"state"`
	ToolboxProxyURL string `json:"toolboxProxyUrl"`
	ErrorReason     string `json:"errorReason"`
}

type createSandbox struct {
	User             string            `json:"user,omitempty"`
	Env              map[string]string `json:"env"`
	Labels           map[string]string `json:"labels"`
	Public           *bool             `json:"public,omitempty"`
	Target           string            `json:"target,omitempty"`
	AutoStopInterval int               `json:"autoStopInterval"`
}

type execRequest struct {
	Command string  `json:"command"`
	Cwd     *string `json:"cwd,omitempty"`
}

type codeRunRequest struct {
	Code     string `json:"code"`
	Language string `json:"language"`
}

type execResult struct {
	ExitCode int
	Result   string
}

func (r *execResult) UnmarshalJSON(b []byte) error {
	var raw struct {
		ExitCode *int   `json:"exitCode"`
		Code     *int   `json:"code"` // older daemons
		Result   string `json:"result"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	r.Result = raw.Result
	switch {
	case raw.ExitCode != nil:
		r.ExitCode = *raw.ExitCode
	case raw.Code != nil:
		r.ExitCode = *raw.Code
	}
	return nil
}

// apiError is a non-2xx answer from Daytona.
type apiError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("daytona %s %s: %d %s: %s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Message)
}

type client struct {
	http   *http.Client
	api    string
	key    string
	org    string
	poll   time.Duration
	source string
}

func (c *client) do(ctx context.Context, method, rawURL string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Daytona-Source", c.source)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.org != "" {
		req.Header.Set("X-Daytona-Organization-ID", c.org)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("daytona %s %s: reading response: %w", method, req.URL.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &apiError{Method: method, Path: req.URL.Path, Status: resp.StatusCode, Message: errorMessage(data)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("daytona %s %s: decoding response: %w", method, req.URL.Path, err)
	}
	return nil
}

// errorMessage pulls "message" (a string or a list of strings) out of a
// Daytona error body, or returns the body itself.
func errorMessage(body []byte) string {
	var e struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Message) > 0 {
		var s string
		if json.Unmarshal(e.Message, &s) == nil {
			return s
		}
		var list []string
		if json.Unmarshal(e.Message, &list) == nil {
			return strings.Join(list, "; ")
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 512 {
		s = s[:512] + "…"
	}
	return s
}

func (c *client) sandboxURL(id string, suffix string) string {
	return c.api + "/sandbox/" + url.PathEscape(id) + suffix
}

func (c *client) get(ctx context.Context, id string) (*sandbox, error) {
	var sb sandbox
	if err := c.do(ctx, http.MethodGet, c.sandboxURL(id, ""), nil, &sb); err != nil {
		return nil, err
	}
	if sb.ID == "" {
		return nil, fmt.Errorf("daytona: sandbox %q: response has no id", id)
	}
	return &sb, nil
}

// create creates a sandbox and waits until it has started.
func (c *client) create(ctx context.Context, req createSandbox, timeout time.Duration) (*sandbox, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var sb sandbox
	if err := c.do(ctx, http.MethodPost, c.api+"/sandbox", req, &sb); err != nil {
		return nil, err
	}
	if sb.ID == "" {
		return nil, errors.New("daytona: create sandbox: response has no id")
	}
	return c.waitStarted(ctx, &sb, timeout)
}

// start starts a sandbox that is not running and waits until it has.
func (c *client) start(ctx context.Context, sb *sandbox, timeout time.Duration) (*sandbox, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch sb.State {
	case "starting", "creating", "restoring":
		// Already on its way; a second start request would be refused.
	default:
		var started sandbox
		if err := c.do(ctx, http.MethodPost, c.sandboxURL(sb.ID, "/start"), nil, &started); err != nil {
			return nil, err
		}
		if started.ID != "" {
			sb = &started
		}
	}
	return c.waitStarted(ctx, sb, timeout)
}

// waitStarted polls the sandbox until it is started, failed, or ctx (which
// carries the lifecycle timeout) ends.
func (c *client) waitStarted(ctx context.Context, sb *sandbox, timeout time.Duration) (*sandbox, error) {
	expired := func(err error) error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("daytona: sandbox %s did not start within %s (last state %q)", sb.ID, timeout, sb.State)
		}
		return err
	}
	for {
		switch sb.State {
		case stateStarted:
			return sb, nil
		case "error", "build_failed":
			return nil, fmt.Errorf("daytona: sandbox %s failed to start (state %s): %s", sb.ID, sb.State, sb.ErrorReason)
		}
		t := time.NewTimer(c.poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, expired(ctx.Err())
		case <-t.C:
		}
		next, err := c.get(ctx, sb.ID)
		if err != nil {
			return nil, expired(err)
		}
		sb = next
	}
}

func (c *client) toolboxURL(sb *sandbox, endpoint string) string {
	if sb.ToolboxProxyURL != "" {
		return strings.TrimRight(sb.ToolboxProxyURL, "/") + "/" + url.PathEscape(sb.ID) + endpoint
	}
	return c.api + "/toolbox/" + url.PathEscape(sb.ID) + "/toolbox" + endpoint
}

// exec runs a shell command in the sandbox. A nil cwd leaves the choice to
// the sandbox (its user's home), as agno's exec without cwd does.
func (c *client) exec(ctx context.Context, sb *sandbox, command string, cwd *string) (execResult, error) {
	var res execResult
	err := c.do(ctx, http.MethodPost, c.toolboxURL(sb, "/process/execute"), execRequest{Command: command, Cwd: cwd}, &res)
	return res, err
}

// codeRun runs code with the sandbox's language runtime. A toolbox too old
// to have /process/code-run (404) gets the program through exec instead,
// base64-encoded so no shell quoting is involved.
func (c *client) codeRun(ctx context.Context, sb *sandbox, code, language string) (execResult, error) {
	var res execResult
	err := c.do(ctx, http.MethodPost, c.toolboxURL(sb, "/process/code-run"), codeRunRequest{Code: code, Language: language}, &res)
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return res, err
	}
	cmd, ok := codeRunCommand(code, language)
	if !ok {
		return res, fmt.Errorf("%w (and %s code cannot be run through exec)", err, language)
	}
	return c.exec(ctx, sb, cmd, nil)
}

// codeRunCommand is the exec fallback of codeRun.
func codeRunCommand(code, language string) (string, bool) {
	enc := base64.StdEncoding.EncodeToString([]byte(code))
	switch language {
	case "python":
		return `python3 -u -c "exec(__import__('base64').b64decode('` + enc + `').decode())"`, true
	case "javascript":
		return "printf %s " + enc + " | base64 -d | node -", true
	}
	return "", false
}
