package agentos

import (
	"context"

	"github.com/agno-go/agno/agentos/tracesapi"
)

// The Traces route group lives in agentos/tracesapi; these are the
// package's names for its configuration and answer shapes.

// TracingConfig configures tracing (agno's AgentOS(tracing=True)).
type TracingConfig = tracesapi.Config

// TraceSummary is one trace of GET /traces (None fields omitted, as the
// route's response_model_exclude_none).
type TraceSummary = tracesapi.TraceSummary

// TraceDetail is a trace with its span tree.
type TraceDetail = tracesapi.TraceDetail

// TraceNode is one span of a trace tree.
type TraceNode = tracesapi.TraceNode

// TraceSessionStats is the trace statistics of one session.
type TraceSessionStats = tracesapi.TraceSessionStats

// FilterFieldSchema is one filterable field (values null unless an enum:
// the filter-schema route does not drop None fields).
type FilterFieldSchema = tracesapi.FilterFieldSchema

// FilterSchemaResponse is GET /traces/filter-schema.
type FilterSchemaResponse = tracesapi.FilterSchemaResponse

// FlushTraces writes the spans still queued (tests, and callers that
// read /traces right after a run).
func (o *OS) FlushTraces(ctx context.Context) error { return o.traces.Flush(ctx) }
