// Package memory is the in-process storage backend: everything in maps,
// nothing survives the process. It is the reference for the conformance
// suite and the default when no database is configured in the library.
package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agno-go/agno/internal/keyorder"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Store is the in-process storage.Store.
type Store struct {
	mu       sync.RWMutex
	closed   bool
	sessions map[string]*storage.Session
	order    sessionOrder // the sessions in listing order
	runs     map[string]*storage.Run
	// sessionRuns are the ids of each session's runs (a run never changes
	// session), so a session's runs are read without a scan.
	sessionRuns map[string]map[string]struct{}
	events      map[string][]storage.Event
	memories    map[string]*storage.Memory
	memOrder    memoryOrder // the memories in listing orders
	// runOrder breaks created_at ties by insertion, as SQL backends do
	// with their row sequence.
	runOrder map[string]int64
	nextRun  int64
	blobs    map[string]blob
	// instances are heartbeats of AgentOS processes.
	instances map[string]int64
	// maxRuns bounds the top-level runs kept (0: no bound); see MaxRuns.
	// ended counts the runs that ended since the last prune.
	maxRuns, ended int
}

// Option configures New.
type Option func(*Store)

// MaxRuns keeps about n top-level runs: every n/10 runs that end, the
// finished ones older than the n newest go (so at most n + n/10 stay),
// with their member runs and events, as RetentionPolicy.MaxRuns prunes.
// Runs in flight or paused stay whatever their age.
func MaxRuns(n int) Option { return func(s *Store) { s.maxRuns = max(n, 0) } }

// blob is a stored file and the session it belongs to.
type blob struct {
	session string
	data    []byte
}

var _ storage.Store = (*Store)(nil)

// New returns an empty store. It keeps everything until it is closed
// unless MaxRuns bounds it (about 10 KB per run with its events).
func New(opts ...Option) *Store {
	s := &Store{
		sessions:    map[string]*storage.Session{},
		order:       sessionOrder{keyorder.Order[scope]{}},
		memOrder:    newMemoryOrder(),
		runs:        map[string]*storage.Run{},
		sessionRuns: map[string]map[string]struct{}{},
		events:      map[string][]storage.Event{},
		memories:    map[string]*storage.Memory{},
		runOrder:    map[string]int64{},
		blobs:       map[string]blob{},
		instances:   map[string]int64{},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Store) check() error {
	if s.closed {
		return storage.ErrClosed
	}
	return nil
}

// EnsureSession implements storage.Store.
func (s *Store) EnsureSession(_ context.Context, sess *storage.Session) (*storage.Session, bool, error) {
	if sess.SessionID == "" {
		return nil, false, fmt.Errorf("storage: session_id is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return nil, false, err
	}
	return s.ensureLocked(sess)
}

func (s *Store) ensureLocked(sess *storage.Session) (*storage.Session, bool, error) {
	if cur, ok := s.sessions[sess.SessionID]; ok {
		return cur.Clone(), false, nil
	}
	if err := encodable(sess); err != nil {
		return nil, false, err
	}
	c := freshSession(sess)
	s.sessions[c.SessionID] = c
	s.order.add(c)
	return c.Clone(), true, nil
}

// freshSession is sess as it is first stored.
func freshSession(sess *storage.Session) *storage.Session {
	c := sess.Clone()
	if c.CreatedAt == 0 {
		c.CreatedAt = run.Now()
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = c.CreatedAt
	}
	c.Version = 1
	return c
}

// GetSession implements storage.Store.
func (s *Store) GetSession(_ context.Context, id string) (*storage.Session, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	cur, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q: %w", id, storage.ErrNotFound)
	}
	return cur.Clone(), nil
}

// UpdateSession implements storage.Store; the lock makes the update atomic.
func (s *Store) UpdateSession(_ context.Context, id string, fn func(*storage.Session) error) (*storage.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.updateSessionLocked(id, fn)
}

func (s *Store) updateSessionLocked(id string, fn func(*storage.Session) error) (*storage.Session, error) {
	cur, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q: %w", id, storage.ErrNotFound)
	}
	c := cur.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	if err := encodable(c); err != nil {
		return nil, err
	}
	c.SessionID = id
	c.Version = cur.Version + 1
	c.UpdatedAt = max(run.Now(), cur.UpdatedAt)
	s.sessions[id] = c
	s.order.replace(cur, c)
	return c.Clone(), nil
}

