package agentos

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
