package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// pruneTx is a write transaction as Prune uses it: each statement's
// result before the next.
type pruneTx struct{ tx Tx }

// Exec runs a statement and returns the number of rows it changed.
func (t pruneTx) Exec(q string, args ...any) (int64, error) {
	var n int64
	t.tx.Exec(q, args, func(k int64) error { n = k; return nil })
	return n, t.tx.Flush()
}

// Strings runs a query (or a statement with RETURNING) of cols text
// columns and returns its rows.
func (t pruneTx) Strings(cols int, q string, args ...any) ([][]string, error) {
	var out [][]string
	t.tx.Query(q, args, func(sc Scanner) error {
		row := make([]string, cols)
		dst := make([]any, cols)
		for i := range row {
			dst[i] = &row[i]
		}
		out = append(out, row)
		return sc.Scan(dst...)
	})
	return out, t.tx.Flush()
}

// Pruning is what a backend gives Prune.
type Pruning struct {
	// Write runs fn in one write transaction. fn may run more than once
	// (a group commit that failed is replayed write by write), and
	// starts from nothing each time.
	Write func(ctx context.Context, fn func(Tx) error) error
	// Batch bounds the sessions, or top-level runs, one transaction
	// deletes (default PruneBatch).
	Batch int
}

// seq orders runs created in the same second by insertion.
const seq = "row_seq"

// PruneBatch is how many sessions, or top-level runs with their member
// runs, one prune transaction deletes: small enough that SQLite's one
// writer is not held long, large enough that a backlog goes quickly.
const PruneBatch = 200

// inChunk bounds the ids of one IN list (SQLite and Postgres bound the
// arguments of a statement).
const inChunk = 500

// Prune deletes what p no longer keeps (storage.Pruner), in
// transactions of at most b.Batch sessions or run trees: first the idle
// sessions (MaxAge), then the finished runs older than MaxAge or than
// the MaxRuns newest. Every statement that deletes runs checks their
// status itself, so a run that became unfinished meanwhile (another
// replica claimed it) stays.
func (d *Dialect) Prune(ctx context.Context, b Pruning, p storage.RetentionPolicy) (storage.PruneResult, error) {
	var total storage.PruneResult
	if err := p.Validate(); err != nil || !p.Enabled() {
		return total, err
	}
	if b.Batch <= 0 {
		b.Batch = PruneBatch
	}
	cutoff := p.Cutoff(time.Now())
	if p.MaxAge > 0 {
		n, err := d.pruneSessions(ctx, b, cutoff)
		total = total.Add(n)
		if err != nil {
			return total, err
		}
	}
	n, err := d.pruneRuns(ctx, b, p, cutoff)
	return total.Add(n), err
}

