package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/netguard"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hosts is an injected resolver: each name resolves to its addresses.
type hosts map[string][]string

func (h hosts) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range h[host] {
		a := netip.MustParseAddr(s)
		if network == "ip" || (network == "ip4") == a.Is4() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// server is a live HTTP server on a loopback address that counts its
// requests; body is what it answers at /.
type server struct {
	*httptest.Server
	hits atomic.Int32
	port string
}

func serve(t *testing.T, listen string, h http.HandlerFunc) *server {
	t.Helper()
	l, err := net.Listen("tcp", listen)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", listen, err)
	}
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	_, s.port, _ = net.SplitHostPort(l.Addr().String())
	return s
}

func secret(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "the secret") }

func client(t *testing.T, p netguard.Policy) *http.Client {
	t.Helper()
	g, err := netguard.New(p)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// blocked asserts err is a refusal of addr that names the setting to
// change.
func blocked(t *testing.T, err error, addr, setting string) *netguard.BlockedError {
	t.Helper()
	var be *netguard.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("want a *netguard.BlockedError, got %v", err)
	}
	if be.Addr.String() != addr || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), setting) {
		t.Fatalf("refusal of %s naming %q, got %v (addr %s)", addr, setting, err, be.Addr)
	}
	return be
}

// A server on loopback is refused by address and by name (localhost,
// and a name an injected resolver makes resolve to 127.0.0.1), before
// any request reaches it.
func TestLoopbackRefused(t *testing.T) {
	s := serve(t, "127.0.0.1:0", secret)
	c := client(t, netguard.Policy{Resolver: hosts{"public.example": {"127.0.0.1"}}})
	for _, u := range []string{s.URL, "http://public.example:" + s.port + "/"} {
		_, err := get(c, u)
		blocked(t, err, "127.0.0.1", netguard.DefaultSetting)
	}
	_, err := get(c, "http://public.example:"+s.port+"/")
	if want := `it resolves to 127.0.0.1, a loopback address; to reach it, add "public.example" or "127.0.0.1/32" to [outbound] allow in config.toml`; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal text:\n%v\nwant it to contain\n%s", err, want)
	}

	// localhost resolves through the system (to 127.0.0.1, ::1 or both).
	sys := client(t, netguard.Policy{Setting: "outbound.allow of my.toml"})
	_, err = get(sys, "http://localhost:"+s.port+"/")
	var be *netguard.BlockedError
	if !errors.As(err, &be) || be.Host != "localhost" || !be.Addr.IsLoopback() || !strings.Contains(err.Error(), "outbound.allow of my.toml") {
		t.Errorf("localhost: %v", err)
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the loopback server answered %d requests", n)
	}
}

// A name resolving to a public and an internal address is refused as a
// whole: nothing is dialed.
func TestAnyInternalAddressRefusesTheHost(t *testing.T) {
	var dialed atomic.Int32
	c := client(t, netguard.Policy{
		Resolver: hosts{"rebind.example": {"192.0.2.10", "10.0.0.5"}},
		Dialer:   &net.Dialer{Control: func(string, string, syscall.RawConn) error { dialed.Add(1); return errors.New("dialed") }},
	})
	_, err := get(c, "http://rebind.example/")
	blocked(t, err, "10.0.0.5", netguard.DefaultSetting)
	if dialed.Load() != 0 {
		t.Errorf("dialed %d times", dialed.Load())
	}
}

// A public address is dialed, and it is the resolved address that is
// dialed, not the name again.
func TestPublicAddressIsDialedAsResolved(t *testing.T) {
	var (
		mu     sync.Mutex
		dialed []string
	)
	stop := errors.New("stopped in Control")
	c := client(t, netguard.Policy{
		Resolver: hosts{"www.example": {"203.0.113.7"}},
		Dialer: &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
			mu.Lock()
			defer mu.Unlock()
			dialed = append(dialed, address)
			return stop
		}},
	})
	_, err := get(c, "http://www.example:8080/")
	var be *netguard.BlockedError
	if errors.As(err, &be) || !errors.Is(err, stop) {
		t.Fatalf("a public address: %v", err)
	}
	if mu.Lock(); len(dialed) != 1 || dialed[0] != "203.0.113.7:8080" {
		t.Errorf("dialed %v", dialed)
	}
	mu.Unlock()
}

