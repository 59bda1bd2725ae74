package config

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"

	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/netguard"
)

// OutboundConfig is [outbound]: what the requests AgentOS makes on a
// caller's or a model's behalf may reach (a URL ingested into a knowledge
// base, the pages of a crawled site). Internal addresses — loopback,
// link-local and the cloud metadata address, private and CGNAT networks —
// are refused unless listed in Allow, since such a URL is chosen outside
// the server and its answer is read back by whoever chose it.
type OutboundConfig struct {
	// Allow lists internal destinations that may be reached anyway: host
	// names ("wiki.corp.example", matched against the URL's host),
	// addresses and CIDRs ("10.1.0.0/16", matched against the addresses
	// the host resolves to).
	Allow []string `toml:"allow"`
}

func (c *Config) validateOutbound(p *problems) {
	for i, s := range c.Outbound.Allow {
		if err := netguard.ValidateEntry(s); err != nil {
			key := fmt.Sprintf("outbound.allow[%d]", i)
			p.at(key, "%s = %q: %v", key, s, err)
		}
	}
}

// buildOutbound makes the one guarded client of [outbound], with the
// readers' timeout, for every fetch made on a caller's or model's behalf.
func (c *Config) buildOutbound(r *Resources) error {
	setting := ""
	if c.Path != "" {
		// The file's name only: refusals reach API callers.
		setting = "[outbound] allow in " + filepath.Base(c.Path)
	}
	g, err := netguard.New(netguard.Policy{Allow: slices.Clone(c.Outbound.Allow), Setting: setting})
	if err != nil {
		return fmt.Errorf("config: [outbound] in %s: %w", c.Path, err)
	}
	r.Outbound = g.Client(reader.DefaultTimeout)
	if t, ok := r.Outbound.Transport.(*http.Transport); ok {
		r.transports = append(r.transports, t)
	}
	return nil
}
