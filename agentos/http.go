package agentos

import (
	"cmp"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/agno-go/agno/internal/safe"
)

// agno's default allowed CORS origins.
var defaultOrigins = []string{
	"http://localhost:3000", "https://agno.com", "https://www.agno.com", "https://app.agno.com",
	"https://os-stg.agno.com", "https://os.agno.com",
}

// Handler returns the HTTP handler: agno's routes behind trailing-slash
// tolerance, CORS, panic recovery, protected mode and bearer auth.
func (o *OS) Handler() http.Handler {
	mux := http.NewServeMux()
	rows := o.routes(mux)
	h := o.serveRows(mux, rows, o.authenticate)
	h = o.protect(h, remoteRoutes(rows))
	h = o.cors(h)
	h = recoverPanics(h, o)
	return stripTrailingSlash(o.accessLog(h))
}

// unmatched answers a request no route takes (h is the mux's answer) as
// FastAPI does: 404 {"detail":"Not Found"}, or 405 {"detail":"Method Not
// Allowed"} with the Allow header, instead of ServeMux's plain text.
func (o *OS) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if detail, ok := o.controlStub(r.URL.Path); ok {
		writeError(w, http.StatusServiceUnavailable, detail)
		return
	}
	// The mux's own handler sets Allow for a 405; keep its status and
	// headers, drop its text body.
	sw := &statusOnly{ResponseWriter: w}
	h.ServeHTTP(sw, r)
	status := cmp.Or(sw.status, http.StatusNotFound)
	w.Header().Del("X-Content-Type-Options")
	writeError(w, status, http.StatusText(status))
}

// statusOnly records the status a handler writes and discards its body.
type statusOnly struct {
	http.ResponseWriter
	status int
}

func (s *statusOnly) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *statusOnly) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return len(b), nil
}

// authenticate is the gate of a client's request to rt: none for an
// open route, else OS_SECURITY_KEY bearer auth (agno mode A) or, in JWT
// mode, the token and rt's scope (authorize).
func (o *OS) authenticate(w http.ResponseWriter, r *http.Request, rt *apiRoute) (*http.Request, bool) {
	if r.Method == http.MethodOptions || rt != nil && rt.IsOpen() {
		return r, true
	}
	if o.jwtMode() {
		return o.authorize(w, r, rt)
	}
	key := []byte(o.cfg.SecurityKey)
	if len(key) == 0 {
		return r, true
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		writeError(w, http.StatusUnauthorized, "Authorization header required")
		return nil, false
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(token), key) != 1 {
		writeError(w, http.StatusUnauthorized, "Invalid authentication token")
		return nil, false
	}
	return r, true
}

// protectedModeMessage tells a remote client how to open the server.
const protectedModeMessage = "AgentOS is running in protected mode: no security key is configured, so it only answers clients on this machine (loopback). To accept remote clients, set the OS_SECURITY_KEY environment variable and send 'Authorization: Bearer <key>', or opt out explicitly with --insecure or protected_mode = false under [agentos] in config.toml."

// protect answers only clients on this machine when no key is configured
// (like Redis' protected mode) — and a browser on this machine is an
// outside client too: a page of another site could post a form to
// loopback (CSRF), or rebind its own name to 127.0.0.1 and read every
// answer (DNS rebinding). So the request must come from a loopback
// address with no proxy forwarding headers, name a loopback host (or one
// of AllowedHosts) in Host, and, from a browser, carry a loopback or CORS
// origin. The remote rows (an interface's signed webhooks) pass.
func (o *OS) protect(next http.Handler, remote []apiRoute) http.Handler {
	if !o.protected() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case remotePath(remote, r):
			// A service calls from outside by design; its signature guards it.
			next.ServeHTTP(w, r)
		case !IsLocalRequest(r):
			writeError(w, http.StatusForbidden, protectedModeMessage)
		case !o.hostAllowed(r.Host):
			writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("AgentOS is in protected mode and answers requests for this machine only: Host %q is not a loopback name or address. Reach it as localhost or 127.0.0.1, list the name under [agentos] allowed_hosts, or set OS_SECURITY_KEY.", r.Host))
		case !o.browserAllowed(r):
			writeError(w, http.StatusForbidden, fmt.Sprintf("AgentOS is in protected mode and refuses browser requests from other sites: origin %q is not a loopback origin nor one of cors_allowed_origins. Add it under [agentos] cors_allowed_origins, or set OS_SECURITY_KEY.", r.Header.Get("Origin")))
		case o.remoteControl(r):
			writeError(w, http.StatusForbidden, fmt.Sprintf("AgentOS is in protected mode: a page of %s may not change what this server executes (components, schedules, database migrations) without a key. Set OS_SECURITY_KEY, or list the origin under [agentos] cors_allowed_origins to trust it.", r.Header.Get("Origin")))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// controlPrefixes are the routes whose writes change what the server
// executes later: stored agents, teams and workflows, schedules, schema
// migrations.
var controlPrefixes = []string{"/components", "/schedules", "/databases"}

