// Package toolkits registers every built-in toolkit with package tool.
// Import it for its side effect; a new built-in toolkit is its own
// package plus one import here.
package toolkits

import (
	_ "github.com/agno-go/agno/tool/arxiv"          // registers "arxiv"
	_ "github.com/agno-go/agno/tool/bravesearch"    // registers "bravesearch"
	_ "github.com/agno-go/agno/tool/daytona"        // registers "daytona"
	_ "github.com/agno-go/agno/tool/duckduckgo"     // registers "duckduckgo"
	_ "github.com/agno-go/agno/tool/exa"            // registers "exa"
	_ "github.com/agno-go/agno/tool/file"           // registers "file"
	_ "github.com/agno-go/agno/tool/hackernews"     // registers "hackernews"
	_ "github.com/agno-go/agno/tool/knowledgetools" // registers "knowledge_tools"
	_ "github.com/agno-go/agno/tool/memorytools"    // registers "memory_tools"
	_ "github.com/agno-go/agno/tool/pubmed"         // registers "pubmed"
	_ "github.com/agno-go/agno/tool/reasoning"      // registers "reasoning"
	_ "github.com/agno-go/agno/tool/searxng"        // registers "searxng"
	_ "github.com/agno-go/agno/tool/serper"         // registers "serper"
	_ "github.com/agno-go/agno/tool/shell"          // registers "shell"
	_ "github.com/agno-go/agno/tool/tavily"         // registers "tavily"
	_ "github.com/agno-go/agno/tool/websearch"      // registers "websearch"
	_ "github.com/agno-go/agno/tool/wikipedia"      // registers "wikipedia"
	_ "github.com/agno-go/agno/tool/workflowtools"  // registers "workflow_tools"
)
