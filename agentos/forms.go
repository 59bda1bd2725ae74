package agentos

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agno-go/agno/agentos/internal/httpapi"

	"github.com/agno-go/agno/model"
)

// form is a parsed run form: multipart/form-data or
// x-www-form-urlencoded, as agno's run endpoints take. Uploaded files
// wait in private spool files until the run stores them; release
// removes them.
type form struct {
	values map[string]string
	images []model.Image
	files  []model.File
	known  map[string]bool
	spool  []string
	// raw are the files of parseRawForm, as they came.
	raw []rawFile
}

// rawFile is an upload spooled as it came.
type rawFile struct {
	field, filename, contentType string
	path                         string
	size                         int64
}

// release removes the form's spool files.
func (f *form) release() {
	for _, p := range f.spool {
		_ = os.Remove(p)
	}
	f.spool = nil
}

// limits of one run request.
type limits struct {
	request, file int64
	spoolDir      string
}

// parseForm reads the request form within the upload limits: the body is
// cut at max_upload_bytes while it is read (413), each file at
// max_file_bytes, and files go to disk, not memory. Files become images
// or documents (other types are refused with agno's "Unsupported file
// type"); endpoints that take no files skip them.
func (o *OS) parseForm(w http.ResponseWriter, r *http.Request, known ...string) (*form, error) {
	return o.readForm(w, r, newForm(known), false)
}

// parseRawForm is parseForm for endpoints that take files of any type
// (knowledge uploads): every file is spooled as it came, into f.raw.
func (o *OS) parseRawForm(w http.ResponseWriter, r *http.Request, known ...string) (*form, error) {
	return o.readForm(w, r, newForm(known), true)
}

func newForm(known []string) *form {
	f := &form{values: map[string]string{}, known: map[string]bool{}}
	for _, k := range known {
		f.known[k] = true
	}
	return f
}

func (o *OS) readForm(w http.ResponseWriter, r *http.Request, f *form, raw bool) (_ *form, err error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	defer func() {
		if err != nil {
			f.release()
		}
	}()
	lim := o.limits
	r.Body = http.MaxBytesReader(w, r.Body, lim.request)
	switch ct {
	case "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			return nil, errStatus(http.StatusBadRequest, "Invalid form data: %v", err)
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, lim.bodyError(err)
			}
			err = f.readPart(part, lim, f.known["files"], raw)
			part.Close()
			if err != nil {
				return nil, err
			}
		}
	case "application/x-www-form-urlencoded", "":
		if err := r.ParseForm(); err != nil {
			return nil, lim.bodyError(err)
		}
		for k, v := range r.PostForm {
			if len(v) > 0 {
				f.values[k] = v[len(v)-1]
			}
		}
	default:
		// FastAPI reads a form from any other body (JSON included) as an
		// empty form, so a required field is answered as missing (422).
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return nil, lim.bodyError(err)
		}
	}
	if user := scopedUser(r.Context()); user != "" {
		f.values["user_id"] = user // an isolated caller acts as itself only
	}
	return f, nil
}

// bodyError answers a failed read of the body: 413 naming the limit when
// the body was too large, else 400.
func (l limits) bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errStatus(http.StatusRequestEntityTooLarge, "Request too large: a run request may carry at most %s (max_upload_bytes under [agentos] in config.toml)", sizeText(l.request))
	}
	return errStatus(http.StatusBadRequest, "Invalid form data: %v", err)
}

// sizeText renders a byte count with its MiB value.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readPart reads one multipart part: a field value, or a file spooled to
// disk.
func (f *form) readPart(part *multipart.Part, lim limits, takesFiles, raw bool) error {
	name := part.FormName()
	if part.FileName() == "" {
		b, err := io.ReadAll(part)
		if err != nil {
			return lim.bodyError(err)
		}
		f.values[name] = string(b)
		return nil
	}
	if raw {
		path, n, err := f.spoolFile(part.FileName(), part, lim)
		if err != nil {
			return err
		}
		f.raw = append(f.raw, rawFile{field: name, filename: part.FileName(), contentType: part.Header.Get("Content-Type"), path: path, size: n})
		return nil
	}
	if !takesFiles {
		_, err := io.Copy(io.Discard, part)
		if err != nil {
			return lim.bodyError(err)
		}
		return nil
	}
	return f.addUpload(part.FileName(), part.Header.Get("Content-Type"), part, lim)
}

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
func (f *form) addUpload(name, ct string, body io.Reader, lim limits) error {
	ct, _, _ = mime.ParseMediaType(ct)
	if ct == "" || ct == "application/octet-stream" {
		ct, _, _ = mime.ParseMediaType(mime.TypeByExtension(strings.ToLower(filepath.Ext(name))))
	}
	image := strings.HasPrefix(ct, "image/")
	if !image && !documentTypes[ct] && !strings.HasPrefix(ct, "text/") {
		return errStatus(http.StatusBadRequest, "Unsupported file type: %s (%s); images and documents (PDF, text, CSV, JSON, DOCX) are accepted", cmp.Or(ct, "unknown"), name)
	}
	path, n, err := f.spoolFile(name, body, lim)
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

// spoolFile copies an upload to a private spool file, cut at the
// per-file limit; an empty file is refused.
func (f *form) spoolFile(name string, body io.Reader, lim limits) (string, int64, error) {
	tmp, err := os.CreateTemp(lim.spoolDir, "upload-*") // 0600
	if err != nil {
		return "", 0, errStatus(http.StatusInternalServerError, "Could not keep the upload %s: %s", name, httpapi.HidePaths(err))
	}
	f.spool = append(f.spool, tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(body, lim.file+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return "", 0, lim.bodyError(err)
	case n > lim.file:
		return "", 0, errStatus(http.StatusRequestEntityTooLarge, "File %s is too large: a file may be at most %s (max_file_bytes under [agentos] in config.toml)", name, sizeText(lim.file))
	case n == 0:
		return "", 0, errStatus(http.StatusBadRequest, "Empty file: %s", name)
	}
	return tmp.Name(), n, nil
}

func (f *form) has(k string) bool { _, ok := f.values[k]; return ok }

func (f *form) str(k string) string { return f.values[k] }

// boolean reads a form boolean with FastAPI's spellings.
func (f *form) boolean(k string, def bool) (bool, error) {
	v, ok := f.values[k]
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
