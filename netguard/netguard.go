// Package netguard is the outbound HTTP client for every request the
// server makes on a caller's or a model's behalf: a URL ingested into a
// knowledge base, the pages of a crawled website, and the web tools that
// fetch what a model asks for. Such a URL is chosen outside the server,
// so an unguarded client fetches for anyone what only the server can
// reach — loopback services, the cloud metadata endpoint
// (169.254.169.254), the private network — and hands back the answer
// (server-side request forgery).
//
// A Guard decides at dial time, after DNS resolution: it resolves the
// host itself, refuses the connection when any resolved address is
// internal (loopback, link-local, private, shared/CGNAT, multicast,
// unspecified, broadcast or reserved, also inside IPv4-mapped and other
// IPv6 forms that embed an IPv4 address), and connects to the very
// address it checked, so a name cannot pass the check with one address
// and connect with another (DNS rebinding). Each redirect is a new dial,
// so its target is checked the same way; a URL's text is never trusted.
//
// Operators reach internal hosts by listing them in Policy.Allow.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// DefaultSetting is the setting a refusal tells the operator to change
// when the Policy names none.
const DefaultSetting = "[outbound] allow in config.toml"

// MaxRedirects is how many redirects a guarded client follows.
const MaxRedirects = 10

// Resolver resolves host names; *net.Resolver is one. A test injects its
// own to make a name resolve to a loopback address.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Policy configures a Guard. The zero Policy refuses every internal
// address.
type Policy struct {
	// Allow lists the internal destinations that may be reached anyway:
	// host names ("wiki.corp.example"), matched against the URL's host,
	// and addresses or CIDRs ("10.1.2.3", "10.1.0.0/16", "::1/128"),
	// matched against every address the host resolves to.
	Allow []string
	// Setting names where Allow is configured, so that a refusal tells
	// the operator what to change; "" is DefaultSetting.
	Setting string
	// Resolver resolves host names; nil is net.DefaultResolver.
	Resolver Resolver
	// Dialer connects to the checked addresses; nil is a net.Dialer with
	// a 30 s connect timeout. Its own Resolver is never used: it only
	// ever dials addresses.
	Dialer *net.Dialer
}

// Guard enforces a Policy. It is safe for concurrent use.
type Guard struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
	setting  string
	resolver Resolver
	dialer   *net.Dialer
}

