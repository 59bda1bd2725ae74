package agentos

// tracePlane is the traces part of the control plane.
type tracePlane struct{}

func (o *OS) traceRoutes(mux routeMux) {}

func traceAPIRoutes() []apiRoute { return nil }

func (o *OS) startTraces() error { return nil }

func (o *OS) stopTraces() {}

// TracingConfig configures tracing.
type TracingConfig struct{ Enabled bool }
