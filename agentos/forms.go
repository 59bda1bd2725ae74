package agentos

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agno-go/agno/agentos/internal/httpapi"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// form is a parsed run form (httpapi.Form) with its uploads sorted as
// agno's run endpoints take them: images and documents.
type form struct {
	*httpapi.Form
	images []model.Image
	files  []model.File
}

// parseForm reads the request form within the upload limits (413 past
// max_upload_bytes or max_file_bytes), files to disk, not memory. Files
// become images or documents (other types are refused with agno's
// "Unsupported file type"); endpoints that take no files skip them.
func (o *OS) parseForm(w http.ResponseWriter, r *http.Request, known ...string) (*form, error) {
	f := &form{}
	var files httpapi.FileFunc // nil: skipped
	if slices.Contains(known, "files") {
		files = f.addUpload
	}
	hf, err := httpapi.ReadForm(w, r, o.limits, files, known...)
	if err != nil {
		return nil, err
	}
	f.Form = hf
	return f, nil
}

// The run routes' names for the form's fields and spool.
func (f *form) has(k string) bool   { return f.Has(k) }
func (f *form) str(k string) string { return f.Str(k) }
func (f *form) release()            { f.Release() }

// documentTypes are the uploads agno passes to the model as files.
var documentTypes = map[string]bool{
	"application/pdf": true, "application/json": true, "application/xml": true,
	"application/javascript": true, "application/x-javascript": true, "application/x-python": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": true,
}

// addUpload sorts an uploaded file as agno does — images go with the
// message as images, documents (PDF, text, JSON, docx…) as files, other
// types are refused — and spools it to a private file, cut at the
// per-file limit.
func (f *form) addUpload(hf *httpapi.Form, _, name, ct string, body io.Reader) error {
	ct, _, _ = mime.ParseMediaType(ct)
	if ct == "" || ct == "application/octet-stream" {
		ct, _, _ = mime.ParseMediaType(mime.TypeByExtension(strings.ToLower(filepath.Ext(name))))
	}
	image := strings.HasPrefix(ct, "image/")
	if !image && !documentTypes[ct] && !strings.HasPrefix(ct, "text/") {
		return errStatus(http.StatusBadRequest, "Unsupported file type: %s (%s); images and documents (PDF, text, CSV, JSON, DOCX) are accepted", cmp.Or(ct, "unknown"), name)
	}
	path, n, err := hf.Spool(name, body)
	if err != nil {
		return err
	}
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	if image {
		f.images = append(f.images, model.Image{MimeType: ct, Size: n, Source: open})
	} else {
		f.files = append(f.files, model.File{Filename: name, MimeType: ct, Size: n, Source: open})
	}
	return nil
}

// boolean reads a form boolean with FastAPI's spellings.
func (f *form) boolean(k string, def bool) (bool, error) {
	v, ok := f.Values[k]
	if !ok || v == "" {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on", "t", "y":
		return true, nil
	case "false", "0", "no", "off", "f", "n":
		return false, nil
	}
	return false, errStatus(http.StatusUnprocessableEntity, "Form field %q must be a boolean (true or false), got %q", k, v)
}

// jsonFields are extra form fields agno JSON-decodes (§1.5).
var jsonFields = map[string]bool{"session_state": true, "dependencies": true, "metadata": true, "knowledge_filters": true, "output_schema": true}

// extras returns the fields not in the endpoint's signature, decoded as
// agno's get_request_kwargs forwards them: JSON fields parsed (one that is
// not valid JSON is dropped with a warning, as agno drops it),
// use_json_schema consumed, "true"/"false" as booleans, "null"/"none" as
// nil, anything else as the string sent.
func (f *form) extras(log *slog.Logger) map[string]any {
	out := map[string]any{}
	for k, v := range f.Values {
		if f.Known[k] || k == "use_json_schema" {
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
	return nil, errStatus(http.StatusBadRequest, "Form field %q must be a JSON object", k)
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
	return false, false, errStatus(http.StatusBadRequest, "Form field %q must be true or false", k)
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
			return errStatus(http.StatusBadRequest, "output_schema must be a JSON object (a JSON schema)")
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
func parseJSONList[T any](f *form, field string) ([]T, error) {
	raw := f.str(field)
	if raw == "" {
		return nil, nil
	}
	var out []T
	if err := run.DecodeJSON([]byte(raw), &out); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, errStatus(http.StatusBadRequest, "Invalid JSON in %s: %v", field, err)
		}
		return nil, errStatus(http.StatusBadRequest, "Invalid %s: %v", field, err)
	}
	return out, nil
}
