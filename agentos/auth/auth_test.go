package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/agentos/auth"
)

var (
	keysOnce sync.Once
	rsaKey   *rsa.PrivateKey
	rsaKey2  *rsa.PrivateKey
	ecKey    *ecdsa.PrivateKey
)

func keys(t testing.TB) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if rsaKey2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
	})
}

func pemOf(t testing.TB, typ string, der []byte) string {
	t.Helper()
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func publicPEM(t testing.TB, pub any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "PUBLIC KEY", der)
}

func certPEM(t testing.TB, priv *rsa.PrivateKey) string {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "issuer"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "CERTIFICATE", der)
}

// sign makes a token; kid is set when not empty.
func sign(t testing.TB, m jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verifier(t testing.TB, cfg auth.Config) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// refusal is the *auth.Error of verifying token.
func refusal(t testing.TB, v *auth.Verifier, token string) *auth.Error {
	t.Helper()
	c, err := v.Verify(token)
	if err == nil {
		t.Fatalf("token accepted: %+v", c)
	}
	var ae *auth.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %T %v is not an *auth.Error", err, err)
	}
	return ae
}

func future() int64 { return time.Now().Add(time.Hour).Unix() }

func TestNewVerifierDefaults(t *testing.T) {
	keys(t)
	v := verifier(t, auth.Config{VerificationKeys: []string{publicPEM(t, &rsaKey.PublicKey)}})
	got := v.Config()
	if got.Algorithm != "RS256" || got.Leeway != 10*time.Second || got.AdminScope != "agent_os:admin" {
		t.Errorf("defaults: algorithm %q leeway %v admin %q", got.Algorithm, got.Leeway, got.AdminScope)
	}
}

