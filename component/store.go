package component

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agno-go/agno/storage/sqldb"
)

// Store keeps components in a control-plane database.
type Store struct {
	db  *sqldb.DB
	now func() time.Time
}

// Migrations are the component tables' schema versions.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	j := db.JSON()
	return []sqldb.Migration{
		{Table: "agno_components", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_components} (
				component_id    TEXT PRIMARY KEY,
				component_type  TEXT NOT NULL,
				name            TEXT,
				description     TEXT,
				current_version INTEGER,
				metadata        ` + j + `,
				created_at      BIGINT NOT NULL,
				updated_at      BIGINT,
				deleted_at      BIGINT
			)`,
			`CREATE INDEX IF NOT EXISTS agno_components_type_idx ON {t:agno_components} (component_type, created_at)`,
		}},
		// Version 2: who a component belongs to and acts for.
		{Table: "agno_components", Version: 2, Stmts: []string{
			`ALTER TABLE {t:agno_components} ADD COLUMN created_by TEXT`,
			`ALTER TABLE {t:agno_components} ADD COLUMN principal ` + j,
		}},
		{Table: "agno_component_configs", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_component_configs} (
				component_id TEXT NOT NULL REFERENCES {t:agno_components} (component_id) ON DELETE CASCADE,
				version      INTEGER NOT NULL,
				label        TEXT,
				stage        TEXT NOT NULL DEFAULT 'draft',
				config       ` + j + ` NOT NULL,
				notes        TEXT,
				created_at   BIGINT NOT NULL,
				updated_at   BIGINT,
				deleted_at   BIGINT,
				PRIMARY KEY (component_id, version)
			)`,
		}},
		{Table: "agno_component_links", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_component_links} (
				parent_component_id TEXT NOT NULL,
				parent_version      INTEGER NOT NULL,
				link_kind           TEXT NOT NULL,
				link_key            TEXT NOT NULL,
				child_component_id  TEXT NOT NULL,
				child_version       INTEGER,
				position            INTEGER NOT NULL DEFAULT 0,
				meta                ` + j + `,
				created_at          BIGINT NOT NULL,
				updated_at          BIGINT,
				PRIMARY KEY (parent_component_id, parent_version, link_kind, link_key),
				FOREIGN KEY (parent_component_id, parent_version)
					REFERENCES {t:agno_component_configs} (component_id, version) ON DELETE CASCADE
			)`,
			`CREATE INDEX IF NOT EXISTS agno_component_links_child_idx ON {t:agno_component_links} (child_component_id)`,
		}},
	}
}

// New returns the store, creating or migrating its tables.
func New(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("component: New needs a database")
	}
	if err := db.Migrate(ctx, Migrations(db)); err != nil {
		return nil, fmt.Errorf("component: %w", err)
	}
	return &Store{db: db, now: time.Now}, nil
}

func (s *Store) unix() int64 { return s.now().Unix() }

// CreateParams create a component with its first config (version 1).
type CreateParams struct {
	ComponentID   string
	ComponentType Type
	Name          string
	Description   *string
	Metadata      map[string]any
	// Config is the first version's configuration; nil is {} (agno's).
	Config map[string]any
	Label  *string
	// Stage defaults to draft; a published first version becomes
	// current unless SetCurrent is false.
	Stage      string
	Notes      *string
	Links      []Link
	SetCurrent bool
	// CreatedBy and Principal: see Component.
	CreatedBy string
	Principal json.RawMessage
}

// Create creates a component and its version 1 in one transaction. An id
// taken, even by a deleted component, is refused as agno does.
func (s *Store) Create(ctx context.Context, p CreateParams) (*Component, *Config, error) {
	if p.Stage == "" {
		p.Stage = StageDraft
	}
	if !p.ComponentType.Valid() {
		return nil, nil, invalid("component_type %q: use agent, team or workflow", p.ComponentType)
	}
	if p.ComponentID == "" {
		return nil, nil, invalid("component_id is empty")
	}
	if err := checkStage(p.Stage); err != nil {
		return nil, nil, err
	}
	if err := checkLinks(p.Links); err != nil {
		return nil, nil, err
	}
	if p.Config == nil {
		p.Config = map[string]any{}
	}
	cfgJSON, err := encode(p.Config)
	if err != nil {
		return nil, nil, err
	}
	meta, err := encodeNullable(p.Metadata)
	if err != nil {
		return nil, nil, err
	}
	now := s.unix()
	var current any
	if p.Stage == StagePublished && p.SetCurrent {
		current = 1
	}
	err = s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		var one int
		switch err := tx.QueryRow(ctx, `SELECT 1 FROM {t:agno_components} WHERE component_id = ?`, p.ComponentID).Scan(&one); {
		case err == nil:
			return invalid("Component %s already exists", p.ComponentID)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO {t:agno_components}
			(component_id, component_type, name, description, current_version, metadata, created_at, created_by, principal)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ComponentID, string(p.ComponentType), p.Name, p.Description, current, meta, now, p.CreatedBy, principalArg(p.Principal)); err != nil {
			if errors.Is(err, sqldb.ErrConflict) {
				return invalid("Component %s already exists", p.ComponentID)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO {t:agno_component_configs}
			(component_id, version, label, stage, config, notes, created_at) VALUES (?, 1, ?, ?, ?, ?, ?)`,
			p.ComponentID, p.Label, p.Stage, cfgJSON, p.Notes, now); err != nil {
			return err
		}
		return insertLinks(ctx, tx, p.ComponentID, 1, p.Links, now)
	})
	if err != nil {
		return nil, nil, err
	}
	c, err := s.Get(ctx, p.ComponentID)
	if err != nil {
		return nil, nil, err
	}
	v := 1
	cfg, err := s.GetConfig(ctx, p.ComponentID, &v)
	if err != nil {
		return nil, nil, err
	}
	return c, cfg, nil
}

