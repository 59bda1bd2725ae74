package agentos

// tracesHost is what the Traces group needs of the OS (tracesapi.Host).
type tracesHost struct{ *Host }

// DBID is the id the trace routes' db_id names: Config.DB's, else
// Config.DBID.
func (h tracesHost) DBID() string {
	if h.o.cfg.DB != nil && h.o.cfg.DB.ID != "" {
		return h.o.cfg.DB.ID
	}
	return h.o.cfg.DBID
}

// Service names the spans' resource: the OS's name and id.
func (h tracesHost) Service() (name, id string) { return h.o.cfg.Name, h.o.cfg.ID }
