package agentos

import "net/http"

// extraRoutes registers the data routes (sessions, memories, registry).
func (o *OS) extraRoutes(mux *http.ServeMux) {
	o.sessionRoutes(mux)
	o.memoryRoutes(mux)
	o.registryRoutes(mux)
	o.docsRoutes(mux)
}
