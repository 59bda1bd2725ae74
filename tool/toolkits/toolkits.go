// Package toolkits registers every built-in toolkit with package tool.
// Import it for its side effect; a new built-in toolkit is its own
// package plus one import here.
package toolkits

import (
	_ "github.com/agno-go/agno/tool/calculator"      // registers "calculator"
	_ "github.com/agno-go/agno/tool/coding"          // registers "coding"
	_ "github.com/agno-go/agno/tool/crawl4ai"        // registers "crawl4ai"
	_ "github.com/agno-go/agno/tool/csvtools"        // registers "csv_toolkit"
	_ "github.com/agno-go/agno/tool/daytona"         // registers "daytona"
	_ "github.com/agno-go/agno/tool/file"            // registers "file"
	_ "github.com/agno-go/agno/tool/filegeneration"  // registers "file_generation"
	_ "github.com/agno-go/agno/tool/jina"            // registers "jina"
	_ "github.com/agno-go/agno/tool/knowledgetools"  // registers "knowledge_tools"
	_ "github.com/agno-go/agno/tool/llmstxt"         // registers "llms_txt"
	_ "github.com/agno-go/agno/tool/memorytools"     // registers "memory_tools"
	_ "github.com/agno-go/agno/tool/newspaper4k"     // registers "newspaper4k"
	_ "github.com/agno-go/agno/tool/postgrestools"   // registers "postgres"
	_ "github.com/agno-go/agno/tool/python"          // registers "python"
	_ "github.com/agno-go/agno/tool/reasoning"       // registers "reasoning"
	_ "github.com/agno-go/agno/tool/shell"           // registers "shell"
	_ "github.com/agno-go/agno/tool/sleep"           // registers "sleep"
	_ "github.com/agno-go/agno/tool/sqltools"        // registers "sql"
	_ "github.com/agno-go/agno/tool/trafilatura"     // registers "trafilatura"
	_ "github.com/agno-go/agno/tool/usercontrolflow" // registers "user_control_flow"
	_ "github.com/agno-go/agno/tool/userfeedback"    // registers "user_feedback"
	_ "github.com/agno-go/agno/tool/website"         // registers "website"
	_ "github.com/agno-go/agno/tool/webtools"        // registers "webtools"
	_ "github.com/agno-go/agno/tool/workflowtools"   // registers "workflow_tools"
	_ "github.com/agno-go/agno/tool/workspace"       // registers "workspace"
	_ "github.com/agno-go/agno/tool/yfinance"        // registers "yfinance"
)
