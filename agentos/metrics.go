package agentos

// metricsPlane is the metrics part of the control plane.
type metricsPlane struct{}

func (o *OS) metricsRoutes(mux routeMux) {}

func metricsAPIRoutes() []apiRoute { return nil }

func (o *OS) startMetrics() error { return nil }

func (o *OS) stopMetrics() {}
