package config_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/config"
)

func parseAt(t *testing.T, src string) (string, *config.Config, error) {
	t.Helper()
	dir := t.TempDir()
	c, err := config.Parse(filepath.Join(dir, "config.toml"), []byte(src))
	return dir, c, err
}

func TestAuthorizationAbsentIsOff(t *testing.T) {
	c, err := config.Load(filepath.Join("testdata", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentOS.Authorization != nil {
		t.Errorf("users' config: authorization = %+v, want nil", c.AgentOS.Authorization)
	}
}

func TestAuthorizationDefaults(t *testing.T) {
	_, c, err := parseAt(t, "[agentos.authorization]\n")
	if err != nil {
		t.Fatal(err)
	}
	want := &config.AuthorizationConfig{
		VerificationKeysEnv: []string{"JWT_VERIFICATION_KEY"}, KeysEnvOptional: true,
		Algorithm: "RS256", AdminScope: "agent_os:admin", UserIsolation: true, LeewaySeconds: 10,
	}
	if diff := cmp.Diff(want, c.AgentOS.Authorization); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestAuthorizationValues(t *testing.T) {
	dir, c, err := parseAt(t, `
[agentos.authorization]
verification_keys_env = ["ISSUER_A_KEY", "ISSUER_B_KEY"]
jwks_file = "keys/jwks.json"
algorithm = "ES256"
verify_audience = true
audience = "my-os"
admin_scope = "os:root"
user_isolation = false
leeway_seconds = 30
`)
	if err != nil {
		t.Fatal(err)
	}
	want := &config.AuthorizationConfig{
		VerificationKeysEnv: []string{"ISSUER_A_KEY", "ISSUER_B_KEY"}, JWKSFile: filepath.Join(dir, "keys", "jwks.json"),
		Algorithm: "ES256", VerifyAudience: true, Audience: "my-os", AdminScope: "os:root", LeewaySeconds: 30,
	}
	if diff := cmp.Diff(want, c.AgentOS.Authorization); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	// An empty list: keys come from the JWKS file only.
	_, c, err = parseAt(t, "[agentos.authorization]\nverification_keys_env = []\njwks_file = \"/etc/jwks.json\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if a := c.AgentOS.Authorization; len(a.VerificationKeysEnv) != 0 || a.KeysEnvOptional || a.JWKSFile != "/etc/jwks.json" {
		t.Errorf("JWKS only: %+v", a)
	}
}

func TestAuthorizationErrors(t *testing.T) {
	_, _, err := parseAt(t, `
[agentos.authorization]
verification_keys_env = ["JWT KEY", "-----BEGIN PUBLIC KEY-----MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", "A", "A"]
jwks_file = ""
algorithm = "HS512"
audience = "os-1"
admin_scope = ""
leeway_seconds = 0
verification_keys = ["x"]
`)
	errs := configErrors(t, err)
	for _, parts := range [][]string{
		{"agentos.authorization.verification_keys_env[0]", `= "JWT KEY" is not an environment variable name`},
		{"agentos.authorization.verification_keys_env[1] must name an environment variable, not hold the secret itself"},
		{"agentos.authorization.verification_keys_env lists \"A\" twice"},
		{"agentos.authorization.jwks_file is empty"},
		{`agentos.authorization.algorithm = "HS512" is not supported: use RS256, ES256 or HS256`},
		{"agentos.authorization.audience is set but verify_audience is false"},
		{`agentos.authorization.admin_scope = ""`},
		{"agentos.authorization.leeway_seconds = 0: give the clock skew to allow on exp, nbf and iat, 1 to 300 seconds (default 10)"},
		{`unknown key "agentos.authorization.verification_keys"`, "verification_keys_env"},
	} {
		e := findError(t, errs, parts...)
		if e.Line == 0 {
			t.Errorf("%q has no line", e.Msg)
		}
	}
	if len(errs) != 9 {
		t.Errorf("%d errors, want 9:\n%v", len(errs), err)
	}
}
