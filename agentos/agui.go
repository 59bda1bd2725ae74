package agentos

// AGUIConfig configures the AG-UI interface (agno's AGUI); nil: off.
type AGUIConfig struct{}

func (o *OS) aguiRoutes(mux routeMux) {}

func (o *OS) aguiListing() []any { return nil }

func (o *OS) aguiAPIRoutes() []apiRoute { return nil }