func TestNewVerifierRefusesBadConfig(t *testing.T) {
	keys(t)
	rsaPub := publicPEM(t, &rsaKey.PublicKey)
	ecPub := publicPEM(t, &ecKey.PublicKey)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	noKeys := filepath.Join(dir, "ec-only.json")
	writeJWKS(t, noKeys, map[string]any{"kty": "EC", "crv": "P-256", "x": b64(pad32(ecKey.X.Bytes())), "y": b64(pad32(ecKey.Y.Bytes()))})
	notJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(notJSON, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  auth.Config
		want string
	}{
		{"no key", auth.Config{}, `[agentos.authorization] has no verification key`},
		{"algorithm", auth.Config{Algorithm: "HS512", VerificationKeys: []string{"s"}},
			`[agentos.authorization] algorithm = "HS512" is not supported: use RS256, ES256 or HS256`},
		{"none", auth.Config{Algorithm: "none", VerificationKeys: []string{"s"}}, `algorithm = "none" is not supported`},
		{"public key as HMAC secret", auth.Config{Algorithm: "HS256", VerificationKeys: []string{rsaPub}, KeyNames: []string{"JWT_VERIFICATION_KEY"}},
			`[agentos.authorization] JWT_VERIFICATION_KEY is a PEM key or certificate, but algorithm = "HS256" takes a shared secret`},
		{"secret as RSA key", auth.Config{VerificationKeys: []string{"a-secret"}}, `verification_keys[0] is not PEM: algorithm = "RS256" takes a PEM public key`},
		{"EC key for RS256", auth.Config{VerificationKeys: []string{ecPub}}, `verification_keys[0] is a EC P-256 key, but algorithm = "RS256" takes an RSA key: set algorithm = "ES256"`},
		{"RSA key for ES256", auth.Config{Algorithm: "ES256", VerificationKeys: []string{rsaPub}}, `takes an EC P-256 key`},
		{"P-384 for ES256", auth.Config{Algorithm: "ES256", VerificationKeys: []string{publicPEM(t, &p384.PublicKey)}}, `is an EC key on P-384, but ES256 takes the curve P-256`},
		{"private key", auth.Config{VerificationKeys: []string{pemOf(t, "PRIVATE KEY", privDER)}}, `is a private key: give its public key instead`},
		{"empty key", auth.Config{Algorithm: "HS256", VerificationKeys: []string{" "}}, `verification_keys[0] is empty`},
		{"audience", auth.Config{Algorithm: "HS256", VerificationKeys: []string{"s"}, VerifyAudience: true}, `verify_audience = true needs an audience`},
		{"admin scope", auth.Config{Algorithm: "HS256", VerificationKeys: []string{"s"}, AdminScope: "a b"}, `admin_scope = "a b" holds whitespace`},
		{"jwks missing", auth.Config{JWKSFile: filepath.Join(dir, "nope.json")}, `jwks_file "` + filepath.Join(dir, "nope.json") + `": file not found`},
		{"jwks not JSON", auth.Config{JWKSFile: notJSON}, `is not a JSON Web Key Set`},
		{"jwks without a key of the algorithm", auth.Config{JWKSFile: noKeys}, `holds no key for algorithm = "RS256" (a key with kty "RSA")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := auth.NewVerifier(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestVerifyRS256Claims(t *testing.T) {
	keys(t)
	der := x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)
	for name, key := range map[string]string{
		"PKIX":        publicPEM(t, &rsaKey.PublicKey),
		"PKCS1":       pemOf(t, "RSA PUBLIC KEY", der),
		"certificate": certPEM(t, rsaKey),
		// One line with literal \n, as an environment variable holds it.
		"escaped": strings.ReplaceAll(publicPEM(t, &rsaKey.PublicKey), "\n", `\n`),
	} {
		t.Run(name, func(t *testing.T) {
			v := verifier(t, auth.Config{VerificationKeys: []string{key}})
			tok := sign(t, jwt.SigningMethodRS256, rsaKey, "", jwt.MapClaims{
				"sub": "alice", "session_id": "s1", "scopes": []string{"agents:read", "agents:a1:run"},
				"aud": "os-1", "exp": future(), "team": "blue",
			})
			c, err := v.Verify(tok)
			if err != nil {
				t.Fatal(err)
			}
			if c.UserID != "alice" || c.SessionID != "s1" || c.Raw["team"] != "blue" {
				t.Errorf("claims %+v", c)
			}
			if diff := cmp.Diff([]string{"agents:read", "agents:a1:run"}, c.Scopes); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"os-1"}, c.Audience); diff != "" {
				t.Errorf("aud (-want +got):\n%s", diff)
			}
		})
	}
}

// agno takes a scopes string as one scope (jwt.py: [scopes]); a token
// without exp never expires (PyJWT requires no claim).
func TestScopesStringIsOneScope(t *testing.T) {
	v := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}})
	c, err := v.Verify(sign(t, jwt.SigningMethodHS256, []byte("secret"), "", jwt.MapClaims{"sub": "u", "scopes": "agents:read agents:run"}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"agents:read agents:run"}, c.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	if v.Allowed(c.Scopes, []string{"agents:read"}, "", "") {
		t.Error("a space-separated string granted agents:read")
	}
	c, err = v.Verify(sign(t, jwt.SigningMethodHS256, []byte("secret"), "", jwt.MapClaims{"scopes": 7, "aud": []string{"a", "b"}}))
	if err != nil || c.Scopes != nil || !cmp.Equal(c.Audience, []string{"a", "b"}) {
		t.Errorf("claims %+v err %v", c, err)
	}
}

func TestVerifyES256(t *testing.T) {
	keys(t)
	v := verifier(t, auth.Config{Algorithm: "ES256", VerificationKeys: []string{publicPEM(t, &ecKey.PublicKey)}})
	if _, err := v.Verify(sign(t, jwt.SigningMethodES256, ecKey, "", jwt.MapClaims{"sub": "u", "exp": future()})); err != nil {
		t.Fatal(err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if e := refusal(t, v, sign(t, jwt.SigningMethodES256, other, "", jwt.MapClaims{"sub": "u"})); e.Detail != "Invalid token: Signature verification failed" {
		t.Errorf("detail %q", e.Detail)
	}
}

// Only the configured algorithm is accepted: the classic confusion (an
// HS256 token whose secret is the RSA public key's PEM) and alg none fail.
func TestAlgorithmConfusionRefused(t *testing.T) {
	keys(t)
	pub := publicPEM(t, &rsaKey.PublicKey)
	v := verifier(t, auth.Config{VerificationKeys: []string{pub}})
	forged := sign(t, jwt.SigningMethodHS256, []byte(pub), "", jwt.MapClaims{"sub": "admin", "scopes": []string{"agent_os:admin"}})
	none := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", jwt.MapClaims{"sub": "admin"})
	rs512 := sign(t, jwt.SigningMethodRS512, rsaKey, "", jwt.MapClaims{"sub": "u"})
	for name, tok := range map[string]string{"HS256 with the public key": forged, "none": none, "RS512": rs512} {
		e := refusal(t, v, tok)
		if *e != (auth.Error{Status: 401, Detail: "Invalid token: The specified alg value is not allowed", Type: "invalid_token"}) {
			t.Errorf("%s: %+v", name, *e)
		}
	}
	hs := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}})
	if e := refusal(t, hs, sign(t, jwt.SigningMethodRS256, rsaKey, "", jwt.MapClaims{"sub": "u"})); e.Detail != "Invalid token: The specified alg value is not allowed" {
		t.Errorf("RS256 token in HS256 mode: %q", e.Detail)
	}
	if e := refusal(t, hs, sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", jwt.MapClaims{"sub": "u"})); !strings.Contains(e.Detail, "alg value is not allowed") {
		t.Errorf("none in HS256 mode: %q", e.Detail)
	}
}

func TestVerifyRefusalTexts(t *testing.T) {
	secret := []byte("secret")
	v := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}, VerifyAudience: true, Audience: "os-1"})
	now := time.Now()
	hs := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, secret, "", c) }
	expired := auth.Error{Status: 401, Detail: "Token has expired", Type: "expired"}
	invalid := func(reason string) auth.Error {
		return auth.Error{Status: 401, Detail: "Invalid token: " + reason, Type: "invalid_token"}
	}
	seg := base64.RawURLEncoding.EncodeToString
	for _, tc := range []struct {
		name  string
		token string
		want  auth.Error
	}{
		{"missing", "", auth.Error{Status: 401, Detail: "Authorization header missing", Type: "invalid_token"}},
		{"expired", hs(jwt.MapClaims{"aud": "os-1", "exp": now.Add(-time.Minute).Unix()}), expired},
		{"expired beyond the leeway", hs(jwt.MapClaims{"aud": "os-1", "exp": now.Add(-12 * time.Second).Unix()}), expired},
		{"not yet valid", hs(jwt.MapClaims{"aud": "os-1", "nbf": now.Add(time.Minute).Unix()}), invalid("The token is not yet valid (nbf)")},
		{"issued in the future", hs(jwt.MapClaims{"aud": "os-1", "iat": now.Add(time.Minute).Unix()}), invalid("The token is not yet valid (iat)")},
		{"exp not a number", hs(jwt.MapClaims{"aud": "os-1", "exp": "soon"}), invalid("Expiration Time claim (exp) must be an integer.")},
		{"wrong audience", hs(jwt.MapClaims{"aud": "os-2", "exp": future()}), auth.Error{Status: 401, Detail: "Invalid token audience - token not valid for this AgentOS instance", Type: "invalid_token"}},
		{"no audience", hs(jwt.MapClaims{"exp": future()}), invalid(`Token is missing the "aud" claim. Audience verification requires this claim to be present in the token.`)},
		{"sub not a string", hs(jwt.MapClaims{"aud": "os-1", "sub": 42}), invalid("Subject must be a string")},
		{"bad signature", sign(t, jwt.SigningMethodHS256, []byte("other"), "", jwt.MapClaims{"aud": "os-1"}), invalid("Signature verification failed")},
		{"not a JWT", "abc", invalid("Not enough segments")},
		{"header not base64", "!!." + seg([]byte("{}")) + ".x", invalid("Invalid header padding")},
		{"header not an object", seg([]byte("[1]")) + "." + seg([]byte("{}")) + ".x", invalid("Invalid header string: must be a json object")},
		{"kid not a string", seg([]byte(`{"alg":"HS256","kid":1}`)) + "." + seg([]byte("{}")) + ".AA", invalid("Key ID header parameter must be a string")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusal(t, v, tc.token); *got != tc.want {
				t.Errorf("got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
	// Within the 10 s leeway a just-expired token still passes; a list
	// aud holding the expected one matches.
	if _, err := v.Verify(hs(jwt.MapClaims{"aud": []string{"x", "os-1"}, "exp": now.Add(-3 * time.Second).Unix()})); err != nil {
		t.Errorf("within leeway: %v", err)
	}
	// Without VerifyAudience, aud is not checked.
	open := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}})
	if _, err := open.Verify(hs(jwt.MapClaims{"aud": "elsewhere"})); err != nil {
		t.Errorf("aud checked without verify_audience: %v", err)
	}
}

func pad32(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJWKS(t testing.TB, path string, keys ...map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func rsaJWK(kid string, k *rsa.PublicKey) map[string]any {
	return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func TestJWKSKeysByKid(t *testing.T) {
	keys(t)
	dir := t.TempDir()
	rs := filepath.Join(dir, "rsa.json")
	writeJWKS(t, rs, rsaJWK("k1", &rsaKey.PublicKey), rsaJWK("k2", &rsaKey2.PublicKey),
		map[string]any{"kty": "oct", "kid": "h", "k": b64([]byte("hmac"))}, // not RS256's kind: skipped
	)
	v := verifier(t, auth.Config{JWKSFile: rs})
	if _, err := v.Verify(sign(t, jwt.SigningMethodRS256, rsaKey2, "k2", jwt.MapClaims{"sub": "u"})); err != nil {
		t.Errorf("kid k2: %v", err)
	}
	if e := refusal(t, v, sign(t, jwt.SigningMethodRS256, rsaKey2, "k1", jwt.MapClaims{"sub": "u"})); e.Detail != "Invalid token: Signature verification failed" {
		t.Errorf("kid k1 for key 2: %q", e.Detail)
	}
	// No key for the kid, none without a kid, no static key: agno's text.
	if e := refusal(t, v, sign(t, jwt.SigningMethodRS256, rsaKey, "k9", jwt.MapClaims{"sub": "u"})); e.Detail != "Invalid token: No verification keys configured" {
		t.Errorf("unknown kid: %q", e.Detail)
	}
	// A static key is tried after the JWKS.
	both := verifier(t, auth.Config{JWKSFile: rs, VerificationKeys: []string{publicPEM(t, &rsaKey.PublicKey)}})
	if _, err := both.Verify(sign(t, jwt.SigningMethodRS256, rsaKey, "k9", jwt.MapClaims{"sub": "u"})); err != nil {
		t.Errorf("static key after JWKS: %v", err)
	}

	ec := filepath.Join(dir, "ec.json")
	writeJWKS(t, ec, map[string]any{"kty": "EC", "crv": "P-256", "x": b64(pad32(ecKey.X.Bytes())), "y": b64(pad32(ecKey.Y.Bytes()))})
	ve := verifier(t, auth.Config{Algorithm: "ES256", JWKSFile: ec})
	// A key without kid serves any kid (agno's "_default").
	if _, err := ve.Verify(sign(t, jwt.SigningMethodES256, ecKey, "whatever", jwt.MapClaims{"sub": "u"})); err != nil {
		t.Errorf("EC default key: %v", err)
	}

	oct := filepath.Join(dir, "oct.json")
	writeJWKS(t, oct, map[string]any{"kty": "oct", "kid": "h", "k": b64([]byte("hmac-secret"))}, rsaJWK("k1", &rsaKey.PublicKey))
	vo := verifier(t, auth.Config{Algorithm: "HS256", JWKSFile: oct})
	if _, err := vo.Verify(sign(t, jwt.SigningMethodHS256, []byte("hmac-secret"), "h", jwt.MapClaims{"sub": "u"})); err != nil {
		t.Errorf("oct key: %v", err)
	}
	// The RSA key of the file is never an HMAC secret.
	forged := sign(t, jwt.SigningMethodHS256, []byte(publicPEM(t, &rsaKey.PublicKey)), "k1", jwt.MapClaims{"sub": "u"})
	if _, err := vo.Verify(forged); err == nil {
		t.Error("HS256 token keyed by the RSA JWK accepted")
	}

	bad := filepath.Join(dir, "bad-ec.json")
	writeJWKS(t, bad, map[string]any{"kty": "EC", "kid": "e", "crv": "P-256", "x": b64(make([]byte, 32)), "y": b64(make([]byte, 32))})
	if _, err := auth.NewVerifier(auth.Config{Algorithm: "ES256", JWKSFile: bad}); err == nil || !strings.Contains(err.Error(), `key "e": not a point on P-256`) {
		t.Errorf("off-curve key: %v", err)
	}
}

func TestTokenFromRequest(t *testing.T) {
	for header, want := range map[string]string{
		"":                "",
		"Bearer abc.d.e":  "abc.d.e",
		"bearer  abc.d.e": "abc.d.e",
		"BEARER x":        "x",
		"abc.d.e":         "abc.d.e", // agno takes a raw value as the token
		" abc ":           "abc",
	} {
		r := httptest.NewRequest("GET", "/agents", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		if got := auth.TokenFromRequest(r); got != want {
			t.Errorf("Authorization %q: token %q, want %q", header, got, want)
		}
	}
	// agno's default token source is the header: the cookie is not read.
	r := httptest.NewRequest("GET", "/agents", nil)
	r.Header.Set("Cookie", "access_token=abc.d.e")
	if got := auth.TokenFromRequest(r); got != "" {
		t.Errorf("cookie read: %q", got)
	}
}

// A token without exp never expires: RequireExp refuses it with PyJWT's
// MissingRequiredClaimError text (agno's "Invalid token: ..." 401), before
// the other time claims, as PyJWT checks them; without it (agno's
// default) such a token passes.
func TestRequireExp(t *testing.T) {
	secret := []byte("secret")
	hs := func(c jwt.MapClaims) string { return sign(t, jwt.SigningMethodHS256, secret, "", c) }
	strict := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}, RequireExp: true})
	if !strict.Config().RequireExp {
		t.Fatal("RequireExp not kept")
	}
	missing := auth.Error{Status: 401, Detail: `Invalid token: Token is missing the "exp" claim`, Type: "invalid_token"}
	for name, claims := range map[string]jwt.MapClaims{
		"no exp":              {"sub": "u1"},
		"null exp":            {"sub": "u1", "exp": nil},
		"no exp, future nbf":  {"sub": "u1", "nbf": time.Now().Add(time.Minute).Unix()},
		"no exp, bad iat":     {"sub": "u1", "iat": "yesterday"},
		"no exp, bad subject": {"sub": 42},
	} {
		if got := refusal(t, strict, hs(claims)); *got != missing {
			t.Errorf("%s: got %+v\nwant %+v", name, *got, missing)
		}
	}
	if c, err := strict.Verify(hs(jwt.MapClaims{"sub": "u1", "exp": future()})); err != nil || c.UserID != "u1" {
		t.Errorf("with exp: %+v, %v", c, err)
	}
	expired := auth.Error{Status: 401, Detail: "Token has expired", Type: "expired"}
	if got := refusal(t, strict, hs(jwt.MapClaims{"exp": time.Now().Add(-time.Hour).Unix()})); *got != expired {
		t.Errorf("expired: %+v", *got)
	}
	lax := verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}})
	if _, err := lax.Verify(hs(jwt.MapClaims{"sub": "u1"})); err != nil {
		t.Errorf("agno's default accepts a token without exp: %v", err)
	}
}
