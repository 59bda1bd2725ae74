package agentos

import "context"

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
	admin := o.verifier.IsAdmin(claims.Scopes)
	return &caller{UserID: claims.UserID, SessionID: claims.SessionID, Scopes: claims.Scopes, Admin: admin,
		Isolated: !admin && o.verifier.Config().UserIsolation}, nil
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
