package nyfed

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// TestSourceEndToEnd serves the recorded SOFR and EFFR answers at the
// Markets Data API's paths (the recordings are searches; the last-N
// answers have the same format).
func TestSourceEndToEnd(t *testing.T) {
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: "/api/rates/secured/sofr/last/60.json", File: fixtures.Path(t, fixSOFR)},
		{Path: "/api/rates/secured/sofr/last/5.json", File: fixtures.Path(t, fixSOFR)},
		{Path: "/api/rates/unsecured/effr/last/60.json", File: fixtures.Path(t, fixEFFR)},
		{Path: "/api/rates/unsecured/effr/last/5.json", File: fixtures.Path(t, fixEFFR)},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clk := clock.NewFake(time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC))
	run, reg := ratesfeedtest.Runner(clk)
	src, _, err := NewSource(Config{BaseURL: hs.URL}, run)
	if err != nil {
		t.Fatal(err)
	}
	rd := ratesfeedtest.Read(t, src)
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 4+108, 10*time.Second))
	if len(dead) != 0 {
		t.Fatal(dead)
	}
	// Every figure equals the fixture's (the parser's test reads them by
	// hand): 2024-06-06 SOFR 5.33 with 2,008 bn; 2023-06-06 EFFR 5.08.
	found := 0
	for _, r := range recs {
		o := r.GetOvernight()
		if r.Source != "nyfed" || r.Publisher != Publisher {
			t.Fatalf("stamps %s %s", r.Source, r.Publisher)
		}
		switch {
		case o.Date == "2024-06-06":
			if rateString(o) != `sofr 2024-06-06 5.33 p1=5.29 p25=5.32 p75=5.4 p99=5.44 vol=2008 target=-..- rev=""` || !strings.Contains(r.Url, "/sofr/last/60.json") {
				t.Fatalf("%s %s", rateString(o), r.Url)
			}
			found++
		case o.Date == "2023-06-06":
			if rateString(o) != `effr 2023-06-06 5.08 p1=5.05 p25=5.06 p75=5.08 p99=5.3 vol=144 target=5..5.25 rev=""` {
				t.Fatal(rateString(o))
			}
			found++
		}
	}
	if found != 2 {
		t.Fatalf("found %d of the two checked fixings", found)
	}
	ratesfeedtest.Polite(t, srv, "/api/rates/secured/sofr/last/5.json", rd, clk, reg, "nyfed")
}
