package storetest

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agno-go/agno/storage"
)

// profile is a nested struct of the kind agno fails to store (a pydantic
// model or dataclass in session state: agno issues #5661, #6327, #6400).
type profile struct {
	ID       uuid.UUID `json:"id"`
	Joined   time.Time `json:"joined"`
	Tags     []string  `json:"tags"`
	Manager  *profile  `json:"manager,omitempty"`
	Balance  json.Number
	Disabled bool `json:"disabled"`
}

const bigInt = "123456789012345678901234567890"

// awkwardValues are JSON-able values that naive storage layers mangle:
// times, UUIDs, nested structs, unicode (incl. NUL and U+2028), integers
// beyond float64 and int64, HTML characters, empty containers.
func awkwardValues() map[string]any {
	joined := time.Date(2025, 12, 10, 13, 14, 15, 123456789, time.FixedZone("IST", 5*3600+1800))
	return map[string]any{
		"time":    joined,
		"uuid":    uuid.MustParse("0b8f7c57-7b0e-4a8e-9f55-2f0a3c1d9e11"),
		"profile": profile{ID: uuid.MustParse("6f1c1e8a-9d1b-4d6c-8a57-3b3f1e2d4c5a"), Joined: joined, Tags: []string{"a", "b"}, Balance: "10.50", Manager: &profile{Tags: []string{}, Balance: "0"}},
		"unicode": "héllo 世界 🚀 \u202e rtl, nul \x00, line sep \u2028, \"quotes\" \\ <b>&amp;</b>",
		"键 🔑":     "unicode key",
		"big":     json.Number(bigInt),
		"neg_big": json.Number("-9223372036854775809"),
		"max_i64": int64(math.MaxInt64),
		"max_u64": uint64(math.MaxUint64),
		"float":   0.1,
		"tiny":    json.Number("1e-7"),
		"empty_m": map[string]any{},
		"empty_l": []any{},
		"null":    nil,
		"bool":    true,
		"list":    []any{json.Number("1"), "two", map[string]any{"three": json.Number(bigInt)}},
	}
}

func testEncoding(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := t.Context()
	in := &storage.Session{SessionID: "s1", SessionType: storage.SessionAgent, AgentID: "a1",
		SessionName: "名前 ✨", SessionState: awkwardValues(), Metadata: awkwardValues(), Data: awkwardValues()}
	created, _, err := st.EnsureSession(ctx, in)
	must(t, err)
	check := func(what string, s *storage.Session) {
		t.Helper()
		sameJSON(t, what+": session_state", s.SessionState, awkwardValues())
		sameJSON(t, what+": metadata", s.Metadata, awkwardValues())
		sameJSON(t, what+": data", s.Data, awkwardValues())
		if s.SessionName != "名前 ✨" {
			t.Errorf("%s: session_name %q", what, s.SessionName)
		}
		// Big integers come back as exact json.Number, never float64.
		if n, ok := s.SessionState["big"].(json.Number); !ok || n.String() != bigInt {
			t.Errorf("%s: session_state.big = %#v, want json.Number(%s)", what, s.SessionState["big"], bigInt)
		}
		list, _ := s.SessionState["list"].([]any)
		if len(list) != 3 {
			t.Errorf("%s: session_state.list = %#v", what, s.SessionState["list"])
		} else if m, _ := list[2].(map[string]any); m == nil || m["three"] != json.Number(bigInt) {
			t.Errorf("%s: nested big integer = %#v, want json.Number(%s)", what, list[2], bigInt)
		}
	}
	check("EnsureSession result", created)
	got, err := st.GetSession(ctx, "s1")
	must(t, err)
	check("GetSession", got)

	// A read-modify-write keeps everything it did not touch.
	up, err := st.UpdateSession(ctx, "s1", func(s *storage.Session) error {
		s.SessionState["added"] = profile{Tags: []string{"x"}, Balance: json.Number(bigInt)}
		return nil
	})
	must(t, err)
	want := awkwardValues()
	want["added"] = profile{Tags: []string{"x"}, Balance: json.Number(bigInt)}
	sameJSON(t, "UpdateSession result", up.SessionState, want)
	got, err = st.GetSession(ctx, "s1")
	must(t, err)
	sameJSON(t, "after UpdateSession", got.SessionState, want)
	sameJSON(t, "metadata after UpdateSession", got.Metadata, awkwardValues())
	listed, _, err := st.ListSessions(ctx, storage.SessionQuery{})
	must(t, err)
	if len(listed) == 1 {
		sameJSON(t, "ListSessions", listed[0].SessionState, want)
	}

	// Run data and events are kept byte for byte, whatever they hold.
	doc, err := json.Marshal(map[string]any{"run_id": "r1", "session_state": awkwardValues()})
	must(t, err)
	r := &storage.Run{RunID: "r1", SessionID: "s1", ComponentID: "a1", CreatedAt: 1, UpdatedAt: 1, Data: doc}
	must(t, st.CreateRun(ctx, r))
	gotRun, err := st.GetRun(ctx, "r1")
	must(t, err)
	sameRun(t, "run with awkward data", gotRun, r)
	_, err = st.AppendEvents(ctx, "r1", doc)
	must(t, err)
	evs, err := st.ListEvents(ctx, "r1", -1)
	must(t, err)
	if len(evs) != 1 || string(evs[0].Data) != string(doc) {
		t.Errorf("event data changed:\n got %v\nwant %s", evs, doc)
	}
}

func testUnencodable(t *testing.T, open Opener) {
	for _, bad := range []struct {
		name string
		v    any
	}{
		{"channel", make(chan int)},
		{"NaN", math.NaN()},
		{"function", func() {}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			st := newStore(t, open)
			ctx := t.Context()
			_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "new", SessionType: storage.SessionAgent,
				SessionState: map[string]any{"bad": bad.v}})
			if err == nil {
				t.Error("EnsureSession with an unencodable value: no error")
			}
			if _, err := st.GetSession(ctx, "new"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("a session that could not be encoded was stored (GetSession: %v)", err)
			}

			_, _, err = st.EnsureSession(ctx, fullSession("s1"))
			must(t, err)
			before, err := st.GetSession(ctx, "s1")
			must(t, err)
			_, err = st.UpdateSession(ctx, "s1", func(s *storage.Session) error {
				s.SessionName = "should not stick"
				s.SessionState["bad"] = bad.v
				return nil
			})
			if err == nil {
				t.Error("UpdateSession with an unencodable value: no error")
			}
			if errors.Is(err, storage.ErrConflict) {
				t.Errorf("an encoding failure reported as a conflict: %v", err)
			}
			after, err := st.GetSession(ctx, "s1")
			must(t, err)
			sameJSON(t, "session after the failed update", sessionContent(after), sessionContent(before))
			if after.Version != before.Version {
				t.Errorf("version moved from %d to %d on a failed update", before.Version, after.Version)
			}
		})
	}
}