// New compiles p. It fails only on an Allow entry that is not a host
// name, an address or a CIDR.
func New(p Policy) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, setting: p.Setting, resolver: p.Resolver, dialer: p.Dialer}
	if g.setting == "" {
		g.setting = DefaultSetting
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.dialer == nil {
		g.dialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	}
	var errs []error
	for i, e := range p.Allow {
		host, prefix, err := parseEntry(e)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("netguard: allow[%d] = %q: %w", i, e, err))
		case host != "":
			g.hosts[host] = true
		default:
			g.prefixes = append(g.prefixes, prefix)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

// ValidateEntry reports whether s may be an Allow entry. Its error says
// what is wrong and what to write instead, and leaves naming the setting
// and the entry to the caller.
func ValidateEntry(s string) error {
	_, _, err := parseEntry(s)
	return err
}

// Check reports whether host, resolved to addr, may be reached: nil, or
// a *BlockedError.
func (g *Guard) Check(host string, addr netip.Addr) error {
	reason := internal(addr)
	if reason == "" || g.hosts[hostKey(host)] {
		return nil
	}
	plain := addr.WithZone("")
	for _, p := range g.prefixes {
		if p.Contains(plain) || p.Contains(plain.Unmap()) {
			return nil
		}
	}
	return &BlockedError{Host: host, Addr: addr, Reason: reason, Setting: g.setting}
}

// DialContext resolves address's host, checks every address it resolves
// to, and connects to the first checked address that answers. It refuses
// the host when any of its addresses is internal: a name that resolves
// to both a public and an internal address is either misconfigured or a
// rebinding attempt. Only TCP is dialed.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	ipNet, ok := map[string]string{"tcp": "ip", "tcp4": "ip4", "tcp6": "ip6"}[network]
	if !ok {
		return nil, fmt.Errorf("netguard: refused to dial %s %s: only TCP connections are made", network, address)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("netguard: %w", err)
	}
	if host == "" {
		// net.Dial takes an empty host as this machine.
		return nil, &BlockedError{Setting: g.setting}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = g.resolver.LookupNetIP(ctx, ipNet, host); err != nil {
		return nil, fmt.Errorf("netguard: resolving %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("netguard: %s has no %s address", host, strings.TrimPrefix(ipNet, "ip"))
	}
	for _, a := range addrs {
		if err := g.Check(host, a); err != nil {
			return nil, err
		}
	}
	var errs []error
	for _, a := range addrs {
		c, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// Transport returns a new HTTP transport that dials through g. It takes
// no proxy from the environment (HTTP_PROXY, HTTPS_PROXY): through a
// proxy the transport dials the proxy, so g would check the proxy's
// address while the proxy reached the internal target on the server's
// behalf.
func (g *Guard) Transport() *http.Transport {
	return &http.Transport{
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Client returns an HTTP client on a new Transport of g that follows
// redirects by CheckRedirect; timeout bounds each request, redirects and
// body included (zero: no limit).
func (g *Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{Transport: g.Transport(), CheckRedirect: CheckRedirect, Timeout: timeout}
}

// CheckRedirect is a guarded client's redirect policy: at most
// MaxRedirects, to http and https URLs only. Where a redirect leads is
// checked when it is dialed.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("netguard: refused a redirect to %s: only http and https URLs are followed", req.URL.Redacted())
	}
	if len(via) > MaxRedirects {
		return fmt.Errorf("netguard: stopped after %d redirects", MaxRedirects)
	}
	return nil
}

// BlockedError is a refused connection: Addr is internal and neither Host
// nor Addr is allowed.
type BlockedError struct {
	// Host is the host as the URL names it: a name or an address; empty
	// for a URL without a host, which net.Dial takes as this machine.
	Host string
	// Addr is the refused address Host resolved to.
	Addr netip.Addr
	// Reason says what Addr is ("a loopback address").
	Reason string
	// Setting is where the operator allows it.
	Setting string
}

func (e *BlockedError) Error() string {
	if !e.Addr.IsValid() {
		return "netguard: refused to connect to an empty host, which means this machine: name the host to reach"
	}
	// Check unmaps IPv4-mapped addresses, so the IPv4 CIDR allows both.
	a := e.Addr.WithZone("").Unmap()
	cidr := netip.PrefixFrom(a, a.BitLen())
	if _, err := netip.ParseAddr(e.Host); err == nil {
		return fmt.Sprintf("netguard: refused to connect to %s, %s; to reach it, add %q to %s", e.Addr, e.Reason, cidr, e.Setting)
	}
	return fmt.Sprintf("netguard: refused to connect to %s: it resolves to %s, %s; to reach it, add %q or %q to %s",
		e.Host, e.Addr, e.Reason, hostKey(e.Host), cidr, e.Setting)
}

// hostKey is how host names are compared: lower case, without the
// trailing dot of a fully qualified name.
func hostKey(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// parseEntry reads an Allow entry as a host name or as an address or
// CIDR (an address is its single-address prefix).
func parseEntry(s string) (host string, prefix netip.Prefix, err error) {
	s = strings.TrimSpace(s)
	const write = `write a host name alone, without scheme, port or path ("wiki.corp.example"), an address ("10.1.2.3") or a CIDR ("10.1.0.0/16")`
	if s == "" {
		return "", netip.Prefix{}, fmt.Errorf("empty: %s", write)
	}
	if strings.Contains(s, "/") && !strings.Contains(s, "://") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return "", netip.Prefix{}, fmt.Errorf("not a CIDR: %s", write)
		}
		if p != p.Masked() {
			return "", netip.Prefix{}, fmt.Errorf("bits are set past the /%d mask: write %q", p.Bits(), p.Masked())
		}
		return "", p, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return "", netip.Prefix{}, fmt.Errorf("an address with a zone: write it without %%%s", a.Zone())
		}
		return "", netip.PrefixFrom(a, a.BitLen()), nil
	}
	if !isHostName(s) {
		return "", netip.Prefix{}, fmt.Errorf("not a host name, an address or a CIDR: %s", write)
	}
	return hostKey(s), netip.Prefix{}, nil
}

// isHostName accepts DNS names: dot-separated labels of letters, digits,
// '-' and '_', with a last label that is not all digits (such a string is
// a malformed address, not a name).
func isHostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}
