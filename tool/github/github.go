// Package github is agno's GithubTools over the GitHub REST API through
// the official go-github SDK: repositories, pull requests, issues and
// file contents, with GITHUB_ACCESS_TOKEN and an Enterprise base_url as
// in agno.
//
// All 39 of agno's functions are here. Differences from agno v2.6.13:
//   - every call has a timeout and every answer and result a size bound
//     (timeout_seconds, max_response_bytes);
//   - listings agno walks to the end (list_repositories, list_issues,
//     branches, comments, commits, files) stop after max_pages pages of
//     100;
//   - get_repository_with_stats reads each pull request's merged_at
//     where PyGithub asks GitHub once per pull request (up to 100
//     requests) for the same answer;
//   - edit_pull_request_comment edits the comment by its id (agno scans
//     the repository's comments and reports the last one, unedited,
//     when none has the id).
package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	gh "github.com/google/go-github/v89/github"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// TokenEnv is the variable the token is read from, as in agno.
const TokenEnv = "GITHUB_ACCESS_TOKEN"

// ErrMissingToken is agno's refusal to build without a token.
var ErrMissingToken = errors.New("GitHub access token is required")

// DefaultMaxPages bounds the listings agno walks to the end.
const DefaultMaxPages = 10

// Config configures the toolkit; AccessToken and BaseURL are agno's
// GithubTools arguments.
type Config struct {
	// AccessToken authenticates; empty reads GITHUB_ACCESS_TOKEN.
	AccessToken string
	// BaseURL is a GitHub Enterprise API root
	// ("https://github.example.com/api/v3"); empty is api.github.com.
	BaseURL string
	// HTTPClient sends the requests (it is copied, never changed); nil is
	// a guarded client reaching public addresses only.
	HTTPClient *http.Client
	// Timeout bounds one call (0: 30s); MaxResponseBytes bounds an
	// answer and a result (0: 1 MiB); MaxPages bounds the walked
	// listings (0: 10).
	Timeout          time.Duration
	MaxResponseBytes int
	MaxPages         int

	Instructions         string
	AddInstructions      bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

type tools struct {
	c        *gh.Client
	timeout  time.Duration
	max      int
	maxPages int
	log      *slog.Logger
}

// New returns agno's "github" toolkit.
func New(cfg Config) (*tool.Toolkit, error) {
	token := cfg.AccessToken
	if token == "" {
		token = os.Getenv(TokenEnv)
	}
	if token == "" {
		return nil, ErrMissingToken
	}
	t := &tools{timeout: cfg.Timeout, max: cfg.MaxResponseBytes, maxPages: cfg.MaxPages, log: cfg.Logger}
	if t.timeout <= 0 {
		t.timeout = serviceapi.DefaultTimeout
	}
	if t.max <= 0 {
		t.max = serviceapi.DefaultMaxResponseBytes
	}
	if t.maxPages <= 0 {
		t.maxPages = DefaultMaxPages
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	// go-github wraps the client's transport to add the token: give it a
	// copy so the host's shared client stays as it is.
	hc := *serviceapi.Client(cfg.HTTPClient)
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &boundedTransport{base: base, max: t.max}
	opts := []gh.ClientOptionsFunc{gh.WithHTTPClient(&hc), gh.WithAuthToken(token), gh.WithDisableRateLimitCheck()}
	if cfg.BaseURL != "" {
		u := strings.TrimSuffix(cfg.BaseURL, "/") + "/"
		opts = append(opts, gh.WithURLs(&u, &u))
	}
	c, err := gh.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	t.c = c
	fns, err := t.functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "github", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: t.log,
	})
}

// boundedTransport makes reading an answer past max bytes an error.
type boundedTransport struct {
	base http.RoundTripper
	max  int
}

func (b *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = &boundedBody{rc: resp.Body, left: int64(b.max), limit: b.max}
	}
	return resp, err
}

type boundedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, &serviceapi.TooLargeError{Limit: b.limit}
		}
		return b.rc.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// errorText is str(GithubException): the status and GitHub's answer.
func errorText(err error) string {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		o := serviceapi.NewObject()
		o.Set("message", er.Message)
		if er.DocumentationURL != "" {
			o.Set("documentation_url", er.DocumentationURL)
		}
		s, _ := pyjson.Dumps(o)
		return fmt.Sprintf("%d %s", er.Response.StatusCode, s)
	}
	return err.Error()
}

func errObject(msg string) string {
	o := serviceapi.NewObject()
	o.Set("error", msg)
	s, _ := pyjson.Dumps(o)
	return s
}

// indent is json.dumps(v, indent=2), refused past max_response_bytes.
func (t *tools) indent(v any) string {
	s, err := pyjson.DumpsOpts(v, pyjson.Options{Indent: 2})
	if err != nil {
		return errObject(err.Error())
	}
	if len(s) > t.max {
		return errObject((&serviceapi.TooLargeError{Limit: t.max}).Error())
	}
	return s
}

// fail is agno's except branch: logged, and {"error": str(e)}.
func (t *tools) fail(what string, err error) string {
	t.log.Error("github: "+what, "error", err)
	return errObject(errorText(err))
}

func (t *tools) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, t.timeout)
}

// splitRepo is PyGithub's get_repo("owner/repo").
func splitRepo(name string) (string, string, error) {
	owner, repo, ok := strings.Cut(name, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", "", fmt.Errorf("repo_name %q is not the repository's full name: write it as 'owner/repo'", name)
	}
	return owner, repo, nil
}

// iso is datetime.isoformat() of PyGithub's UTC times.
func iso(ts *gh.Timestamp) any {
	if ts == nil {
		return nil
	}
	return ts.UTC().Format("2006-01-02T15:04:05-07:00")
}

// ptr values as json.dumps writes None.
func sv(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func iv(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func i64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func bv(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func login(u *gh.User) any {
	if u == nil {
		return nil
	}
	return sv(u.Login)
}

// obj builds an ordered object from key, value pairs.
func obj(kv ...any) *serviceapi.Object {
	o := serviceapi.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}
