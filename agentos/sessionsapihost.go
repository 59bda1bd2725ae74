package agentos

import "github.com/agno-go/agno/agentos/sessionsapi"

// The Sessions group (agentos/sessionsapi) needs only groupHost's
// DataStore; its answer shapes keep their names here.

// SessionSchema is agno's SessionSchema, the GET /sessions item
// (exclude_none: unset fields are absent).
type SessionSchema = sessionsapi.SessionSchema

// AgentSessionDetailSchema is agno's AgentSessionDetailSchema with every
// field (None as null).
type AgentSessionDetailSchema = sessionsapi.AgentSessionDetailSchema

// TeamSessionDetailSchema is agno's TeamSessionDetailSchema.
type TeamSessionDetailSchema = sessionsapi.TeamSessionDetailSchema

// WorkflowSessionDetailSchema is agno's WorkflowSessionDetailSchema.
type WorkflowSessionDetailSchema = sessionsapi.WorkflowSessionDetailSchema