// The cloud metadata address is refused without a dial, whether named
// by address or by a name resolving to it.
func TestMetadataRefusedWithoutDialing(t *testing.T) {
	var dialed atomic.Int32
	c := client(t, netguard.Policy{
		Resolver: hosts{"metadata.google.internal": {"169.254.169.254"}},
		Dialer:   &net.Dialer{Control: func(string, string, syscall.RawConn) error { dialed.Add(1); return errors.New("dialed") }},
	})
	for u, addr := range map[string]string{
		"http://169.254.169.254/latest/meta-data/":            "169.254.169.254",
		"http://metadata.google.internal/computeMetadata/v1/": "169.254.169.254",
		"http://[::ffff:169.254.169.254]/":                    "::ffff:169.254.169.254",
	} {
		_, err := get(c, u)
		if be := blocked(t, err, addr, netguard.DefaultSetting); !strings.Contains(be.Reason, "metadata") {
			t.Errorf("%s: reason %q", u, be.Reason)
		}
	}
	if dialed.Load() != 0 {
		t.Errorf("dialed %d times", dialed.Load())
	}
}

// IPv6 loopback, and IPv4 loopback in IPv4-mapped form, are refused.
func TestIPv6LoopbackRefused(t *testing.T) {
	s4 := serve(t, "127.0.0.1:0", secret)
	c := client(t, netguard.Policy{})
	_, err := get(c, "http://[::ffff:127.0.0.1]:"+s4.port+"/")
	blocked(t, err, "::ffff:127.0.0.1", netguard.DefaultSetting)
	if s4.hits.Load() != 0 {
		t.Error("the IPv4-mapped form reached the server")
	}
	// The IPv4 CIDR allows the mapped form too: it is the same socket.
	if body, err := get(client(t, netguard.Policy{Allow: []string{"127.0.0.1/32"}}), "http://[::ffff:127.0.0.1]:"+s4.port+"/"); err != nil || body != "the secret" {
		t.Errorf("mapped form allowed by the IPv4 CIDR: %q %v", body, err)
	}

	s6 := serve(t, "[::1]:0", secret)
	_, err = get(c, s6.URL)
	blocked(t, err, "::1", netguard.DefaultSetting)
	if s6.hits.Load() != 0 {
		t.Error("::1 reached the server")
	}
}

// The allowlist lets internal servers through: by CIDR, by address, by
// host name (the URL's host, whatever it resolves to).
func TestAllowlist(t *testing.T) {
	s := serve(t, "127.0.0.1:0", secret)
	for _, c := range []struct {
		allow []string
		url   string
	}{
		{[]string{"127.0.0.1/32"}, s.URL},
		{[]string{"127.0.0.0/8"}, s.URL},
		{[]string{"127.0.0.1"}, s.URL},
		{[]string{"wiki.corp.example"}, "http://wiki.corp.example:" + s.port + "/"},
		{[]string{"Wiki.Corp.Example."}, "http://WIKI.corp.example:" + s.port + "/"},
		{[]string{"localhost"}, "http://localhost:" + s.port + "/"},
	} {
		cl := client(t, netguard.Policy{Allow: c.allow, Resolver: resolverOrSystem(c.url)})
		if body, err := get(cl, c.url); err != nil || body != "the secret" {
			t.Errorf("allow %v, %s: %q %v", c.allow, c.url, body, err)
		}
	}
	// An allowed name does not allow its address under another name.
	cl := client(t, netguard.Policy{Allow: []string{"wiki.corp.example"}, Resolver: hosts{"wiki.corp.example": {"127.0.0.1"}, "other.example": {"127.0.0.1"}}})
	if _, err := get(cl, "http://other.example:"+s.port+"/"); err == nil {
		t.Error("another name of an allowed host's address was let through")
	}
	if _, err := get(cl, s.URL); err == nil {
		t.Error("the address of an allowed name was let through")
	}
}

