package agentos

import "net/http"

// extraRoutes registers the data routes (sessions, memories, registry).
func (o *OS) extraRoutes(mux *http.ServeMux) {}
