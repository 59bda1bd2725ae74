package agentos

// extraRoutes registers the data routes (sessions, memories, registry).
func (o *OS) extraRoutes(mux routeMux) {
	o.sessionRoutes(mux)
	o.memoryRoutes(mux)
	o.registryRoutes(mux)
	o.knowledgeRoutes(mux)
	o.docsRoutes(mux)
}
