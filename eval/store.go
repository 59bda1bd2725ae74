package eval

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/rowcount"
	"github.com/agno-go/agno/storage/sqldb"
)

// Table is agno's eval runs table.
const Table = "agno_eval_runs"

// ErrNotFound is returned for an eval run the store does not hold.
var ErrNotFound = errors.New("eval: eval run not found")

// Record is one stored eval run: a row of agno_eval_runs (agno's
// EvalRunRecord). Empty strings are stored as NULL.
type Record struct {
	RunID                  string
	EvalType               Type
	EvalData               json.RawMessage
	EvalInput              json.RawMessage
	Name                   string
	AgentID                string
	TeamID                 string
	WorkflowID             string
	ModelID                string
	ModelProvider          string
	EvaluatedComponentName string
	CreatedAt              int64 // epoch seconds
	UpdatedAt              int64
	// CreatedBy is the user that ran the eval ("" when no user was
	// known): its owner, whose listings show it under user isolation.
	CreatedBy string
}

// Store keeps eval runs in a control-plane database.
type Store struct {
	db *sqldb.DB
}

// Migrations are the schema versions of this package's tables; the
// store applies them when it opens, /databases/{db_id}/migrate again.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	big := db.Dialect().BigInt()
	return []sqldb.Migration{{Table: Table, Version: 1, Stmts: []string{
		`CREATE TABLE IF NOT EXISTS {t:agno_eval_runs} (
			run_id TEXT PRIMARY KEY,
			eval_type TEXT NOT NULL,
			eval_data ` + db.JSON() + ` NOT NULL,
			eval_input ` + db.JSON() + ` NOT NULL,
			name TEXT,
			agent_id TEXT,
			team_id TEXT,
			workflow_id TEXT,
			model_id TEXT,
			model_provider TEXT,
			evaluated_component_name TEXT,
			created_at ` + big + ` NOT NULL,
			updated_at ` + big + `
		)`,
		`CREATE INDEX IF NOT EXISTS idx_agno_eval_runs_created_at ON {t:agno_eval_runs} (created_at)`,
	}}, {Table: Table, Version: 2, Stmts: []string{ // who ran each eval
		`ALTER TABLE {t:agno_eval_runs} ADD COLUMN created_by TEXT`,
		`CREATE INDEX IF NOT EXISTS idx_agno_eval_runs_created_by ON {t:agno_eval_runs} (created_by)`,
	}}, {Table: Table, Version: 3, Stmts: []string{
		// The listing's orders (created_at, or updated_at falling back to
		// it, then run_id, one direction) end the indexes of all runs and
		// of a user's, so a page is read in order and stops there.
		`DROP INDEX IF EXISTS {t:idx_agno_eval_runs_created_at}`,
		`DROP INDEX IF EXISTS {t:idx_agno_eval_runs_created_by}`,
		`CREATE INDEX idx_agno_eval_runs_created_at ON {t:agno_eval_runs} (created_at, run_id)`,
		`CREATE INDEX idx_agno_eval_runs_updated_at ON {t:agno_eval_runs} ((COALESCE(updated_at, created_at)), run_id)`,
		`CREATE INDEX idx_agno_eval_runs_created_by ON {t:agno_eval_runs} (created_by, created_at, run_id)`,
	}}, db.Counts(Table, counted)}
}

// counted are the filters whose total_count is kept: all eval runs, a
// component's, a user's.
var counted = rowcount.Spec{Scopes: [][]string{{}, {"agent_id"}, {"team_id"}, {"workflow_id"}, {"created_by"}}}

// NewStore opens the eval store on db, creating or migrating its table.
func NewStore(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("eval: NewStore needs a database")
	}
	if err := db.Migrate(ctx, Migrations(db)); err != nil {
		return nil, fmt.Errorf("eval: migrate %s: %w", Table, err)
	}
	return &Store{db: db}, nil
}

const columns = `run_id, eval_type, eval_data, eval_input, name, agent_id, team_id, workflow_id, model_id, model_provider, evaluated_component_name, created_at, updated_at, created_by`

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func jsonText(raw json.RawMessage, def string) string {
	if len(raw) == 0 {
		return def
	}
	return string(raw)
}

