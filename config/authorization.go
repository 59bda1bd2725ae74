package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agentos/auth"
)

// AuthorizationConfig is [agentos.authorization]. Its presence turns JWT
// mode on (agno's AgentOS(authorization=True, authorization_config=...)):
// every route but the open ones needs a token, and agno's scopes decide
// what it may do. OS_SECURITY_KEY is then not used.
type AuthorizationConfig struct {
	// VerificationKeysEnv name the environment variables holding the
	// verification keys: PEM public keys or certificates, or HMAC
	// secrets. Default ["JWT_VERIFICATION_KEY"]; a variable listed here
	// must be set, while the default one may be unset when JWKSFile
	// gives the keys (see KeysEnvOptional).
	VerificationKeysEnv []string `toml:"verification_keys_env"`
	// KeysEnvOptional is true when VerificationKeysEnv is the default.
	KeysEnvOptional bool `toml:"-"`
	// JWKSFile is a JSON Web Key Set file, absolute after Load. Empty:
	// the file the JWT_JWKS_FILE environment variable names, if any (as
	// agno).
	JWKSFile string `toml:"jwks_file"`
	// Algorithm is the only algorithm tokens may use: RS256 (default),
	// ES256 or HS256.
	Algorithm string `toml:"algorithm"`
	// VerifyAudience requires the token's aud to hold Audience, by
	// default the AgentOS id.
	VerifyAudience bool   `toml:"verify_audience"`
	Audience       string `toml:"audience"`
	// AdminScope grants every scope (default agent_os:admin).
	AdminScope string `toml:"admin_scope"`
	// UserIsolation confines a caller without the admin scope to the
	// sessions, runs and memories of its own user (the token's sub).
	// Default true here; agno's default is false.
	UserIsolation bool `toml:"user_isolation"`
	// LeewaySeconds is the clock skew allowed on exp, nbf and iat
	// (default 10).
	LeewaySeconds int `toml:"leeway_seconds"`
	// RequireExp refuses tokens without an exp claim, which would
	// otherwise never expire (default false, as agno).
	RequireExp bool `toml:"require_exp"`
}

// Authorization defaults.
const (
	DefaultVerificationKeyEnv = "JWT_VERIFICATION_KEY"
	DefaultLeewaySeconds      = 10
)

// applyAuthorizationDefaults fills what [agentos.authorization] leaves
// out; nothing when the table is absent.
func (c *Config) applyAuthorizationDefaults(md *toml.MetaData) {
	if !md.IsDefined("agentos", "authorization") {
		c.AgentOS.Authorization = nil
		return
	}
	if c.AgentOS.Authorization == nil {
		c.AgentOS.Authorization = &AuthorizationConfig{}
	}
	a := c.AgentOS.Authorization
	def := func(key string) bool { return !md.IsDefined("agentos", "authorization", key) }
	if def("verification_keys_env") {
		a.VerificationKeysEnv = []string{DefaultVerificationKeyEnv}
		a.KeysEnvOptional = true
	}
	if def("algorithm") {
		a.Algorithm = auth.DefaultAlgorithm
	}
	if def("admin_scope") {
		a.AdminScope = auth.DefaultAdminScope
	}
	if def("user_isolation") {
		a.UserIsolation = true
	}
	if def("leeway_seconds") {
		a.LeewaySeconds = DefaultLeewaySeconds
	}
}

func (c *Config) validateAuthorization(p *problems, md *toml.MetaData) {
	c.applyAuthorizationDefaults(md)
	a := c.AgentOS.Authorization
	if a == nil {
		return
	}
	const t = "agentos.authorization"
	seen := map[string]bool{}
	for i, name := range a.VerificationKeysEnv {
		key := fmt.Sprintf("%s.verification_keys_env[%d]", t, i)
		checkEnvName(p, key, name)
		if seen[name] {
			p.at(key, "%s.verification_keys_env lists %q twice: remove one", t, name)
		}
		seen[name] = true
	}
	if md.IsDefined("agentos", "authorization", "jwks_file") {
		if strings.TrimSpace(a.JWKSFile) == "" {
			p.at(t+".jwks_file", "%s.jwks_file is empty: give the JSON Web Key Set file, relative to the config file (\"jwks.json\"), or remove the key", t)
		} else {
			a.JWKSFile = c.resolve(a.JWKSFile)
		}
	}
	if !slices.Contains(auth.Algorithms, a.Algorithm) {
		p.at(t+".algorithm", "%s.algorithm = %q is not supported: use RS256, ES256 or HS256", t, a.Algorithm)
	}
	if md.IsDefined("agentos", "authorization", "audience") && strings.TrimSpace(a.Audience) == "" {
		p.at(t+".audience", "%s.audience is empty: give the aud value tokens carry, or remove the key to expect the AgentOS id", t)
	}
	if a.Audience != "" && !a.VerifyAudience {
		// agno ignores audience unless verify_audience is on: say so
		// rather than leave the check silently off.
		p.at(t+".audience", "%s.audience is set but verify_audience is false, so it would not be checked: set verify_audience = true, or remove audience", t)
	}
	if strings.TrimSpace(a.AdminScope) == "" || strings.ContainsAny(a.AdminScope, " \t\r\n") {
		p.at(t+".admin_scope", "%s.admin_scope = %q: give the one scope that grants everything (default %q)", t, a.AdminScope, auth.DefaultAdminScope)
	}
	if a.LeewaySeconds < 1 || a.LeewaySeconds > 300 {
		p.at(t+".leeway_seconds", "%s.leeway_seconds = %d: give the clock skew to allow on exp, nbf and iat, 1 to 300 seconds (default %d)", t, a.LeewaySeconds, DefaultLeewaySeconds)
	}
}
