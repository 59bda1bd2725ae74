// Package hackernews is agno's HackerNewsTools (tools/hackernews.py):
// get_top_hackernews_stories and get_user_details over the Hacker News
// Firebase API (https://github.com/HackerNews/API).
package hackernews

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

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "hackers_news".
const RegisteredName = "hackernews"

// DefaultBaseURL is the Firebase API's root.
const DefaultBaseURL = "https://hacker-news.firebaseio.com/v0"

// Options are the keys of [toolkits.hackernews]: agno's HackerNewsTools
// arguments, plus the API root, the timeout and the result bound.
type Options struct {
	EnableGetTopStories  bool   `toml:"enable_get_top_stories"`
	EnableGetUserDetails bool   `toml:"enable_get_user_details"`
	All                  bool   `toml:"all"`
	BaseURL              string `toml:"base_url"`
	Timeout              int    `toml:"timeout"`
	MaxResultBytes       int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "top stories and user details from Hacker News (agno's HackerNewsTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			// httpx's default timeout is 5 seconds.
			return Options{EnableGetTopStories: true, EnableGetUserDetails: true, BaseURL: DefaultBaseURL, Timeout: 5, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			return errors.Join(webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			return New(Config{EnableGetTopStories: o.EnableGetTopStories, EnableGetUserDetails: o.EnableGetUserDetails, All: o.All, BaseURL: o.BaseURL, HTTP: c, MaxResultBytes: o.MaxResultBytes})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	EnableGetTopStories, EnableGetUserDetails, All bool
	BaseURL                                        string
	HTTP                                           webapi.Client
	MaxResultBytes                                 int
	// IncludeTools and ExcludeTools keep or drop functions by name.
	IncludeTools, ExcludeTools []string
}

type storiesArgs struct {
	NumStories *int `json:"num_stories,omitempty" description:"(int) Number of stories to return. Defaults to 10."`
}

type userArgs struct {
	Username string `json:"username" description:"(str) Username of the user to get details for."`
}

// New builds agno's HackerNewsTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if cfg.HTTP.HTTP == nil {
		return nil, errors.New("hackernews: Config.HTTP has no client: build it with webapi.NewClient")
	}
	h := &hn{cfg: cfg, base: strings.TrimSuffix(cfg.BaseURL, "/")}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableGetTopStories)(tool.New("get_top_hackernews_stories", "Use this function to get top stories from Hacker News.", h.topStories))
	fns.If(cfg.EnableGetUserDetails)(tool.New("get_user_details", "Use this function to get the details of a Hacker News user using their username.", h.userDetails))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "hackers_news", Functions: list, Include: cfg.IncludeTools, Exclude: cfg.ExcludeTools})
}

type hn struct {
	cfg  Config
	base string
}

// topStories answers agno's json.dumps(stories): each item as the API
// gives it, plus "username" (its "by").
func (h *hn) topStories(ctx context.Context, a storiesArgs) (string, error) {
	n := 10
	if a.NumStories != nil {
		n = *a.NumStories
	}
	var ids []json.Number
	if err := h.cfg.HTTP.GetJSON(ctx, h.base+"/topstories.json", nil, &ids); err != nil {
		return "Error fetching stories: " + err.Error(), nil
	}
	if n < 0 {
		// Python's story_ids[:-k] drops the last k.
		n = max(len(ids)+n, 0)
	}
	stories := []any{}
	size := 0
	for _, id := range ids[:min(n, len(ids))] {
		var item json.RawMessage
		if err := h.cfg.HTTP.GetJSON(ctx, h.base+"/item/"+url.PathEscape(id.String())+".json", nil, &item); err != nil {
			return "Error fetching stories: " + err.Error(), nil
		}
		item = bytes.TrimSpace(item)
		if string(item) == "null" || len(item) < 2 || item[0] != '{' {
			continue
		}
		var by struct {
			By *string `json:"by"`
		}
		_ = json.Unmarshal(item, &by)
		username := "unknown"
		if by.By != nil {
			username = *by.By
		}
		u, _ := json.Marshal(username)
		body := bytes.TrimSpace(item[1 : len(item)-1])
		withUser := []byte("{")
		if len(body) > 0 {
			withUser = append(append(withUser, body...), ',')
		}
		withUser = append(append(append(withUser, `"username":`...), u...), '}')
		stories = append(stories, json.RawMessage(withUser))
		// Past the bound more stories would only be cut off: stop asking.
		if size += len(withUser); size > h.cfg.MaxResultBytes {
			break
		}
	}
	out, err := pyjson.Dumps(stories)
	if err != nil {
		return "Error fetching stories: " + err.Error(), nil
	}
	return webapi.Bound(out, h.cfg.MaxResultBytes), nil
}

type userDetails struct {
	ID                  any `json:"id"`
	Karma               any `json:"karma"`
	About               any `json:"about"`
	TotalItemsSubmitted int `json:"total_items_submitted"`
}

func (h *hn) userDetails(ctx context.Context, a userArgs) (string, error) {
	var user map[string]json.RawMessage
	if err := h.cfg.HTTP.GetJSON(ctx, h.base+"/user/"+url.PathEscape(a.Username)+".json", nil, &user); err != nil {
		return "Error getting user details: " + err.Error(), nil
	}
	if user == nil {
		return fmt.Sprintf("Error getting user details: Hacker News has no user %q", a.Username), nil
	}
	field := func(k string) any {
		raw, ok := user[k]
		if !ok {
			return nil
		}
		return raw
	}
	var submitted []json.RawMessage
	_ = json.Unmarshal(user["submitted"], &submitted)
	// agno reads "user_id", a key the API does not have, so its "id" is
	// always null; the API's "id" is what it meant.
	d := userDetails{ID: field("id"), Karma: field("karma"), About: field("about"), TotalItemsSubmitted: len(submitted)}
	out, err := pyjson.Dumps(d)
	if err != nil {
		return "Error getting user details: " + err.Error(), nil
	}
	return webapi.Bound(out, h.cfg.MaxResultBytes), nil
}
