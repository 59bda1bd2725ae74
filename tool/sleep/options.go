package sleep

import "github.com/agno-go/agno/tool"

// ToolkitName is agno's name for the toolkit.
const ToolkitName = "sleep"

// Options are the keys of [toolkits.sleep]: agno's SleepTools arguments
// and the longest sleep allowed.
type Options struct {
	EnableSleep     bool   `toml:"enable_sleep"`
	All             bool   `toml:"all"`
	MaxSeconds      int    `toml:"max_seconds"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "pauses for a number of seconds, bounded and cancellable (agno's SleepTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Options{EnableSleep: true, MaxSeconds: DefaultMaxSeconds} },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			if o.MaxSeconds <= 0 {
				return tool.OptionErrorf("max_seconds", "max_seconds = %d: use a positive number of seconds (default %d)", o.MaxSeconds, DefaultMaxSeconds)
			}
			return nil
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{EnableSleep: o.EnableSleep, All: o.All, MaxSeconds: o.MaxSeconds, Instructions: o.Instructions, AddInstructions: o.AddInstructions, Logger: env.Logger})
		},
	})
}
