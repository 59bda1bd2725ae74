package componentsapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/agno-go/agno/agentos/internal/httpapi"
)

// MigrateResponse is the answer of the /databases migrate routes; Failed
// (db_id → error) only in the 207 of /databases/all/migrate.
type MigrateResponse struct {
	Message string            `json:"message"`
	Failed  map[string]string `json:"failed,omitempty"`
}

// errTargetVersion refuses target_version: migrations here are numbered
// per table and go up only.
var errTargetVersion = errors.New("migrating to a chosen target_version is not supported: agno-go keeps one schema version per table, applies every migration up to the latest when it opens the database, and has no down migrations; call without target_version to apply pending migrations")

// migrate applies database id's pending migrations (Host.Migrate), up to
// the latest only.
func (g *Group) migrate(ctx context.Context, id, target string) error {
	if target != "" {
		return errTargetVersion
	}
	return g.host.Migrate(ctx, id)
}

func versionMsg(target string) string {
	if target != "" {
		return "version " + target
	}
	return "latest version"
}

func (g *Group) handleMigrate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("db_id")
	if !slices.Contains(g.host.Databases(), id) {
		httpapi.WriteError(w, http.StatusNotFound, "Database not found")
		return
	}
	target := r.URL.Query().Get("target_version")
	if err := g.migrate(r.Context(), id, target); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to migrate database: "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, MigrateResponse{Message: "Database migrated successfully to " + versionMsg(target)})
}

func (g *Group) handleMigrateAll(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("target_version")
	ids := g.host.Databases()
	failed := map[string]string{}
	for _, id := range ids {
		if err := g.migrate(r.Context(), id, target); err != nil {
			failed[id] = err.Error()
		}
	}
	if len(failed) > 0 {
		httpapi.WriteJSON(w, http.StatusMultiStatus, MigrateResponse{
			Message: fmt.Sprintf("Migrated %d/%d databases to %s", len(ids)-len(failed), len(ids), versionMsg(target)), Failed: failed})
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, MigrateResponse{Message: "All databases migrated successfully to " + versionMsg(target)})
}
