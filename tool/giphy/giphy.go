// Package giphy is agno's GiphyTools: search_gifs finds GIFs on GIPHY
// and hands them to the run as images.
//
// Differences from agno v2.6.13: every request has a timeout and the
// answer a size bound (timeout_seconds, max_response_bytes); a GIF
// without images.original is skipped where agno's KeyError failed the
// whole search.
package giphy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// APIKeyEnv is the variable the key is read from, as in agno.
const APIKeyEnv = "GIPHY_API_KEY"

// DefaultBaseURL is GIPHY's search endpoint.
const DefaultBaseURL = "https://api.giphy.com/v1/gifs/search"

// Config configures the toolkit; the fields are agno's GiphyTools
// arguments.
type Config struct {
	// APIKey authenticates; empty reads GIPHY_API_KEY.
	APIKey string
	// Limit is the number of GIFs asked for; 0 means 1.
	Limit int
	// EnableSearchGifs registers search_gifs (agno's default true); All
	// registers every function.
	EnableSearchGifs bool
	All              bool
	// BaseURL is the search endpoint; empty is DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the requests; nil is a guarded client reaching
	// public addresses only.
	HTTPClient *http.Client
	// Timeout bounds one request (0: 30s); MaxResponseBytes bounds the
	// answer read (0: 1 MiB).
	Timeout          time.Duration
	MaxResponseBytes int

	Instructions         string
	AddInstructions      bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

type searchArgs struct {
	Query string `json:"query" description:"(str) A text description of the required gif."`
}

type giphy struct {
	key, base string
	limit     int
	client    *http.Client
	timeout   time.Duration
	max       int
	log       *slog.Logger
}

// New returns agno's "giphy_tools" toolkit. A missing key is logged, as
// agno does, and each search then fails with GIPHY's answer.
func New(cfg Config) (*tool.Toolkit, error) {
	g := &giphy{
		key: cfg.APIKey, base: cfg.BaseURL, limit: cfg.Limit, client: serviceapi.Client(cfg.HTTPClient),
		timeout: cfg.Timeout, max: cfg.MaxResponseBytes, log: cfg.Logger,
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	if g.key == "" {
		g.key = os.Getenv(APIKeyEnv)
	}
	if g.key == "" {
		g.log.Error("No Giphy API key provided")
	}
	if g.base == "" {
		g.base = DefaultBaseURL
	}
	if g.limit == 0 {
		g.limit = 1
	}
	if g.timeout <= 0 {
		g.timeout = serviceapi.DefaultTimeout
	}
	if g.max <= 0 {
		g.max = serviceapi.DefaultMaxResponseBytes
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableSearchGifs)(tool.New("search_gifs", "Find a GIPHY gif", g.searchGifs))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "giphy_tools", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: g.log,
	})
}

// searchResponse is the part of GIPHY's search answer agno reads
// (https://developers.giphy.com/docs/api/endpoint#search).
type searchResponse struct {
	Data []struct {
		AltText string `json:"alt_text"`
		Images  struct {
			Original *struct {
				URL string `json:"url"`
			} `json:"original"`
		} `json:"images"`
	} `json:"data"`
}

func (g *giphy) searchGifs(ctx context.Context, a searchArgs) (tool.Result, error) {
	q := url.Values{"api_key": {g.key}, "q": {a.Query}, "limit": {strconv.Itoa(g.limit)}}
	body, err := serviceapi.Get(ctx, g.client, g.base+"?"+q.Encode(), g.timeout, g.max, "api_key")
	if se, ok := err.(*serviceapi.StatusError); ok {
		g.log.Error("giphy: HTTP error", "status", se.Status)
		return tool.Text(fmt.Sprintf("HTTP error occurred: %d", se.Status)), nil
	}
	if err != nil {
		return tool.Text(fmt.Sprintf("An error occurred: %v", err)), nil
	}
	var resp searchResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return tool.Text(fmt.Sprintf("An error occurred: %v", err)), nil
	}
	var urls []any
	var images []model.Image
	for _, gif := range resp.Data {
		if gif.Images.Original == nil {
			continue
		}
		urls = append(urls, gif.Images.Original.URL)
		images = append(images, model.Image{ID: uuid.NewString(), URL: gif.Images.Original.URL})
	}
	if len(images) == 0 {
		return tool.Text("No gifs found"), nil
	}
	return tool.Result{Content: fmt.Sprintf("Found %d GIF(s): %s", len(urls), pyrepr.Repr(urls)), Images: images}, nil
}
