package daytona

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for this toolkit in tools lists.
const ToolkitName = "daytona"

// Options are the keys of [toolkits.daytona], with agno's DaytonaTools
// parameter names.
type Options struct {
	// APIKeyEnv names the variable holding the key (default
	// DAYTONA_API_KEY).
	APIKeyEnv            string            `toml:"api_key_env"`
	APIURL               string            `toml:"api_url"`
	SandboxID            string            `toml:"sandbox_id"`
	Language             string            `toml:"language"`
	Target               string            `toml:"target"`
	AutoStopInterval     *int              `toml:"auto_stop_interval"`
	OSUser               string            `toml:"os_user"`
	EnvVars              map[string]string `toml:"env_vars"`
	Labels               map[string]string `toml:"labels"`
	Public               *bool             `toml:"public"`
	OrganizationID       string            `toml:"organization_id"`
	TimeoutSeconds       float64           `toml:"timeout_seconds"`
	AutoCreateSandbox    *bool             `toml:"auto_create_sandbox"`
	Persistent           *bool             `toml:"persistent"`
	Instructions         string            `toml:"instructions"`
	AddInstructions      bool              `toml:"add_instructions"`
	Include              []string          `toml:"include"`
	Exclude              []string          `toml:"exclude"`
	RequiresConfirmation []string          `toml:"requires_confirmation"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "runs code and commands in a Daytona sandbox (agno's DaytonaTools)",
		Check: checkOptions,
		New:   newFromOptions,
	})
}

func checkOptions(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
	var errs []error
	if o.APIKeyEnv != "" {
		errs = append(errs, tool.CheckEnvName("api_key_env", o.APIKeyEnv))
	}
	switch o.Language {
	case "", "python", "javascript", "typescript":
	default:
		errs = append(errs, tool.OptionErrorf("language", "language = %q: use \"python\" (default), \"javascript\" or \"typescript\"", o.Language))
	}
	if o.AutoStopInterval != nil && *o.AutoStopInterval < 0 {
		errs = append(errs, tool.OptionErrorf("auto_stop_interval", "auto_stop_interval = %d: use minutes >= 0 (0 disables auto-stop; default 60)", *o.AutoStopInterval))
	}
	if o.TimeoutSeconds < 0 {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds (default 300)", o.TimeoutSeconds))
	}
	if o.APIURL != "" {
		u, err := url.Parse(o.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, tool.OptionErrorf("api_url", "api_url = %q is not an http(s) URL: write it like \"https://app.daytona.io/api\"", o.APIURL))
		}
	}
	return errors.Join(errs...)
}

func newFromOptions(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
	key := ""
	if o.APIKeyEnv != "" && o.APIKeyEnv != APIKeyEnv {
		key = os.Getenv(o.APIKeyEnv)
		if key == "" {
			//lint:ignore ST1005 agno's message, word for word
			return nil, fmt.Errorf("%s not set. Please set the %s environment variable (toolkits.daytona.api_key_env).", o.APIKeyEnv, o.APIKeyEnv)
		}
	}
	return New(Config{
		APIKey: key, APIURL: o.APIURL, SandboxID: o.SandboxID, Language: o.Language, Target: o.Target,
		AutoStopInterval: o.AutoStopInterval, OSUser: o.OSUser, EnvVars: o.EnvVars, Labels: o.Labels, Public: o.Public,
		OrganizationID: o.OrganizationID, Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), AutoCreateSandbox: o.AutoCreateSandbox,
		Persistent: o.Persistent, Instructions: o.Instructions, AddInstructions: o.AddInstructions,
		Include: o.Include, Exclude: o.Exclude, RequiresConfirmation: o.RequiresConfirmation, Logger: env.Logger,
	})
}
