package auth

import (
	"slices"
	"strings"
)

// legacyResources are renamed resources whose old names tokens still
// carry (agno's LEGACY_RESOURCE_ALIASES).
var legacyResources = map[string]string{"system": "config"}

type scopeKind int

const (
	scopeUnknown scopeKind = iota
	scopeAdmin
	scopeGlobal      // resource:action
	scopePerResource // resource:<id>:action, id "*" for any
)

// scope is a parsed scope (agno's ParsedScope).
type scope struct {
	kind     scopeKind
	resource string
	id       string
	action   string
}

func (s scope) wildcard() bool { return s.kind == scopePerResource && s.id == "*" }

// parseScope is agno's parse_scope: the admin scope, two parts global,
// three per-resource, anything else unknown.
func parseScope(raw, admin string) scope {
	if raw == admin {
		return scope{kind: scopeAdmin}
	}
	parts := strings.Split(raw, ":")
	alias := func(r string) string {
		if to, ok := legacyResources[r]; ok {
			return to
		}
		return r
	}
	switch len(parts) {
	case 2:
		return scope{kind: scopeGlobal, resource: alias(parts[0]), action: parts[1]}
	case 3:
		return scope{kind: scopePerResource, resource: alias(parts[0]), id: parts[1], action: parts[2]}
	}
	return scope{kind: scopeUnknown}
}

// matches is agno's matches_scope. An empty id counts as none, as in
// Python.
func matches(user, required scope, resourceID string) bool {
	if user.kind == scopeAdmin {
		return true
	}
	if user.kind == scopeUnknown || required.kind == scopeUnknown {
		return false
	}
	if user.resource != required.resource || user.action != required.action {
		return false
	}
	if required.id != "" {
		return user.wildcard() || user.id == "" || user.id == resourceID
	}
	return user.id == "" || user.wildcard()
}

// allowed is agno's has_required_scopes.
func allowed(scopes, required []string, resourceType, resourceID, admin string) bool {
	if len(required) == 0 {
		return true
	}
	parsed := make([]scope, len(scopes))
	for i, s := range scopes {
		parsed[i] = parseScope(s, admin)
		if parsed[i].kind == scopeAdmin {
			return true
		}
	}
	for _, r := range required {
		var req scope
		if parts := strings.Split(r, ":"); len(parts) == 2 && resourceID != "" && resourceType != "" {
			// With a resource, "agents:run" asks for agents:<id>:run,
			// which the global agents:run also grants.
			req = parseScope(resourceType+":<resource-id>:"+parts[1], admin)
		} else {
			req = parseScope(r, admin)
		}
		if !slices.ContainsFunc(parsed, func(u scope) bool { return matches(u, req, resourceID) }) {
			return false
		}
	}
	return true
}

// accessible is agno's get_accessible_resource_ids, the ids sorted.
func accessible(scopes []string, resourceType, action, admin string) (all bool, ids []string) {
	actions := []string{"read", "run"}
	if action != "" {
		actions = []string{action}
	}
	parsed := make([]scope, len(scopes))
	for i, s := range scopes {
		parsed[i] = parseScope(s, admin)
		p := parsed[i]
		if p.kind == scopeAdmin {
			return true, nil
		}
		if p.resource == resourceType && slices.Contains(actions, p.action) && (p.id == "" || p.wildcard()) {
			return true, nil
		}
	}
	for _, p := range parsed {
		if p.resource == resourceType && p.id != "" && !p.wildcard() && slices.Contains(actions, p.action) && !slices.Contains(ids, p.id) {
			ids = append(ids, p.id)
		}
	}
	slices.Sort(ids)
	return false, ids
}
