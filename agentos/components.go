package agentos

// componentPlane is the components part of the control plane.
type componentPlane struct{}

func (o *OS) componentRoutes(mux routeMux) {}

func componentAPIRoutes() []apiRoute { return nil }

func (o *OS) startComponents() error { return nil }

func (o *OS) stopComponents() {}
