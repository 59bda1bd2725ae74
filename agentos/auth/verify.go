package auth

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// agno's texts (os/middleware/jwt.py, and PyJWT's reasons after
// "Invalid token: ").
const (
	detailMissing  = "Authorization header missing"
	detailExpired  = "Token has expired"
	detailAudience = "Invalid token audience - token not valid for this AgentOS instance"
	missingAud     = `Token is missing the "aud" claim. Audience verification requires this claim to be present in the token.`
	// missingExp is PyJWT's MissingRequiredClaimError for exp.
	missingExp = `Token is missing the "exp" claim`
)

// Error types (agno's WebSocket error_type).
const (
	TypeExpired      = "expired"
	TypeInvalidToken = "invalid_token"
)

// MissingToken is the refusal of a request without a token.
func MissingToken() *Error {
	return &Error{Status: http.StatusUnauthorized, Detail: detailMissing, Type: TypeInvalidToken}
}

func invalid(reason string) *Error {
	return &Error{Status: http.StatusUnauthorized, Detail: "Invalid token: " + reason, Type: TypeInvalidToken}
}

// TokenFromRequest is the token of the Authorization header: what follows
// "Bearer " (any case), or else the whole value, as agno takes it. agno
// reads its access_token cookie only when told to (token_source), so
// cookies are not read.
func TokenFromRequest(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) >= 7 && strings.EqualFold(h[:7], "bearer ") {
		h = h[7:]
	}
	return strings.TrimSpace(h)
}

// verify is Verify; now is the clock.
func (v *Verifier) verify(token string, now time.Time) (*Claims, error) {
	if token == "" {
		return nil, MissingToken()
	}
	parts := strings.Split(token, ".")
	if len(parts) < 3 {
		return nil, invalid("Not enough segments")
	}
	if len(parts) > 3 {
		return nil, invalid("Invalid payload padding")
	}
	headerJSON, err := b64(parts[0])
	if err != nil {
		return nil, invalid("Invalid header padding")
	}
	header, reason := jsonObject(headerJSON)
	if header == nil {
		return nil, invalid("Invalid header string: " + reason)
	}
	payloadJSON, err := b64(parts[1])
	if err != nil {
		return nil, invalid("Invalid payload padding")
	}
	sig, err := b64(parts[2])
	if err != nil {
		return nil, invalid("Invalid crypto padding")
	}
	kid, hasKid := header["kid"]
	kidStr, ok := kid.(string)
	if hasKid && !ok {
		return nil, invalid("Key ID header parameter must be a string")
	}
	// Only the configured algorithm: "none", and an HS256 token made with
	// a public key as its secret, stop here.
	if alg, _ := header["alg"].(string); alg != v.cfg.Algorithm {
		return nil, invalid("The specified alg value is not allowed")
	}
	if !v.signatureValid(parts[0]+"."+parts[1], sig, kidStr) {
		if v.keyCount(kidStr) == 0 {
			return nil, invalid("No verification keys configured")
		}
		return nil, invalid("Signature verification failed")
	}

	payload, reason := jsonObject(payloadJSON)
	if payload == nil {
		return nil, invalid("Invalid payload string: " + reason)
	}
	if err := v.checkTimes(payload, now); err != nil {
		return nil, err
	}
	if sub, ok := payload["sub"]; ok {
		if _, isStr := sub.(string); !isStr {
			return nil, invalid("Subject must be a string")
		}
	}
	if jti, ok := payload["jti"]; ok {
		if _, isStr := jti.(string); !isStr {
			return nil, invalid("JWT ID must be a string")
		}
	}
	aud := audiences(payload["aud"])
	if v.cfg.VerifyAudience {
		if payload["aud"] == nil {
			return nil, invalid(missingAud)
		}
		if !containsString(aud, v.cfg.Audience) {
			return nil, &Error{Status: http.StatusUnauthorized, Detail: detailAudience, Type: TypeInvalidToken}
		}
	}
	c := &Claims{Audience: aud, Raw: payload}
	c.UserID, _ = payload["sub"].(string)
	c.SessionID, _ = payload["session_id"].(string)
	switch s := payload["scopes"].(type) {
	case string:
		// agno takes a string as one scope; it does not split it.
		c.Scopes = []string{s}
	case []any:
		for _, x := range s {
			if str, ok := x.(string); ok {
				c.Scopes = append(c.Scopes, str)
			}
		}
	}
	return c, nil
}

// jsonObject decodes a JSON object, numbers as json.Number; nil and the
// reason when data is not one.
func jsonObject(data []byte) (map[string]any, string) {
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		return nil, err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, "must be a json object"
	}
	return m, ""
}

// candidates are the keys to try for a token's kid: the JWKS key of that
// kid, or the JWKS keys without a kid, then every static key.
func (v *Verifier) candidates(kid string) []verificationKey {
	var out []verificationKey
	if v.jwks != nil {
		if k, ok := v.jwks.byKid[kid]; ok && kid != "" {
			out = append(out, k)
		} else {
			out = append(out, v.jwks.fallback...)
		}
	}
	return append(out, v.keys...)
}

func (v *Verifier) keyCount(kid string) int { return len(v.candidates(kid)) }

func (v *Verifier) signatureValid(signingString string, sig []byte, kid string) bool {
	m := method(v.cfg.Algorithm)
	for _, k := range v.candidates(kid) {
		if m.Verify(signingString, sig, k.key) == nil {
			return true
		}
	}
	return false
}

// checkTimes is PyJWT's required-claim (exp, with RequireExp), iat, nbf
// and exp checks, in its order, with the leeway.
func (v *Verifier) checkTimes(payload map[string]any, now time.Time) *Error {
	// PyJWT checks the required claims first; a null one is missing.
	if v.cfg.RequireExp && payload["exp"] == nil {
		return invalid(missingExp)
	}
	t := float64(now.UnixNano()) / 1e9
	leeway := v.cfg.Leeway.Seconds()
	if raw, ok := payload["iat"]; ok {
		iat, ok := claimInt(raw)
		if !ok {
			return invalid("Issued At claim (iat) must be an integer.")
		}
		if float64(iat) > t+leeway {
			return invalid("The token is not yet valid (iat)")
		}
	}
	if raw, ok := payload["nbf"]; ok {
		nbf, ok := claimInt(raw)
		if !ok {
			return invalid("Not Before claim (nbf) must be an integer.")
		}
		if float64(nbf) > t+leeway {
			return invalid("The token is not yet valid (nbf)")
		}
	}
	if raw, ok := payload["exp"]; ok {
		exp, ok := claimInt(raw)
		if !ok {
			return invalid("Expiration Time claim (exp) must be an integer.")
		}
		if float64(exp) <= t-leeway {
			return &Error{Status: http.StatusUnauthorized, Detail: detailExpired, Type: TypeExpired}
		}
	}
	return nil
}

// claimInt reads a time claim as Python's int() does: a number truncated,
// or a string of digits.
func claimInt(raw any) (int64, bool) {
	switch x := raw.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1<<62 {
			return 0, false
		}
		return int64(f), true
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// audiences is aud as a list: a string is one audience.
func audiences(raw any) []string {
	switch a := raw.(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, x := range a {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
