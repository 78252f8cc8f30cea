package poll

import (
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
)

func TestHostKeys(t *testing.T) {
	h := NewHosts(nil, sources.HTTPConfig{
		DefaultLimit: &sources.Limit{Rate: 3},
		Hosts: map[string]sources.Limit{
			"sec.gov": {Rate: 9, Burst: 1}, "efts.sec.gov": {Rate: 2}, "FAPI.binance.com.": {Rate: 10, Burst: 10},
		},
	})
	f := func(host, wantKey string, wantRate float64) {
		t.Helper()
		if k := h.key(host); k != wantKey {
			t.Fatalf("key(%q) = %q, want %q", host, k, wantKey)
		}
		if l := h.Limit(host); l.Rate != wantRate {
			t.Fatalf("Limit(%q) = %v, want rate %v", host, l, wantRate)
		}
	}
	f("www.sec.gov", "sec.gov", 9)
	f("data.sec.gov", "sec.gov", 9)
	f("sec.gov", "sec.gov", 9)
	f("efts.sec.gov", "efts.sec.gov", 2)
	f("notsec.gov", "notsec.gov", 3)
	f("fapi.binance.com", "fapi.binance.com", 10)
	f("api.binance.com", "api.binance.com", 3)
	f("WWW.SEC.GOV.", "sec.gov", 9)
	if h.bucket("www.sec.gov") != h.bucket("data.sec.gov") {
		t.Fatal("hosts under one key do not share a bucket")
	}
	// Configuring the same limits keeps the buckets; a change replaces them.
	b := h.bucket("www.sec.gov")
	h.Configure(sources.HTTPConfig{DefaultLimit: &sources.Limit{Rate: 3}, Hosts: map[string]sources.Limit{"sec.gov": {Rate: 9, Burst: 1}}})
	if h.bucket("data.sec.gov") != b {
		t.Fatal("reconfiguring the same limit replaced the bucket")
	}
	// A partial configuration changes what it names and nothing else.
	h.Configure(sources.HTTPConfig{Hosts: map[string]sources.Limit{"sec.gov": {Rate: 5}}})
	if h.bucket("data.sec.gov") == b || h.Limit("data.sec.gov").Rate != 5 || h.Limit("x.example").Rate != 3 || h.Limit("efts.sec.gov").Rate != 2 {
		t.Fatal("a partial configuration did not replace the one limit it names, or changed others")
	}
	// A new key takes its subdomains from the default buckets.
	h.Limit("api.example.org")
	h.Configure(sources.HTTPConfig{Hosts: map[string]sources.Limit{"example.org": {Rate: 7}}})
	if h.Limit("api.example.org").Rate != 7 {
		t.Fatal("a host kept its default bucket after a key came to cover it")
	}
}
