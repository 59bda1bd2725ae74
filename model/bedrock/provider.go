package bedrock

import "github.com/agno-go/agno/model"

// ProviderBedrock is agno's model-string name for AwsBedrock.
const ProviderBedrock = "aws-bedrock"

// Options are the [models.<key>] keys of AwsBedrock beyond the common
// ones, named after agno's parameters. The credentials themselves never go
// in a config file: the *_env keys name the variables holding them.
type Options struct {
	// AwsRegion is agno's aws_region; default AWS_REGION, then the shared
	// config's region.
	AwsRegion string `toml:"aws_region"`
	// AwsAccessKeyIDEnv, AwsSecretAccessKeyEnv and AwsSessionTokenEnv name
	// the variables agno's aws_access_key_id, aws_secret_access_key and
	// aws_session_token are read from. Unset, AWS's default chain (the
	// AWS_* variables, shared config and credentials files, SSO, roles)
	// finds the credentials.
	AwsAccessKeyIDEnv     string `toml:"aws_access_key_id_env"`
	AwsSecretAccessKeyEnv string `toml:"aws_secret_access_key_env"`
	AwsSessionTokenEnv    string `toml:"aws_session_token_env"`
	// AwsSsoAuth is agno's aws_sso_auth: use the profile's credentials
	// (AWS_PROFILE, SSO) from the default chain, never explicit keys.
	AwsSsoAuth bool `toml:"aws_sso_auth"`
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name:              ProviderBedrock,
		Summary:           "Amazon Bedrock Converse API, SigV4-signed with AWS credentials (agno's AwsBedrock)",
		DefaultMaxRetries: DefaultMaxRetries,
		DefaultModel:      DefaultID,
		New:               newFromSettings,
	})
}

func newFromSettings(s model.ProviderSettings, o *Options) (model.Model, error) {
	cfg := Config{
		ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient,
		MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
		AwsRegion: o.AwsRegion, AwsSsoAuth: o.AwsSsoAuth,
	}
	for _, v := range []struct {
		key, env string
		dst      *string
	}{
		{"aws_access_key_id_env", o.AwsAccessKeyIDEnv, &cfg.AwsAccessKeyID},
		{"aws_secret_access_key_env", o.AwsSecretAccessKeyEnv, &cfg.AwsSecretAccessKey},
		{"aws_session_token_env", o.AwsSessionTokenEnv, &cfg.AwsSessionToken},
	} {
		if v.env == "" {
			continue
		}
		val, err := lookupEnv(v.key, v.env)
		if err != nil {
			return nil, err
		}
		*v.dst = val
	}
	return New(cfg)
}
