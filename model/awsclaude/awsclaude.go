// Package awsclaude is agno's "aws-claude" provider: Claude on Amazon
// Bedrock, through the Anthropic SDK's bedrock package, which rewrites
// each Messages API request to Bedrock's InvokeModel and
// InvokeModelWithResponseStream and signs it with AWS SigV4.
//
// Requests and responses are the Messages API's, so the model is
// model/anthropic's, with Bedrock's routing and authentication.
package awsclaude

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
)

// Names and defaults, as agno's aws Claude class has them.
const (
	ProviderAWSClaude = "aws-claude"
	DefaultID         = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
	ProviderName      = "AwsBedrock"
	Name              = "AwsBedrockAnthropicClaude"
	// AnthropicVersion is the anthropic_version Bedrock requires in the body
	// (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).
	AnthropicVersion = "bedrock-2023-05-31"
)

// Options are the [models.<key>] keys of aws-claude: Claude's, and the
// AWS credentials as agno names them. Without keys, AWS's default chain
// finds credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
// AWS_SESSION_TOKEN, AWS_PROFILE and the shared files, SSO, the instance
// or task role).
type Options struct {
	anthropic.Options
	// AWSRegion is the Bedrock region; default AWS_REGION, then the AWS
	// profile's region.
	AWSRegion string `toml:"aws_region"`
	// AWSAccessKeyEnv and AWSSecretKeyEnv name the variables holding
	// static IAM credentials (agno's aws_access_key and aws_secret_key),
	// with AWSSessionTokenEnv for temporary ones. Secrets stay out of the
	// file, so the keys name variables, not values.
	AWSAccessKeyEnv    string `toml:"aws_access_key_env"`
	AWSSecretKeyEnv    string `toml:"aws_secret_key_env"`
	AWSSessionTokenEnv string `toml:"aws_session_token_env"`

	// The values, for a program building the model in Go.
	AWSAccessKey    string `toml:"-"`
	AWSSecretKey    string `toml:"-"`
	AWSSessionToken string `toml:"-"`
}

// resolve reads the credentials the *_env keys name; a named variable
// that is not set is an error naming it.
func (o *Options) resolve() error {
	for _, v := range []struct {
		key, env string
		dst      *string
	}{
		{"aws_access_key_env", o.AWSAccessKeyEnv, &o.AWSAccessKey},
		{"aws_secret_key_env", o.AWSSecretKeyEnv, &o.AWSSecretKey},
		{"aws_session_token_env", o.AWSSessionTokenEnv, &o.AWSSessionToken},
	} {
		if v.env == "" {
			continue
		}
		val := os.Getenv(v.env)
		if val == "" {
			return fmt.Errorf("aws-claude: %s names %s, which is not set: export it, or remove the key to use AWS's default credential chain", v.key, v.env)
		}
		*v.dst = val
	}
	return nil
}

// New builds the model. A non-empty s.APIKey is a Bedrock API key, sent
// as a bearer token instead of signing, unless static IAM keys are set;
// the SDK also takes one from AWS_BEARER_TOKEN_BEDROCK.
func New(s model.ProviderSettings, o *Options) (*anthropic.Model, error) {
	if o == nil {
		o = &Options{}
	}
	resolved := *o
	if err := resolved.resolve(); err != nil {
		return nil, err
	}
	o = &resolved
	awsCfg, err := loadAWSConfig(s.APIKey, o)
	if err != nil {
		return nil, err
	}
	cfg := anthropic.Config{
		ID: s.ID, BaseURL: s.BaseURL, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
		Platform: []option.RequestOption{
			option.WithJSONSet("anthropic_version", AnthropicVersion),
			bedrock.WithConfig(awsCfg),
		},
		ProviderName: ProviderName, Name: Name,
	}
	if cfg.ID == "" {
		cfg.ID = DefaultID
	}
	o.Apply(&cfg)
	return anthropic.New(cfg)
}

func loadAWSConfig(apiKey string, o *Options) (aws.Config, error) {
	var loadOpts []func(*awsconfig.LoadOptions) error
	// agno reads AWS_REGION; the default chain adds AWS_DEFAULT_REGION
	// and the profile.
	if region := cmp.Or(o.AWSRegion, os.Getenv("AWS_REGION")); region != "" {
		loadOpts = append(loadOpts, awsconfig.WithRegion(region))
	}
	static := o.AWSAccessKey != "" || o.AWSSecretKey != ""
	switch {
	case static && (o.AWSAccessKey == "" || o.AWSSecretKey == ""):
		return aws.Config{}, fmt.Errorf("aws-claude: aws_access_key_env and aws_secret_key_env go together: set both, or neither to use AWS's default credential chain")
	case !static && o.AWSSessionToken != "":
		return aws.Config{}, fmt.Errorf("aws-claude: aws_session_token_env is set without aws_access_key_env and aws_secret_key_env: set all three, or none to use AWS's default credential chain")
	case static:
		loadOpts = append(loadOpts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(o.AWSAccessKey, o.AWSSecretKey, o.AWSSessionToken)))
	}
	// Reads the environment and the shared files; credentials from the
	// network (SSO, instance roles) are fetched at the first request.
	cfg, err := awsconfig.LoadDefaultConfig(context.Background(), loadOpts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws-claude: loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, fmt.Errorf("aws-claude: no AWS region: set aws_region in the model's table or the AWS_REGION environment variable")
	}
	if apiKey != "" && !static {
		cfg.BearerAuthTokenProvider = bedrock.NewStaticBearerTokenProvider(apiKey)
		cfg.AuthSchemePreference = []string{"httpBearerAuth"}
	}
	return cfg, nil
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name:    ProviderAWSClaude,
		Summary: "Claude on Amazon Bedrock (agno's aws Claude), signed with AWS SigV4",
		// Credentials come from AWS's chain; a Bedrock API key is optional.
		DefaultMaxRetries: anthropic.DefaultMaxRetries, DefaultModel: DefaultID,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return New(s, o) },
	})
}
