// Package httpapi is the core every AgentOS route group builds on: the
// route row (Route, Param, Access) and agno's FastAPI answer shapes
// (JSON bodies, {"detail": ...} errors, 422 validation bodies). It knows
// nothing of the OS: a group declares what else it needs as interfaces
// of its own.
package httpapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
)

// Marshal encodes JSON without HTML escaping, as Python's json does.
func Marshal(v any) ([]byte, error) { return run.EncodeJSON(v) }

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WriteError answers agno's error body {"detail": "..."}.
func WriteError(w http.ResponseWriter, status int, detail string) {
	WriteJSON(w, status, map[string]string{"detail": detail})
}

// ValidationItem is one item of FastAPI's 422 body (a pydantic error):
// input echoes the bad value (null for a missing parameter), ctx the
// constraint it broke (omitted when there is none, as pydantic does).
type ValidationItem struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// validationBody is FastAPI's 422 body.
type validationBody struct {
	Detail []ValidationItem `json:"detail"`
}

// WriteValidation answers FastAPI's 422 with the given errors.
func WriteValidation(w http.ResponseWriter, items ...ValidationItem) {
	WriteJSON(w, http.StatusUnprocessableEntity, validationBody{Detail: items})
}

// StatusError carries a status for handler errors (ErrStatus); Fail
// answers it with that status.
type StatusError struct {
	Status int
	Detail string
}

func (e *StatusError) Error() string { return e.Detail }

// ErrStatus is an error Fail answers with status and the formatted
// detail.
func ErrStatus(status int, format string, a ...any) error {
	return &StatusError{Status: status, Detail: fmt.Sprintf(format, a...)}
}

// Fail answers an error: a *StatusError with its status, else 500 (with
// the server's file paths cut to their base names).
func Fail(w http.ResponseWriter, err error) {
	var he *StatusError
	if errors.As(err, &he) {
		WriteError(w, he.Status, he.Detail)
		return
	}
	WriteError(w, http.StatusInternalServerError, HidePaths(err))
}

// HidePaths is err's text with the server's file paths it carries (an
// *fs.PathError's or *os.LinkError's, however wrapped) cut to their base
// names: a client learns which file failed, not where the server keeps
// its files.
func HidePaths(err error) string {
	text := err.Error()
	cut := func(p string) {
		if p != "" {
			text = strings.ReplaceAll(text, p, filepath.Base(p))
		}
	}
	for e := err; e != nil; {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(e, &pe):
			cut(pe.Path)
			e = pe.Err
		case errors.As(e, &le):
			cut(le.Old)
			cut(le.New)
			e = le.Err
		default:
			e = nil
		}
	}
	return text
}

// IsoSeconds renders epoch seconds as pydantic renders a UTC datetime; 0
// is None.
func IsoSeconds(sec int64) any {
	if sec == 0 {
		return nil
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05Z")
}