// unfinished renders the statuses retention keeps as an SQL list.
func unfinished() string {
	var parts []string
	for _, s := range storage.UnfinishedStatuses() {
		parts = append(parts, "'"+string(s)+"'")
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// in renders an IN list of ids as arguments of bd.
func in(bd *Builder, ids []string) string {
	ph := make([]string, len(ids))
	for i, id := range ids {
		ph[i] = bd.Arg(id)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

func chunked(ids []string) [][]string {
	var out [][]string
	for len(ids) > inChunk {
		out = append(out, ids[:inChunk])
		ids = ids[inChunk:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

func column(rows [][]string, i int) []string {
	out := make([]string, len(rows))
	for j, r := range rows {
		out[j] = r[i]
	}
	return out
}

// pruneSessions deletes, a batch per transaction, the sessions not
// updated since cutoff that have no unfinished run and no run written
// since, with their finished runs, events and blobs.
func (d *Dialect) pruneSessions(ctx context.Context, b Pruning, cutoff int64) (storage.PruneResult, error) {
	var total storage.PruneResult
	for {
		var got storage.PruneResult
		var picked int
		err := b.Write(ctx, func(t Tx) error {
			tx := pruneTx{t}
			got, picked = storage.PruneResult{}, 0
			bd := d.NewBuilder()
			c := bd.Arg(cutoff)
			// One statement picks and deletes, so the check that no run is
			// in flight holds when the session goes.
			rows, err := tx.Strings(1, "DELETE FROM "+d.Sessions+" WHERE session_id IN (SELECT s.session_id FROM "+d.Sessions+
				" s WHERE s.updated_at < "+c+" AND NOT EXISTS (SELECT 1 FROM "+d.Runs+" r WHERE r.session_id = s.session_id AND (r.status IN "+
				unfinished()+" OR r.updated_at >= "+c+")) ORDER BY s.updated_at, s.session_id LIMIT "+strconv.Itoa(b.Batch)+") RETURNING session_id", bd.Args...)
			if err != nil {
				return err
			}
			picked = len(rows)
			got.Sessions = int64(len(rows))
			for _, ids := range chunked(column(rows, 0)) {
				bd := d.NewBuilder()
				list := in(bd, ids)
				finished := "SELECT run_id FROM " + d.Runs + " WHERE session_id IN " + list + " AND status NOT IN " + unfinished()
				n, err := tx.Exec("DELETE FROM "+d.Events+" WHERE run_id IN ("+finished+")", bd.Args...)
				if err != nil {
					return err
				}
				got.Events += n
				if _, err := tx.Exec("DELETE FROM "+d.Blobs+" WHERE session_id IN "+list, bd.Args...); err != nil {
					return err
				}
				n, err = tx.Exec("DELETE FROM "+d.Runs+" WHERE session_id IN "+list+" AND status NOT IN "+unfinished(), bd.Args...)
				if err != nil {
					return err
				}
				got.Runs += n
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total = total.Add(got)
		if picked < b.Batch {
			return total, nil
		}
	}
}

// pruneRuns deletes the trees of finished top-level runs older than
// cutoff (MaxAge) or than the MaxRuns newest top-level runs, oldest
// first, a batch of trees per transaction. A tree holding an unfinished
// run is skipped whole.
func (d *Dialect) pruneRuns(ctx context.Context, b Pruning, p storage.RetentionPolicy, cutoff int64) (storage.PruneResult, error) {
	var total storage.PruneResult
	// keep is the MaxRuns-th newest top-level run (created_at, seq):
	// those before it are beyond the count. Found once: runs created
	// later only push more out, which the next prune sees.
	var keep []string
	keepFound := p.MaxRuns <= 0
	// after is where the last batch stopped (created_at, seq), so trees
	// skipped for an unfinished member are not read again.
	var after []string
	for {
		var got storage.PruneResult
		var roots [][]string
		var foundKeep []string
		err := b.Write(ctx, func(t Tx) error {
			tx := pruneTx{t}
			got, roots, foundKeep = storage.PruneResult{}, nil, keep
			if !keepFound {
				rows, err := tx.Strings(2, "SELECT CAST(created_at AS TEXT), CAST("+seq+" AS TEXT) FROM "+d.Runs+
					" WHERE parent_run_id = '' ORDER BY created_at DESC, "+seq+" DESC LIMIT 1 OFFSET "+strconv.Itoa(p.MaxRuns-1))
				if err != nil {
					return err
				}
				if len(rows) == 0 {
					foundKeep = nil // no more runs than MaxRuns
				} else {
					foundKeep = rows[0]
				}
				if foundKeep == nil && p.MaxAge <= 0 {
					return nil
				}
			}
			bd := d.NewBuilder()
			var why []string
			if p.MaxAge > 0 {
				why = append(why, "updated_at < "+bd.Arg(cutoff))
			}
			if foundKeep != nil {
				c, s := bd.Arg(atoi(foundKeep[0])), bd.Arg(atoi(foundKeep[1]))
				why = append(why, "created_at < "+c+" OR (created_at = "+c+" AND "+seq+" < "+s+")")
			}
			if len(why) == 0 {
				return nil
			}
			where := " WHERE parent_run_id = '' AND status NOT IN " + unfinished() + " AND ((" + strings.Join(why, ") OR (") + "))"
			if after != nil {
				c, s := bd.Arg(atoi(after[0])), bd.Arg(atoi(after[1]))
				where += " AND (created_at > " + c + " OR (created_at = " + c + " AND " + seq + " > " + s + "))"
			}
			var err error
			roots, err = tx.Strings(3, "SELECT run_id, CAST(created_at AS TEXT), CAST("+seq+" AS TEXT) FROM "+d.Runs+where+
				" ORDER BY created_at, "+seq+" LIMIT "+strconv.Itoa(b.Batch), bd.Args...)
			if err != nil || len(roots) == 0 {
				return err
			}
			doomed, err := d.finishedTrees(tx, column(roots, 0))
			if err != nil {
				return err
			}
			for _, ids := range chunked(doomed) {
				bd := d.NewBuilder()
				gone, err := tx.Strings(1, "DELETE FROM "+d.Runs+" WHERE run_id IN "+in(bd, ids)+" AND status NOT IN "+unfinished()+" RETURNING run_id", bd.Args...)
				if err != nil {
					return err
				}
				got.Runs += int64(len(gone))
				if len(gone) == 0 {
					continue
				}
				bd = d.NewBuilder()
				n, err := tx.Exec("DELETE FROM "+d.Events+" WHERE run_id IN "+in(bd, column(gone, 0)), bd.Args...)
				if err != nil {
					return err
				}
				got.Events += n
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		keep, keepFound = foundKeep, true
		total = total.Add(got)
		if len(roots) < b.Batch {
			return total, nil
		}
		last := roots[len(roots)-1]
		after = []string{last[1], last[2]}
	}
}

// finishedTrees returns the runs of the trees under roots (the roots,
// the runs they started, theirs…) whose every run has finished.
func (d *Dialect) finishedTrees(tx pruneTx, roots []string) ([]string, error) {
	var out []string
	for _, ids := range chunked(roots) {
		bd := d.NewBuilder()
		// UNION (not UNION ALL) ends the walk even on a parent cycle.
		rows, err := tx.Strings(3, "WITH RECURSIVE tree(root, run_id) AS (SELECT run_id, run_id FROM "+d.Runs+" WHERE run_id IN "+in(bd, ids)+
			" UNION SELECT tree.root, r.run_id FROM "+d.Runs+" r JOIN tree ON r.parent_run_id = tree.run_id)"+
			" SELECT tree.root, tree.run_id, r.status FROM tree JOIN "+d.Runs+" r ON r.run_id = tree.run_id", bd.Args...)
		if err != nil {
			return nil, err
		}
		members := map[string][]string{}
		open := map[string]bool{}
		var order []string
		for _, r := range rows {
			root, id, status := r[0], r[1], r[2]
			if _, seen := members[root]; !seen {
				order = append(order, root)
			}
			members[root] = append(members[root], id)
			if storage.Unfinished(run.Status(status)) {
				open[root] = true
			}
		}
		seen := map[string]bool{}
		for _, root := range order {
			if open[root] {
				continue
			}
			for _, id := range members[root] {
				if !seen[id] { // a run under two roots (a bad parent link) once
					seen[id] = true
					out = append(out, id)
				}
			}
		}
	}
	return out, nil
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
