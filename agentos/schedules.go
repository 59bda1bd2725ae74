package agentos

// schedulePlane is the schedules part of the control plane.
type schedulePlane struct{}

func (o *OS) scheduleRoutes(mux routeMux) {}

func scheduleAPIRoutes() []apiRoute { return nil }

func (o *OS) startSchedules() error { return nil }

func (o *OS) stopSchedules() {}

// SchedulerConfig configures the cron poller.
type SchedulerConfig struct{ Enabled bool }
