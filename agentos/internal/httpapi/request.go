package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// ---- query and body validation (FastAPI's 422 shapes) ----

// Query reads query parameters; the first bad one is answered with a 422
// naming it and later reads are skipped.
type Query struct {
	w   http.ResponseWriter
	q   url.Values
	Bad bool
}

func NewQuery(w http.ResponseWriter, r *http.Request) *Query {
	return &Query{w: w, q: r.URL.Query()}
}

// Reject answers a bad value of name, echoing it (input) and the broken
// constraint (ctx) as FastAPI does.
func (p *Query) Reject(name, msg, typ string, input any, ctx map[string]any) {
	if !p.Bad {
		p.Bad = true
		FieldErrorInput(p.w, []string{"query", name}, msg, typ, input, ctx)
	}
}

func (p *Query) Str(name string) string { return p.q.Get(name) }

// Int reads an int parameter within [minimum, maximum] (maximum 0:
// none; def when absent).
func (p *Query) Int(name string, def, minimum, maximum int) int {
	s := p.q.Get(name)
	if p.Bad || s == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		p.Reject(name, "Input should be a valid integer, unable to parse string as an integer", "int_parsing", s, nil)
		return def
	}
	if n < minimum {
		p.Reject(name, fmt.Sprintf("Input should be greater than or equal to %d", minimum), "greater_than_equal", s, map[string]any{"ge": minimum})
		return def
	}
	if maximum > 0 && n > maximum {
		p.Reject(name, fmt.Sprintf("Input should be less than or equal to %d", maximum), "less_than_equal", s, map[string]any{"le": maximum})
		return def
	}
	return n
}

// MaxPageLimit bounds a page of a listing (limit): one request must not
// ask the server to render everything it stores.
const MaxPageLimit = 1000

// TotalPages is ceil(total/limit) without overflow.
func TotalPages(total, limit int) int {
	if limit <= 0 {
		return 0
	}
	pages := total / limit
	if total%limit != 0 {
		pages++
	}
	return pages
}

// OptionalInt reads an optional epoch timestamp.
func (p *Query) OptionalInt(name string) int64 {
	s := p.q.Get(name)
	if p.Bad || s == "" {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		p.Reject(name, "Input should be a valid integer, unable to parse string as an integer", "int_parsing", s, nil)
		return 0
	}
	return n
}

// Enum reads a parameter restricted to allowed values.
func (p *Query) Enum(name, def string, allowed ...string) string {
	s := p.q.Get(name)
	if p.Bad || s == "" {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	p.Reject(name, "Input should be "+QuoteChoices(allowed), "enum", s, map[string]any{"expected": QuoteChoices(allowed)})
	return def
}

// QuoteChoices renders pydantic's "'a', 'b' or 'c'".
func QuoteChoices(allowed []string) string {
	q := make([]string, len(allowed))
	for i, a := range allowed {
		q[i] = "'" + a + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

var SessionTypeNames = []string{string(storage.SessionAgent), string(storage.SessionTeam), string(storage.SessionWorkflow)}

// SessionType reads `type` (agno's alias of session_type).
func (p *Query) SessionType(def storage.SessionType) storage.SessionType {
	return storage.SessionType(p.Enum("type", string(def), SessionTypeNames...))
}

func (p *Query) SortOrder() storage.SortOrder {
	return storage.SortOrder(p.Enum("sort_order", string(storage.Desc), string(storage.Asc), string(storage.Desc)))
}

// JSONBody is a decoded JSON object body, read field by field so that a
// missing field, a null and a wrong type each get their own answer.
type JSONBody struct {
	w      http.ResponseWriter
	Fields map[string]json.RawMessage
	Obj    map[string]any // the decoded body, echoed in 422 inputs
	Bad    bool
}

// ReadBody decodes a JSON object. An empty body is an empty object unless
// required.
func ReadBody(w http.ResponseWriter, r *http.Request, required bool) (*JSONBody, bool) {
	raw, err := ReadDataBody(w, r)
	if err != nil {
		WriteError(w, http.StatusBadRequest, "could not read the request body: "+err.Error())
		return nil, false
	}
	if !JSONContent(r) {
		// FastAPI reads such a body as bytes, which its model refuses. It
		// matters beyond agno's answer: text/plain is what a page of
		// another site may post without a CORS preflight.
		FieldErrorInput(w, []string{"body"}, "Input should be a valid dictionary or object to extract fields from", "model_attributes_type", string(raw), nil)
		return nil, false
	}
	b := &JSONBody{w: w, Fields: map[string]json.RawMessage{}, Obj: map[string]any{}}
	if len(strings.TrimSpace(string(raw))) == 0 {
		if required {
			FieldError(w, []string{"body"}, "Field required", "missing")
			return nil, false
		}
		if user := ScopedUser(r.Context()); user != "" {
			b.Fields["user_id"], _ = json.Marshal(user)
		}
		return b, true
	}
	var probe any
	if err := json.Unmarshal(raw, &probe); err != nil {
		JSONInvalid(w, err)
		return nil, false
	}
	obj, ok := probe.(map[string]any)
	if !ok {
		FieldErrorInput(w, []string{"body"}, "Input should be a valid dictionary or object to extract fields from", "model_attributes_type", probe, nil)
		return nil, false
	}
	b.Obj = obj
	if err := json.Unmarshal(raw, &b.Fields); err != nil {
		JSONInvalid(w, err)
		return nil, false
	}
	if user := ScopedUser(r.Context()); user != "" {
		b.Fields["user_id"], _ = json.Marshal(user) // an isolated caller acts as itself only
	}
	return b, true
}

// JSONContent reports a request whose body a JSON route may read:
// FastAPI's rule, no Content-Type or application/json or
// application/*+json.
func JSONContent(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && (sub == "json" || strings.HasSuffix(sub, "+json"))
}

// MaxDataBody bounds data-route request bodies.
const MaxDataBody = 8 << 20

func ReadDataBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxDataBody))
}

