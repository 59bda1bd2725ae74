package auth

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The docstring examples of agno's parse_scope and matches_scope. The
// parse_scope docstring shows system:read with resource "system"; the
// code maps it to "config" (LEGACY_RESOURCE_ALIASES), as here.
func TestParseScopeDocstrings(t *testing.T) {
	for raw, want := range map[string]scope{
		"agent_os:admin":        {kind: scopeAdmin},
		"system:read":           {kind: scopeGlobal, resource: "config", action: "read"},
		"agents:web-agent:read": {kind: scopePerResource, resource: "agents", id: "web-agent", action: "read"},
		"agents:*:run":          {kind: scopePerResource, resource: "agents", id: "*", action: "run"},
		"agents":                {kind: scopeUnknown},
		"a:b:c:d":               {kind: scopeUnknown},
	} {
		if got := parseScope(raw, DefaultAdminScope); got != want {
			t.Errorf("parseScope(%q) = %+v, want %+v", raw, got, want)
		}
	}
	if !parseScope("agents:*:run", DefaultAdminScope).wildcard() {
		t.Error("agents:*:run is not a wildcard")
	}
	required := parseScope("agents:<id>:run", DefaultAdminScope)
	for _, user := range []string{"agents:web-agent:run", "agents:*:run"} {
		if !matches(parseScope(user, DefaultAdminScope), required, "web-agent") {
			t.Errorf("matches_scope(%s, agents:<id>:run, web-agent) = false", user)
		}
	}
	if !matches(parseScope("system:read", DefaultAdminScope), parseScope("system:read", DefaultAdminScope), "") {
		t.Error("matches_scope(system:read, system:read) = false")
	}
}

// PyJWT's bounds, on a fixed clock: expired when exp <= now - leeway,
// not yet valid when nbf > now + leeway.
func TestTimeBoundsWithLeeway(t *testing.T) {
	v, err := NewVerifier(Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	tok := func(c jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("secret"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	n := now.Unix()
	for _, tc := range []struct {
		claims jwt.MapClaims
		want   string // "" accepted
	}{
		{jwt.MapClaims{"exp": n - 9}, ""},
		{jwt.MapClaims{"exp": n - 10}, "Token has expired"},
		{jwt.MapClaims{"exp": float64(n) - 9.5}, "Token has expired"}, // int() truncates it to n-10
		{jwt.MapClaims{"nbf": n + 10}, ""},
		{jwt.MapClaims{"nbf": n + 11}, "Invalid token: The token is not yet valid (nbf)"},
		{jwt.MapClaims{"iat": n + 10}, ""},
		{jwt.MapClaims{"iat": n + 11}, "Invalid token: The token is not yet valid (iat)"},
		{jwt.MapClaims{"exp": "1700000100"}, ""}, // Python's int("...") reads it
	} {
		_, err := v.verify(tok(tc.claims), now)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.claims, got, tc.want)
		}
	}
}