// remoteControl reports a write to a control route from a browser page
// of a remote origin that only agno's defaults trust (os.agno.com and the
// like): a script there reaching a developer's loopback server must not
// be able to plant a component or a schedule. Loopback origins (agno's
// agent-ui on localhost:3000) and origins the operator listed pass.
func (o *OS) remoteControl(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	switch {
	case origin == "", len(o.cfg.CORSOrigins) > 0 && slices.Contains(o.corsOrigins(), origin):
		return false
	case r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions:
		return false
	}
	if u, err := url.Parse(origin); err == nil && loopbackHost(u.Host) {
		return false
	}
	for _, p := range controlPrefixes {
		if r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/") {
			return true
		}
	}
	return false
}

// protected reports protected mode: no key, and not opted out.
func (o *OS) protected() bool {
	return o.cfg.SecurityKey == "" && o.cfg.Authorization == nil && (o.cfg.ProtectedMode == nil || *o.cfg.ProtectedMode)
}

// hostAllowed reports a Host header naming this machine: a loopback name
// or address, or a configured host. No Host (HTTP/1.0) is no browser.
func (o *OS) hostAllowed(hostport string) bool {
	if hostport == "" || loopbackHost(hostport) {
		return true
	}
	host := hostOnly(hostport)
	for _, h := range o.cfg.AllowedHosts {
		if strings.EqualFold(h, hostport) || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// browserAllowed checks where a browser request comes from: its Origin
// must be a loopback origin or a CORS origin; without an Origin, a
// state-changing request the browser marks cross-site is refused.
func (o *OS) browserAllowed(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		return o.originAllowed(origin)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return r.Header.Get("Sec-Fetch-Site") != "cross-site"
}

// originAllowed reports a loopback origin (http or https, any port) or
// one of the CORS origins.
func (o *OS) originAllowed(origin string) bool {
	if slices.Contains(o.corsOrigins(), origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && loopbackHost(u.Host)
}

// loopbackHost reports localhost or a loopback address, with or without
// a port.
func loopbackHost(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// hostOnly drops the port (and IPv6 brackets) of a host[:port].
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// IsLocalRequest reports a request from a loopback address with no proxy
// forwarding headers.
func IsLocalRequest(r *http.Request) bool {
	if r.Header.Get("Forwarded") != "" || r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("X-Real-Ip") != "" {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if host == "" || host == "@" { // Unix sockets
		return true
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return addr.Unmap().IsLoopback()
}

// corsOrigins are the origins CORS allows: the configured ones, or
// agno's defaults, without "*" (agno removes it).
func (o *OS) corsOrigins() []string {
	origins := o.cfg.CORSOrigins
	if len(origins) == 0 {
		origins = defaultOrigins
	}
	return slices.DeleteFunc(slices.Clone(origins), func(s string) bool { return s == "*" })
}

// corsMethods is Starlette's list for allow_methods=["*"].
const corsMethods = "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"

// cors mirrors Starlette's CORSMiddleware as agno configures it:
// configured or default origins ("*" removed), credentials allowed, all
// methods and headers, every header exposed. Preflights are answered
// here, before protected mode and auth, as the middleware answers them
// before any route.
func (o *OS) cors(next http.Handler) http.Handler {
	origins := o.corsOrigins()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		allowed := slices.Contains(origins, origin)
		if method := r.Header.Get("Access-Control-Request-Method"); r.Method == http.MethodOptions && method != "" {
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Max-Age", "600")
			h.Set("Access-Control-Allow-Credentials", "true")
			var failures []string
			if allowed {
				h.Set("Access-Control-Allow-Origin", origin)
			} else {
				failures = append(failures, "origin")
			}
			if !slices.Contains(strings.Split(corsMethods, ", "), method) {
				failures = append(failures, "method")
			}
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				h.Set("Access-Control-Allow-Headers", req)
			}
			h.Set("Content-Type", "text/plain; charset=utf-8")
			if len(failures) > 0 {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, "Disallowed CORS "+strings.Join(failures, ", "))
				return
			}
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "OK")
			return
		}
		// Starlette adds its simple headers to every response to a
		// request with an Origin; the origin is mirrored only if allowed.
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Expose-Headers", "*")
		if allowed {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		}
		next.ServeHTTP(w, r)
	})
}

// stripTrailingSlash serves "/agents/" as "/agents" (agno's
// TrailingSlashMiddleware).
func stripTrailingSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimRight(p, "/")
			if r2.URL.Path == "" {
				r2.URL.Path = "/"
			}
			r2.URL.RawPath = ""
			next.ServeHTTP(w, r2)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// recoverPanics answers a panicking handler with a 500 that does not
// carry the panic (it is logged with its stack).
func recoverPanics(next http.Handler, o *OS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				pe := safe.FromPanic(o.log, r.Method+" "+r.URL.Path, p)
				writeError(w, http.StatusInternalServerError, pe.Error())
			}
		}()
		next.ServeHTTP(w, r)
	})
}