// Create stores a new eval run; zero timestamps become now. An id
// already stored is an error wrapping sqldb.ErrConflict.
func (s *Store) Create(ctx context.Context, r *Record) error {
	if r.RunID == "" {
		return errors.New("eval: a record needs a RunID")
	}
	if !r.EvalType.Valid() {
		return fmt.Errorf("eval: record %s has eval type %q; use one of accuracy, agent_as_judge, performance, reliability", r.RunID, r.EvalType)
	}
	if r.CreatedAt == 0 {
		r.CreatedAt = run.Now()
	}
	if r.UpdatedAt == 0 {
		r.UpdatedAt = r.CreatedAt
	}
	_, err := s.db.Exec(ctx, `INSERT INTO {t:agno_eval_runs} (`+columns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.RunID, string(r.EvalType), jsonText(r.EvalData, "{}"), jsonText(r.EvalInput, "{}"), orNull(r.Name),
		orNull(r.AgentID), orNull(r.TeamID), orNull(r.WorkflowID), orNull(r.ModelID), orNull(r.ModelProvider),
		orNull(r.EvaluatedComponentName), r.CreatedAt, r.UpdatedAt, orNull(r.CreatedBy))
	return err
}

type scanner = sqldb.Row

func scanRecord(sc scanner) (*Record, error) {
	var r Record
	var typ, data, input string
	var name, agentID, teamID, workflowID, modelID, provider, component, createdBy sql.NullString
	var updated sql.NullInt64
	if err := sc.Scan(&r.RunID, &typ, &data, &input, &name, &agentID, &teamID, &workflowID, &modelID, &provider, &component, &r.CreatedAt, &updated, &createdBy); err != nil {
		return nil, err
	}
	r.CreatedBy = createdBy.String
	r.EvalType = Type(typ)
	r.EvalData, r.EvalInput = json.RawMessage(data), json.RawMessage(input)
	r.Name, r.AgentID, r.TeamID, r.WorkflowID = name.String, agentID.String, teamID.String, workflowID.String
	r.ModelID, r.ModelProvider, r.EvaluatedComponentName = modelID.String, provider.String, component.String
	r.UpdatedAt = updated.Int64
	return &r, nil
}

