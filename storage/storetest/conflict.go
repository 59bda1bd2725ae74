package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agno-go/agno/storage"
)

// UpdateConflict checks an optimistic store configured to try an update
// attempts times: an update that loses the race on every attempt gives up
// with ErrConflict and leaves the winners' writes in place. The competing
// writer runs inside fn, so stores that hold a lock while fn runs (the
// in-process one) cannot take this test.
func UpdateConflict(t *testing.T, st storage.Store, attempts int) {
	ctx := t.Context()
	_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent})
	must(t, err)
	calls := 0
	_, err = st.UpdateSession(ctx, "s", func(s *storage.Session) error {
		calls++
		// Another writer gets in between this read and its write.
		if _, err := st.UpdateSession(ctx, "s", func(o *storage.Session) error {
			o.SessionState = map[string]any{"winner": calls}
			return nil
		}); err != nil {
			t.Errorf("competing update: %v", err)
		}
		s.SessionState = map[string]any{"loser": true}
		return nil
	})
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("update that always loses: %v, want ErrConflict", err)
	}
	if calls != attempts {
		t.Errorf("fn called %d times, want %d", calls, attempts)
	}
	got, err := st.GetSession(ctx, "s")
	must(t, err)
	if len(got.SessionState) != 1 || fmt.Sprint(got.SessionState["winner"]) != fmt.Sprint(attempts) || got.Version != int64(1+attempts) {
		t.Errorf("after the conflict: state %v version %d, want winner %d's write at version %d",
			got.SessionState, got.Version, attempts, 1+attempts)
	}
}
