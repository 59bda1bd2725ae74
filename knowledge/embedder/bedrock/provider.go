package bedrock

import (
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
	return embedder.NewOrMissingKey(func(placeholder string) (embedder.Embedder, error) {
		c := cfg
		if placeholder != "" {
			c.APIKey, c.APIKeyEnv = placeholder, ""
		}
		return New(c)
	}, nil)
}
