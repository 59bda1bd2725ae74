package runsapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
)

// The fields of a run form beyond the endpoint's signature, which agno
// forwards to the run as keyword arguments.

// jsonFields are extra form fields agno JSON-decodes (§1.5).
var jsonFields = map[string]bool{"session_state": true, "dependencies": true, "metadata": true, "knowledge_filters": true, "output_schema": true}

// extras returns the fields not in the endpoint's signature, decoded as
// agno's get_request_kwargs forwards them: JSON fields parsed (one that is
// not valid JSON is dropped with a warning, as agno drops it),
// use_json_schema consumed, "true"/"false" as booleans, "null"/"none" as
// nil, anything else as the string sent.
func extras(f Form, log *slog.Logger) map[string]any {
	out := map[string]any{}
	for k, v := range f.Unknown() {
		if k == "use_json_schema" {
			continue
		}
		if jsonFields[k] && v != "" {
			var x any
			if err := run.DecodeJSON([]byte(v), &x); err != nil {
				log.Warn("ignoring a form field that is not valid JSON", "field", k, "error", err)
				continue
			}
			out[k] = x
			continue
		}
		switch strings.ToLower(v) {
		case "true":
			out[k] = true
		case "false":
			out[k] = false
		case "null", "none":
			out[k] = nil
		default:
			out[k] = v
		}
	}
	return out
}

// objectExtra reads a forwarded field that must be a JSON object (or
// null).
func objectExtra(ex map[string]any, k string) (map[string]any, error) {
	v, ok := ex[k]
	if !ok || v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	if s, ok := v.(string); ok && s == "" {
		return nil, nil
	}
	return nil, httpapi.ErrStatus(http.StatusBadRequest, "Form field %q must be a JSON object", k)
}

// boolExtra reads a forwarded boolean field; set is false when absent.
func boolExtra(ex map[string]any, k string) (b, set bool, err error) {
	v, ok := ex[k]
	if !ok || v == nil {
		return false, false, nil
	}
	if b, ok := v.(bool); ok {
		return b, true, nil
	}
	return false, false, httpapi.ErrStatus(http.StatusBadRequest, "Form field %q must be true or false", k)
}

// applyExtras maps forwarded fields onto a run request. Fields a run has
// no use for are accepted and ignored: agno passes every extra field to
// arun(**kwargs), where unknown names end up unused.
func applyExtras(req *run.Request, ex map[string]any) error {
	var err error
	for k, dst := range map[string]*map[string]any{"session_state": &req.SessionState, "dependencies": &req.Dependencies,
		"metadata": &req.Metadata, "knowledge_filters": &req.KnowledgeFilters, "additional_data": &req.AdditionalData} {
		if *dst, err = objectExtra(ex, k); err != nil {
			return err
		}
	}
	for _, k := range []string{"stream_intermediate_steps", "stream_events"} { // the newer name wins
		b, set, err := boolExtra(ex, k)
		if err != nil {
			return err
		}
		if set {
			req.StreamEvents = b
		}
	}
	b, set, err := boolExtra(ex, "add_history_to_context")
	if err != nil {
		return err
	}
	if set {
		req.AddHistory = &b
	}
	if v, ok := ex["output_schema"]; ok && v != nil {
		schema, isObject := v.(map[string]any)
		if !isObject {
			return httpapi.ErrStatus(http.StatusBadRequest, "output_schema must be a JSON object (a JSON schema)")
		}
		if req.OutputSchema, err = json.Marshal(schema); err != nil {
			return err
		}
	}
	return nil
}

// applyContinueExtras maps forwarded fields onto a continue request
// (agno's acontinue_run kwargs); others are accepted and ignored.
func applyContinueExtras(req *run.ContinueRequest, ex map[string]any) error {
	var err error
	for k, dst := range map[string]*map[string]any{"session_state": &req.SessionState, "dependencies": &req.Dependencies, "metadata": &req.Metadata} {
		if *dst, err = objectExtra(ex, k); err != nil {
			return err
		}
	}
	b, set, err := boolExtra(ex, "stream_events")
	if err != nil {
		return err
	}
	if set {
		req.StreamEvents = b && req.Stream
	}
	return nil
}

// parseJSONList decodes a JSON list form field (tools, requirements).
func parseJSONList[T any](f Form, field string) ([]T, error) {
	raw := f.Str(field)
	if raw == "" {
		return nil, nil
	}
	var out []T
	if err := run.DecodeJSON([]byte(raw), &out); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, "Invalid JSON in %s: %v", field, err)
		}
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Invalid %s: %v", field, err)
	}
	return out, nil
}