// Get returns one eval run, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*Record, error) {
	r, err := scanRecord(s.db.QueryRow(ctx, `SELECT `+columns+` FROM {t:agno_eval_runs} WHERE run_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, err
}

// ComponentType restricts a listing to runs of agents, teams or
// workflows (agno's EvalFilterType).
type ComponentType string

const (
	ComponentAgent    ComponentType = "agent"
	ComponentTeam     ComponentType = "team"
	ComponentWorkflow ComponentType = "workflow"
)

// Query filters, sorts and pages a listing. Empty fields do not filter.
type Query struct {
	AgentID    string
	TeamID     string
	WorkflowID string
	ModelID    string
	// Component keeps runs that have an id of that kind.
	Component ComponentType
	Types     []Type
	// SortBy is any column of the table (default created_at, newest
	// first); another name leaves the order unspecified, as agno does.
	SortBy    string
	SortOrder string // "asc" or "desc" (default)
	Limit     int    // 0: all
	Page      int    // 1-based; below 1 is the first page
	// CreatedBy, when set, keeps the runs of that user.
	CreatedBy *string
}

var sortable = map[string]bool{}

func init() {
	for _, c := range strings.Split(columns, ",") {
		sortable[strings.TrimSpace(c)] = true
	}
}

// queries renders the count and page queries of q; the page query takes
// paging (LIMIT and OFFSET, if any) after args.
func (q Query) queries() (count, list string, args, paging []any, eqs []rowcount.Eq, err error) {
	var where []string
	eq := func(col, v string) {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
			eqs = append(eqs, rowcount.Eq{Col: col, Val: v})
		}
	}
	eq("agent_id", q.AgentID)
	eq("team_id", q.TeamID)
	eq("workflow_id", q.WorkflowID)
	eq("model_id", q.ModelID)
	if q.CreatedBy != nil {
		where, args = append(where, "created_by = ?"), append(args, *q.CreatedBy)
		eqs = append(eqs, rowcount.Eq{Col: "created_by", Val: *q.CreatedBy})
	}
	if len(q.Types) > 0 {
		marks := make([]string, len(q.Types))
		for i, t := range q.Types {
			marks[i] = "?"
			args = append(args, string(t))
		}
		where = append(where, "eval_type IN ("+strings.Join(marks, ", ")+")")
		eqs = append(eqs, rowcount.Other)
	}
	if q.Component != "" {
		eqs = append(eqs, rowcount.Other)
	}
	switch q.Component {
	case "":
	case ComponentAgent:
		where = append(where, "agent_id IS NOT NULL")
	case ComponentTeam:
		where = append(where, "team_id IS NOT NULL")
	case ComponentWorkflow:
		where = append(where, "workflow_id IS NOT NULL")
	default:
		return "", "", nil, nil, nil, fmt.Errorf("eval: component type %q; use agent, team or workflow", q.Component)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	dir := "DESC"
	if strings.EqualFold(q.SortOrder, "asc") {
		dir = "ASC"
	}
	order := ""
	switch sortBy := q.SortBy; {
	case sortBy == "":
		order = " ORDER BY created_at DESC, run_id DESC"
	case sortBy == "updated_at":
		// agno falls back to created_at for rows without updated_at.
		order = " ORDER BY COALESCE(updated_at, created_at) " + dir + ", run_id " + dir
	case sortable[sortBy]:
		order = " ORDER BY " + sortBy + " " + dir + ", run_id " + dir
	}
	page := ""
	if q.Limit > 0 {
		offset := 0
		if q.Page > 1 {
			offset = sqldb.Offset(q.Page, q.Limit) // saturates: a far page is empty, not the first
		}
		page = " LIMIT ? OFFSET ?"
		paging = []any{q.Limit, offset}
	}
	return `SELECT COUNT(*) FROM {t:agno_eval_runs}` + cond, `SELECT ` + columns + ` FROM {t:agno_eval_runs}` + cond + order + page, args, paging, eqs, nil
}

// List returns one page of the eval runs matching q and how many match
// in all.
func (s *Store) List(ctx context.Context, q Query) ([]*Record, int, error) {
	count, list, args, paging, eqs, err := q.queries()
	if err != nil {
		return nil, 0, err
	}
	total, err := s.db.Count(ctx, Table, counted, eqs, count, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.Query(ctx, list, append(args, paging...)...)
	if err != nil {
		return nil, 0, err
	}
	out, err := sqldb.Collect(rows, scanRecord)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Rename sets an eval run's name (and updated_at) and returns the run,
// or ErrNotFound.
func (s *Store) Rename(ctx context.Context, id, name string) (*Record, error) {
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_eval_runs} SET name = ?, updated_at = ? WHERE run_id = ?`, name, run.Now(), id)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return s.Get(ctx, id)
}

// deleteBatch bounds the ids of one DELETE statement.
const deleteBatch = 500

// Delete removes the eval runs with these ids, in one transaction;
// unknown ids are ignored.
func (s *Store) Delete(ctx context.Context, ids ...string) error {
	return s.DeleteBy(ctx, nil, ids...)
}

// DeleteBy is Delete of the runs createdBy made (any runs when nil):
// another user's ids are ignored like unknown ones.
func (s *Store) DeleteBy(ctx context.Context, createdBy *string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	owner := ""
	if createdBy != nil {
		owner = " AND created_by = ?"
	}
	return s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		for start := 0; start < len(ids); start += deleteBatch {
			batch := ids[start:min(start+deleteBatch, len(ids))]
			marks := strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ")
			args := make([]any, len(batch), len(batch)+1)
			for i, id := range batch {
				args[i] = id
			}
			if createdBy != nil {
				args = append(args, *createdBy)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM {t:agno_eval_runs} WHERE run_id IN (`+marks+`)`+owner, args...); err != nil {
				return err
			}
		}
		return nil
	})
}
