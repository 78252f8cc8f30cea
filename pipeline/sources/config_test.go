package sources

import (
	"strings"
	"testing"
	"time"
)

func TestConfigClientSections(t *testing.T) {
	c, err := ParseConfig(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if l := c.HTTP.Hosts["sec.gov"]; l.Rate != 9 || l.Burst != 1 {
		t.Fatalf("default sec.gov limit %+v", l)
	}
	if time.Duration(c.HTTP.Timeout) != 30*time.Second || c.HTTP.UserAgentHeader() != "MarketIntel/1.0" {
		t.Fatalf("default http %+v", c.HTTP)
	}
	var chains []string
	for _, ch := range c.Chains {
		chains = append(chains, ch.Chain)
	}
	if strings.Join(chains, ",") != "ethereum,base,arbitrum,optimism,polygon" {
		t.Fatalf("default chains %v", chains)
	}
	if ua := (HTTPConfig{UserAgent: "X/1", Contact: "ops@example.com"}).UserAgentHeader(); ua != "X/1 (+ops@example.com)" {
		t.Fatal(ua)
	}
	f := func(doc, wantErr string) {
		t.Helper()
		_, err := ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%s: got %v, want an error containing %q", doc, err, wantErr)
		}
	}
	f(`{"sources": [], "http": {"hosts": {"https://sec.gov": {"rate": 1}}}}`, `hosts key "https://sec.gov"`)
	f(`{"sources": [], "http": {"hosts": {"sec.gov": {"rate": -1}}}}`, "rate must be")
	f(`{"sources": [], "http": {"timeout": "soon"}}`, "cannot read duration")
	f(`{"sources": [], "http": {"user": "x"}}`, "unknown field")
	f(`{"sources": [], "chains": [{"chain": "base"}]}`, "chain and rpc are required")
	f(`{"sources": [], "chains": [{"chain": "base", "rpc": "base-rpc.publicnode.com"}]}`, "not an http(s) or ws(s) URL")
	f(`{"sources": [], "chains": [{"chain": "base", "rpc": "http://a"}, {"chain": "base", "rpc": "http://b"}]}`, "listed twice")
	f(`{"sources": [], "chains": [{"chain": "base", "rpc": "http://a", "limit": {"rate": 1, "burst": -2}}]}`, "burst")
	if _, err := ParseConfig([]byte(`{"sources": []}`)); err != nil {
		t.Fatalf("a file without the client sections: %v", err)
	}
}
