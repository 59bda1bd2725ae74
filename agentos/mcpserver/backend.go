package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The tools' backend: each call is the equivalent request of the HTTP
// API, made in process with the call's credentials.

// api makes one tool call's requests to the API handler.
type api struct {
	h   http.Handler
	hdr http.Header
}

// apiReply is an in-process API answer.
type apiReply struct {
	status int
	header http.Header
	body   bytes.Buffer
}

func (r *apiReply) Header() http.Header         { return r.header }
func (r *apiReply) Write(b []byte) (int, error) { r.WriteHeader(http.StatusOK); return r.body.Write(b) }
func (r *apiReply) Flush()                      {}
func (r *apiReply) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *apiReply) ok() bool { return r.status >= 200 && r.status < 300 }

// detail is the API's error text: {"detail": "..."} or FastAPI's list of
// validation errors, one "field: message" each.
func (r *apiReply) detail() string {
	var e struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(r.body.Bytes(), &e) != nil || e.Detail == nil {
		return strings.TrimSpace(r.body.String())
	}
	var s string
	if json.Unmarshal(e.Detail, &s) == nil {
		return s
	}
	var list []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(e.Detail, &list) == nil && len(list) > 0 {
		parts := make([]string, len(list))
		for i, v := range list {
			loc := make([]string, 0, len(v.Loc))
			for _, l := range v.Loc {
				if l != "query" && l != "body" {
					loc = append(loc, fmt.Sprint(l))
				}
			}
			parts[i] = strings.Join(loc, ".") + ": " + v.Msg
		}
		return strings.Join(parts, "; ")
	}
	return string(e.Detail)
}

func (r *apiReply) err() error { return errors.New(r.detail()) }