// ListSessions implements storage.Store.
func (s *Store) ListSessions(_ context.Context, q storage.SessionQuery) ([]*storage.Session, int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	if inCreationOrder(q) {
		page, total := s.order.page(q, func(id string) *storage.Session { return s.sessions[id] })
		return page, total, nil
	}
	page, total := s.scanSessions(q)
	return page, total, nil
}

// scanSessions answers q by filtering and sorting every session.
func (s *Store) scanSessions(q storage.SessionQuery) ([]*storage.Session, int) {
	var out []*storage.Session
	for _, x := range s.sessions {
		if q.SessionType != "" && x.SessionType != q.SessionType {
			continue
		}
		if q.ComponentID != "" && x.ComponentID() != q.ComponentID {
			continue
		}
		if q.UserID != "" && x.UserID != q.UserID {
			continue
		}
		if q.NameContains != "" && !strings.Contains(strings.ToLower(x.SessionName), strings.ToLower(q.NameContains)) {
			continue
		}
		if (q.CreatedAfter != 0 && x.CreatedAt < q.CreatedAfter) || (q.CreatedBefore != 0 && x.CreatedAt > q.CreatedBefore) {
			continue
		}
		out = append(out, x) // cloned once cut to the page
	}
	slices.SortFunc(out, func(a, b *storage.Session) int {
		var c int
		switch q.SortBy {
		case "updated_at":
			c = cmp.Compare(a.UpdatedAt, b.UpdatedAt)
		case "session_name":
			c = cmp.Compare(a.SessionName, b.SessionName)
		default:
			c = cmp.Compare(a.CreatedAt, b.CreatedAt)
		}
		if c == 0 {
			c = cmp.Compare(a.SessionID, b.SessionID)
		}
		if q.SortOrder != storage.Asc {
			c = -c
		}
		return c
	})
	return clonePage(out, q.Limit, q.Page, (*storage.Session).Clone), len(out)
}

// clonePage copies the items of one page (the rest are not copied).
func clonePage[T any](items []T, limit, page int, clone func(T) T) []T {
	out := slices.Clone(paginate(items, limit, page))
	for i, x := range out {
		out[i] = clone(x)
	}
	return out
}

// encodable refuses sessions the SQL backends could not store either
// (channels, NaN, funcs in the state), so every backend fails alike.
func encodable(s *storage.Session) error {
	for name, v := range map[string]any{"session_state": s.SessionState, "metadata": s.Metadata, "data": s.Data} {
		if _, err := json.Marshal(v); err != nil {
			return fmt.Errorf("storage: session %q: %s cannot be stored as JSON: %w", s.SessionID, name, err)
		}
	}
	return nil
}

func paginate[T any](items []T, limit, page int) []T {
	start, end := keyorder.PageRange(len(items), limit, page)
	return items[start:end]
}

// DeleteSessions implements storage.Store.
func (s *Store) DeleteSessions(_ context.Context, ids ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	var gone []*storage.Session
	for _, id := range ids {
		if cur, ok := s.sessions[id]; ok {
			gone = append(gone, cur)
		}
	}
	s.order.removeAll(gone)
	s.deleteBlobsLocked(gone)
	for _, id := range ids {
		delete(s.sessions, id)
		for rid := range s.sessionRuns[id] {
			s.deleteRunLocked(rid, &storage.PruneResult{})
		}
	}
	return nil
}

// deleteBlobsLocked deletes the files of the given sessions, in one pass
// over the files.
func (s *Store) deleteBlobsLocked(sessions []*storage.Session) {
	if len(sessions) == 0 {
		return
	}
	ids := make(map[string]bool, len(sessions))
	for _, x := range sessions {
		ids[x.SessionID] = true
	}
	for bid, b := range s.blobs {
		if ids[b.session] {
			delete(s.blobs, bid)
		}
	}
}

func cloneRun(r *storage.Run) *storage.Run {
	c := *r
	c.Data = append(json.RawMessage(nil), r.Data...)
	return &c
}

// CreateRun implements storage.Store.
func (s *Store) CreateRun(_ context.Context, r *storage.Run) error {
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	return s.createLocked(r)
}

