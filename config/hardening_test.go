package config_test

import (
	"testing"

	"github.com/agno-go/agno/config"
)

// [agentos] idle_timeout_seconds: 120 by default, the value given, and
// out of range an error naming the key, its line and the bounds.
func TestIdleTimeoutSeconds(t *testing.T) {
	_, c, err := parseAt(t, "[agentos]\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentOS.IdleTimeoutSeconds != config.DefaultIdleTimeoutSeconds || config.DefaultIdleTimeoutSeconds != 120 {
		t.Errorf("default idle_timeout_seconds = %d", c.AgentOS.IdleTimeoutSeconds)
	}
	if _, c, err = parseAt(t, "[agentos]\nidle_timeout_seconds = 30\n"); err != nil || c.AgentOS.IdleTimeoutSeconds != 30 {
		t.Fatalf("idle_timeout_seconds = 30: %v, %+v", err, c)
	}
	for _, v := range []string{"0", "-5", "3601"} {
		_, _, err := parseAt(t, "[agentos]\nname = \"x\"\nidle_timeout_seconds = "+v+"\n")
		e := findError(t, configErrors(t, err), "agentos.idle_timeout_seconds = "+v, "1 to 3600 seconds", "default 120")
		if e.Line != 3 {
			t.Errorf("%s: line %d, want 3", v, e.Line)
		}
	}
}

// [agentos.authorization] require_exp: off by default (agno's), on when
// set; a mistyped value names the key.
func TestAuthorizationRequireExp(t *testing.T) {
	_, c, err := parseAt(t, "[agentos.authorization]\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentOS.Authorization.RequireExp {
		t.Error("require_exp on by default; agno's default is off")
	}
	if _, c, err = parseAt(t, "[agentos.authorization]\nrequire_exp = true\n"); err != nil || !c.AgentOS.Authorization.RequireExp {
		t.Fatalf("require_exp = true: %v, %+v", err, c)
	}
	_, _, err = parseAt(t, "[agentos.authorization]\nrequire_exp = \"yes\"\n")
	findError(t, configErrors(t, err), `"agentos.authorization.require_exp"`)
}
