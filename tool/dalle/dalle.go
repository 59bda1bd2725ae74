// Package dalle is agno's DalleTools: create_image asks the OpenAI
// Images API (through the official openai-go SDK) for an image and hands
// it to the run as an image.
//
// Differences from agno v2.6.13: every request has a timeout and the
// answer a size bound (timeout_seconds, max_response_bytes); the SDK
// does not retry, so a failure comes back at once.
package dalle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// APIKeyEnv is the variable the key is read from, as in agno.
const APIKeyEnv = "OPENAI_API_KEY"

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures the toolkit; the fields are agno's DalleTools
// arguments. Empty strings and a zero N take agno's defaults (dall-e-3,
// 1, 1024x1024, standard, vivid).
type Config struct {
	Model, Size, Quality, Style string
	N                           int
	// APIKey authenticates; empty reads OPENAI_API_KEY.
	APIKey            string
	EnableCreateImage bool
	All               bool
	// BaseURL is the API base; empty is DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the requests; nil is a guarded client reaching
	// public addresses only.
	HTTPClient *http.Client
	// Timeout bounds one request (0: 60s); MaxResponseBytes bounds the
	// answer read (0: 1 MiB).
	Timeout          time.Duration
	MaxResponseBytes int

	Instructions         string
	AddInstructions      bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

// DefaultTimeout bounds one generation: images take longer than text.
const DefaultTimeout = 60 * time.Second

type promptArgs struct {
	Prompt string `json:"prompt" description:"(str) A text description of the desired image."`
}

type dalle struct {
	params  openai.ImageGenerateParams
	key     string
	svc     openai.ImageService
	timeout time.Duration
	log     *slog.Logger
}

// Check is agno's validation of the arguments, with agno's messages.
func (c *Config) Check() error {
	c.Model = cmp(c.Model, "dall-e-3")
	c.Size = cmp(c.Size, "1024x1024")
	c.Quality = cmp(c.Quality, "standard")
	c.Style = cmp(c.Style, "vivid")
	if c.N == 0 {
		c.N = 1
	}
	switch {
	case c.Model != "dall-e-3" && c.Model != "dall-e-2":
		return &ArgError{"model", "Invalid model. Please choose from 'dall-e-3' or 'dall-e-2'."}
	case !oneOf(c.Size, "256x256", "512x512", "1024x1024", "1792x1024", "1024x1792"):
		return &ArgError{"size", "Invalid size. Please choose from '256x256', '512x512', '1024x1024', '1792x1024', '1024x1792'."}
	case c.Quality != "standard" && c.Quality != "hd":
		return &ArgError{"quality", "Invalid quality. Please choose from 'standard' or 'hd'."}
	case c.N <= 0:
		return &ArgError{"n", "Invalid number of images. Please provide a positive integer."}
	case c.Model == "dall-e-3" && c.N > 1:
		return &ArgError{"n", "Dall-e-3 only supports a single image generation."}
	case c.Style != "vivid" && c.Style != "natural":
		// agno's Literal["vivid", "natural"], which Python does not enforce.
		return &ArgError{"style", "Invalid style. Please choose from 'vivid' or 'natural'."}
	}
	return nil
}

// ArgError is agno's ValueError for a bad argument; Arg names it.
type ArgError struct{ Arg, Msg string }

func (e *ArgError) Error() string { return e.Msg }

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func oneOf(s string, vals ...string) bool {
	for _, v := range vals {
		if s == v {
			return true
		}
	}
	return false
}

// New returns agno's "dalle" toolkit. A missing key is logged, as agno
// does, and create_image then says so to the model.
func New(cfg Config) (*tool.Toolkit, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	d := &dalle{key: cfg.APIKey, timeout: cfg.Timeout, log: cfg.Logger}
	if d.log == nil {
		d.log = slog.Default()
	}
	if d.key == "" {
		d.key = os.Getenv(APIKeyEnv)
	}
	if d.key == "" {
		d.log.Error("OPENAI_API_KEY not set. Please set the OPENAI_API_KEY environment variable.")
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	limit := cfg.MaxResponseBytes
	if limit <= 0 {
		limit = serviceapi.DefaultMaxResponseBytes
	}
	d.params = openai.ImageGenerateParams{
		Model: openai.ImageModel(cfg.Model), N: openai.Int(int64(cfg.N)),
		Quality: openai.ImageGenerateParamsQuality(cfg.Quality), Size: openai.ImageGenerateParamsSize(cfg.Size),
		Style: openai.ImageGenerateParamsStyle(cfg.Style),
	}
	// Options are given explicitly rather than through openai.NewClient,
	// which would also read OPENAI_BASE_URL and OPENAI_ORG_ID.
	d.svc = openai.NewImageService(
		option.WithHTTPClient(serviceapi.Client(cfg.HTTPClient)),
		option.WithBaseURL(strings.TrimSuffix(cmp(cfg.BaseURL, DefaultBaseURL), "/")+"/"),
		option.WithAPIKey(d.key),
		option.WithMaxRetries(0),
		option.WithMiddleware(limitBody(limit)),
	)
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableCreateImage)(tool.New("create_image", "Use this function to generate an image for a prompt.", d.createImage))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "dalle", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: d.log,
	})
}

// limitBody makes reading an answer past limit bytes an error, so the
// SDK never holds more.
func limitBody(limit int) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err == nil && resp.Body != nil {
			resp.Body = &boundedBody{rc: resp.Body, left: int64(limit), limit: limit}
		}
		return resp, err
	}
}

type boundedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly limit bytes from a longer one.
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

func (d *dalle) createImage(ctx context.Context, a promptArgs) (tool.Result, error) {
	if d.key == "" {
		return tool.Text("Please set the OPENAI_API_KEY"), nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	p := d.params
	p.Prompt = a.Prompt
	resp, err := d.svc.Generate(ctx, p)
	if err != nil {
		d.log.Error("Failed to generate image", "error", err)
		return tool.Text(fmt.Sprintf("Error: %v", err)), nil
	}
	var images []model.Image
	var b strings.Builder
	for _, img := range resp.Data {
		if img.URL == "" {
			continue
		}
		images = append(images, model.Image{ID: uuid.NewString(), URL: img.URL})
		fmt.Fprintf(&b, "Image has been generated at the URL %s\n", img.URL)
	}
	if b.Len() == 0 {
		return tool.Text("No images were generated"), nil
	}
	return tool.Result{Content: b.String(), Images: images}, nil
}