func (s *Store) createLocked(r *storage.Run) error {
	if _, ok := s.runs[r.RunID]; ok {
		return fmt.Errorf("run %q exists: %w", r.RunID, storage.ErrConflict)
	}
	c := cloneRun(r)
	now := run.Now()
	if c.CreatedAt == 0 {
		c.CreatedAt = now
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = now
	}
	c.Version, c.CancelRequested = 1, false
	s.nextRun++
	s.runOrder[r.RunID] = s.nextRun
	s.runs[r.RunID] = c
	if s.sessionRuns[c.SessionID] == nil {
		s.sessionRuns[c.SessionID] = map[string]struct{}{}
	}
	s.sessionRuns[c.SessionID][c.RunID] = struct{}{}
	return nil
}

// UpdateRun implements storage.Store.
func (s *Store) UpdateRun(_ context.Context, r *storage.Run) error {
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	return s.updateLocked(r)
}

func (s *Store) updateLocked(r *storage.Run) error {
	old, ok := s.runs[r.RunID]
	if !ok {
		return fmt.Errorf("run %q: %w", r.RunID, storage.ErrNotFound)
	}
	if err := storage.SameRunPlace(old, r); err != nil {
		return err
	}
	if err := storage.CheckOwner(old, r); err != nil {
		return err
	}
	c := cloneRun(r)
	c.CreatedAt, c.Listed, c.CancelRequested, c.Version = old.CreatedAt, old.Listed || r.Listed, old.CancelRequested, old.Version+1
	if c.UpdatedAt == 0 {
		c.UpdatedAt = run.Now()
	}
	s.runs[r.RunID] = c
	return nil
}

