// Package pgsignal carries the run engine's signals between AgentOS
// processes over Postgres LISTEN/NOTIFY, on the database they share.
package pgsignal

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres"
)

// Signals is runs.Signals on a Postgres pool.
type Signals struct {
	pool    *pgxpool.Pool
	channel string
}

var channelName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// New returns signals on pool, on a channel of their own per schema (so
// stores in different schemas of one database do not hear each other).
func New(pool *pgxpool.Pool, schema string) (*Signals, error) {
	ch := "agno_runs_" + schema
	if len(ch) > 63 {
		ch = ch[:63]
	}
	if !channelName.MatchString(ch) {
		return nil, fmt.Errorf("pgsignal: schema %q makes no channel name; use lower-case letters, digits and _", schema)
	}
	return &Signals{pool: pool, channel: ch}, nil
}

var _ runs.Signals = (*Signals)(nil)

// ForStore returns signals on the database of a store that shares its
// Postgres pool (postgres.Shared), on its schema's channel. ok is false
// for a store of another database: it has no signals to give, and the
// run engine polls.
func ForStore(st storage.Store) (sig *Signals, ok bool, err error) {
	pg, ok := st.(postgres.Shared)
	if !ok {
		return nil, false, nil
	}
	sig, err = New(pg.Pool(), pg.Schema())
	return sig, true, err
}

// maxPayload keeps a notification under Postgres's 8000-byte limit.
const maxPayload = 7000

// Publish implements runs.Signals: the signals go as JSON arrays, as few
// notifications as fit, in one statement.
func (s *Signals) Publish(ctx context.Context, sigs ...runs.Signal) error {
	var payloads []string
	var cur []byte
	for _, sig := range sigs {
		b, err := json.Marshal(sig)
		if err != nil {
			return err
		}
		if len(cur) > 0 && len(cur)+len(b)+2 > maxPayload {
			payloads = append(payloads, string(append(cur, ']')))
			cur = nil
		}
		if len(cur) == 0 {
			cur = append(cur, '[')
		} else {
			cur = append(cur, ',')
		}
		cur = append(cur, b...)
	}
	if len(cur) > 0 {
		payloads = append(payloads, string(append(cur, ']')))
	}
	switch len(payloads) {
	case 0:
		return nil
	case 1:
		_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", s.channel, payloads[0])
		return err
	}
	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", s.channel, payloads)
	return err
}

// decode reads a notification: an array of signals, or one.
func decode(payload string) []runs.Signal {
	var list []runs.Signal
	if json.Unmarshal([]byte(payload), &list) == nil {
		return list
	}
	var one runs.Signal
	if json.Unmarshal([]byte(payload), &one) == nil {
		return []runs.Signal{one}
	}
	return nil
}

// Listen implements runs.Signals: it takes one connection out of the
// pool and listens on it until ctx ends.
func (s *Signals) Listen(ctx context.Context, fn func(runs.Signal)) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The listening connection is this function's: it never goes back
	// to the pool (a cancelled wait leaves it unusable anyway).
	conn := pc.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		for _, sig := range decode(n.Payload) {
			fn(sig)
		}
	}
}
