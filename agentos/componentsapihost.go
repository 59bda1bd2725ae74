package agentos

import (
	"context"
	"slices"

	"github.com/agno-go/agno/agentos/componentsapi"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/storage"
)

// ComponentResponse is agno's ComponentResponse (the routes exclude None
// fields).
type ComponentResponse = componentsapi.ComponentResponse

// ComponentConfigResponse is agno's ComponentConfigResponse (None fields
// excluded; config absent when listed with include_config=false).
type ComponentConfigResponse = componentsapi.ComponentConfigResponse

// MigrateResponse is the answer of the /databases migrate routes; Failed
// (db_id → error) only in the 207 of /databases/all/migrate.
type MigrateResponse = componentsapi.MigrateResponse

// componentsHost is what the Components group (agentos/componentsapi)
// needs of the OS: the catalog that serves the components, and the
// databases it migrates.
type componentsHost struct{ *Host }

func (h componentsHost) Serve(ctx context.Context, lives []component.Live) error {
	return h.o.syncComponents(ctx, lives)
}

func (h componentsHost) CheckConfig(ctx context.Context, kind component.Type, id string, cfg map[string]any) error {
	return h.o.checkComponentConfig(ctx, kind, id, cfg)
}

func (h componentsHost) CodeOwned(kind component.Type, id string) bool {
	h.o.reloadMu.Lock()
	defer h.o.reloadMu.Unlock()
	return h.o.codeOwned(kind, id)
}

func (h componentsHost) CaseTwin(kind component.Type, id string) string {
	h.o.reloadMu.Lock()
	defer h.o.reloadMu.Unlock()
	return h.o.servedIDLike(kind, id)
}

// Databases are the databases AgentOS knows: the run store's and the
// control plane's (the same file or schema, usually the same id).
func (h componentsHost) Databases() []string {
	var ids []string
	for _, id := range []string{h.o.cfg.DBID, h.o.cfg.DB.ID} {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Migrate applies pending migrations: the run store's, when its schema
// is versioned in its database (storage.Migrator: SQLite, Postgres), and
// the control plane's.
func (h componentsHost) Migrate(ctx context.Context, id string) error {
	cfg := h.o.cfg
	if id == cfg.DBID {
		if m, ok := cfg.Store.(storage.Migrator); ok {
			if err := m.Migrate(ctx); err != nil {
				return err
			}
		}
	}
	if cfg.DB != nil && (id == cfg.DB.ID || cfg.DB.ID == "") {
		return cfg.DB.Migrate(ctx, h.o.controlMigrations(cfg.DB))
	}
	return nil
}
