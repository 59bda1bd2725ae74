package serviceapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/netguard"
)

func TestMaskHidesSecretParameters(t *testing.T) {
	got := Mask("https://api.example.com/v1?q=cats&appid=s3cret&limit=1", "appid")
	if got != "https://api.example.com/v1?appid=***&limit=1&q=cats" || strings.Contains(got, "s3cret") {
		t.Errorf("Mask = %q", got)
	}
}

func TestGetErrorsAndBounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/broken":
			w.WriteHeader(http.StatusBadGateway)
		default:
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
		}
	}))
	defer srv.Close()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	defer c.CloseIdleConnections()
	ctx := context.Background()
	_, err = Get(ctx, c, srv.URL+"/missing?key=k1", DefaultTimeout, 1000, "key")
	if err == nil || err.Error() != "404 Client Error: Not Found for url: "+srv.URL+"/missing?key=***" {
		t.Errorf("404: %v", err)
	}
	if _, err = Get(ctx, c, srv.URL+"/broken", DefaultTimeout, 1000); err == nil || !strings.HasPrefix(err.Error(), "502 Server Error: Bad Gateway") {
		t.Errorf("502: %v", err)
	}
	if b, err := Get(ctx, c, srv.URL+"/ok", DefaultTimeout, 100); err != nil || len(b) != 100 {
		t.Errorf("exactly the bound: %d bytes, %v", len(b), err)
	}
	var tl *TooLargeError
	if _, err = Get(ctx, c, srv.URL+"/ok", DefaultTimeout, 99); !errors.As(err, &tl) {
		t.Errorf("over the bound: %v", err)
	}
	// Without the host's client, loopback is refused and the key stays hidden.
	_, err = Get(ctx, Client(nil), srv.URL+"/ok?key=k2", DefaultTimeout, 1000, "key")
	if err == nil || !strings.Contains(err.Error(), "netguard") || strings.Contains(err.Error(), "k2") {
		t.Errorf("unguarded loopback: %v", err)
	}
}

func TestObjectKeepsOrderAndFloats(t *testing.T) {
	o, err := DecodeObject([]byte(`{"b": 1, "a": {"z": 2.50, "y": [1, "x", null]}, "c": true}`))
	if err != nil {
		t.Fatal(err)
	}
	o.Set("b", "again")
	o.Set("rate", 50.0)
	s, err := pyjson.Dumps(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b": "again", "a": {"z": 2.5, "y": [1, "x", null]}, "c": true, "rate": 50.0}`; s != want {
		t.Errorf("dumps = %s, want %s", s, want)
	}
	if _, err := DecodeObject([]byte(`[1]`)); err == nil {
		t.Error("an array decoded as an object")
	}
}
