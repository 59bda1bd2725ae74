// Package searxng is agno's Searxng toolkit (tools/searxng.py): web,
// image, IT, map, music, news, science and video searches on a SearXNG
// instance's JSON API (https://docs.searxng.org/dev/search_api.html),
// answering its JSON with the results cut to max_results.
package searxng

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list, and agno's toolkit name.
const RegisteredName = "searxng"

// Options are the keys of [toolkits.searxng]: agno's Searxng arguments,
// plus the timeout and the result bound. host is required; an instance
// on the local network must also be allowed in [outbound] allow.
type Options struct {
	Host            string   `toml:"host"`
	Engines         []string `toml:"engines"`
	FixedMaxResults int      `toml:"fixed_max_results"`
	Timeout         int      `toml:"timeout"`
	MaxResultBytes  int      `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "searches on a SearXNG instance (agno's Searxng)",
		Defaults: func(tool.ToolkitEnv) Options {
			// httpx's default timeout is 5 seconds.
			return Options{Timeout: 5, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			// An empty host is refused by New, so the toolkit is only
			// missing for the agents that name it.
			if o.Host != "" {
				errs = append(errs, webapi.CheckURL("host", o.Host))
			}
			if o.FixedMaxResults < 0 {
				errs = append(errs, tool.OptionErrorf("fixed_max_results", "fixed_max_results = %d: use a positive number, or leave it out", o.FixedMaxResults))
			}
			errs = append(errs, webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			return New(*o, c)
		},
	})
}

type args struct {
	Query      string `json:"query"`
	MaxResults *int   `json:"max_results,omitempty"`
}

// function is one of agno's eight searches.
type function struct {
	name, desc, what, category string
}

var functions = []function{
	{"search_web", "Use this function to search the web.", "search the web with", ""},
	{"image_search", "Use this function to search for images.", "search images with", "images"},
	{"it_search", "Use this function to search for IT related information.", "search for IT related information", "it"},
	{"map_search", "Use this function to search maps", "search maps with", "map"},
	{"music_search", "Use this function to search for information related to music.", "search music with", "music"},
	{"news_search", "Use this function to search for news.", "search news with", "news"},
	{"science_search", "Use this function to search for information related to science.", "search science with", "science"},
	{"video_search", "Use this function to search for videos.", "search videos with", "videos"},
}

// New builds agno's Searxng toolkit.
func New(o Options, c webapi.Client) (*tool.Toolkit, error) {
	if o.Host == "" {
		return nil, errors.New(`searxng: host is not set: give the SearXNG instance's URL in [toolkits.searxng], e.g. host = "http://searxng.internal:8080"`)
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if c.HTTP == nil {
		return nil, errors.New("searxng: the client has no *http.Client: build it with webapi.NewClient")
	}
	s := &searxng{o: o, c: c}
	var list []*tool.Function
	for _, f := range functions {
		desc, _ := json.Marshal("(str) The query to " + f.what + ".")
		// Written out so the properties keep agno's order.
		params := json.RawMessage(`{"type": "object", "properties": {"query": {"type": "string", "description": ` + string(desc) +
			`}, "max_results": {"type": "integer", "description": "(int) The maximum number of results to return. Defaults to 5."}}, "required": ["query"]}`)
		category := f.category
		fn, err := tool.NewRaw(f.name, f.desc, params, func(ctx context.Context, raw map[string]any) (tool.Result, error) {
			b, err := json.Marshal(raw)
			if err != nil {
				return tool.Result{}, err
			}
			var a args
			if err := json.Unmarshal(b, &a); err != nil {
				return tool.Result{}, err
			}
			return tool.Text(s.search(ctx, a, category)), nil
		})
		if err != nil {
			return nil, err
		}
		list = append(list, fn)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: RegisteredName, Functions: list})
}

type searxng struct {
	o Options
	c webapi.Client
}

func (s *searxng) search(ctx context.Context, a args, category string) string {
	u := strings.TrimSuffix(s.o.Host, "/") + "/search?format=json&q=" + url.PathEscape(a.Query)
	if len(s.o.Engines) > 0 {
		u += "&engines=" + strings.Join(s.o.Engines, ",")
	}
	if category != "" {
		u += "&categories=" + category
	}
	n := 5
	if a.MaxResults != nil {
		n = *a.MaxResults
	}
	if s.o.FixedMaxResults > 0 {
		n = s.o.FixedMaxResults
	}
	body, err := s.c.Get(ctx, u, nil)
	if err != nil {
		return "Error fetching results from searxng: " + err.Error()
	}
	out, err := cutResults(body, n)
	if err != nil {
		return "Error fetching results from searxng: " + err.Error()
	}
	return webapi.Bound(out, s.o.MaxResultBytes)
}

// cutResults is agno's resp["results"] = resp["results"][:n] then
// json.dumps(resp): the answer's keys in their order.
func cutResults(body []byte, n int) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", errors.New("the answer is not a JSON object: is format=json enabled in the instance's settings.yml (search.formats)?")
	}
	var b bytes.Buffer
	b.WriteByte('{')
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		if key == "results" {
			found = true
			var results []json.RawMessage
			if err := json.Unmarshal(v, &results); err != nil {
				return "", fmt.Errorf("'results' is not a list: %w", err)
			}
			if n >= 0 && len(results) > n {
				results = results[:n]
			} else if n < 0 {
				results = results[:max(len(results)+n, 0)]
			}
			if v, err = json.Marshal(results); err != nil {
				return "", err
			}
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if !found {
		return "", errors.New("'results'")
	}
	b.WriteByte('}')
	return pyjson.Dumps(json.RawMessage(b.Bytes()))
}
