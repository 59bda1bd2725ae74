package agentos

// evalPlane is the evals part of the control plane.
type evalPlane struct{}

func (o *OS) evalRoutes(mux routeMux) {}

func evalAPIRoutes() []apiRoute { return nil }

func (o *OS) startEvals() error { return nil }

func (o *OS) stopEvals() {}