// resolverOrSystem resolves the test's example names to 127.0.0.1 and
// leaves localhost to the system.
func resolverOrSystem(u string) netguard.Resolver {
	if strings.Contains(u, "localhost") {
		return nil
	}
	return hosts{"wiki.corp.example": {"127.0.0.1"}, "WIKI.corp.example": {"127.0.0.1"}}
}

// A redirect from an allowed server to one that is not allowed is
// refused at its dial, whether it names the target by address or by name.
func TestRedirectToInternalRefused(t *testing.T) {
	target := serve(t, "127.0.0.1:0", secret)
	for _, loc := range []string{target.URL + "/secret", "http://localhost:" + target.port + "/secret", "http://internal.example:" + target.port + "/secret"} {
		// The "public" server is 127.0.0.1 reached as public.example, the
		// only name allowed; the redirect names the same loopback
		// address another way.
		from := serve(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, loc, http.StatusFound) })
		c := client(t, netguard.Policy{Allow: []string{"public.example"}, Resolver: hosts{
			"public.example": {"127.0.0.1"}, "internal.example": {"127.0.0.1"}, "localhost": {"127.0.0.1"},
		}})
		_, err := get(c, "http://public.example:"+from.port+"/")
		blocked(t, err, "127.0.0.1", netguard.DefaultSetting)
		if from.hits.Load() != 1 {
			t.Errorf("%s: the allowed server answered %d requests", loc, from.hits.Load())
		}
	}
	if target.hits.Load() != 0 {
		t.Errorf("the redirect target answered %d requests", target.hits.Load())
	}

	// By exact address: 127.0.0.1 is allowed, 127.0.0.2 is not.
	other := serve(t, "127.0.0.2:0", secret)
	from := serve(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL, http.StatusFound) })
	_, err := get(client(t, netguard.Policy{Allow: []string{"127.0.0.1/32"}}), from.URL)
	blocked(t, err, "127.0.0.2", netguard.DefaultSetting)
	if other.hits.Load() != 0 {
		t.Error("127.0.0.2 answered")
	}
}

// Redirects are followed up to MaxRedirects, and only to http(s).
func TestRedirectLimits(t *testing.T) {
	//lint:ignore S1021 the handler refers to s, so s is declared before serve assigns it
	var s *server
	s = serve(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		switch n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/")); {
		case r.URL.Path == "/ftp":
			http.Redirect(w, r, "ftp://127.0.0.1/file", http.StatusFound)
		case n > 0:
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		default:
			_, _ = io.WriteString(w, "arrived")
		}
	})
	c := client(t, netguard.Policy{Allow: []string{"127.0.0.1/32"}})
	if body, err := get(c, fmt.Sprintf("%s/hop/%d", s.URL, netguard.MaxRedirects)); err != nil || body != "arrived" {
		t.Errorf("%d redirects: %q %v", netguard.MaxRedirects, body, err)
	}
	before := s.hits.Load()
	if _, err := get(c, fmt.Sprintf("%s/hop/%d", s.URL, netguard.MaxRedirects+1)); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("%d redirects: %v", netguard.MaxRedirects+1, err)
	}
	if n := s.hits.Load() - before; n != netguard.MaxRedirects+1 {
		t.Errorf("%d requests made for %d redirects", n, netguard.MaxRedirects+1)
	}
	if _, err := get(c, s.URL+"/ftp"); err == nil || !strings.Contains(err.Error(), "only http and https URLs are followed") {
		t.Errorf("redirect to ftp: %v", err)
	}
}