// JSONInvalid is FastAPI's answer to a body that is not JSON: loc names
// the byte offset, ctx the parser's error.
func JSONInvalid(w http.ResponseWriter, err error) {
	loc := []any{"body"}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		loc = append(loc, max(int(se.Offset)-1, 0)) // Python's 0-based index of the bad character
	}
	WriteValidation(w, ValidationItem{Type: "json_invalid", Loc: loc, Msg: "JSON decode error", Input: map[string]any{}, Ctx: map[string]any{"error": err.Error()}})
}

func (b *JSONBody) Reject(loc []string, msg, typ string) { b.RejectCtx(loc, msg, typ, nil) }

// RejectCtx answers the first bad field as pydantic reports it: input is
// the value at loc, or, for a missing field, the object that lacks it.
func (b *JSONBody) RejectCtx(loc []string, msg, typ string, ctx map[string]any) {
	if b.Bad {
		return
	}
	b.Bad = true
	l := []any{"body"}
	var input any = b.Obj
	for n, k := range loc {
		switch parent := input.(type) {
		case map[string]any:
			v, ok := parent[k]
			if !ok {
				l = append(l, LocOf(loc[n:])...)
				WriteValidation(b.w, ValidationItem{Type: typ, Loc: l, Msg: msg, Input: input, Ctx: ctx})
				return
			}
			l = append(l, k)
			input = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(parent) {
				l = append(l, k)
				input = nil
				continue
			}
			l = append(l, i)
			input = parent[i]
		default:
			l = append(l, k)
			input = nil
		}
	}
	WriteValidation(b.w, ValidationItem{Type: typ, Loc: l, Msg: msg, Input: input, Ctx: ctx})
}

// Get decodes field name into dst (a pointer); absent or null leaves dst
// alone and reports false.
func (b *JSONBody) Get(name string, dst any) bool {
	raw, ok := b.Fields[name]
	if b.Bad || !ok || string(raw) == "null" {
		return false
	}
	if err := run.DecodeJSON(raw, dst); err != nil {
		msg, typ := typeError(reflect.TypeOf(dst).Elem())
		b.Reject([]string{name}, msg, typ)
		return false
	}
	return true
}

// Require is get for a required field.
func (b *JSONBody) Require(name string, dst any) bool {
	if b.Bad {
		return false
	}
	if _, ok := b.Fields[name]; !ok {
		b.Reject([]string{name}, "Field required", "missing")
		return false
	}
	if string(b.Fields[name]) == "null" {
		msg, typ := typeError(reflect.TypeOf(dst).Elem())
		b.Reject([]string{name}, msg, typ)
		return false
	}
	return b.Get(name, dst)
}

