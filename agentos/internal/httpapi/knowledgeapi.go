package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
)

// Form reading, shared by the run routes and the knowledge uploads: the
// body and each file are bounded while they are read, and files go to
// private spool files, not memory.

// FormLimits bound one form request: the body (max_upload_bytes), each
// file (max_file_bytes), and where files are spooled.
type FormLimits struct {
	Request, File int64
	SpoolDir      string
}

// Form is a parsed request form: multipart/form-data or
// x-www-form-urlencoded, as agno's form endpoints take. Uploaded files
// wait in private spool files; Release removes them.
type Form struct {
	Values map[string]string
	// Known are the fields of the endpoint's signature.
	Known map[string]bool
	// Raw are the files RawFiles kept, as they came.
	Raw []RawFile

	lim   FormLimits
	spool []string
}

// RawFile is an upload spooled as it came.
type RawFile struct {
	Field, Filename, ContentType string
	Path                         string
	Size                         int64
}

// FileFunc takes one uploaded file of a form: it spools it (Form.Spool)
// or refuses it.
type FileFunc func(f *Form, field, filename, contentType string, body io.Reader) error

// RawFiles is the FileFunc of endpoints that take files of any type
// (knowledge uploads): every file is spooled as it came, into f.Raw.
func RawFiles(f *Form, field, filename, contentType string, body io.Reader) error {
	path, n, err := f.Spool(filename, body)
	if err != nil {
		return err
	}
	f.Raw = append(f.Raw, RawFile{Field: field, Filename: filename, ContentType: contentType, Path: path, Size: n})
	return nil
}

// ReadForm reads r's form within lim: the body is cut at lim.Request
// while it is read (413). files takes each uploaded file; nil skips
// them, for endpoints that take none. known are the endpoint's fields.
func ReadForm(w http.ResponseWriter, r *http.Request, lim FormLimits, files FileFunc, known ...string) (_ *Form, err error) {
	f := &Form{Values: map[string]string{}, Known: map[string]bool{}, lim: lim}
	for _, k := range known {
		f.Known[k] = true
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	defer func() {
		if err != nil {
			f.Release()
		}
	}()
	r.Body = http.MaxBytesReader(w, r.Body, lim.Request)
	switch ct {
	case "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			return nil, ErrStatus(http.StatusBadRequest, "Invalid form data: %v", err)
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, lim.BodyError(err)
			}
			err = f.readPart(part, files)
			part.Close()
			if err != nil {
				return nil, err
			}
		}
	case "application/x-www-form-urlencoded", "":
		if err := r.ParseForm(); err != nil {
			return nil, lim.BodyError(err)
		}
		for k, v := range r.PostForm {
			if len(v) > 0 {
				f.Values[k] = v[len(v)-1]
			}
		}
	default:
		// FastAPI reads a form from any other body (JSON included) as an
		// empty form, so a required field is answered as missing (422).
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return nil, lim.BodyError(err)
		}
	}
	if user := ScopedUser(r.Context()); user != "" {
		f.Values["user_id"] = user // an isolated caller acts as itself only
	}
	return f, nil
}

// readPart reads one multipart part: a field value, or a file for files.
func (f *Form) readPart(part *multipart.Part, files FileFunc) error {
	name := part.FormName()
	if part.FileName() == "" {
		b, err := io.ReadAll(part)
		if err != nil {
			return f.lim.BodyError(err)
		}
		f.Values[name] = string(b)
		return nil
	}
	if files == nil {
		if _, err := io.Copy(io.Discard, part); err != nil {
			return f.lim.BodyError(err)
		}
		return nil
	}
	return files(f, name, part.FileName(), part.Header.Get("Content-Type"), part)
}

// BodyError answers a failed read of the body: 413 naming the limit when
// the body was too large, else 400.
func (l FormLimits) BodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return ErrStatus(http.StatusRequestEntityTooLarge, "Request too large: a run request may carry at most %s (max_upload_bytes under [agentos] in config.toml)", sizeText(l.Request))
	}
	return ErrStatus(http.StatusBadRequest, "Invalid form data: %v", err)
}

// sizeText renders a byte count with its MiB value.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Spool copies an upload to a private spool file, cut at the per-file
// limit; an empty file is refused. Release removes it.
func (f *Form) Spool(name string, body io.Reader) (path string, size int64, err error) {
	lim := f.lim
	tmp, err := os.CreateTemp(lim.SpoolDir, "upload-*") // 0600
	if err != nil {
		return "", 0, ErrStatus(http.StatusInternalServerError, "Could not keep the upload %s: %s", name, HidePaths(err))
	}
	f.spool = append(f.spool, tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(body, lim.File+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return "", 0, lim.BodyError(err)
	case n > lim.File:
		return "", 0, ErrStatus(http.StatusRequestEntityTooLarge, "File %s is too large: a file may be at most %s (max_file_bytes under [agentos] in config.toml)", name, sizeText(lim.File))
	case n == 0:
		return "", 0, ErrStatus(http.StatusBadRequest, "Empty file: %s", name)
	}
	return tmp.Name(), n, nil
}

// Release removes the form's spool files.
func (f *Form) Release() {
	for _, p := range f.spool {
		_ = os.Remove(p)
	}
	f.spool = nil
}

// Has reports whether the field k was sent.
func (f *Form) Has(k string) bool { _, ok := f.Values[k]; return ok }

// Str is the field k ("" when absent).
func (f *Form) Str(k string) string { return f.Values[k] }
