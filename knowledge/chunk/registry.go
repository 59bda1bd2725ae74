package chunk

import (
	"fmt"
	"strings"

	"github.com/agno-go/agno/internal/registry"
)

// Factory builds a chunker from its options. Chunkers that take no size
// (Row) ignore them.
type Factory func(Config) (Chunker, error)

var chunkers = registry.New[Factory]("chunk")

// Register makes a chunking strategy available by name (agno's
// ChunkingStrategyType value, "FixedSizeChunker"): to New, to
// [knowledge.NAME.chunking] strategy and to AgentOS's chunker field. The
// built-in strategies register themselves from this package's init; a
// program registers its own the same way, before loading a config. It
// panics on an empty or taken name or a nil factory.
func Register(name string, f Factory) {
	if f == nil {
		panic(fmt.Sprintf("chunk: Register %q with a nil factory", name))
	}
	chunkers.Register(name, f)
}

// Lookup returns the factory registered under name.
func Lookup(name string) (Factory, bool) { return chunkers.Lookup(name) }

// Names lists the registered strategies, sorted.
func Names() []string { return chunkers.Names() }

// New builds the chunker registered under strategy, as agno's
// ChunkingStrategyFactory does.
func New(strategy string, cfg Config) (Chunker, error) {
	f, ok := Lookup(strategy)
	if !ok {
		return nil, fmt.Errorf("%w: unsupported chunking strategy %q: use one of %s",
			ErrInvalidConfig, strategy, strings.Join(Names(), ", "))
	}
	return f(cfg)
}
