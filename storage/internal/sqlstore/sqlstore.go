// Package sqlstore is the one SQL implementation of storage.Store that
// the SQL backends (sqlite, postgres) share: every query, and the logic
// around it (Store, over a Backend that runs statements and transactions
// its database's way), column lists, row scanning, JSON encoding of the
// document columns and the builders of the list queries. Where the SQL
// differs between databases it asks the Dialect's dialect.Dialect.
package sqlstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb/dialect"
)

// Dialect is the run store's tables in one database, and how that
// database writes SQL.
type Dialect struct {
	// SQL is the database's dialect.
	SQL dialect.Dialect
	// Table names, qualified where the database needs it.
	Sessions, Runs, Events, Memories, Instances, Blobs string
	// RowSeq is the value a new run's row_seq is inserted with (ordering
	// runs created in the same second by insertion); "" where the
	// database numbers the column itself.
	RowSeq string
	// SessionCounts is a table of session counts kept by triggers, by
	// scope: 'all', 't:'+type, 'c:'+owner, 'tc:'+type+':'+owner (owner is
	// Session.ComponentID), a scope's count the sum of its rows' n. It
	// gives total_count when a listing filters by type and owner only; ""
	// counts the rows.
	SessionCounts string
	// MemoryCounts is the same for memories, by scope: 'all', 'u:'+user,
	// 'a:'+agent, 't:'+team, 'ua:'/'ut:' + the user's length + ':' + user
	// + agent/team.
	MemoryCounts string
	// MemoryUsers is a table of each user with memories (user_id <> ''):
	// their count (n) and last update (last_updated), kept by triggers.
	MemoryUsers string
}

// NewDialect names the run store's tables in schema ("" for the
// database's default) as sql writes them.
func NewDialect(sql dialect.Dialect, schema string) *Dialect {
	t := func(name string) string { return sql.Table(schema, name) }
	return &Dialect{SQL: sql,
		Sessions: t("agno_sessions"), Runs: t("agno_runs"), Events: t("agno_run_events"), Memories: t("agno_memories"),
		Instances: t("agno_instances"), Blobs: t("agno_blobs"),
		SessionCounts: t("agno_session_counts"), MemoryCounts: t("agno_memory_counts"), MemoryUsers: t("agno_memory_users"),
	}
}

// Arg renders the placeholder of the n-th argument (1-based).
func (d *Dialect) Arg(n int) string { return d.SQL.Placeholder(n) }

// Scanner is a row: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows all fit.
type Scanner interface {
	Scan(dest ...any) error
}

// Builder collects WHERE conditions and their arguments.
type Builder struct {
	d     *Dialect
	conds []string
	Args  []any
}

// NewBuilder starts an empty filter.
func (d *Dialect) NewBuilder() *Builder { return &Builder{d: d} }

// Arg adds an argument and returns its placeholder.
func (b *Builder) Arg(v any) string {
	b.Args = append(b.Args, v)
	return b.d.Arg(len(b.Args))
}

// Where adds a condition (ANDed with the others).
func (b *Builder) Where(cond string) { b.conds = append(b.conds, cond) }

