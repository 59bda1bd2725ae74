package storetest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agno-go/agno/storage"
)

func testBlobs(t *testing.T, open Opener) {
	t.Run("RoundTripAcrossChunks", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		// Two and a half chunks of random bytes, and an empty file.
		data := make([]byte, 2*storage.BlobChunkSize+storage.BlobChunkSize/2)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		n, err := st.PutBlob(ctx, "s1", "big", bytes.NewReader(data))
		must(t, err)
		if n != int64(len(data)) {
			t.Errorf("PutBlob size = %d, want %d", n, len(data))
		}
		got, err := st.GetBlob(ctx, "s1", "big")
		must(t, err)
		if !bytes.Equal(got, data) {
			t.Errorf("GetBlob returned %d bytes, not the %d stored", len(got), len(data))
		}
		_, err = st.PutBlob(ctx, "s1", "empty", strings.NewReader(""))
		must(t, err)
		got, err = st.GetBlob(ctx, "s1", "empty")
		must(t, err)
		if got == nil || len(got) != 0 {
			t.Errorf("empty blob = %v", got)
		}
	})

	t.Run("OwnSessionOnly", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		_, err := st.PutBlob(ctx, "s1", "b", strings.NewReader("secret"))
		must(t, err)
		_, err = st.GetBlob(ctx, "s2", "b")
		wantErr(t, "GetBlob of another session's blob", err, storage.ErrNotFound)
		_, err = st.GetBlob(ctx, "s1", "missing")
		wantErr(t, "GetBlob(missing)", err, storage.ErrNotFound)
		// An id is never reused, not even by another session.
		_, err = st.PutBlob(ctx, "s2", "b", strings.NewReader("other"))
		wantErr(t, "PutBlob of a taken id", err, storage.ErrConflict)
		got, err := st.GetBlob(ctx, "s1", "b")
		must(t, err)
		if string(got) != "secret" {
			t.Errorf("blob after a refused put = %q", got)
		}
	})

	t.Run("ReadErrorStoresNothingUsable", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		boom := errors.New("disk gone")
		_, err := st.PutBlob(ctx, "s1", "b", io.MultiReader(strings.NewReader("partial"), &failingReader{boom}))
		if !errors.Is(err, boom) {
			t.Fatalf("PutBlob with a failing reader: %v, want %v", err, boom)
		}
	})

	t.Run("DeletedWithTheSession", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "s1")
		ensure(t, st, "s2")
		_, err := st.PutBlob(ctx, "s1", "b1", strings.NewReader("one"))
		must(t, err)
		_, err = st.PutBlob(ctx, "s2", "b2", strings.NewReader("two"))
		must(t, err)
		must(t, st.DeleteSessions(ctx, "s1"))
		_, err = st.GetBlob(ctx, "s1", "b1")
		wantErr(t, "GetBlob after DeleteSessions", err, storage.ErrNotFound)
		if got, err := st.GetBlob(ctx, "s2", "b2"); err != nil || string(got) != "two" {
			t.Errorf("other session's blob = %q, %v", got, err)
		}
	})
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }
