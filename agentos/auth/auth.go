// Package auth is AgentOS's JWT authorization: token verification (agno's
// JWTMiddleware) and agno's RBAC scopes (os/scopes.py).
package auth

import (
	"fmt"
	"strings"
	"time"
)

// DefaultAdminScope grants every scope (agno's agent_os:admin).
const DefaultAdminScope = "agent_os:admin"

// Config is how tokens are verified.
type Config struct {
	// VerificationKeys are PEM public keys or certificates (RS256, ES256)
	// or HMAC secrets (HS256); a token verifies if any key accepts it. A
	// PEM on one line with literal \n (as environment variables may hold
	// it) is un-escaped.
	VerificationKeys []string
	// KeyNames name VerificationKeys in errors (the environment variables
	// they came from); default verification_keys[i].
	KeyNames []string
	// JWKSFile is a JSON Web Key Set file; its keys are chosen by kid
	// (RSA, EC P-256 or oct keys of the algorithm; those without a kid
	// are tried for any kid). Its keys are tried before VerificationKeys.
	JWKSFile string
	// Algorithm is the one algorithm tokens may use (default RS256).
	Algorithm string
	// VerifyAudience requires the token's aud to hold Audience, which
	// must then be set: agno expects the AgentOS id when no audience is
	// configured, and the caller passes that id as Audience.
	VerifyAudience bool
	Audience       string
	// AdminScope grants everything (default DefaultAdminScope).
	AdminScope string
	// Leeway is the clock skew allowed on exp/nbf/iat (default 10s).
	Leeway time.Duration
	// UserIsolation scopes non-admin callers to their own user (sub).
	UserIsolation bool
	// RequireExp refuses a token without an exp claim (PyJWT's
	// options={"require": ["exp"]}), which would otherwise never expire.
	// Off by default, as in agno.
	RequireExp bool
}

// Claims are what a verified token says.
type Claims struct {
	// UserID is sub.
	UserID string
	// SessionID is the session_id claim (when a string).
	SessionID string
	// Scopes are the scopes claim: a list's strings, or a string taken
	// whole as one scope (agno does not split it at spaces).
	Scopes []string
	// Audience is aud (a string, or a list's strings).
	Audience []string
	// Raw holds every claim; numbers are json.Number.
	Raw map[string]any
}

// Error is a refused token, with agno's status and detail text.
type Error struct {
	// Status is the HTTP status (401).
	Status int
	// Detail is agno's text ("Token has expired").
	Detail string
	// Type is agno's WebSocket error_type: "expired", "invalid_token" or
	// "server_error".
	Type string
}

func (e *Error) Error() string { return e.Detail }

// Verifier checks tokens against Config. Safe for concurrent use.
type Verifier struct {
	cfg  Config
	keys []verificationKey
	jwks *jwks
	now  func() time.Time
}

// Defaults.
const (
	DefaultAlgorithm = "RS256"
	DefaultLeeway    = 10 * time.Second
)

// NewVerifier checks cfg (an error names the field and the fix) and loads
// its keys: at least one key or a JWKS file is required.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.Algorithm == "" {
		cfg.Algorithm = DefaultAlgorithm
	}
	if method(cfg.Algorithm) == nil {
		return nil, configErr("algorithm = %q is not supported: use RS256, ES256 or HS256", cfg.Algorithm)
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Leeway < 0 {
		return nil, configErr("leeway_seconds = %d: give the clock skew to allow, in seconds (default 10)", int(cfg.Leeway.Seconds()))
	}
	if cfg.AdminScope == "" {
		cfg.AdminScope = DefaultAdminScope
	}
	if strings.ContainsAny(cfg.AdminScope, " \t\r\n") {
		return nil, configErr("admin_scope = %q holds whitespace: a scope is one word such as %q", cfg.AdminScope, DefaultAdminScope)
	}
	if cfg.VerifyAudience && cfg.Audience == "" {
		return nil, configErr("verify_audience = true needs an audience: set audience, or leave it to default to the AgentOS id")
	}
	v := &Verifier{cfg: cfg, now: time.Now}
	for i, raw := range cfg.VerificationKeys {
		name := fmt.Sprintf("verification_keys[%d]", i)
		if i < len(cfg.KeyNames) && cfg.KeyNames[i] != "" {
			name = cfg.KeyNames[i]
		}
		k, err := loadKey(cfg.Algorithm, name, raw)
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, k)
	}
	if cfg.JWKSFile != "" {
		set, err := loadJWKS(cfg.Algorithm, cfg.JWKSFile)
		if err != nil {
			return nil, err
		}
		v.jwks = set
	}
	if len(v.keys) == 0 && v.jwks == nil {
		return nil, configErr("has no verification key: give a PEM public key or HMAC secret (JWT_VERIFICATION_KEY, or the variables of verification_keys_env) or a jwks_file (JWT_JWKS_FILE)")
	}
	return v, nil
}

// Config is the verifier's configuration with its defaults applied.
func (v *Verifier) Config() Config { return v.cfg }

// Verify checks a token's signature, algorithm, time claims and audience.
// A refused token is an *Error.
func (v *Verifier) Verify(token string) (*Claims, error) {
	c, err := v.verify(token, v.now())
	if err != nil {
		return nil, err
	}
	return c, nil
}

// IsAdmin reports whether scopes hold the admin scope.
func (v *Verifier) IsAdmin(scopes []string) bool {
	for _, s := range scopes {
		if s == v.cfg.AdminScope {
			return true
		}
	}
	return false
}

// Allowed reports whether scopes grant every one of required ("agents:run"),
// for the resource resourceType/resourceID when resourceID is set
// (agno's has_required_scopes).
func (v *Verifier) Allowed(scopes, required []string, resourceType, resourceID string) bool {
	return allowed(scopes, required, resourceType, resourceID, v.cfg.AdminScope)
}

// Accessible lists the resource ids of resourceType ("agents") scopes grant
// action on ("read", "run"; "" is read or run, as agno lists); all is true
// for every id (agno's get_accessible_resource_ids returning {"*"}).
func (v *Verifier) Accessible(scopes []string, resourceType, action string) (all bool, ids []string) {
	return accessible(scopes, resourceType, action, v.cfg.AdminScope)
}

// Route is what a request needs (agno's get_default_scope_mappings, first
// match): the scopes, and the resource a per-resource scope may name
// (/agents/<id>/..., /teams/<id>/..., /workflows/<id>/...). No scopes: the
// route needs none.
type Route struct {
	Scopes       []string
	ResourceType string
	ResourceID   string
}
