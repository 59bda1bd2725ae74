// Package component stores components: agent, team and workflow
// configurations kept in the database, each with numbered config
// versions (draft or published) and a current version — agno's
// agno_components, agno_component_configs and agno_component_links tables.
//
// A config is a JSON object with the keys of a declarative resource file;
// config.Resources.BuildComponent turns it into a live object.
package component

import (
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
