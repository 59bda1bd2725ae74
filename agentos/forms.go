package agentos

import (
	"cmp"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agno-go/agno/agentos/internal/httpapi"

	"github.com/agno-go/agno/model"
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
