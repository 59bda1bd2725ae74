package memorytools

import (
	"fmt"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.memory_tools], agno's MemoryTools
// arguments; the memories are kept where the host keeps them (agno's db
// argument is the config's [storage]).
type Options struct {
	EnableGetMemories  bool   `toml:"enable_get_memories"`
	EnableAddMemory    bool   `toml:"enable_add_memory"`
	EnableUpdateMemory bool   `toml:"enable_update_memory"`
	EnableDeleteMemory bool   `toml:"enable_delete_memory"`
	EnableAnalyze      bool   `toml:"enable_analyze"`
	EnableThink        bool   `toml:"enable_think"`
	Instructions       string `toml:"instructions"`
	AddInstructions    bool   `toml:"add_instructions"`
	AddFewShot         bool   `toml:"add_few_shot"`
	FewShotExamples    string `toml:"few_shot_examples"`
	All                bool   `toml:"all"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "think, get_memories, add_memory, update_memory, delete_memory and analyze on the user memories of the run's user (agno's MemoryTools)",
		// agno's defaults: everything on, few-shot examples included.
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableGetMemories: true, EnableAddMemory: true, EnableUpdateMemory: true, EnableDeleteMemory: true,
				EnableAnalyze: true, EnableThink: true, AddInstructions: true, AddFewShot: true}
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			v, err := env.Lookup(tool.ResourceStore, "")
			if err != nil {
				return nil, fmt.Errorf("memory_tools keeps the memories in the host's store: %w", err)
			}
			st, ok := v.(Store)
			if !ok || st == nil {
				return nil, fmt.Errorf("memory_tools keeps the memories in the host's store, and the host gave a %T", v)
			}
			return New(Config{
				Store: st, EnableThink: o.EnableThink, EnableGetMemories: o.EnableGetMemories, EnableAddMemory: o.EnableAddMemory,
				EnableUpdateMemory: o.EnableUpdateMemory, EnableDeleteMemory: o.EnableDeleteMemory, EnableAnalyze: o.EnableAnalyze, All: o.All,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, AddFewShot: o.AddFewShot, FewShot: o.FewShotExamples,
				Logger: env.Logger,
			})
		},
	})
}
