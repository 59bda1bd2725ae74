// Package toolkits registers every built-in toolkit with package tool.
// Import it for its side effect; a new built-in toolkit is its own
// package plus one import here.
package toolkits

import (
	_ "github.com/agno-go/agno/tool/dalle"          // registers "dalle"
	_ "github.com/agno-go/agno/tool/daytona"        // registers "daytona"
	_ "github.com/agno-go/agno/tool/email"          // registers "email"
	_ "github.com/agno-go/agno/tool/file"           // registers "file"
	_ "github.com/agno-go/agno/tool/giphy"          // registers "giphy"
	_ "github.com/agno-go/agno/tool/github"         // registers "github"
	_ "github.com/agno-go/agno/tool/knowledgetools" // registers "knowledge_tools"
	_ "github.com/agno-go/agno/tool/memorytools"    // registers "memory_tools"
	_ "github.com/agno-go/agno/tool/openweather"    // registers "openweather"
	_ "github.com/agno-go/agno/tool/reasoning"      // registers "reasoning"
	_ "github.com/agno-go/agno/tool/shell"          // registers "shell"
	_ "github.com/agno-go/agno/tool/slack"          // registers "slack"
	_ "github.com/agno-go/agno/tool/workflowtools"  // registers "workflow_tools"
)
