package watsonx

import (
	"fmt"

	"github.com/agno-go/agno/model"
)

// ProviderIBM is agno's model-string name for WatsonX.
const ProviderIBM = "ibm"

// Options are the [models.<key>] keys of provider "ibm" beyond the common
// ones, with agno's WatsonX parameter names. The API key is never one of
// them: it comes from IBM_WATSONX_API_KEY.
type Options struct {
	// ProjectID is the watsonx.ai project (default IBM_WATSONX_PROJECT_ID).
	ProjectID string `toml:"project_id"`
	// URL is the region's endpoint (default IBM_WATSONX_URL, then
	// https://eu-de.ml.cloud.ibm.com). base_url means the same; give one.
	URL string `toml:"url"`
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderIBM, Summary: "IBM watsonx.ai chat, IAM-authenticated (agno's WatsonX)",
		KeyEnv: KeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: DefaultID,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return newFromSettings(s, o) },
	})
}

func newFromSettings(s model.ProviderSettings, o *Options) (model.Model, error) {
	u := o.URL
	switch {
	case u == "":
		u = s.BaseURL
	case s.BaseURL != "" && s.BaseURL != u:
		return nil, fmt.Errorf("%w: base_url %q and url %q disagree: give the endpoint once, as url", ErrInvalidConfig, s.BaseURL, u)
	}
	return New(Config{
		ID: s.ID, APIKey: s.APIKey, ProjectID: o.ProjectID, URL: u,
		HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
	})
}