// do sends one request; body is a url.Values (a form), a JSON value or nil.
func (a api) do(ctx context.Context, method, path string, q url.Values, body any) (*apiReply, error) {
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd, ctype = bytes.NewReader(j), "application/json"
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	req.RemoteAddr = "127.0.0.1:0"
	for _, h := range []string{"Authorization", "Cookie"} {
		if v := a.hdr.Values(h); len(v) > 0 {
			req.Header[h] = v
		}
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rep := &apiReply{header: http.Header{}}
	a.h.ServeHTTP(rep, req)
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	return rep, nil
}

// json answers the API's JSON body, or its error.
func (a api) json(ctx context.Context, method, path string, q url.Values, body any) (any, error) {
	rep, err := a.do(ctx, method, path, q, body)
	if err != nil {
		return nil, err
	}
	if !rep.ok() {
		return nil, rep.err()
	}
	return json.RawMessage(rep.body.Bytes()), nil
}

// page is agno's page of get_sessions / get_memories: the data and a
// meta without search_time_ms.
type page struct {
	Data json.RawMessage `json:"data"`
	Meta pageMeta        `json:"meta"`
}

type pageMeta struct {
	Page       int `json:"page"`
	Limit      int `json:"limit"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

func (a api) page(ctx context.Context, path string, q url.Values, n, limit int) (any, error) {
	rep, err := a.do(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return nil, err
	}
	if !rep.ok() {
		return nil, rep.err()
	}
	var p struct {
		Data json.RawMessage `json:"data"`
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(rep.body.Bytes(), &p); err != nil {
		return nil, err
	}
	pages := 0
	if limit > 0 {
		pages = (p.Meta.TotalCount + limit - 1) / limit
	}
	return page{Data: p.Data, Meta: pageMeta{Page: n, Limit: limit, TotalCount: p.Meta.TotalCount, TotalPages: pages}}, nil
}

// query builds a query string from the call's arguments: each name maps
// to the API parameter (same name unless renamed).
func query(args Args, names ...string) url.Values {
	q := url.Values{}
	for _, n := range names {
		param := n
		if n == "session_type" {
			param = "type"
		}
		switch v := args[n].(type) {
		case string:
			q.Set(param, v)
		case json.Number:
			q.Set(param, v.String())
		case []any:
			q.Set(param, strings.Join(args.Strings(n), ","))
		}
	}
	return q
}

// fields is a JSON body of the call's arguments given (not null).
func fields(args Args, names ...string) map[string]any {
	b := map[string]any{}
	for _, n := range names {
		if args.Set(n) {
			b[n] = args[n]
		}
	}
	return b
}

func checkSessionType(args Args, name string) error {
	for _, t := range append([]string{args.Str(name)}, args.Strings(name+"s")...) {
		switch t {
		case "", "agent", "team", "workflow":
		default:
			return fmt.Errorf("'%s' is not a valid SessionType", t)
		}
	}
	return nil
}

func seg(s string) string { return url.PathEscape(s) }

// backend answers agno's tools with the API handler h; host says what
// the run tools may name.
func backend(host Host, h http.Handler) Backend {
	return func(ctx context.Context, c Call) (any, error) {
		a, args := api{h: h, hdr: c.Header}, c.Args
		if err := checkSessionType(args, "session_type"); err != nil {
			return nil, err
		}
		sessionQ := func() url.Values { return query(args, "db_id", "session_type", "user_id") }
		sid := args.Str("session_id")
		sessionMissing := "Session " + sid + " not found"
		switch c.Tool {
		case "get_agentos_config":
			return a.json(ctx, http.MethodGet, "/config", nil, nil)
		case "run_agent", "run_team", "run_workflow":
			return runTool(ctx, host, a, strings.TrimPrefix(c.Tool, "run_"), args)

		case "get_sessions":
			return a.page(ctx, "/sessions", query(args, "db_id", "session_type", "component_id", "user_id", "session_name", "limit", "page", "sort_by", "sort_order"),
				args.Int("page"), args.Int("limit"))
		case "get_session":
			rep, err := a.do(ctx, http.MethodGet, "/sessions/"+seg(sid), sessionQ(), nil)
			return reply(rep, err, sessionMissing)
		case "create_session":
			return a.json(ctx, http.MethodPost, "/sessions", query(args, "db_id", "session_type"),
				fields(args, "session_id", "session_name", "session_state", "metadata", "user_id", "agent_id", "team_id", "workflow_id"))
		case "get_session_runs":
			rep, err := a.do(ctx, http.MethodGet, "/sessions/"+seg(sid)+"/runs", sessionQ(), nil)
			return reply(rep, err, sessionMissing)
		case "get_session_run":
			rid := args.Str("run_id")
			rep, err := a.do(ctx, http.MethodGet, "/sessions/"+seg(sid)+"/runs/"+seg(rid), sessionQ(), nil)
			if err == nil && rep.status == http.StatusNotFound {
				if s, err := a.do(ctx, http.MethodGet, "/sessions/"+seg(sid), sessionQ(), nil); err == nil && s.ok() {
					//lint:ignore ST1005 agno's message, word for word
					return nil, fmt.Errorf("Run %s not found in session %s", rid, sid)
				}
			}
			return reply(rep, err, sessionMissing)
		case "rename_session":
			rep, err := a.do(ctx, http.MethodPost, "/sessions/"+seg(sid)+"/rename", sessionQ(), fields(args, "session_name"))
			return reply(rep, err, sessionMissing)
		case "update_session":
			rep, err := a.do(ctx, http.MethodPatch, "/sessions/"+seg(sid), sessionQ(), fields(args, "session_name", "session_state", "metadata", "summary"))
			return reply(rep, err, sessionMissing)
		case "delete_session":
			return done(a.do(ctx, http.MethodDelete, "/sessions/"+seg(sid), query(args, "db_id", "user_id"), nil))("Session deleted successfully")
		case "delete_sessions":
			ids, types := args.Strings("session_ids"), args.Strings("session_types")
			if types == nil {
				// agno deletes the ids whatever their type; the API
				// takes one type per id.
				types = make([]string, len(ids))
				for i := range types {
					types[i] = "agent"
				}
			}
			return done(a.do(ctx, http.MethodDelete, "/sessions", query(args, "db_id", "user_id"), map[string]any{"session_ids": ids, "session_types": types}))("Sessions deleted successfully")

		case "create_memory":
			return a.json(ctx, http.MethodPost, "/memories", query(args, "db_id"), memoryBody(args))
		case "get_memory":
			rep, err := a.do(ctx, http.MethodGet, "/memories/"+seg(args.Str("memory_id")), query(args, "db_id", "user_id"), nil)
			return reply(rep, err, "Memory "+args.Str("memory_id")+" not found")
		case "get_memories":
			return a.page(ctx, "/memories", query(args, "db_id", "user_id", "agent_id", "team_id", "topics", "search_content", "limit", "page", "sort_by", "sort_order"),
				args.Int("page"), args.Int("limit"))
		case "update_memory":
			rep, err := a.do(ctx, http.MethodPatch, "/memories/"+seg(args.Str("memory_id")), query(args, "db_id"), memoryBody(args))
			return reply(rep, err, "Memory "+args.Str("memory_id")+" not found")
		case "delete_memory":
			return done(a.do(ctx, http.MethodDelete, "/memories/"+seg(args.Str("memory_id")), query(args, "db_id", "user_id"), nil))("Memory deleted successfully")
		case "delete_memories":
			return done(a.do(ctx, http.MethodDelete, "/memories", query(args, "db_id"), fields(args, "memory_ids", "user_id")))("Memories deleted successfully")
		}
		return nil, fmt.Errorf("unknown tool %s", c.Tool)
	}
}

// memoryBody is agno's UserMemory of create/update_memory: topics
// default to [].
func memoryBody(args Args) map[string]any {
	topics := args.Strings("topics")
	if topics == nil {
		topics = []string{}
	}
	return map[string]any{"memory": args.Str("memory"), "user_id": args.Str("user_id"), "topics": topics}
}

// reply is the API's JSON answer, or its error (agno's text for a 404).
func reply(rep *apiReply, err error, missing string) (any, error) {
	if err != nil {
		return nil, err
	}
	if rep.status == http.StatusNotFound {
		return nil, errors.New(missing)
	}
	if !rep.ok() {
		return nil, rep.err()
	}
	return json.RawMessage(rep.body.Bytes()), nil
}

// done answers agno's confirmation text once the API has done it.
func done(rep *apiReply, err error) func(string) (any, error) {
	return func(msg string) (any, error) {
		if err != nil {
			return nil, err
		}
		if !rep.ok() {
			return nil, rep.err()
		}
		return msg, nil
	}
}

// runTool is run_agent / run_team / run_workflow: the API's
// non-streaming run (agno: arun(message)), answered with the run's
// output.
func runTool(ctx context.Context, host Host, a api, kind string, args Args) (any, error) {
	id := args.Str(kind + "_id")
	if !host.Catalog().Has(kind, id) {
		return nil, fmt.Errorf("%s %s not found", strings.ToUpper(kind[:1])+kind[1:], id)
	}
	form := url.Values{"message": {args.Str("message")}, "stream": {strconv.FormatBool(false)}}
	return a.json(ctx, http.MethodPost, "/"+kind+"s/"+seg(id)+"/runs", nil, form)
}
