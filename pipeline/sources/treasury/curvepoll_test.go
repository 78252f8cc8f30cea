package treasury

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

func testRunner(clk *clock.Fake) (ratesfeed.Runner, *sources.Registry) {
	return ratesfeedtest.Runner(clk)
}

func advance(t *testing.T, clk *clock.Fake) time.Time { return ratesfeedtest.Advance(t, clk) }

func health(reg *sources.Registry, name string) sources.Freshness {
	return ratesfeedtest.Health(reg, name)
}

// TestCurveSourceEndToEnd polls a local server that serves the recorded
// 2022 par yield curve feed at Treasury's own path: the first poll reads
// the year, later ones the month, conditionally; a 429 with Retry-After, a
// malformed answer and a truncated body fail a poll without a record (the
// malformed one dead-lettered), and the next poll recovers.
func TestCurveSourceEndToEnd(t *testing.T) {
	srv, err := pubreplay.New([]pubreplay.Route{{
		Path:  xmlPath,
		Query: url.Values{"data": {dataPar}},
		File:  fixtures.Path(t, fixParXML2022),
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	// Tuesday 2026-11-24, 15:00 in New York.
	clk := clock.NewFake(time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC))
	run, reg := testRunner(clk)
	src, _, err := NewCurveSource(CurveConfig{Kind: "treasury-curve", Curve: "par", BaseURL: hs.URL}, run)
	if err != nil {
		t.Fatal(err)
	}
	rd := ratesfeedtest.Read(t, src)

	// First poll: the year's feed, 48 curves.
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 48, 10*time.Second))
	if len(dead) != 0 || recs[0].GetCurve().Date != "2022-01-03" || recs[47].GetCurve().Date != "2022-03-11" {
		t.Fatalf("%d dead letters; first %v", len(dead), recs[0])
	}
	r := recs[47]
	if r.Source != "treasury:par" || r.Publisher != Publisher || !strings.Contains(r.Url, "field_tdr_date_value=2026") ||
		r.ReadTimeNs != clk.Now().UnixNano() {
		t.Fatalf("stamps %s %s %s %d", r.Source, r.Publisher, r.Url, r.ReadTimeNs)
	}
	if got := curveString(r.GetCurve()); got != "2022-03-11 1M=0.17 2M=0.28 3M=0.4 6M=0.78 1Y=1.22 2Y=1.75 3Y=1.91 5Y=1.96 7Y=2.01 10Y=2 20Y=2.45 30Y=2.36" {
		t.Fatalf("the fixture's last curve became %s", got)
	}
	ratesfeedtest.Settle(t, clk)
	if f := health(reg, "treasury:par"); f.State != "ok" || f.LastData.Format("2006-01-02") != "2022-03-11" || f.Kind != "rates" {
		t.Fatalf("health %+v", f)
	}

	// Later polls read the month's feed (unchanged curves are not emitted
	// again); 304, 429, malformed and truncated answers.
	ratesfeedtest.Polite(t, srv, xmlPath, rd, clk, reg, "treasury:par")
}

func TestCurveURLs(t *testing.T) {
	s := &CurveSource{cfg: CurveConfig{BaseURL: "https://h/"}, data: dataReal}
	f := func(now string, first bool, want ...string) {
		t.Helper()
		tm, _ := time.Parse(time.RFC3339, now)
		got := s.URLs(tm, first)
		for i := range want {
			want[i] = "https://h" + xmlPath + "?data=" + dataReal + "&" + want[i]
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s first=%v:\n got %v\nwant %v", now, first, got, want)
		}
	}
	f("2026-11-24T20:00:00Z", true, "field_tdr_date_value=2026")
	f("2026-01-05T20:00:00Z", true, "field_tdr_date_value=2025", "field_tdr_date_value=2026")
	f("2026-11-24T20:00:00Z", false, "field_tdr_date_value_month=202611")
	f("2026-12-02T20:00:00Z", false, "field_tdr_date_value_month=202611", "field_tdr_date_value_month=202612")
	f("2027-01-01T03:00:00Z", false, "field_tdr_date_value_month=202612") // still December 31 in New York
	f("2027-01-02T15:00:00Z", false, "field_tdr_date_value_month=202612", "field_tdr_date_value_month=202701")
	s.cfg.URLs = []string{"http://x/a.csv"}
	if got := s.URLs(time.Now(), true); len(got) != 1 || got[0] != "http://x/a.csv" {
		t.Fatal(got)
	}
}

func TestCurveConfigErrors(t *testing.T) {
	run, _ := testRunner(clock.NewFake(time.Now()))
	for _, cfg := range []CurveConfig{{Curve: "zero"}, {Curve: "par", Format: "json"}, {Curve: "real", Format: "csv"}} {
		if _, _, err := NewCurveSource(cfg, run); err == nil {
			t.Fatalf("%+v accepted", cfg)
		}
	}
	var c sources.Config
	c, err := sources.ParseConfig([]byte(`{"sources":[{"kind":"treasury-curve","curve":"par","typo":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(sources.Env{}); err == nil || !strings.Contains(err.Error(), "typo") {
		t.Fatalf("unknown field: %v", err)
	}
	_ = schemas.TopicRates
}
