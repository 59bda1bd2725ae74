// Package providers registers every built-in model provider with package
// model. Import it for its side effect; a new built-in provider is its own
// package plus one import here.
package providers

import (
	_ "github.com/agno-go/agno/model/anthropic"          // registers "anthropic"
	_ "github.com/agno-go/agno/model/awsclaude"          // registers "aws-claude"
	_ "github.com/agno-go/agno/model/azure"              // registers "azure-openai", "azure-ai-foundry"
	_ "github.com/agno-go/agno/model/azureclaude"        // registers "azure-foundry-claude"
	_ "github.com/agno-go/agno/model/bedrock"            // registers "aws-bedrock"
	_ "github.com/agno-go/agno/model/gemini"             // registers "google"
	_ "github.com/agno-go/agno/model/geminiinteractions" // registers "google-interactions"
	_ "github.com/agno-go/agno/model/openai"             // registers "openai-chat", "openai-compatible" and the OpenAI-compatible vendors
	_ "github.com/agno-go/agno/model/openairesponses"    // registers "openai", "openai-responses"
	_ "github.com/agno-go/agno/model/vertexclaude"       // registers "vertexai-claude"
	_ "github.com/agno-go/agno/model/watsonx"            // registers "ibm"
)
