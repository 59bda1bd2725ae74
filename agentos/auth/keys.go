package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// Algorithms are the algorithms a Config may name.
var Algorithms = []string{"RS256", "ES256", "HS256"}

// configErr is a configuration error naming its field.
func configErr(format string, a ...any) error {
	return fmt.Errorf("[agentos.authorization] "+format, a...)
}

// method is the signing method of an algorithm Config accepts; nil for
// any other.
func method(alg string) jwt.SigningMethod {
	switch alg {
	case "RS256":
		return jwt.SigningMethodRS256
	case "ES256":
		return jwt.SigningMethodES256
	case "HS256":
		return jwt.SigningMethodHS256
	}
	return nil
}

// verificationKey is one loaded key, already of the kind the algorithm
// takes (*rsa.PublicKey, *ecdsa.PublicKey on P-256, or []byte).
type verificationKey struct {
	key any
}

// unescapePEM turns the literal "\n" of a PEM exported as one line (as
// environment variables often hold it) back into newlines.
func unescapePEM(s string) string {
	if strings.Contains(s, "-----BEGIN") && strings.Contains(s, `\n`) {
		return strings.ReplaceAll(s, `\n`, "\n")
	}
	return s
}

// loadKey checks a static key against the algorithm. name says where it
// came from, for errors.
func loadKey(alg, name, raw string) (verificationKey, error) {
	raw = unescapePEM(raw)
	if strings.TrimSpace(raw) == "" {
		return verificationKey{}, configErr("%s is empty: give a PEM public key or certificate (RS256, ES256) or an HMAC secret (HS256)", name)
	}
	if alg == "HS256" {
		// The classic algorithm confusion: a public key used as an HMAC
		// secret lets anyone who has the public key sign tokens.
		if strings.Contains(raw, "-----BEGIN") {
			return verificationKey{}, configErr("%s is a PEM key or certificate, but algorithm = \"HS256\" takes a shared secret: a public key used as an HMAC secret lets anyone sign tokens; set algorithm = \"RS256\" or \"ES256\" for this key, or give the HMAC secret", name)
		}
		return verificationKey{key: []byte(raw)}, nil
	}
	block, _ := pem.Decode([]byte(strings.TrimSpace(raw)))
	if block == nil {
		return verificationKey{}, configErr("%s is not PEM: algorithm = %q takes a PEM public key (-----BEGIN PUBLIC KEY-----) or certificate (-----BEGIN CERTIFICATE-----)", name, alg)
	}
	var pub any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		pub, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			pub = cert.PublicKey
		}
	case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
		// Verification needs only the public half; the private key has
		// no business on the server.
		return verificationKey{}, configErr("%s is a private key: give its public key instead (openssl pkey -in key.pem -pubout)", name)
	default:
		return verificationKey{}, configErr("%s is a PEM %q block: give a PUBLIC KEY or CERTIFICATE", name, block.Type)
	}
	if err != nil {
		return verificationKey{}, configErr("%s: the PEM %s does not parse: %v", name, strings.ToLower(block.Type), err)
	}
	return checkKind(alg, name, pub)
}

// checkKind keeps a public key only if it is the algorithm's kind.
func checkKind(alg, name string, pub any) (verificationKey, error) {
	switch alg {
	case "RS256":
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return verificationKey{}, configErr("%s is a %s key, but algorithm = \"RS256\" takes an RSA key: set algorithm = %q or give an RSA key", name, keyKind(pub), algFor(pub))
		}
		if k.N.BitLen() < 1024 {
			return verificationKey{}, configErr("%s is a %d-bit RSA key: RSA keys under 1024 bits are refused; use 2048 bits or more", name, k.N.BitLen())
		}
		return verificationKey{key: k}, nil
	case "ES256":
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok {
			return verificationKey{}, configErr("%s is a %s key, but algorithm = \"ES256\" takes an EC P-256 key: set algorithm = %q or give a P-256 key", name, keyKind(pub), algFor(pub))
		}
		if k.Curve != elliptic.P256() {
			return verificationKey{}, configErr("%s is an EC key on %s, but ES256 takes the curve P-256", name, k.Curve.Params().Name)
		}
		return verificationKey{key: k}, nil
	}
	return verificationKey{}, configErr("algorithm = %q is not supported: use RS256, ES256 or HS256", alg)
}

