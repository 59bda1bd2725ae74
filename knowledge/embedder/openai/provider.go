package openai

import (
	"cmp"
	"fmt"
	"os"

	"github.com/agno-go/agno/knowledge/embedder"
)

// Provider names of [knowledge.NAME.embedder]: agno's "openai", and
// "openai-compatible" for any endpoint that speaks /embeddings (agno's
// OpenAILike).
const (
	ProviderOpenAI     = "openai"
	ProviderCompatible = "openai-compatible"
)

// ProviderOptions are the keys of a [knowledge.NAME.embedder] table of
// this package's providers beyond the common ones: agno's
// OpenAIEmbedder fields.
type ProviderOptions struct {
	// User is agno's user: sent as the request's "user" field.
	User string `toml:"user"`
}

// Preset is a vendor agno has an OpenAIEmbedder subclass for: its
// endpoint, key variable, default model and dimensions, each overridable
// in the table.
type Preset struct {
	// Name is agno's model-string provider name ("together").
	Name string
	// Class is agno's embedder class ("TogetherEmbedder").
	Class      string
	BaseURL    string
	KeyEnv     string
	Model      string
	Dimensions int
}

// Presets are agno v2.6.13's OpenAIEmbedder subclasses with a fixed
// endpoint (knowledge/embedder/{together,fireworks,nebius}.py).
var Presets = []Preset{
	{Name: "fireworks", Class: "FireworksEmbedder", BaseURL: "https://api.fireworks.ai/inference/v1", KeyEnv: "FIREWORKS_API_KEY", Model: "nomic-ai/nomic-embed-text-v1.5", Dimensions: 768},
	{Name: "nebius", Class: "NebiusEmbedder", BaseURL: "https://api.tokenfactory.nebius.com/v1/", KeyEnv: "NEBIUS_API_KEY", Model: "BAAI/bge-en-icl", Dimensions: 1024},
	{Name: "together", Class: "TogetherEmbedder", BaseURL: "https://api.together.xyz/v1", KeyEnv: "TOGETHER_API_KEY", Model: "togethercomputer/m2-bert-80M-32k-retrieval", Dimensions: 768},
}

func init() {
	embedder.Register(ProviderOpenAI, embedder.Provider[ProviderOptions]{
		Summary:      "OpenAI's embeddings API, agno's OpenAIEmbedder",
		KeyEnv:       OpenAIKeyEnv,
		DefaultModel: DefaultID,
		New: func(o embedder.Options, x *ProviderOptions) (embedder.Embedder, error) {
			return fromOptions(o, x, OpenAIKeyEnv)
		},
	})
	embedder.Register(ProviderCompatible, embedder.Provider[ProviderOptions]{
		Summary:         "any /embeddings endpoint by base_url: vLLM, LiteLLM, a gateway; agno's OpenAILikeEmbedder",
		RequiresBaseURL: true,
		New: func(o embedder.Options, x *ProviderOptions) (embedder.Embedder, error) {
			if o.BaseURL == "" {
				return nil, fmt.Errorf("%w: openai-compatible needs a base_url, for example \"http://localhost:8000/v1\"", ErrInvalidConfig)
			}
			return fromOptions(o, x, "")
		},
	})
	for _, p := range Presets {
		embedder.Register(p.Name, embedder.Provider[ProviderOptions]{
			Summary:      "agno's " + p.Class + ": " + p.BaseURL + " (OpenAI-compatible /embeddings)",
			KeyEnv:       p.KeyEnv,
			DefaultModel: p.Model,
			New:          p.New,
		})
	}
}

// New builds the preset's embedder: the preset's endpoint, key variable,
// model and dimensions where o leaves them empty.
func (p Preset) New(o embedder.Options, x *ProviderOptions) (embedder.Embedder, error) {
	o.BaseURL = cmp.Or(o.BaseURL, p.BaseURL)
	o.APIKeyEnv = cmp.Or(o.APIKeyEnv, p.KeyEnv)
	o.Model = cmp.Or(o.Model, p.Model)
	// agno keeps the class's dimensions when only the id changes.
	o.Dimensions = cmp.Or(o.Dimensions, p.Dimensions)
	return fromOptions(o, x, p.KeyEnv)
}

// fromOptions builds an Embedder; a key variable that is not set gives
// one whose calls fail saying what to export (embedder.Provider.New).
// keyEnv is the provider's default variable, for that message.
func fromOptions(o embedder.Options, x *ProviderOptions, keyEnv string) (embedder.Embedder, error) {
	cfg := Config{ID: o.Model, BaseURL: o.BaseURL, APIKeyEnv: o.APIKeyEnv, Dimensions: o.Dimensions, BatchSize: o.BatchSize}
	if x != nil {
		cfg.User = x.User
	}
	return embedder.NewOrMissingKey(func(placeholder string) (embedder.Embedder, error) {
		c := cfg
		if placeholder != "" {
			c.APIKey, c.APIKeyEnv = placeholder, ""
		}
		return New(c)
	}, embedder.KeyNotSet(ErrNoAPIKey, cmp.Or(cfg.APIKeyEnv, keyEnv, OpenAIKeyEnv)))
}

// LangDBOptions are the [knowledge.NAME.embedder] keys of agno's
// LangDBEmbedder: the project its endpoint is under.
type LangDBOptions struct {
	ProviderOptions
	ProjectID string `toml:"project_id"`
}

var langDB = Preset{Name: "langdb", Class: "LangDBEmbedder", KeyEnv: "LANGDB_API_KEY", Model: "text-embedding-ada-002", Dimensions: 1536}

func init() {
	embedder.Register(langDB.Name, embedder.Provider[LangDBOptions]{
		Summary:      "agno's LangDBEmbedder: the LangDB gateway's /embeddings of project_id (OpenAI-compatible)",
		KeyEnv:       langDB.KeyEnv,
		DefaultModel: langDB.Model,
		New: func(o embedder.Options, x *LangDBOptions) (embedder.Embedder, error) {
			if o.BaseURL == "" {
				project := cmp.Or(x.ProjectID, os.Getenv("LANGDB_PROJECT_ID"))
				if project == "" {
					return nil, fmt.Errorf("%w: langdb needs project_id (or LANGDB_PROJECT_ID) to build its endpoint, or base_url", ErrInvalidConfig)
				}
				o.BaseURL = "https://api.us-east-1.langdb.ai/" + project + "/v1"
			}
			return langDB.New(o, &x.ProviderOptions)
		},
	})
}
