// Package component stores components: agent, team and workflow
// configurations kept in the database, each with numbered config
// versions (draft or published) and a current version — agno's
// agno_components, agno_component_configs and agno_component_links tables.
//
// A config is a JSON object with the keys of a declarative resource file;
// config.Resources.BuildComponent turns it into a live object.
package component

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Type is a component's kind.
type Type string

// Component types.
const (
	Agent    Type = "agent"
	Team     Type = "team"
	Workflow Type = "workflow"
)

// Valid reports whether t is agent, team or workflow.
func (t Type) Valid() bool { return t == Agent || t == Team || t == Workflow }

// Config stages.
const (
	StageDraft     = "draft"
	StagePublished = "published"
)

// Component is one row of agno_components. Nil pointers are NULL.
type Component struct {
	ComponentID    string
	ComponentType  Type
	Name           *string
	Description    *string
	CurrentVersion *int
	Metadata       map[string]any
	CreatedAt      int64
	UpdatedAt      *int64
	DeletedAt      *int64
	// CreatedBy is the user that created the component ("" when no user
	// was known): its owner, who alone (or an admin) changes it under
	// user isolation.
	CreatedBy string
	// Principal is who the component acts for: the caller that created
	// or last changed it, encoded by the server (AgentOS stores the user
	// and its scopes). The store keeps it as given.
	Principal json.RawMessage
}

// Config is one version of a component's configuration
// (agno_component_configs), with its links.
type Config struct {
	ComponentID string
	Version     int
	Label       *string
	Stage       string
	// Config is nil when listed without configs.
	Config    map[string]any
	Notes     *string
	Links     []Link
	CreatedAt int64
	UpdatedAt *int64
}

// Link is a config's reference to another component (a team member, a
// workflow step), pinned to a version.
type Link struct {
	LinkKind         string         `json:"link_kind"`
	LinkKey          string         `json:"link_key"`
	ChildComponentID string         `json:"child_component_id"`
	ChildVersion     *int           `json:"child_version"`
	Position         int            `json:"position"`
	Meta             map[string]any `json:"meta,omitempty"`
}

// Built is a component's live object, made from its config, and the
// served resources the config names: whoever writes the config must be
// allowed to use each of them, and the component acts with no more.
type Built struct {
	// Object is an *agent.Agent, *team.Team or *workflow.Workflow.
	Object any
	Uses   []Use
}

// Use is a served resource a component's config names. Kind is "agent",
// "team" or "workflow" (team members, agent:/team: tools, workflow
// steps), or "knowledge" (a knowledge base it attaches).
type Use struct {
	Kind, ID string
}

// ErrNotAllowed marks a config naming what the operator does not let
// components use (config.toml's [components] allowlists).
var ErrNotAllowed = errors.New("not allowed for components")

// Code classifies an Error.
type Code int

const (
	// NotFound: no such component or version (HTTP 404).
	NotFound Code = iota + 1
	// Invalid: a request agno refuses with a ValueError (HTTP 400):
	// an existing id, a published config edited, a label taken, …
	Invalid
)

// Error is a refused request; its message is agno's.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Is matches ErrNotFound and ErrInvalid by code.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Msg == "" && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrNotFound = &Error{Code: NotFound}
	ErrInvalid  = &Error{Code: Invalid}
)

func notFound(format string, a ...any) error {
	return &Error{Code: NotFound, Msg: fmt.Sprintf(format, a...)}
}
func invalid(format string, a ...any) error {
	return &Error{Code: Invalid, Msg: fmt.Sprintf(format, a...)}
}

func checkStage(stage string) error {
	if stage != StageDraft && stage != StagePublished {
		return invalid("Invalid stage: %s", stage)
	}
	return nil
}

func checkLinks(links []Link) error {
	for i, l := range links {
		switch {
		case l.ChildComponentID == "":
			return invalid("links[%d]: child_component_id is required", i)
		case l.ChildVersion == nil:
			return invalid("child_version is required for link to %s", l.ChildComponentID)
		case l.LinkKind == "" || l.LinkKey == "":
			return invalid("links[%d]: link_kind and link_key are required (e.g. link_kind \"member\", link_key the member's id)", i)
		}
	}
	return nil
}
