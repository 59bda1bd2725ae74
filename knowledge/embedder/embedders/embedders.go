// Package embedders registers every built-in embedder provider with
// package embedder. Import it for its side effect; a new built-in
// embedder is its own package plus one import here.
package embedders

import (
	_ "github.com/agno-go/agno/knowledge/embedder/azure"    // registers "azure-openai"
	_ "github.com/agno-go/agno/knowledge/embedder/bedrock"  // registers "aws-bedrock"
	_ "github.com/agno-go/agno/knowledge/embedder/cohere"   // registers "cohere"
	_ "github.com/agno-go/agno/knowledge/embedder/gemini"   // registers "gemini"
	_ "github.com/agno-go/agno/knowledge/embedder/jina"     // registers "jina"
	_ "github.com/agno-go/agno/knowledge/embedder/ollama"   // registers "ollama"
	_ "github.com/agno-go/agno/knowledge/embedder/openai"   // registers "openai", "openai-compatible" and the OpenAI-compatible vendors
	_ "github.com/agno-go/agno/knowledge/embedder/voyageai" // registers "voyageai"
)
