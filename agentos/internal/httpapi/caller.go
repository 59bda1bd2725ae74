package httpapi

import (
	"context"
	"encoding/json"
	"slices"
)

// Caller is who a request acts for in JWT mode: the token's claims.
type Caller struct {
	UserID    string
	SessionID string
	Scopes    []string
	Admin     bool
	// Isolated: user isolation is on and the caller is not an admin, so
	// it reads and writes its own user's data only.
	Isolated bool
}

type callerKey struct{}

// WithCaller is ctx carrying c as the request's caller.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf is the request's caller; nil outside JWT mode.
func CallerOf(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// Principal is who an object made through the API (a schedule, a
// component) acts for: the user and the scopes of the caller that
// created or last changed it. The object never acts with more: when it
// acts, the principal is turned back into a caller and passes the same
// scope and isolation checks as a request of that caller would. Outside
// JWT mode it is empty (a key or a loopback client holds every right of
// the API, and no more).
type Principal struct {
	UserID string   `json:"user_id,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
}

// PrincipalOf is the principal of the request's caller.
func PrincipalOf(ctx context.Context) Principal {
	c := CallerOf(ctx)
	if c == nil {
		return Principal{}
	}
	return Principal{UserID: c.UserID, Scopes: slices.Clone(c.Scopes)}
}

// Encode is the principal as stored beside its object.
func (p Principal) Encode() json.RawMessage {
	b, _ := json.Marshal(p)
	return b
}

// DecodePrincipal reads a stored principal; a missing or unreadable one
// holds no rights (an object stored before principals existed acts as
// nobody in JWT mode until someone with the rights saves it again).
func DecodePrincipal(raw json.RawMessage) Principal {
	var p Principal
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	return p
}

// ScopedUser is the user an isolated caller acts as; "" when the request
// is not confined to one.
func ScopedUser(ctx context.Context) string {
	if c := CallerOf(ctx); c != nil && c.Isolated {
		return c.UserID
	}
	return ""
}

// CallerUser is the request's user in JWT mode ("" otherwise): the owner
// of what it creates.
func CallerUser(ctx context.Context) string {
	if c := CallerOf(ctx); c != nil {
		return c.UserID
	}
	return ""
}

// OwnedBy reports whether an object created by owner may be changed by
// the request's caller: always outside isolation, else only by its
// owner (admins are never isolated).
func OwnedBy(ctx context.Context, owner string) bool {
	u := ScopedUser(ctx)
	return u == "" || u == owner
}
