package agentos

import (
	"context"
	"encoding/json"
	"slices"
)

// caller is who a request acts for in JWT mode: the token's claims.
type caller struct {
	UserID    string
	SessionID string
	Scopes    []string
	Admin     bool
	// Isolated: user isolation is on and the caller is not an admin, so
	// it reads and writes its own user's data only.
	Isolated bool
}

type callerKey struct{}

func withCaller(ctx context.Context, c *caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf is the request's caller; nil outside JWT mode.
func callerOf(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

// jwtMode reports whether requests carry JWTs.
func (o *OS) jwtMode() bool { return o.verifier != nil }

// callerFromToken verifies a token; a refusal is an *auth.Error.
func (o *OS) callerFromToken(token string) (*caller, error) {
	claims, err := o.verifier.Verify(token)
	if err != nil {
		return nil, err
	}
	return o.callerWith(claims.UserID, claims.SessionID, claims.Scopes), nil
}

// callerWith is the caller of a user holding scopes, under this server's
// admin scope and isolation setting.
func (o *OS) callerWith(userID, sessionID string, scopes []string) *caller {
	admin := o.verifier.IsAdmin(scopes)
	return &caller{UserID: userID, SessionID: sessionID, Scopes: scopes, Admin: admin,
		Isolated: !admin && o.verifier.Config().UserIsolation}
}

// principal is who an object made through the API (a schedule, a
// component) acts for: the user and the scopes of the caller that
// created or last changed it. The object never acts with more: when it
// acts, the principal is turned back into a caller and passes the same
// scope and isolation checks as a request of that caller would. Outside
// JWT mode it is empty (a key or a loopback client holds every right of
// the API, and no more).
type principal struct {
	UserID string   `json:"user_id,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
}

// principalOf is the principal of the request's caller.
func principalOf(ctx context.Context) principal {
	c := callerOf(ctx)
	if c == nil {
		return principal{}
	}
	return principal{UserID: c.UserID, Scopes: slices.Clone(c.Scopes)}
}

// encode is the principal as stored beside its object.
func (p principal) encode() json.RawMessage {
	b, _ := json.Marshal(p)
	return b
}

// decodePrincipal reads a stored principal; a missing or unreadable one
// holds no rights (an object stored before principals existed acts as
// nobody in JWT mode until someone with the rights saves it again).
func decodePrincipal(raw json.RawMessage) principal {
	var p principal
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	return p
}

// callerFor is the caller an object acting for p is, checked against
// today's admin scope and isolation; nil outside JWT mode.
func (o *OS) callerFor(p principal) *caller {
	if !o.jwtMode() {
		return nil
	}
	return o.callerWith(p.UserID, "", p.Scopes)
}

// may reports whether c's scopes grant required on the resource
// typ/id (id "" for none); true outside JWT mode.
func (o *OS) may(c *caller, required []string, typ, id string) bool {
	if c == nil || o.verifier == nil {
		return true
	}
	return o.verifier.Allowed(c.Scopes, required, typ, id)
}

// isolated reports whether c is confined to its own user: JWT mode with
// user isolation, and not an admin.
func (o *OS) isolated(c *caller) bool { return c != nil && c.Isolated }

// scopedUser is the user an isolated caller acts as; "" when the request
// is not confined to one.
func scopedUser(ctx context.Context) string {
	if c := callerOf(ctx); c != nil && c.Isolated {
		return c.UserID
	}
	return ""
}

// callerUser is the request's user in JWT mode ("" otherwise): the owner
// of what it creates.
func callerUser(ctx context.Context) string {
	if c := callerOf(ctx); c != nil {
		return c.UserID
	}
	return ""
}

// ownedBy reports whether an object created by owner may be changed by
// the request's caller: always outside isolation, else only by its
// owner (admins are never isolated).
func ownedBy(ctx context.Context, owner string) bool {
	u := scopedUser(ctx)
	return u == "" || u == owner
}
