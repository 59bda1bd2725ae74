package bedrock

import (
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/knowledge/embedder"
)

// ProviderBedrock is the [knowledge.NAME.embedder] provider name, agno's
// model-string name for Bedrock.
const ProviderBedrock = "aws-bedrock"

// Options are the [knowledge.NAME.embedder] keys of agno's
// AwsBedrockEmbedder beyond the common ones; credentials come from AWS's
// chain (environment, shared files, roles), never from the file.
type Options struct {
	AwsRegion string `toml:"aws_region"`
}

func init() {
	embedder.Register(ProviderBedrock, embedder.Provider[Options]{
		Summary: "Cohere Embed and Titan text embeddings on Amazon Bedrock (InvokeModel, SigV4 via AWS's credential chain; aws_region or AWS_REGION), agno's AwsBedrockEmbedder",
		New:     fromOptions,
	})
}

// fromOptions builds an Embedder; an api_key_env that is not set gives one
// whose calls fail saying what to export (embedder.Provider.New).
func fromOptions(o embedder.Options, x *Options) (embedder.Embedder, error) {
	cfg := Config{ID: o.Model, BaseURL: o.BaseURL, APIKeyEnv: o.APIKeyEnv, Dimensions: o.Dimensions, BatchSize: o.BatchSize, AwsRegion: x.AwsRegion}
	e, err := New(cfg)
	if errors.Is(err, embedder.ErrNoAPIKey) {
		// A placeholder key checks the rest and gives the dimensions.
		cfg.APIKey, cfg.APIKeyEnv = "unset", ""
		probe, perr := New(cfg)
		if perr != nil {
			return nil, perr
		}
		return noKey{dims: probe.Dimensions(), err: err}, nil
	}
	return e, err
}

// noKey stands in for an Embedder whose API key variable is not set.
type noKey struct {
	dims int
	err  error
}

func (n noKey) Dimensions() int { return n.dims }

func (n noKey) Embed(context.Context, []string) ([][]float32, embedder.Usage, error) {
	return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %w", n.err)
}
