package netguard

import (
	"fmt"
	"net/netip"
)

type rangeOf struct {
	prefix netip.Prefix
	reason string
}

// internal4 are the IPv4 ranges a caller must not reach through the
// server, most specific first. Documentation ranges are left out: they
// route nowhere.
var internal4 = []rangeOf{
	{netip.MustParsePrefix("0.0.0.0/32"), "an unspecified address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "a reserved address (this network)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared address (CGNAT)"},
	{netip.MustParsePrefix("169.254.169.254/32"), "the cloud metadata address (link-local)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address (IETF protocol assignments)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a reserved address (benchmarking)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
}

// internal6 are the IPv6 ranges that are internal whatever they carry.
var internal6 = []rangeOf{
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("fc00::/7"), "a private address (unique local)"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
}

// embedding are the IPv6 forms that reach an IPv4 address, and where
// that address sits in them: a host dialed as one of these reaches the
// IPv4 address (the kernel, or a NAT64 or 6to4 gateway, translates).
var embedding = []struct {
	prefix netip.Prefix
	at     int
	form   string
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), 12, "IPv4-mapped"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12, "IPv4-translated"},
	{netip.MustParsePrefix("::/96"), 12, "IPv4-compatible"},
	{netip.MustParsePrefix("64:ff9b::/96"), 12, "NAT64"},
	{netip.MustParsePrefix("2002::/16"), 2, "6to4"},
}

// internal says what a is when a caller must not reach it through the
// server ("a loopback address"), or "" for a public address.
func internal(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is4() {
		return lookup(internal4, a)
	}
	if r := lookup(internal6, a); r != "" {
		return r
	}
	for _, e := range embedding {
		if !e.prefix.Contains(a) {
			continue
		}
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
		if r := lookup(internal4, v4); r != "" {
			return fmt.Sprintf("%s (%s in %s form)", r, v4, e.form)
		}
		return ""
	}
	return ""
}

func lookup(ranges []rangeOf, a netip.Addr) string {
	for _, r := range ranges {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}