func insertLinks(ctx context.Context, tx *sqldb.Tx, id string, version int, links []Link, now int64) error {
	for _, l := range links {
		meta, err := encodeNullable(l.Meta)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO {t:agno_component_links}
			(parent_component_id, parent_version, link_kind, link_key, child_component_id, child_version, position, meta, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, version, l.LinkKind, l.LinkKey, l.ChildComponentID, l.ChildVersion, l.Position, meta, now); err != nil {
			if errors.Is(err, sqldb.ErrConflict) {
				return invalid("links: two links have link_kind %q and link_key %q: give each link its own key", l.LinkKind, l.LinkKey)
			}
			return err
		}
	}
	return nil
}

const componentCols = `component_id, component_type, name, description, current_version, metadata, created_at, updated_at, deleted_at,
	created_by, principal`

// principalArg is the principal column's argument: NULL when none.
func principalArg(p json.RawMessage) any {
	if len(p) == 0 {
		return nil
	}
	return string(p)
}

func scanComponent(sc sqldb.Row) (*Component, error) {
	var (
		c                 Component
		typ               string
		name, desc, meta  sql.NullString
		current           sql.NullInt64
		updated, deleted  sql.NullInt64
		createdBy, acting sql.NullString
	)
	if err := sc.Scan(&c.ComponentID, &typ, &name, &desc, &current, &meta, &c.CreatedAt, &updated, &deleted, &createdBy, &acting); err != nil {
		return nil, err
	}
	c.CreatedBy = createdBy.String
	if acting.Valid {
		c.Principal = json.RawMessage(acting.String)
	}
	c.ComponentType = Type(typ)
	c.Name, c.Description = strPtr(name), strPtr(desc)
	if current.Valid {
		v := int(current.Int64)
		c.CurrentVersion = &v
	}
	c.UpdatedAt, c.DeletedAt = intPtr(updated), intPtr(deleted)
	var err error
	if c.Metadata, err = decodeNullable(meta); err != nil {
		return nil, fmt.Errorf("component %s: metadata: %w", c.ComponentID, err)
	}
	return &c, nil
}

