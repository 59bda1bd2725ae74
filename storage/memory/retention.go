package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/agno-go/agno/storage"
)

var _ storage.Pruner = (*Store)(nil)

// Prune implements storage.Pruner, as the SQL backends do, under the
// store's lock.
func (s *Store) Prune(_ context.Context, p storage.RetentionPolicy) (storage.PruneResult, error) {
	var res storage.PruneResult
	if err := p.Validate(); err != nil {
		return res, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return res, err
	}
	if !p.Enabled() {
		return res, nil
	}
	cutoff := p.Cutoff(time.Now())
	if p.MaxAge > 0 {
		s.pruneSessionsLocked(cutoff, &res)
	}
	s.pruneRunsLocked(p, cutoff, &res)
	return res, nil
}

// deleteRunLocked removes a run and its events.
func (s *Store) deleteRunLocked(id string, res *storage.PruneResult) {
	res.Runs++
	res.Events += int64(len(s.events[id]))
	if r, ok := s.runs[id]; ok {
		if set := s.sessionRuns[r.SessionID]; set != nil {
			delete(set, id)
			if len(set) == 0 {
				delete(s.sessionRuns, r.SessionID)
			}
		}
	}
	delete(s.runs, id)
	delete(s.events, id)
	delete(s.runOrder, id)
}

func (s *Store) pruneSessionsLocked(cutoff int64, res *storage.PruneResult) {
	bySession := map[string][]*storage.Run{}
	for _, r := range s.runs {
		bySession[r.SessionID] = append(bySession[r.SessionID], r)
	}
	var gone []*storage.Session
	defer func() {
		s.order.removeAll(gone)
		s.deleteBlobsLocked(gone)
	}()
	for id, sess := range s.sessions {
		if sess.UpdatedAt >= cutoff || slices.ContainsFunc(bySession[id], func(r *storage.Run) bool {
			return storage.Unfinished(r.Status) || r.UpdatedAt >= cutoff
		}) {
			continue
		}
		gone = append(gone, sess)
		delete(s.sessions, id)
		res.Sessions++
		for _, r := range bySession[id] {
			s.deleteRunLocked(r.RunID, res)
		}
	}
}

func (s *Store) pruneRunsLocked(p storage.RetentionPolicy, cutoff int64, res *storage.PruneResult) {
	children := map[string][]string{}
	var top []*storage.Run
	for _, r := range s.runs {
		if r.ParentRunID == "" {
			top = append(top, r)
		} else {
			children[r.ParentRunID] = append(children[r.ParentRunID], r.RunID)
		}
	}
	// Newest first, as the SQL backends count MaxRuns.
	slices.SortFunc(top, func(a, b *storage.Run) int {
		return -cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(s.runOrder[a.RunID], s.runOrder[b.RunID]))
	})
	for i, r := range top {
		old := p.MaxAge > 0 && r.UpdatedAt < cutoff
		beyond := p.MaxRuns > 0 && i >= p.MaxRuns
		if storage.Unfinished(r.Status) || !old && !beyond {
			continue
		}
		tree := s.treeLocked(r.RunID, children)
		if slices.ContainsFunc(tree, func(id string) bool { return storage.Unfinished(s.runs[id].Status) }) {
			continue
		}
		for _, id := range tree {
			s.deleteRunLocked(id, res)
		}
	}
}

// treeLocked is root with the runs it started, theirs, and so on (each
// once, even on a parent cycle).
func (s *Store) treeLocked(root string, children map[string][]string) []string {
	seen := map[string]bool{root: true}
	out := []string{root}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}