// StartRun implements storage.Store.
func (s *Store) StartRun(_ context.Context, sess *storage.Session, r *storage.Run, pending bool) (*storage.Session, error) {
	if err := storage.ValidateRun(r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	if pending {
		old, ok := s.runs[r.RunID]
		if !ok {
			return nil, fmt.Errorf("run %q: %w", r.RunID, storage.ErrNotFound)
		}
		if old.Status != run.StatusPending {
			return nil, fmt.Errorf("run %q is %s, not PENDING: %w", r.RunID, old.Status, storage.ErrConflict)
		}
		if err := storage.SameRunPlace(old, r); err != nil {
			return nil, err
		}
	} else if _, ok := s.runs[r.RunID]; ok {
		return nil, fmt.Errorf("run %q exists: %w", r.RunID, storage.ErrConflict)
	}
	var stored *storage.Session
	if sess != nil {
		if sess.SessionID == "" {
			return nil, fmt.Errorf("storage: session_id is empty")
		}
		var err error
		if stored, _, err = s.ensureLocked(sess); err != nil {
			return nil, err
		}
	}
	if pending {
		old := s.runs[r.RunID]
		c := cloneRun(r)
		c.CreatedAt, c.Listed, c.CancelRequested, c.Version = old.CreatedAt, old.Listed, old.CancelRequested, old.Version+1
		c.UpdatedAt = run.Now()
		s.runs[r.RunID] = c
		return stored, nil
	}
	return stored, s.createLocked(r)
}

// SaveRun implements storage.Store. Everything is checked before
// anything is written.
func (s *Store) SaveRun(_ context.Context, w storage.RunWrite) error {
	runID, err := storage.ValidateWrite(w)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	start := w.StartSession
	switch {
	case w.Create:
		if _, ok := s.runs[runID]; ok {
			return fmt.Errorf("run %q exists: %w", runID, storage.ErrConflict)
		}
		if start != nil {
			if err := encodable(start); err != nil {
				return err
			}
		}
	case w.Run != nil:
		old, ok := s.runs[runID]
		if !ok {
			return fmt.Errorf("run %q: %w", runID, storage.ErrNotFound)
		}
		if err := storage.SameRunPlace(old, w.Run); err != nil {
			return err
		}
		if err := storage.CheckOwner(old, w.Run); err != nil {
			return err
		}
	case w.Owner != "":
		if r, ok := s.runs[runID]; !ok || r.Owner != w.Owner || !r.InFlight() {
			return fmt.Errorf("events of run %q: %w: it is not in flight under %s", runID, storage.ErrConflict, w.Owner)
		}
	}
	if start != nil {
		if _, ok := s.sessions[start.SessionID]; ok {
			start = nil // exists: nothing to create
		}
	}
	list := s.events[runID]
	next := int64(len(list))
	for i, e := range w.Events {
		if e.Seq != next+int64(i) {
			return fmt.Errorf("run %q: event seq %d, next is %d: %w", runID, e.Seq, next+int64(i), storage.ErrConflict)
		}
	}
	var sess *storage.Session
	if w.Session != nil {
		cur, ok := s.sessions[w.SessionID]
		if !ok && start != nil && start.SessionID == w.SessionID {
			cur, ok = freshSession(start), true
		}
		if !ok {
			return fmt.Errorf("session %q: %w", w.SessionID, storage.ErrNotFound)
		}
		c := cur.Clone()
		if err := w.Session(c); err != nil {
			return err
		}
		if err := encodable(c); err != nil {
			return err
		}
		c.SessionID, c.Version, c.UpdatedAt = w.SessionID, cur.Version+1, max(run.Now(), cur.UpdatedAt)
		sess = c
	}
	for _, c := range w.Children {
		if old, ok := s.runs[c.RunID]; ok {
			if err := storage.SameRunPlace(old, c); err != nil {
				return err
			}
		}
	}
	// Checked: write.
	for _, e := range w.Events {
		list = append(list, storage.Event{RunID: runID, Seq: e.Seq, Data: append(json.RawMessage(nil), e.Data...)})
	}
	if len(w.Events) > 0 {
		s.events[runID] = list
	}
	switch {
	case w.Create:
		if start != nil && (sess == nil || sess.SessionID != start.SessionID) {
			if _, _, err := s.ensureLocked(start); err != nil {
				return err
			}
		}
		_ = s.createLocked(w.Run)
	case w.Run != nil:
		_ = s.updateLocked(w.Run)
	}
	for _, c := range w.Children {
		if _, ok := s.runs[c.RunID]; ok {
			_ = s.updateLocked(c)
		} else {
			_ = s.createLocked(c)
		}
	}
	switch {
	case sess != nil && start != nil && start.SessionID == sess.SessionID: // new: stored changed
		sess.Version = 1
		s.sessions[sess.SessionID] = sess
		s.order.add(sess)
	case sess != nil:
		s.order.replace(s.sessions[w.SessionID], sess)
		s.sessions[w.SessionID] = sess
	}
	if w.Run != nil && !storage.Unfinished(w.Run.Status) {
		s.boundLocked()
	}
	return nil
}

// boundLocked prunes to maxRuns every maxRuns/10 runs that end, so the
// sort the prune does is paid once per tenth of the bound.
func (s *Store) boundLocked() {
	if s.maxRuns == 0 {
		return
	}
	if s.ended++; s.ended < max(s.maxRuns/10, 1) {
		return
	}
	s.ended = 0
	if len(s.runs) <= s.maxRuns {
		return
	}
	var res storage.PruneResult
	s.pruneRunsLocked(storage.RetentionPolicy{MaxRuns: s.maxRuns}, 0, &res)
}

// ClaimRun implements storage.Store.
func (s *Store) ClaimRun(_ context.Context, c storage.Claim) (*storage.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, ok := s.runs[c.RunID]
	if !ok {
		return nil, fmt.Errorf("run %q: %w", c.RunID, storage.ErrNotFound)
	}
	if err := storage.CheckClaim(r, c); err != nil {
		return nil, err
	}
	r.Status, r.Owner, r.Listed, r.UpdatedAt, r.CancelRequested = c.To, c.Owner, c.Listed, run.Now(), false
	if len(c.Data) > 0 {
		r.Data = append(json.RawMessage(nil), c.Data...)
	}
	r.Version++
	return cloneRun(r), nil
}

// RequestCancel implements storage.Store.
func (s *Store) RequestCancel(_ context.Context, runID string) (*storage.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, ok := s.runs[runID]
	if !ok {
		return nil, fmt.Errorf("run %q: %w", runID, storage.ErrNotFound)
	}
	if r.InFlight() && !r.CancelRequested {
		r.CancelRequested, r.UpdatedAt = true, run.Now()
	}
	return cloneRun(r), nil
}

// Heartbeat implements storage.Store.
func (s *Store) Heartbeat(_ context.Context, instanceID string) error {
	if instanceID == "" {
		return fmt.Errorf("storage: Heartbeat needs an instance id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	s.instances[instanceID] = run.Now()
	return nil
}

// ReleaseInstance implements storage.InstanceReleaser.
func (s *Store) ReleaseInstance(_ context.Context, instanceID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	if _, ok := s.instances[instanceID]; ok {
		s.instances[instanceID] = 0
	}
	return nil
}

// Instances implements storage.Store.
func (s *Store) Instances(context.Context) (map[string]int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	return maps.Clone(s.instances), nil
}

// PutBlob implements storage.Store.
func (s *Store) PutBlob(_ context.Context, sessionID, blobID string, r io.Reader) (int64, error) {
	if sessionID == "" || blobID == "" {
		return 0, fmt.Errorf("storage: PutBlob needs a session id and a blob id")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, fmt.Errorf("storage: read blob %q: %w", blobID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return 0, err
	}
	if _, ok := s.blobs[blobID]; ok {
		return 0, fmt.Errorf("blob %q exists: %w", blobID, storage.ErrConflict)
	}
	s.blobs[blobID] = blob{session: sessionID, data: data}
	return int64(len(data)), nil
}

// GetBlob implements storage.Store.
func (s *Store) GetBlob(_ context.Context, sessionID, blobID string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	b, ok := s.blobs[blobID]
	if !ok || b.session != sessionID {
		return nil, fmt.Errorf("blob %q of session %q: %w", blobID, sessionID, storage.ErrNotFound)
	}
	return slices.Clone(b.data), nil
}

// GetRun implements storage.Store.
func (s *Store) GetRun(_ context.Context, id string) (*storage.Run, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, ok := s.runs[id]
	if !ok {
		return nil, fmt.Errorf("run %q: %w", id, storage.ErrNotFound)
	}
	return cloneRun(r), nil
}

// ListRuns implements storage.Store.
func (s *Store) ListRuns(_ context.Context, q storage.RunQuery) ([]*storage.Run, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	var out []*storage.Run
	for r := range s.candidateRuns(q) {
		if MatchRun(r, q) {
			out = append(out, r) // cloned once cut to the limit
		}
	}
	slices.SortFunc(out, func(a, b *storage.Run) int {
		c := cmp.Compare(a.CreatedAt, b.CreatedAt)
		if c == 0 {
			c = cmp.Compare(s.runOrder[a.RunID], s.runOrder[b.RunID])
		}
		if q.Newest {
			c = -c
		}
		return c
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	for i, r := range out {
		if q.WithoutData {
			c := *r
			c.Data = nil
			out[i] = &c
			continue
		}
		out[i] = cloneRun(r)
	}
	return out, nil
}

// candidateRuns are the runs q can match: those of the sessions it names,
// else all.
func (s *Store) candidateRuns(q storage.RunQuery) iter.Seq[*storage.Run] {
	ids := q.SessionIDs
	if q.SessionID != "" {
		ids = []string{q.SessionID}
	}
	return func(yield func(*storage.Run) bool) {
		if len(ids) == 0 {
			for _, r := range s.runs {
				if !yield(r) {
					return
				}
			}
			return
		}
		seen := map[string]bool{}
		for _, sid := range ids {
			if seen[sid] {
				continue
			}
			seen[sid] = true
			for rid := range s.sessionRuns[sid] {
				if r := s.runs[rid]; r != nil && !yield(r) {
					return
				}
			}
		}
	}
}

// MatchRun applies a RunQuery to one run.
func MatchRun(r *storage.Run, q storage.RunQuery) bool {
	switch {
	case q.SessionID != "" && r.SessionID != q.SessionID:
		return false
	case len(q.SessionIDs) > 0 && !slices.Contains(q.SessionIDs, r.SessionID):
		return false
	case q.ComponentID != "" && r.ComponentID != q.ComponentID:
		return false
	case q.TopLevel && r.ParentRunID != "":
		return false
	case q.ParentRunID != "" && r.ParentRunID != q.ParentRunID:
		return false
	case q.CreatedAfter != 0 && r.CreatedAt < q.CreatedAfter:
		return false
	case q.CreatedBefore != 0 && r.CreatedAt > q.CreatedBefore:
		return false
	case len(q.Status) > 0 && !slices.Contains(q.Status, r.Status):
		return false
	case q.Owner != "" && r.Owner != q.Owner:
		return false
	case q.ExcludeOwner != "" && r.Owner == q.ExcludeOwner:
		return false
	case q.CancelRequested && !r.CancelRequested:
		return false
	case q.UpdatedAfter != 0 && r.UpdatedAt < q.UpdatedAfter:
		return false
	case q.Settled && r.InFlight() && !r.Listed:
		return false
	}
	return true
}

// AppendEvents implements storage.Store.
func (s *Store) AppendEvents(_ context.Context, runID string, events ...json.RawMessage) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return 0, err
	}
	list := s.events[runID]
	first := int64(len(list))
	for i, e := range events {
		if !json.Valid(e) {
			return 0, fmt.Errorf("storage: event %d of run %q is not valid JSON", i, runID)
		}
	}
	for i, e := range events {
		list = append(list, storage.Event{RunID: runID, Seq: first + int64(i), Data: append(json.RawMessage(nil), e...)})
	}
	s.events[runID] = list
	return first, nil
}

// ListEvents implements storage.Store.
func (s *Store) ListEvents(_ context.Context, runID string, after int64) ([]storage.Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	var out []storage.Event
	for _, e := range s.events[runID] {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return out, nil
}

// UpsertMemory implements storage.Store.
func (s *Store) UpsertMemory(_ context.Context, m *storage.Memory) error {
	if m.MemoryID == "" {
		return fmt.Errorf("storage: memory_id is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	c := cloneMemory(m)
	now := run.Now()
	old := s.memories[m.MemoryID]
	if old != nil {
		c.CreatedAt = old.CreatedAt
	} else if c.CreatedAt == 0 {
		c.CreatedAt = now
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = now
	}
	s.memories[m.MemoryID] = c
	s.memOrder.put(old, c)
	return nil
}

func cloneMemory(m *storage.Memory) *storage.Memory {
	c := *m
	c.Topics = append([]string(nil), m.Topics...)
	return &c
}

// GetMemory implements storage.Store.
func (s *Store) GetMemory(_ context.Context, id string) (*storage.Memory, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	m, ok := s.memories[id]
	if !ok {
		return nil, fmt.Errorf("memory %q: %w", id, storage.ErrNotFound)
	}
	return cloneMemory(m), nil
}

// MatchMemory applies a MemoryQuery's filters to one memory.
func MatchMemory(m *storage.Memory, q storage.MemoryQuery) bool {
	switch {
	case q.UserID != "" && m.UserID != q.UserID:
		return false
	case q.AgentID != "" && m.AgentID != q.AgentID:
		return false
	case q.TeamID != "" && m.TeamID != q.TeamID:
		return false
	case q.ContentSearch != "" && !strings.Contains(strings.ToLower(m.Memory), strings.ToLower(q.ContentSearch)):
		return false
	}
	for _, t := range q.Topics {
		if !slices.Contains(m.Topics, t) {
			return false
		}
	}
	return true
}

// ListMemories implements storage.Store.
func (s *Store) ListMemories(_ context.Context, q storage.MemoryQuery) ([]*storage.Memory, int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	if page, total, ok := s.memOrder.page(q, func(id string) *storage.Memory { return s.memories[id] }); ok {
		return page, total, nil
	}
	page, total := s.scanMemories(q)
	return page, total, nil
}

// scanMemories answers q by filtering and sorting every memory.
func (s *Store) scanMemories(q storage.MemoryQuery) ([]*storage.Memory, int) {
	var out []*storage.Memory
	for _, m := range s.memories {
		if MatchMemory(m, q) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *storage.Memory) int {
		c := cmp.Compare(a.UpdatedAt, b.UpdatedAt)
		if q.SortBy == "created_at" {
			c = cmp.Compare(a.CreatedAt, b.CreatedAt)
		}
		if c == 0 {
			c = cmp.Compare(a.MemoryID, b.MemoryID)
		}
		if q.SortOrder != storage.Asc {
			c = -c
		}
		return c
	})
	return clonePage(out, q.Limit, q.Page, cloneMemory), len(out)
}

// DeleteMemories implements storage.Store.
func (s *Store) DeleteMemories(_ context.Context, ids ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	var gone []*storage.Memory
	for _, id := range ids {
		if m, ok := s.memories[id]; ok {
			gone = append(gone, m)
			delete(s.memories, id)
		}
	}
	s.memOrder.removeAll(gone)
	return nil
}

// MemoryTopics implements storage.Store.
func (s *Store) MemoryTopics(_ context.Context, userID string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, m := range s.memories {
		if userID != "" && m.UserID != userID {
			continue
		}
		for _, t := range m.Topics {
			set[t] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// MemoryStats implements storage.Store.
func (s *Store) MemoryStats(_ context.Context, userID string, limit, page int) ([]storage.UserMemoryStats, int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	out, total := s.memOrder.stats(userID, limit, page)
	return out, total, nil
}

// Close implements storage.Store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
