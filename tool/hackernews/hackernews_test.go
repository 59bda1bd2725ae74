package hackernews_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/hackernews"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeHN answers as the Hacker News Firebase API documents
// (https://github.com/HackerNews/API): /topstories.json is an array of
// ids, /item/<id>.json a story object (by, descendants, id, kids, score,
// time, title, type, url), /user/<id>.json a user (about, created, id,
// karma, submitted), and an unknown id answers null.
//
// With withBroken the fourth top story is one the API fails on, and the
// user "big" has a long about.
func fakeHN(t *testing.T, broken, withBroken bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case broken:
			http.Error(w, "boom", http.StatusInternalServerError)
		case r.URL.Path == "/v0/topstories.json":
			ids := []string{"8863", "404", "8864"}
			if withBroken {
				ids = append(ids, "500")
			}
			for i := range 20 {
				ids = append(ids, fmt.Sprint(9000+i))
			}
			fmt.Fprintf(w, "[%s]", strings.Join(ids, ","))
		case r.URL.Path == "/v0/item/500.json":
			http.Error(w, "boom", http.StatusInternalServerError)
		case r.URL.Path == "/v0/user/big.json":
			fmt.Fprintf(w, `{"about":%q,"id":"big","karma":1}`, strings.Repeat("long ", 2000))
		case r.URL.Path == "/v0/item/404.json":
			fmt.Fprint(w, "null")
		case strings.HasPrefix(r.URL.Path, "/v0/item/"):
			id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v0/item/"), ".json")
			fmt.Fprintf(w, `{"by":"dhouston","descendants":71,"id":%s,"kids":[8952,9224],"score":111,"time":1175714200,"title":"My YC app: Dropbox - Throw away your USB drive","type":"story","url":"http://www.getdropbox.com/u/2/screencast.html"}`, id)
		case r.URL.Path == "/v0/user/jl.json":
			fmt.Fprint(w, `{"about":"This is a test","created":1173923446,"delay":0,"id":"jl","karma":2937,"submitted":[8265435,8168423,8090946]}`)
		case strings.HasPrefix(r.URL.Path, "/v0/user/"):
			fmt.Fprint(w, "null")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's HackerNewsTools
// (tools/hackernews.py), named "hackers_news".
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "hackernews",
		Name:    "hackers_news",
		Functions: []tooltest.Function{
			{Name: "get_top_hackernews_stories", Args: []string{"num_stories"}},
			{Name: "get_user_details", Args: []string{"username"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeHN(t, false, true)
			env.HTTPClient = webapitest.Client(t)
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 3000", srv.URL+"/v0")
		},
		Failures: map[string][]tooltest.Call{
			"get_top_hackernews_stories": {{Args: `{"num_stories": 5}`, Want: "Error fetching stories: GET http://127.0.0.1"}},
			"get_user_details":           {{Args: `{"username": "nobody"}`, Want: "Error getting user details"}},
		},
		Oversized: &tooltest.Oversized{Function: "get_user_details", Call: tooltest.Call{Args: `{"username": "big"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 3000},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "not a url"`, Key: "base_url"},
			{Table: `max_result_bytes = 0`, Key: "max_result_bytes"},
		},
	})
}

func build(t *testing.T, table string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("hackernews")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
		t.Fatal(err)
	}
	if err := tk.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	out := map[string]*tool.Function{}
	for _, f := range fns {
		out[f.Name] = f
	}
	return out
}

func invoke(t *testing.T, f *tool.Function, args map[string]any) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return res.Content
}

// The stories come back as agno's json.dumps: the items in the API's key
// order with "username", a missing (null) item skipped; the user as
// agno's four keys.
func TestStoriesAndUser(t *testing.T) {
	srv := fakeHN(t, false, false)
	fns := build(t, fmt.Sprintf("base_url = %q", srv.URL+"/v0"))
	got := invoke(t, fns["get_top_hackernews_stories"], map[string]any{"num_stories": 3})
	story := `{"by": "dhouston", "descendants": 71, "id": %s, "kids": [8952, 9224], "score": 111, "time": 1175714200, "title": "My YC app: Dropbox - Throw away your USB drive", "type": "story", "url": "http://www.getdropbox.com/u/2/screencast.html", "username": "dhouston"}`
	if want := "[" + fmt.Sprintf(story, "8863") + ", " + fmt.Sprintf(story, "8864") + "]"; got != want {
		t.Errorf("stories:\n%s\nwant\n%s", got, want)
	}
	got = invoke(t, fns["get_user_details"], map[string]any{"username": "jl"})
	if want := `{"id": "jl", "karma": 2937, "about": "This is a test", "total_items_submitted": 3}`; got != want {
		t.Errorf("user:\n%s\nwant\n%s", got, want)
	}
	// The default is 10 stories.
	if got := invoke(t, fns["get_top_hackernews_stories"], map[string]any{}); strings.Count(got, `"username"`) != 9 {
		t.Errorf("default: %d stories", strings.Count(got, `"username"`))
	}
}

// A failing API reaches the model as agno's error text.
func TestAPIDown(t *testing.T) {
	srv := fakeHN(t, true, false)
	fns := build(t, fmt.Sprintf("base_url = %q\nenable_get_user_details = false", srv.URL+"/v0"))
	if _, ok := fns["get_user_details"]; ok {
		t.Error("enable_get_user_details = false kept get_user_details")
	}
	got := invoke(t, fns["get_top_hackernews_stories"], map[string]any{})
	if !strings.HasPrefix(got, "Error fetching stories: GET "+srv.URL+"/v0/topstories.json: 500 Internal Server Error") {
		t.Errorf("got %q", got)
	}
}

// Stories stop being fetched once the result is past its bound.
func TestStoriesBounded(t *testing.T) {
	srv := fakeHN(t, false, false)
	fns := build(t, fmt.Sprintf("base_url = %q\nmax_result_bytes = 1000", srv.URL+"/v0"))
	got := invoke(t, fns["get_top_hackernews_stories"], map[string]any{"num_stories": 20})
	if n := strings.Count(got, `"by"`); n != 4 || !strings.Contains(got, "result truncated") || len(got) > 1256 {
		t.Errorf("%d stories, %d bytes: %s", n, len(got), got)
	}
}

// include_tools and exclude_tools (the host's keys for every toolkit)
// keep and drop HackerNews' functions by name, as agno's; an unknown
// name is refused with the ones there are.
func TestIncludeExcludeTools(t *testing.T) {
	tk, _ := tool.LookupToolkit("hackernews")
	p, err := tk.New(tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(sel tool.ToolSelection) ([]string, error) {
		q, err := sel.Apply(p)
		if err != nil {
			return nil, err
		}
		fns, _ := q.Functions(context.Background())
		var out []string
		for _, f := range fns {
			out = append(out, f.Name)
		}
		return out, nil
	}
	if got, err := names(tool.ToolSelection{IncludeTools: []string{"get_user_details"}}); err != nil || len(got) != 1 || got[0] != "get_user_details" {
		t.Errorf("include_tools: %v %v", got, err)
	}
	if got, err := names(tool.ToolSelection{ExcludeTools: []string{"get_user_details"}}); err != nil || len(got) != 1 || got[0] != "get_top_hackernews_stories" {
		t.Errorf("exclude_tools: %v %v", got, err)
	}
	if _, err := names(tool.ToolSelection{IncludeTools: []string{"get_top_stories"}}); err == nil || !strings.Contains(err.Error(), "get_top_stories") {
		t.Errorf("unknown name: %v", err)
	}
}