// typeError is pydantic's message for a value of the wrong type.
func typeError(t reflect.Type) (msg, typ string) {
	switch t.Kind() {
	case reflect.String:
		return "Input should be a valid string", "string_type"
	case reflect.Map:
		return "Input should be a valid dictionary", "dict_type"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "Input should be a valid list of strings", "list_type"
		}
		return "Input should be a valid list", "list_type"
	case reflect.Bool:
		return "Input should be a valid boolean", "bool_type"
	case reflect.Int, reflect.Int64:
		return "Input should be a valid integer", "int_type"
	}
	return "Input has the wrong type", "type_error"
}

// ---- response helpers ----

// WithoutNone drops None fields (FastAPI's response_model_exclude_none).
func WithoutNone(m map[string]any) map[string]any {
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return m
}

// PaginationInfo is agno's PaginationInfo.
type PaginationInfo struct {
	Page         int     `json:"page"`
	Limit        int     `json:"limit"`
	TotalPages   int     `json:"total_pages"`
	TotalCount   int     `json:"total_count"`
	SearchTimeMS float64 `json:"search_time_ms"`
}

// PaginatedResponse is agno's PaginatedResponse[T]; Data is a slice of
// the route's item model.
type PaginatedResponse struct {
	Data any            `json:"data"`
	Meta PaginationInfo `json:"meta"`
}

// Paginated is agno's PaginatedResponse.
func Paginated(data any, page, limit, total int, took time.Duration) PaginatedResponse {
	return PaginatedResponse{Data: data, Meta: PaginationInfo{
		Page: page, Limit: limit, TotalPages: TotalPages(total, limit), TotalCount: total,
		SearchTimeMS: math.Round(float64(took.Microseconds())/10) / 100,
	}}
}

// ToJSONMap converts a value to its JSON object form.
func ToJSONMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	m := map[string]any{}
	if run.DecodeJSON(b, &m) != nil {
		return nil
	}
	return m
}

func LocOf(loc []string) []any {
	l := make([]any, len(loc))
	for i, s := range loc {
		l[i] = s
	}
	return l
}

// FieldError is FastAPI's 422 validation body for one field with no
// input to echo (a missing parameter).
func FieldError(w http.ResponseWriter, loc []string, msg, typ string) {
	WriteValidation(w, ValidationItem{Type: typ, Loc: LocOf(loc), Msg: msg})
}

// FieldErrorInput is FieldError echoing the bad input and the broken
// constraint.
func FieldErrorInput(w http.ResponseWriter, loc []string, msg, typ string, input any, ctx map[string]any) {
	WriteValidation(w, ValidationItem{Type: typ, Loc: LocOf(loc), Msg: msg, Input: input, Ctx: ctx})
}

// IntQuery reads an integer query parameter with FastAPI's bounds checks
// (max 0: unbounded); errors are FastAPI's 422 items.
func IntQuery(q url.Values, name string, def, lo, hi int) (int, []ValidationItem) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	loc := []any{"query", name}
	n, err := strconv.Atoi(strings.TrimSpace(vs[0]))
	switch {
	case err != nil:
		return def, []ValidationItem{{Type: "int_parsing", Loc: loc, Msg: "Input should be a valid integer, unable to parse string as an integer", Input: vs[0]}}
	case n < lo:
		return def, []ValidationItem{{Type: "greater_than_equal", Loc: loc, Msg: fmt.Sprintf("Input should be greater than or equal to %d", lo), Input: vs[0], Ctx: map[string]any{"ge": lo}}}
	case hi > 0 && n > hi:
		return def, []ValidationItem{{Type: "less_than_equal", Loc: loc, Msg: fmt.Sprintf("Input should be less than or equal to %d", hi), Input: vs[0], Ctx: map[string]any{"le": hi}}}
	}
	return n, nil
}

// NullString is s, or nil (JSON null) when empty.
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ParseBool reads a boolean query value as pydantic does ("1", "true",
// "t", "yes", "y", "on" and their opposites, any case); ok is false for
// anything else.
func ParseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "t", "yes", "y", "on":
		return true, true
	case "0", "false", "f", "no", "n", "off":
		return false, true
	}
	return false, false
}