func keyKind(pub any) string {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PublicKey:
		return "EC " + k.Curve.Params().Name
	}
	return fmt.Sprintf("%T", pub)
}

func algFor(pub any) string {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RS256"
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return "ES256"
		}
	}
	return "RS256"
}

// jwks are the JWKS file's keys: by kid, and those without one, tried
// for tokens whose kid matches none (agno's "_default").
type jwks struct {
	byKid    map[string]verificationKey
	fallback []verificationKey
}

// jwk is a JSON Web Key's fields read here (RFC 7517, 7518).
type jwk struct {
	Kty string `json:"kty"`
	Kid any    `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	K   string `json:"k"`
}

// ktyFor is the JWK key type an algorithm uses.
var ktyFor = map[string]string{"RS256": "RSA", "ES256": "EC", "HS256": "oct"}

// loadJWKS reads a JWKS file. Keys of another type, algorithm or use
// than the configured algorithm's are skipped: they could never verify.
func loadJWKS(alg, path string) (*jwks, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, configErr("jwks_file %q: file not found", path)
	}
	if err != nil {
		return nil, configErr("jwks_file %q: %v", path, err)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, configErr("jwks_file %q is not a JSON Web Key Set: %v", path, err)
	}
	set := &jwks{byKid: map[string]verificationKey{}}
	for i, raw := range doc.Keys {
		var k jwk
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, configErr("jwks_file %q: keys[%d] is not a JSON Web Key: %v", path, i, err)
		}
		if k.Kty != ktyFor[alg] || (k.Alg != "" && k.Alg != alg) || (k.Use != "" && k.Use != "sig") {
			continue
		}
		kid, ok := k.Kid.(string)
		if k.Kid != nil && !ok {
			return nil, configErr("jwks_file %q: keys[%d] has a kid that is not a string", path, i)
		}
		name := fmt.Sprintf("jwks_file %q: keys[%d]", path, i)
		if kid != "" {
			name = fmt.Sprintf("jwks_file %q: key %q", path, kid)
		}
		vk, err := parseJWK(alg, name, k)
		if err != nil {
			return nil, err
		}
		if kid == "" {
			set.fallback = append(set.fallback, vk)
			continue
		}
		if _, dup := set.byKid[kid]; dup {
			return nil, configErr("jwks_file %q has two %s keys with kid %q: give each key its own kid", path, alg, kid)
		}
		set.byKid[kid] = vk
	}
	if len(set.byKid)+len(set.fallback) == 0 {
		return nil, configErr("jwks_file %q holds no key for algorithm = %q (a key with kty %q): add one, or set algorithm to the keys' algorithm", path, alg, ktyFor[alg])
	}
	return set, nil
}

func parseJWK(alg, name string, k jwk) (verificationKey, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := b64(k.N)
		e, err2 := b64(k.E)
		if err1 != nil || err2 != nil || len(n) == 0 || len(e) == 0 || len(e) > 4 {
			return verificationKey{}, configErr("%s: n and e must be base64url big-endian integers", name)
		}
		exp := new(big.Int).SetBytes(e)
		if !exp.IsInt64() || exp.Int64() < 3 || exp.Int64()%2 == 0 {
			return verificationKey{}, configErr("%s: e is not a valid RSA exponent", name)
		}
		return checkKind(alg, name, &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(exp.Int64())})
	case "EC":
		if k.Crv != "P-256" {
			return verificationKey{}, configErr("%s: crv = %q, but ES256 takes P-256", name, k.Crv)
		}
		x, err1 := b64(k.X)
		y, err2 := b64(k.Y)
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return verificationKey{}, configErr("%s: x and y must be 32-byte base64url coordinates", name)
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return verificationKey{}, configErr("%s: not a point on P-256: %v", name, err)
		}
		return checkKind(alg, name, pub)
	case "oct":
		secret, err := b64(k.K)
		if err != nil || len(secret) == 0 {
			return verificationKey{}, configErr("%s: k must be the base64url secret", name)
		}
		return verificationKey{key: secret}, nil
	}
	return verificationKey{}, configErr("%s: kty %q is not supported", name, k.Kty)
}

// b64 decodes base64url, padded or not.
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