// Get returns a component that is not deleted.
func (s *Store) Get(ctx context.Context, id string) (*Component, error) {
	c, err := scanComponent(s.db.QueryRow(ctx, `SELECT `+componentCols+` FROM {t:agno_components}
		WHERE component_id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("Component %s not found", id)
	}
	return c, err
}

// ListQuery selects components; Limit 0 is all of them.
type ListQuery struct {
	Type           Type
	IncludeDeleted bool
	Limit, Offset  int
}

// List returns a page of components, newest first, and the total count.
func (s *Store) List(ctx context.Context, q ListQuery) ([]*Component, int, error) {
	var where []string
	var args []any
	if q.Type != "" {
		where = append(where, "component_type = ?")
		args = append(args, string(q.Type))
	}
	if !q.IncludeDeleted {
		where = append(where, "deleted_at IS NULL")
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:agno_components}`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	query := `SELECT ` + componentCols + ` FROM {t:agno_components}` + cond + ` ORDER BY created_at DESC, component_id`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := s.db.Query(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	out, err := sqldb.Collect(rows, scanComponent)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Update is a partial update of a component: nil fields are kept.
type Update struct {
	Name          *string
	Description   *string
	ComponentType *Type
	Metadata      map[string]any
}

// Update changes a component's fields.
func (s *Store) Update(ctx context.Context, id string, u Update) (*Component, error) {
	sets := []string{"updated_at = ?"}
	args := []any{s.unix()}
	if u.Name != nil {
		sets, args = append(sets, "name = ?"), append(args, *u.Name)
	}
	if u.Description != nil {
		sets, args = append(sets, "description = ?"), append(args, *u.Description)
	}
	if u.ComponentType != nil {
		if !u.ComponentType.Valid() {
			return nil, invalid("'%s' is not a valid ComponentType", *u.ComponentType)
		}
		sets, args = append(sets, "component_type = ?"), append(args, string(*u.ComponentType))
	}
	if u.Metadata != nil {
		m, err := encode(u.Metadata)
		if err != nil {
			return nil, err
		}
		sets, args = append(sets, "metadata = ?"), append(args, m)
	}
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_components} SET `+strings.Join(sets, ", ")+
		` WHERE component_id = ? AND deleted_at IS NULL`, append(args, id)...)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, notFound("Component %s not found", id)
	}
	return s.Get(ctx, id)
}

// SetPrincipal records who the component acts for from now on (the
// caller changing it); false when there is no such live component.
func (s *Store) SetPrincipal(ctx context.Context, id string, principal json.RawMessage) (bool, error) {
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_components} SET principal = ? WHERE component_id = ? AND deleted_at IS NULL`, principalArg(principal), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Delete soft-deletes a component (its configs stay); false when there
// is no such row. As agno's, deleting a deleted component succeeds.
func (s *Store) Delete(ctx context.Context, id string) (bool, error) {
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_components} SET deleted_at = ? WHERE component_id = ?`, s.unix(), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// HardDelete removes a component with its configs and links.
func (s *Store) HardDelete(ctx context.Context, id string) (bool, error) {
	var n int64
	err := s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM {t:agno_component_links} WHERE parent_component_id = ? OR child_component_id = ?`, id, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM {t:agno_component_configs} WHERE component_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.Exec(ctx, `DELETE FROM {t:agno_components} WHERE component_id = ?`, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// lockComponent checks in tx that the component exists, is not deleted,
// and serialises writers of its versions (a row lock on Postgres; SQLite
// transactions are serial already). It returns the current version.
func (s *Store) lockComponent(ctx context.Context, tx *sqldb.Tx, id string) (*int, error) {
	q := `SELECT current_version FROM {t:agno_components} WHERE component_id = ? AND deleted_at IS NULL` + s.db.Dialect().ForUpdate()
	var cur sql.NullInt64
	if err := tx.QueryRow(ctx, q, id).Scan(&cur); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, notFound("Component %s not found", id)
		}
		return nil, err
	}
	if !cur.Valid {
		return nil, nil
	}
	v := int(cur.Int64)
	return &v, nil
}

func labelTaken(ctx context.Context, tx *sqldb.Tx, id string, label *string, except int) error {
	if label == nil {
		return nil
	}
	var v int
	err := tx.QueryRow(ctx, `SELECT version FROM {t:agno_component_configs} WHERE component_id = ? AND label = ? AND version <> ?`, id, *label, except).Scan(&v)
	switch {
	case err == nil:
		return invalid("Label '%s' already exists for %s", *label, id)
	case errors.Is(err, sql.ErrNoRows):
		return nil
	}
	return err
}

// ConfigParams create a config version.
type ConfigParams struct {
	Config map[string]any
	Label  *string
	Stage  string // default draft
	Notes  *string
	Links  []Link
	// SetCurrent makes a published version current (agno: publishing
	// sets current_version).
	SetCurrent bool
}

// CreateConfig adds the next version of a component's config.
func (s *Store) CreateConfig(ctx context.Context, id string, p ConfigParams) (*Config, error) {
	if p.Stage == "" {
		p.Stage = StageDraft
	}
	if err := checkStage(p.Stage); err != nil {
		return nil, err
	}
	if p.Config == nil {
		return nil, invalid("config is required when creating a new version")
	}
	if err := checkLinks(p.Links); err != nil {
		return nil, err
	}
	cfgJSON, err := encode(p.Config)
	if err != nil {
		return nil, err
	}
	var version int
	now := s.unix()
	err = s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		if _, err := s.lockComponent(ctx, tx, id); err != nil {
			return err
		}
		if err := labelTaken(ctx, tx, id, p.Label, 0); err != nil {
			return err
		}
		var max sql.NullInt64
		if err := tx.QueryRow(ctx, `SELECT MAX(version) FROM {t:agno_component_configs} WHERE component_id = ?`, id).Scan(&max); err != nil {
			return err
		}
		version = int(max.Int64) + 1
		if _, err := tx.Exec(ctx, `INSERT INTO {t:agno_component_configs}
			(component_id, version, label, stage, config, notes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			id, version, p.Label, p.Stage, cfgJSON, p.Notes, now); err != nil {
			return err
		}
		if err := insertLinks(ctx, tx, id, version, p.Links, now); err != nil {
			return err
		}
		if p.Stage == StagePublished && p.SetCurrent {
			_, err := tx.Exec(ctx, `UPDATE {t:agno_components} SET current_version = ?, updated_at = ? WHERE component_id = ?`, version, now, id)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetConfig(ctx, id, &version)
}

// ConfigUpdate is a partial update of a draft config; nil fields are kept.
type ConfigUpdate struct {
	Config map[string]any
	Label  *string
	Stage  *string
	Notes  *string
	// Links, when not nil, replace the version's links.
	Links *[]Link
}

// UpdateConfig edits a draft version. A published version cannot be
// edited (agno's 400); publishing a draft makes it current.
func (s *Store) UpdateConfig(ctx context.Context, id string, version int, u ConfigUpdate) (*Config, error) {
	if u.Stage != nil {
		if err := checkStage(*u.Stage); err != nil {
			return nil, err
		}
	}
	if u.Links != nil {
		if err := checkLinks(*u.Links); err != nil {
			return nil, err
		}
	}
	now := s.unix()
	err := s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		if _, err := s.lockComponent(ctx, tx, id); err != nil {
			return err
		}
		if err := labelTaken(ctx, tx, id, u.Label, version); err != nil {
			return err
		}
		var stage string
		err := tx.QueryRow(ctx, `SELECT stage FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, version).Scan(&stage)
		if errors.Is(err, sql.ErrNoRows) {
			return invalid("Config %s v%d not found", id, version)
		}
		if err != nil {
			return err
		}
		if stage == StagePublished {
			return invalid("Cannot update published config %s v%d", id, version)
		}
		sets := []string{"updated_at = ?"}
		args := []any{now}
		if u.Label != nil {
			sets, args = append(sets, "label = ?"), append(args, *u.Label)
		}
		if u.Stage != nil {
			sets, args = append(sets, "stage = ?"), append(args, *u.Stage)
		}
		if u.Config != nil {
			c, err := encode(u.Config)
			if err != nil {
				return err
			}
			sets, args = append(sets, "config = ?"), append(args, c)
		}
		if u.Notes != nil {
			sets, args = append(sets, "notes = ?"), append(args, *u.Notes)
		}
		if _, err := tx.Exec(ctx, `UPDATE {t:agno_component_configs} SET `+strings.Join(sets, ", ")+
			` WHERE component_id = ? AND version = ?`, append(args, id, version)...); err != nil {
			return err
		}
		if u.Links != nil {
			if _, err := tx.Exec(ctx, `DELETE FROM {t:agno_component_links} WHERE parent_component_id = ? AND parent_version = ?`, id, version); err != nil {
				return err
			}
			if err := insertLinks(ctx, tx, id, version, *u.Links, now); err != nil {
				return err
			}
		}
		if u.Stage != nil && *u.Stage == StagePublished {
			_, err := tx.Exec(ctx, `UPDATE {t:agno_components} SET current_version = ?, updated_at = ? WHERE component_id = ?`, version, now, id)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetConfig(ctx, id, &version)
}

const configCols = `component_id, version, label, stage, config, notes, created_at, updated_at`

func scanConfig(sc sqldb.Row, withConfig bool) (*Config, error) {
	var (
		c            Config
		label, notes sql.NullString
		body         sql.NullString
		updated      sql.NullInt64
	)
	dst := []any{&c.ComponentID, &c.Version, &label, &c.Stage, &body, &notes, &c.CreatedAt, &updated}
	if !withConfig {
		dst = []any{&c.ComponentID, &c.Version, &label, &c.Stage, &notes, &c.CreatedAt, &updated}
	}
	if err := sc.Scan(dst...); err != nil {
		return nil, err
	}
	c.Label, c.Notes, c.UpdatedAt = strPtr(label), strPtr(notes), intPtr(updated)
	if withConfig {
		m, err := decodeNullable(body)
		if err != nil {
			return nil, fmt.Errorf("component %s v%d: config: %w", c.ComponentID, c.Version, err)
		}
		if m == nil {
			m = map[string]any{}
		}
		c.Config = m
	}
	return &c, nil
}

// GetConfig returns a version of a live component's config; version nil
// is the current version or, with none current, the latest (agno's
// get_config).
func (s *Store) GetConfig(ctx context.Context, id string, version *int) (*Config, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	var row *sql.Row
	switch {
	case version != nil:
		row = s.db.QueryRow(ctx, `SELECT `+configCols+` FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, *version)
	case c.CurrentVersion != nil:
		row = s.db.QueryRow(ctx, `SELECT `+configCols+` FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, *c.CurrentVersion)
	default:
		row = s.db.QueryRow(ctx, `SELECT `+configCols+` FROM {t:agno_component_configs} WHERE component_id = ? ORDER BY version DESC LIMIT 1`, id)
	}
	cfg, err := scanConfig(row, true)
	if errors.Is(err, sql.ErrNoRows) {
		if version != nil {
			return nil, notFound("Config %s v%d not found", id, *version)
		}
		return nil, notFound("No current config for %s", id)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Links, err = s.links(ctx, id, cfg.Version); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (s *Store) links(ctx context.Context, id string, version int) ([]Link, error) {
	rows, err := s.db.Query(ctx, `SELECT link_kind, link_key, child_component_id, child_version, position, meta
		FROM {t:agno_component_links} WHERE parent_component_id = ? AND parent_version = ? ORDER BY position, link_kind, link_key`, id, version)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		var cv sql.NullInt64
		var meta sql.NullString
		if err := rows.Scan(&l.LinkKind, &l.LinkKey, &l.ChildComponentID, &cv, &l.Position, &meta); err != nil {
			return nil, err
		}
		if cv.Valid {
			v := int(cv.Int64)
			l.ChildVersion = &v
		}
		if l.Meta, err = decodeNullable(meta); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ListConfigs lists a component's versions, newest first; none for a
// missing or deleted component (agno's).
func (s *Store) ListConfigs(ctx context.Context, id string, includeConfig bool) ([]*Config, error) {
	if _, err := s.Get(ctx, id); err != nil {
		if errors.Is(err, ErrNotFound) {
			return []*Config{}, nil
		}
		return nil, err
	}
	cols := configCols
	if !includeConfig {
		cols = `component_id, version, label, stage, notes, created_at, updated_at`
	}
	rows, err := s.db.Query(ctx, `SELECT `+cols+` FROM {t:agno_component_configs} WHERE component_id = ? ORDER BY version DESC`, id)
	if err != nil {
		return nil, err
	}
	out, err := sqldb.Collect(rows, func(r sqldb.Row) (*Config, error) { return scanConfig(r, includeConfig) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteConfig deletes a version that is not current; false when there
// is no such version.
func (s *Store) DeleteConfig(ctx context.Context, id string, version int) (bool, error) {
	found := false
	err := s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		var stage string
		err := tx.QueryRow(ctx, `SELECT stage FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, version).Scan(&stage)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		var cur sql.NullInt64
		if err := tx.QueryRow(ctx, `SELECT current_version FROM {t:agno_components} WHERE component_id = ?`, id).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if cur.Valid && int(cur.Int64) == version {
			return invalid("Cannot delete current config %s v%d", id, version)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM {t:agno_component_links} WHERE parent_component_id = ? AND parent_version = ?`, id, version); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, version)
		return err
	})
	return found && err == nil, err
}

// SetCurrent makes a published version current; false when the
// component or version does not exist. A draft is refused (agno's 400).
func (s *Store) SetCurrent(ctx context.Context, id string, version int) (bool, error) {
	found := false
	err := s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		if _, err := s.lockComponent(ctx, tx, id); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		var stage string
		err := tx.QueryRow(ctx, `SELECT stage FROM {t:agno_component_configs} WHERE component_id = ? AND version = ?`, id, version).Scan(&stage)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if stage != StagePublished {
			return invalid("Cannot set draft config %s v%d as current. Only published configs can be current.", id, version)
		}
		found = true
		_, err = tx.Exec(ctx, `UPDATE {t:agno_components} SET current_version = ?, updated_at = ? WHERE component_id = ?`, version, s.unix(), id)
		return err
	})
	return found && err == nil, err
}

// Live is a component with the config it runs: its current version, or
// its latest when none is current.
type Live struct {
	Component *Component
	Config    *Config
}

// Lives returns every component that is not deleted with the config it
// runs, in one query (replicas poll it).
func (s *Store) Lives(ctx context.Context) ([]Live, error) {
	rows, err := s.db.Query(ctx, `SELECT c.component_id, c.component_type, c.name, c.description, c.current_version, c.metadata,
			c.created_at, c.updated_at, c.deleted_at, c.created_by, c.principal,
			f.component_id, f.version, f.label, f.stage, f.config, f.notes, f.created_at, f.updated_at
		FROM {t:agno_components} c
		JOIN {t:agno_component_configs} f ON f.component_id = c.component_id AND f.version = COALESCE(c.current_version,
			(SELECT MAX(m.version) FROM {t:agno_component_configs} m WHERE m.component_id = c.component_id))
		WHERE c.deleted_at IS NULL
		ORDER BY c.created_at, c.component_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Live
	for rows.Next() {
		var l Live
		var (
			c                   Component
			typ                 string
			name, desc, meta    sql.NullString
			current, cUpd, cDel sql.NullInt64
			f                   Config
			label, notes, body  sql.NullString
			fUpd                sql.NullInt64
			createdBy, acting   sql.NullString
		)
		if err := rows.Scan(&c.ComponentID, &typ, &name, &desc, &current, &meta, &c.CreatedAt, &cUpd, &cDel, &createdBy, &acting,
			&f.ComponentID, &f.Version, &label, &f.Stage, &body, &notes, &f.CreatedAt, &fUpd); err != nil {
			return nil, err
		}
		c.ComponentType = Type(typ)
		c.Name, c.Description, c.UpdatedAt, c.DeletedAt = strPtr(name), strPtr(desc), intPtr(cUpd), intPtr(cDel)
		c.CreatedBy = createdBy.String
		if acting.Valid {
			c.Principal = json.RawMessage(acting.String)
		}
		if current.Valid {
			v := int(current.Int64)
			c.CurrentVersion = &v
		}
		if c.Metadata, err = decodeNullable(meta); err != nil {
			return nil, err
		}
		f.Label, f.Notes, f.UpdatedAt = strPtr(label), strPtr(notes), intPtr(fUpd)
		if f.Config, err = decodeNullable(body); err != nil {
			return nil, fmt.Errorf("component %s v%d: config: %w", f.ComponentID, f.Version, err)
		}
		if f.Config == nil {
			f.Config = map[string]any{}
		}
		l.Component, l.Config = &c, &f
		out = append(out, l)
	}
	return out, rows.Err()
}

func encode(v map[string]any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", invalid("cannot store as JSON: %v", err)
	}
	return string(b), nil
}

func encodeNullable(v map[string]any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return encode(v)
}

func decodeNullable(s sql.NullString) (map[string]any, error) {
	if !s.Valid || s.String == "" || s.String == "null" {
		return nil, nil
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s.String))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

func strPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func intPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}
