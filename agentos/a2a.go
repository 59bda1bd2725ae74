package agentos

// A2AConfig configures the A2A interface (agno's A2A); nil: off.
type A2AConfig struct{}

func (o *OS) a2aRoutes(mux routeMux) {}

func (o *OS) a2aListing() []any { return nil }

func (o *OS) a2aAPIRoutes() []apiRoute { return nil }

func (o *OS) a2aOpenPath(p string) bool { return false }