func TestCheckRanges(t *testing.T) {
	g, err := netguard.New(netguard.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	internal := map[string]string{
		"0.0.0.0": "unspecified", "0.1.2.3": "this network", "127.0.0.1": "loopback", "127.255.255.254": "loopback",
		"10.0.0.1": "private", "172.16.0.1": "private", "172.31.255.255": "private", "192.168.1.1": "private",
		"100.64.0.1": "CGNAT", "100.127.255.255": "CGNAT", "169.254.169.254": "metadata", "169.254.1.1": "link-local",
		"224.0.0.1": "multicast", "239.255.255.250": "multicast", "255.255.255.255": "broadcast", "240.0.0.1": "reserved",
		"192.0.0.8": "reserved", "198.18.0.1": "benchmarking",
		"::": "unspecified", "::1": "loopback", "fe80::1": "link-local", "fe80::1%eth0": "link-local", "fec0::1": "site-local",
		"fc00::1": "private", "fd12:3456::1": "private", "ff02::1": "multicast", "64:ff9b:1::a00:1": "NAT64",
		"::ffff:127.0.0.1": "IPv4-mapped", "::ffff:10.0.0.1": "private", "::ffff:169.254.169.254": "metadata",
		"::127.0.0.1": "IPv4-compatible", "::ffff:0:127.0.0.1": "IPv4-translated", "64:ff9b::7f00:1": "NAT64",
		"2002:7f00:1::1": "6to4", "2002:a9fe:a9fe::": "metadata",
	}
	for s, want := range internal {
		err := g.Check(s, netip.MustParseAddr(s))
		var be *netguard.BlockedError
		if !errors.As(err, &be) || !strings.Contains(be.Reason, want) {
			t.Errorf("%s: want a refusal (%s), got %v", s, want, err)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "169.255.0.1", "203.0.113.7", "223.255.255.255",
		"2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"} {
		if err := g.Check(s, netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestAllowEntries(t *testing.T) {
	for _, s := range []string{"wiki.corp.example", "localhost", "svc_1.internal.", "10.1.0.0/16", "127.0.0.1/32", "10.1.2.3", "::1", "fd00::/8"} {
		if err := netguard.ValidateEntry(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"":                 "empty",
		"http://wiki.corp": "without scheme, port or path",
		"wiki.corp:8080":   "without scheme, port or path",
		"wiki.corp/docs":   "not a CIDR",
		"*.corp.example":   "not a host name",
		"10.1.2.3/16":      `write "10.1.0.0/16"`,
		"10.1.2":           "not a host name",
		"fe80::1%eth0":     "with a zone",
		"-bad.example":     "not a host name",
	} {
		if err := netguard.ValidateEntry(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want an error with %q, got %v", s, want, err)
		}
	}
	_, err := netguard.New(netguard.Policy{Allow: []string{"ok.example", "http://x", "10.0.0.1/8"}})
	if err == nil || !strings.Contains(err.Error(), `allow[1] = "http://x": not a host name`) ||
		!strings.Contains(err.Error(), `allow[2] = "10.0.0.1/8": bits are set past the /8 mask: write "10.0.0.0/8"`) || strings.Contains(err.Error(), "allow[0]") {
		t.Errorf("New: %v", err)
	}
}

// The guarded transport never takes a proxy from the environment: it
// would dial the proxy, and the proxy the internal target.
func TestTransportTakesNoProxy(t *testing.T) {
	g, _ := netguard.New(netguard.Policy{})
	if tr := g.Transport(); tr.Proxy != nil {
		t.Error("the guarded transport has a Proxy")
	}
}

func TestOnlyTCPIsDialed(t *testing.T) {
	g, _ := netguard.New(netguard.Policy{})
	for _, n := range []string{"unix", "udp", "ip"} {
		if c, err := g.DialContext(t.Context(), n, "/tmp/x.sock"); err == nil || !strings.Contains(err.Error(), "only TCP") {
			if c != nil {
				c.Close()
			}
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := g.DialContext(t.Context(), "tcp", ":80"); !errors.As(err, new(*netguard.BlockedError)) {
		t.Errorf("empty host: %v", err)
	}
}