// SQL renders " WHERE …" or "".
func (b *Builder) SQL() string {
	if len(b.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(b.conds, " AND ")
}

// LimitOffset renders LIMIT/OFFSET for a 1-based page; limit <= 0 means all.
func LimitOffset(limit, page int) string {
	if limit <= 0 {
		return ""
	}
	if page < 1 {
		page = 1
	}
	if page-1 > math.MaxInt/limit {
		return " LIMIT 0" // a page so far out it cannot hold rows
	}
	return " LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa((page-1)*limit)
}

func direction(o storage.SortOrder) string {
	if o == storage.Asc {
		return "ASC"
	}
	return "DESC"
}

// --- sessions ---

// SessionColumns lists agno_sessions columns in ScanSession order.
const SessionColumns = "session_id, session_type, agent_id, team_id, workflow_id, user_id, session_name, " +
	"session_state, metadata, summary, metrics, data, created_at, updated_at, version"

// SessionRow is a session's document columns encoded as JSON text (nil for
// SQL NULL).
type SessionRow struct {
	State, Metadata, Summary, Metrics, Data any
}

// EncodeSession encodes the document columns of s. A value JSON cannot
// encode is an error naming the field, and nothing is written.
func EncodeSession(s *storage.Session) (SessionRow, error) {
	var r SessionRow
	var err error
	fields := []struct {
		name string
		dst  *any
		v    any
		null bool
	}{
		{"session_state", &r.State, s.SessionState, s.SessionState == nil},
		{"metadata", &r.Metadata, s.Metadata, s.Metadata == nil},
		{"summary", &r.Summary, s.Summary, s.Summary == nil},
		{"metrics", &r.Metrics, s.Metrics, s.Metrics == nil},
		{"data", &r.Data, s.Data, s.Data == nil},
	}
	for _, f := range fields {
		if f.null {
			continue
		}
		if *f.dst, err = EncodeJSON(f.v); err != nil {
			return r, fmt.Errorf("storage: session %q: %s cannot be stored as JSON: %w", s.SessionID, f.name, err)
		}
	}
	return r, nil
}

// EncodeJSON marshals v to JSON text without HTML escaping, so what is
// stored reads like what was given.
func EncodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// ScanSession reads one row of SessionColumns.
func ScanSession(sc Scanner) (*storage.Session, error) {
	var s storage.Session
	var typ string
	var state, meta, sum, metrics, data []byte
	if err := sc.Scan(&s.SessionID, &typ, &s.AgentID, &s.TeamID, &s.WorkflowID, &s.UserID, &s.SessionName,
		&state, &meta, &sum, &metrics, &data, &s.CreatedAt, &s.UpdatedAt, &s.Version); err != nil {
		return nil, err
	}
	s.SessionType = storage.SessionType(typ)
	var err error
	if s.SessionState, err = decodeObject(state); err != nil {
		return nil, fmt.Errorf("storage: session %q: session_state: %w", s.SessionID, err)
	}
	if s.Metadata, err = decodeObject(meta); err != nil {
		return nil, fmt.Errorf("storage: session %q: metadata: %w", s.SessionID, err)
	}
	if s.Data, err = decodeObject(data); err != nil {
		return nil, fmt.Errorf("storage: session %q: data: %w", s.SessionID, err)
	}
	if len(sum) > 0 && string(sum) != "null" {
		s.Summary = new(storage.Summary)
		if err := json.Unmarshal(sum, s.Summary); err != nil {
			return nil, fmt.Errorf("storage: session %q: summary: %w", s.SessionID, err)
		}
	}
	if len(metrics) > 0 && string(metrics) != "null" {
		s.Metrics = new(run.Metrics)
		if err := json.Unmarshal(metrics, s.Metrics); err != nil {
			return nil, fmt.Errorf("storage: session %q: metrics: %w", s.SessionID, err)
		}
	}
	return &s, nil
}

// decodeObject decodes a JSON object keeping numbers exact.
func decodeObject(b []byte) (map[string]any, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := run.DecodeJSON(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// ListSessions renders the count and page queries of q; both take args.
func (d *Dialect) ListSessions(q storage.SessionQuery) (count, list string, args []any) {
	b := d.NewBuilder()
	var typeArg, ownerArg string
	if q.SessionType != "" {
		typeArg = b.Arg(string(q.SessionType))
		b.Where("session_type = " + typeArg)
	}
	if q.ComponentID != "" {
		// The owning id depends on the type (Session.ComponentID). With the
		// type given (agno's clients always give it) it is one column, so a
		// page is one range of that column's index; else each branch is
		// spelled out so each can use its index.
		// The owner and user indexes hold only rows with the column set
		// (SQLite's are partial, WHERE col <> ''): each filter says so
		// literally, so the planner may use them.
		a := b.Arg(q.ComponentID)
		ownerArg = a
		switch q.SessionType {
		case storage.SessionTeam:
			b.Where("team_id = " + a + " AND team_id <> ''")
		case storage.SessionWorkflow:
			b.Where("workflow_id = " + a + " AND workflow_id <> ''")
		case "":
			b.Where("((session_type = 'team' AND team_id = " + a + " AND team_id <> '') OR (session_type = 'workflow' AND workflow_id = " + a +
				" AND workflow_id <> '') OR (session_type NOT IN ('team', 'workflow') AND agent_id = " + a + " AND agent_id <> ''))")
		default:
			b.Where("agent_id = " + a + " AND agent_id <> ''")
		}
	}
	if q.UserID != "" {
		b.Where("user_id = " + b.Arg(q.UserID) + " AND user_id <> ''")
	}
	if q.NameContains != "" {
		b.Where(d.SQL.Contains("session_name", b.Arg(q.NameContains)))
	}
	if q.CreatedAfter != 0 {
		b.Where("created_at >= " + b.Arg(q.CreatedAfter))
	}
	if q.CreatedBefore != 0 {
		b.Where("created_at <= " + b.Arg(q.CreatedBefore))
	}
	col := "created_at"
	switch q.SortBy {
	case "updated_at":
		col = "updated_at"
	case "session_name":
		col = "session_name" + d.SQL.Collate()
	}
	dir := direction(q.SortOrder)
	where := b.SQL()
	count = "SELECT COUNT(*) FROM " + d.Sessions + where
	if d.SessionCounts != "" && q.UserID == "" && q.NameContains == "" && q.CreatedAfter == 0 && q.CreatedBefore == 0 {
		// total_count without reading the matching rows: the count the
		// triggers keep for this type and owner.
		typ, owner := "CAST("+typeArg+" AS TEXT)", "CAST("+ownerArg+" AS TEXT)"
		scope := "'all'"
		switch {
		case typeArg != "" && ownerArg != "":
			scope = "'tc:' || " + typ + " || ':' || " + owner
		case typeArg != "":
			scope = "'t:' || " + typ
		case ownerArg != "":
			scope = "'c:' || " + owner
		}
		// A scope is one row (SQLite) or a row per shard (Postgres).
		count = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM " + d.SessionCounts + " WHERE scope = " + scope
	}
	list = "SELECT " + SessionColumns + " FROM " + d.Sessions + where +
		" ORDER BY " + col + " " + dir + ", session_id" + d.SQL.Collate() + " " + dir + LimitOffset(q.Limit, q.Page)
	return count, list, b.Args
}

// --- runs ---

// RunColumns lists agno_runs columns in ScanRun order.
const RunColumns = "run_id, session_id, parent_run_id, session_type, component_id, user_id, status, created_at, updated_at, data, owner, listed, cancel_requested, version"

// runColumnsWithoutData is RunColumns with a NULL for data.
var runColumnsWithoutData = strings.Replace(RunColumns, " data,", " NULL AS data,", 1)

// ScanRun reads one row of RunColumns.
func ScanRun(sc Scanner) (*storage.Run, error) {
	var r storage.Run
	var typ, status string
	var data []byte
	if err := sc.Scan(&r.RunID, &r.SessionID, &r.ParentRunID, &typ, &r.ComponentID, &r.UserID, &status,
		&r.CreatedAt, &r.UpdatedAt, &data, &r.Owner, &r.Listed, &r.CancelRequested, &r.Version); err != nil {
		return nil, err
	}
	r.SessionType = storage.SessionType(typ)
	r.Status = run.Status(status)
	if len(data) > 0 {
		r.Data = json.RawMessage(data)
	}
	return &r, nil
}

// Chunks reads r in storage.BlobChunkSize pieces and hands each to
// put with its sequence number; an empty r is one empty chunk, so every
// blob has a row.
func Chunks(r io.Reader, put func(seq int64, chunk []byte) error) error {
	buf := make([]byte, storage.BlobChunkSize)
	for seq := int64(0); ; seq++ {
		n, err := io.ReadFull(r, buf)
		last := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !last {
			return fmt.Errorf("read: %w", err)
		}
		if n > 0 || seq == 0 {
			if err := put(seq, buf[:n]); err != nil {
				return err
			}
		}
		if last {
			return nil
		}
	}
}

// blobChunks collects the (data) rows of one blob, in order.
type blobChunks struct {
	chunks [][]byte
	size   int
}

func (b *blobChunks) add(sc Scanner) error {
	var chunk []byte
	if err := sc.Scan(&chunk); err != nil {
		return err
	}
	b.chunks = append(b.chunks, chunk)
	b.size += len(chunk)
	return nil
}

// join concatenates the chunks into one allocation of their size
// (appending chunk by chunk would copy a large file over and over); no
// chunks is storage.ErrNotFound.
func (b *blobChunks) join(sessionID, blobID string) ([]byte, error) {
	switch {
	case len(b.chunks) == 0:
		return nil, fmt.Errorf("blob %q of session %q: %w", blobID, sessionID, storage.ErrNotFound)
	case len(b.chunks) == 1 && b.chunks[0] != nil:
		return b.chunks[0], nil
	}
	data := make([]byte, 0, b.size)
	for i, c := range b.chunks {
		data = append(data, c...)
		b.chunks[i] = nil
	}
	return data, nil
}

// RunSQL are the run statements the SQL backends share; each names its
// arguments in order.
type RunSQL struct {
	// UpdateRun (run_id, session_id, parent_run_id, session_type,
	// component_id, user_id, status, updated_at, data, owner, listed):
	// in place, by its owner while in flight.
	UpdateRun string
	// UpdateRunInline is UpdateRun that also stores the run's first events
	// inline (argument 12, sqlstore.InlineEvents): only while it has none.
	UpdateRunInline string
	// InlineCount (run_id) is how many events the run keeps inline (no
	// row when the run is not stored).
	InlineCount string
	// TakePending: UpdateRun's arguments, for a row still PENDING.
	TakePending string
	// Claim (run_id, to, owner, listed, updated_at, from, expect_owner,
	// version) returning RunColumns.
	Claim string
	// RequestCancel (run_id, updated_at) returning RunColumns.
	RequestCancel string
	// Heartbeat (instance_id, now); Instances lists them;
	// ReleaseInstance (instance_id) ends a lease at once.
	Heartbeat, Instances, ReleaseInstance string
	// Owned (run_id, owner) selects the run while it is in flight and
	// owned by owner (locked: forUpdate): a write of events alone checks
	// it, so a run taken over gains no events from its old owner.
	Owned string
	// Session reads one session's SessionColumns in a write transaction
	// (ForUpdate appended); UpdateSession writes it (UpdateSession
	// arguments of the backends' UpdateSession).
	Session string
}

// RunSQL renders the shared run statements; forUpdate locks a read row
// (Postgres), empty where the write transaction is exclusive (SQLite).
func (d *Dialect) RunSQL(forUpdate string) RunSQL {
	a := d.Arg
	where := " WHERE run_id = " + a(1) + " AND session_id = " + a(2) + " AND parent_run_id = " + a(3) +
		" AND session_type = " + a(4) + " AND component_id = " + a(5)
	set := "UPDATE " + d.Runs + " SET user_id = " + a(6) + ", status = " + a(7) + ", updated_at = " + a(8) +
		", data = " + a(9) + ", owner = " + a(10) + ", listed = (listed OR " + a(11) + "), version = version + 1"
	byOwner := " AND (owner = " + a(10) + " OR (" + a(10) + " = '' AND status NOT IN ('PENDING', 'RUNNING')))"
	return RunSQL{
		UpdateRun: set + where + byOwner,
		UpdateRunInline: set + ", events = " + a(12) + where + byOwner +
			" AND events IS NULL AND NOT EXISTS (SELECT 1 FROM " + d.Events + " WHERE run_id = " + a(1) + ")",
		InlineCount: "SELECT COALESCE(" + d.SQL.JSONArrayLength("events") + ", 0) FROM " + d.Runs + " WHERE run_id = " + a(1),
		TakePending: set + where + " AND status = 'PENDING'",
		// A claim starts the run's next life: a cancel asked of the last one
		// (it paused before seeing it) does not carry over.
		Claim: "UPDATE " + d.Runs + " SET status = " + a(2) + ", owner = " + a(3) + ", listed = " + a(4) +
			", updated_at = " + a(5) + ", data = COALESCE(" + a(9) + ", data), cancel_requested = false, version = version + 1 WHERE run_id = " + a(1) + " AND status = " + a(6) +
			" AND (" + a(7) + " = '' OR owner = " + a(7) + ") AND (" + a(8) + " < 0 OR version = " + a(8) + ") RETURNING " + RunColumns,
		RequestCancel: "UPDATE " + d.Runs + " SET cancel_requested = true, updated_at = " + a(2) +
			" WHERE run_id = " + a(1) + " AND status IN ('PENDING', 'RUNNING') RETURNING " + RunColumns,
		Heartbeat:       d.SQL.Upsert(d.Instances, "instance_id, heartbeat_at, started_at", a(1)+", "+a(2)+", "+a(2), "instance_id", []string{"heartbeat_at"}),
		Instances:       "SELECT instance_id, heartbeat_at FROM " + d.Instances,
		ReleaseInstance: "UPDATE " + d.Instances + " SET heartbeat_at = 0 WHERE instance_id = " + a(1),
		Owned:           "SELECT 1 FROM " + d.Runs + " WHERE run_id = " + a(1) + " AND owner = " + a(2) + " AND status IN ('PENDING', 'RUNNING')" + forUpdate,
		Session:         "SELECT " + SessionColumns + " FROM " + d.Sessions + " WHERE session_id = " + a(1) + forUpdate,
	}
}

// RunArgs are a run's arguments to RunSQL.UpdateRun and TakePending.
func RunArgs(r *storage.Run) []any {
	return []any{r.RunID, r.SessionID, r.ParentRunID, string(r.SessionType), r.ComponentID, r.UserID, string(r.Status),
		cmp.Or(r.UpdatedAt, run.Now()), RunData(r), r.Owner, r.Listed}
}

// ClaimArgs are a claim's arguments to RunSQL.Claim.
func ClaimArgs(c storage.Claim) []any {
	return []any{c.RunID, string(c.To), c.Owner, c.Listed, run.Now(), string(c.From), c.ExpectOwner, c.Version, RunData(&storage.Run{Data: c.Data})}
}

// RunData is the data column value of r: JSON text, or nil for none.
func RunData(r *storage.Run) any {
	if len(r.Data) == 0 {
		return nil
	}
	return string(r.Data)
}

// ListRuns renders the query of q; seqColumn orders runs created in the
// same second by insertion.
func (d *Dialect) ListRuns(q storage.RunQuery, seqColumn string) (string, []any) {
	b := d.NewBuilder()
	if q.SessionID != "" {
		b.Where("session_id = " + b.Arg(q.SessionID))
	}
	if len(q.SessionIDs) > 0 {
		ph := make([]string, len(q.SessionIDs))
		for i, id := range q.SessionIDs {
			ph[i] = b.Arg(id)
		}
		b.Where("session_id IN (" + strings.Join(ph, ", ") + ")")
	}
	if q.ComponentID != "" {
		b.Where("component_id = " + b.Arg(q.ComponentID))
	}
	if q.TopLevel {
		b.Where("parent_run_id = ''")
	}
	if q.ParentRunID != "" {
		b.Where("parent_run_id = " + b.Arg(q.ParentRunID))
	}
	if q.CreatedAfter != 0 {
		b.Where("created_at >= " + b.Arg(q.CreatedAfter))
	}
	if q.CreatedBefore != 0 {
		b.Where("created_at <= " + b.Arg(q.CreatedBefore))
	}
	if len(q.Status) > 0 {
		ph := make([]string, len(q.Status))
		for i, st := range q.Status {
			ph[i] = b.Arg(string(st))
		}
		b.Where("status IN (" + strings.Join(ph, ", ") + ")")
	}
	if q.Owner != "" {
		b.Where("owner = " + b.Arg(q.Owner))
	}
	if q.ExcludeOwner != "" {
		b.Where("owner <> " + b.Arg(q.ExcludeOwner))
	}
	if q.CancelRequested {
		b.Where("cancel_requested = " + b.Arg(true))
	}
	if q.UpdatedAfter != 0 {
		b.Where("updated_at >= " + b.Arg(q.UpdatedAfter))
	}
	if q.Settled {
		b.Where("NOT (status IN (" + b.Arg(string(run.StatusPending)) + ", " + b.Arg(string(run.StatusRunning)) + ") AND listed = " + b.Arg(false) + ")")
	}
	dir := "ASC"
	if q.Newest {
		dir = "DESC"
	}
	// The index meant for each shape, whatever the statistics say, where
	// the database takes a hint: without statistics SQLite may walk every
	// top-level run to spare a sort, rather than seek the few runs in
	// flight or just written.
	from := d.Runs
	switch {
	case q.SessionID != "" || len(q.SessionIDs) > 0:
		from += d.SQL.IndexedBy("agno_runs", "session_idx")
	case q.ParentRunID != "":
		from += d.SQL.IndexedBy("agno_runs", "parent_idx")
	case q.ComponentID != "":
		from += d.SQL.IndexedBy("agno_runs", "component_idx")
	case len(q.Status) > 0 && !slices.Contains(q.Status, run.StatusCompleted):
		from += d.SQL.IndexedBy("agno_runs", "status_owner_idx")
	case q.UpdatedAfter != 0:
		from += d.SQL.IndexedBy("agno_runs", "updated_idx")
	}
	cols := RunColumns
	if q.WithoutData {
		cols = runColumnsWithoutData
	}
	sql := "SELECT " + cols + " FROM " + from + b.SQL() +
		" ORDER BY created_at " + dir + ", " + seqColumn + " " + dir + LimitOffset(q.Limit, 1)
	return sql, b.Args
}

// ValidateEvents checks every event is JSON before any is stored.
func ValidateEvents(runID string, events []json.RawMessage) error {
	for i, e := range events {
		if !json.Valid(e) {
			return fmt.Errorf("storage: event %d of run %q is not valid JSON", i, runID)
		}
	}
	return nil
}

// --- memories ---

// MemoryColumns lists agno_memories columns in ScanMemory order.
const MemoryColumns = "memory_id, memory, topics, user_id, agent_id, team_id, input, feedback, created_at, updated_at"

// ScanMemory reads one row of MemoryColumns.
func ScanMemory(sc Scanner) (*storage.Memory, error) {
	var m storage.Memory
	var topics []byte
	if err := sc.Scan(&m.MemoryID, &m.Memory, &topics, &m.UserID, &m.AgentID, &m.TeamID, &m.Input, &m.Feedback,
		&m.CreatedAt, &m.UpdatedAt); err != nil {
		return nil, err
	}
	if len(topics) > 0 && string(topics) != "null" {
		if err := json.Unmarshal(topics, &m.Topics); err != nil {
			return nil, fmt.Errorf("storage: memory %q: topics: %w", m.MemoryID, err)
		}
		if len(m.Topics) == 0 {
			m.Topics = nil
		}
	}
	return &m, nil
}

// MemoryTopicsValue is the topics column value of m.
func MemoryTopicsValue(m *storage.Memory) (any, error) {
	if len(m.Topics) == 0 {
		return nil, nil
	}
	s, err := EncodeJSON(m.Topics)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ListMemories renders the count and page queries of q.
func (d *Dialect) ListMemories(q storage.MemoryQuery) (count, list string, args []any) {
	b := d.NewBuilder()
	var user, agent, team string // their arguments, as TEXT
	if q.UserID != "" {
		user = "CAST(" + b.Arg(q.UserID) + " AS TEXT)"
		b.Where("user_id = " + user)
	}
	if q.AgentID != "" {
		agent = "CAST(" + b.Arg(q.AgentID) + " AS TEXT)"
		b.Where("agent_id = " + agent)
	}
	if q.TeamID != "" {
		team = "CAST(" + b.Arg(q.TeamID) + " AS TEXT)"
		b.Where("team_id = " + team)
	}
	for _, t := range q.Topics {
		b.Where(d.SQL.JSONArrayHas("topics", b.Arg(t)))
	}
	if q.ContentSearch != "" {
		b.Where(d.SQL.Contains("memory", b.Arg(q.ContentSearch)))
	}
	col := "updated_at"
	if q.SortBy == "created_at" {
		col = "created_at"
	}
	dir := direction(q.SortOrder)
	where := b.SQL()
	count = "SELECT COUNT(*) FROM " + d.Memories + where
	if scope := memoryScope(user, agent, team); d.MemoryCounts != "" && scope != "" && len(q.Topics) == 0 && q.ContentSearch == "" {
		count = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM " + d.MemoryCounts + " WHERE scope = " + scope
	}
	list = "SELECT " + MemoryColumns + " FROM " + d.Memories + where +
		" ORDER BY " + col + " " + dir + ", memory_id" + d.SQL.Collate() + " " + dir + LimitOffset(q.Limit, q.Page)
	return count, list, b.Args
}

// memoryScope is the MemoryCounts scope of a listing filtered by the
// given arguments ("" for none), "" when no scope is kept for it.
func memoryScope(user, agent, team string) string {
	switch {
	case user == "" && agent == "" && team == "":
		return "'all'"
	case agent == "" && team == "":
		return "'u:' || " + user
	case user == "" && team == "":
		return "'a:' || " + agent
	case user == "" && agent == "":
		return "'t:' || " + team
	case team == "":
		return "'ua:' || length(" + user + ") || ':' || " + user + " || " + agent
	case agent == "":
		return "'ut:' || length(" + user + ") || ':' || " + user + " || " + team
	}
	return ""
}

// MemoryStats renders the count and page queries of user memory stats.
func (d *Dialect) MemoryStats(userID string, limit, page int) (count, list string, args []any) {
	b := d.NewBuilder()
	if userID != "" {
		b.Where("user_id = " + b.Arg(userID))
	}
	where := b.SQL()
	count = "SELECT COUNT(*) FROM " + d.MemoryUsers + where
	list = "SELECT user_id, n, last_updated FROM " + d.MemoryUsers + where +
		" ORDER BY last_updated DESC, user_id" + d.SQL.Collate() + " ASC" + LimitOffset(limit, page)
	return count, list, b.Args
}

// --- optimistic updates ---

// Backoff waits a little before retry attempt n (0-based), with jitter so
// writers that collided spread out. It returns early with ctx's error.
func Backoff(ctx context.Context, attempt int) error {
	ceiling := time.Duration(200<<min(attempt, 8)) * time.Microsecond // 0.2ms … 51ms
	t := time.NewTimer(rand.N(ceiling) + 50*time.Microsecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ApplyUpdate applies fn to cur (a fresh copy the caller owns) and stamps the
// fields UpdateSession owns. It returns the encoded document columns.
func ApplyUpdate(cur *storage.Session, fn func(*storage.Session) error) (*storage.Session, SessionRow, error) {
	id, version, updated := cur.SessionID, cur.Version, cur.UpdatedAt
	if err := fn(cur); err != nil {
		return nil, SessionRow{}, err
	}
	cur.SessionID = id
	cur.Version = version + 1
	cur.UpdatedAt = max(run.Now(), updated)
	row, err := EncodeSession(cur)
	return cur, row, err
}

// NewChanged is new session ns (encoded as row) with change applied, as
// an insert of it stores it: the change sees the session as a read gives
// it back, and the version stays the new session's.
func NewChanged(ns *storage.Session, row SessionRow, change func(*storage.Session) error) (*storage.Session, SessionRow, error) {
	fresh, err := Normalize(ns, row)
	if err != nil {
		return nil, SessionRow{}, err
	}
	next, nextRow, err := ApplyUpdate(fresh, change)
	if err != nil {
		return nil, SessionRow{}, err
	}
	next.Version = ns.Version
	return next, nextRow, nil
}

// Normalize returns s as a read would: document columns decoded from the
// JSON just written, so callers see what the store holds.
func Normalize(s *storage.Session, row SessionRow) (*storage.Session, error) {
	out := *s
	var err error
	if out.SessionState, err = decodeAny(row.State); err != nil {
		return nil, err
	}
	if out.Metadata, err = decodeAny(row.Metadata); err != nil {
		return nil, err
	}
	if out.Data, err = decodeAny(row.Data); err != nil {
		return nil, err
	}
	if row.Summary != nil {
		out.Summary = new(storage.Summary)
		if err := json.Unmarshal([]byte(row.Summary.(string)), out.Summary); err != nil {
			return nil, err
		}
	}
	if row.Metrics != nil {
		out.Metrics = new(run.Metrics)
		if err := json.Unmarshal([]byte(row.Metrics.(string)), out.Metrics); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

func decodeAny(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	return decodeObject([]byte(v.(string)))
}

// NewSessionRow is sess as a new row, encoded (nil for none).
func NewSessionRow(sess *storage.Session) (*storage.Session, SessionRow, error) {
	if sess == nil {
		return nil, SessionRow{}, nil
	}
	if sess.SessionID == "" {
		return nil, SessionRow{}, errors.New("storage: session_id is empty")
	}
	ns := NewSession(sess)
	row, err := EncodeSession(ns)
	return ns, row, err
}

// NewSession fills the defaults EnsureSession applies to a new session.
func NewSession(s *storage.Session) *storage.Session {
	c := *s
	if c.CreatedAt == 0 {
		c.CreatedAt = run.Now()
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = c.CreatedAt
	}
	c.Version = 1
	return &c
}
