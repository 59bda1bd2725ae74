package agentos

// approvalPlane is the approvals part of the control plane.
type approvalPlane struct{}

func (o *OS) approvalRoutes(mux routeMux) {}

func approvalAPIRoutes() []apiRoute { return nil }

func (o *OS) startApprovals() error { return nil }

func (o *OS) stopApprovals() {}
