package tracestore

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Exporter is an OpenTelemetry span exporter writing to the store (agno's
// DatabaseSpanExporter). Give it to a batch span processor.
type Exporter struct {
	store    *Store
	shutdown atomic.Bool
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// Exporter returns a span exporter writing to s.
func (s *Store) Exporter() *Exporter { return &Exporter{store: s} }

// ExportSpans stores a batch of finished spans in one transaction.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.shutdown.Load() || len(spans) == 0 {
		return nil
	}
	rows := make([]Span, 0, len(spans))
	now := time.Now()
	for _, s := range spans {
		rows = append(rows, FromOTel(s, now))
	}
	return e.store.Write(ctx, rows)
}

// Shutdown stops exporting; later batches are dropped.
func (e *Exporter) Shutdown(context.Context) error {
	e.shutdown.Store(true)
	return nil
}

// FromOTel converts a finished span to its row.
func FromOTel(s sdktrace.ReadOnlySpan, created time.Time) Span {
	sc := s.SpanContext()
	row := Span{
		SpanID:     sc.SpanID().String(),
		TraceID:    sc.TraceID().String(),
		Name:       s.Name(),
		SpanKind:   kindName(s.SpanKind()),
		StartTime:  s.StartTime(),
		EndTime:    s.EndTime(),
		Attributes: map[string]any{},
		CreatedAt:  created,
	}
	if row.EndTime.IsZero() {
		row.EndTime = row.StartTime
	}
	row.DurationMS = row.EndTime.Sub(row.StartTime).Milliseconds()
	if p := s.Parent(); p.SpanID().IsValid() {
		row.ParentSpanID = p.SpanID().String()
	}
	switch st := s.Status(); st.Code {
	case codes.Ok:
		row.StatusCode = "OK"
	case codes.Error:
		row.StatusCode, row.StatusMessage = "ERROR", st.Description
	default:
		row.StatusCode = "UNSET"
	}
	for _, kv := range s.Attributes() {
		row.Attributes[string(kv.Key)] = attrValue(kv.Value)
	}
	return row
}

func kindName(k trace.SpanKind) string {
	switch k {
	case trace.SpanKindServer:
		return "SERVER"
	case trace.SpanKindClient:
		return "CLIENT"
	case trace.SpanKindProducer:
		return "PRODUCER"
	case trace.SpanKindConsumer:
		return "CONSUMER"
	}
	return "INTERNAL"
}

func attrValue(v attribute.Value) any {
	switch v.Type() {
	case attribute.BOOL:
		return v.AsBool()
	case attribute.INT64:
		return v.AsInt64()
	case attribute.FLOAT64:
		return v.AsFloat64()
	case attribute.STRING:
		return v.AsString()
	case attribute.BOOLSLICE:
		return v.AsBoolSlice()
	case attribute.INT64SLICE:
		return v.AsInt64Slice()
	case attribute.FLOAT64SLICE:
		return v.AsFloat64Slice()
	case attribute.STRINGSLICE:
		return v.AsStringSlice()
	}
	return v.String()
}
