// Package duckduckgo is agno's DuckDuckGoTools (tools/duckduckgo.py):
// WebSearchTools with the backend "duckduckgo". Its toolkit name is
// agno's, "websearch"; agents list it as "duckduckgo".
package duckduckgo

import (
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/websearch"
)

// RegisteredName is the name agents list in tools.
const RegisteredName = "duckduckgo"

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[websearch.Options]{
		Name: RegisteredName, Summary: "web_search and search_news through DuckDuckGo (agno's DuckDuckGoTools)",
		Defaults: func(tool.ToolkitEnv) websearch.Options { return websearch.DefaultOptions("duckduckgo") },
		Check: func(_ tool.ToolkitEnv, o *websearch.Options, _ func(string) bool) error {
			// agno's backend=None means DuckDuckGo.
			if o.Backend == "" {
				o.Backend = "duckduckgo"
			}
			return websearch.CheckOptions(o)
		},
		New: websearch.Build,
	})
}
