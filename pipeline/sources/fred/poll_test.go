package fred

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/schemas"
)

// TestSourceEndToEnd replays the FRED captures the demo uses: DFII10 as
// the real curve's 10-year point and €STR with its volume.
func TestSourceEndToEnd(t *testing.T) {
	const obs = "/fred/series/observations"
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: "/graph/fredgraph.csv", Query: url.Values{"id": {"DFII10"}}, File: fixtures.Path(t, "rates/fred_DFII10_real_yield_2003-01-02_2024-07-30.csv")},
		{Path: obs, Query: url.Values{"series_id": {"ECBESTRVOLWGTTRMDMNRT"}}, File: fixtures.Path(t, "rates/fred_ECBESTRVOLWGTTRMDMNRT_estr_2024-06-03_2024-06-06.json")},
		{Path: obs, Query: url.Values{"series_id": {"ECBESTRTOTVOL"}}, File: fixtures.Path(t, "rates/fred_ECBESTRTOTVOL_estr_total_volume_2024-06-03_2024-06-06.json")},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clk := clock.NewFake(time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC))
	run, reg := ratesfeedtest.Runner(clk)
	src, _, err := NewSource(Config{Name: "fred:demo", BaseURL: hs.URL, Series: []SeriesConfig{
		{ID: "DFII10", As: "par_real:10Y"},
		{ID: "ECBESTRVOLWGTTRMDMNRT", As: "estr", URL: hs.URL + obs + "?series_id=ECBESTRVOLWGTTRMDMNRT&file_type=json"},
		{ID: "ECBESTRTOTVOL", As: "estr_volume", URL: hs.URL + obs + "?series_id=ECBESTRTOTVOL&file_type=json"},
	}}, run)
	if err != nil {
		t.Fatal(err)
	}
	rd := ratesfeedtest.Read(t, src)
	// 275 DFII10 values in the 400 days to 2024-07-30 (counted separately
	// in Python from the fixture), then 4 €STR fixings.
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 275+4, 10*time.Second))
	if len(dead) != 0 {
		t.Fatal(dead)
	}
	var last *schemas.YieldCurve
	var estr []string
	for _, r := range recs {
		if r.Publisher != Publisher || r.Source != "fred:demo" {
			t.Fatalf("stamps %s %s", r.Publisher, r.Source)
		}
		if c := r.GetCurve(); c != nil {
			if c.Kind != schemas.CurveKind_CURVE_KIND_PAR_REAL || len(c.Points) != 1 || c.Points[0].Tenor != "10Y" {
				t.Fatalf("%v", c)
			}
			last = c
		}
		if o := r.GetOvernight(); o != nil {
			estr = append(estr, fmt.Sprintf("%s %v %v", o.Date, o.Percent, *o.Volume))
		}
	}
	if last.Date != "2024-07-30" || last.Points[0].Percent != 1.9 {
		t.Fatalf("last real curve %v", last)
	}
	want := "[2024-06-03 3.9130000000000003 50910 2024-06-04 3.911 55061 2024-06-05 3.9130000000000003 55950 2024-06-06 3.911 52206]"
	if fmt.Sprint(estr) != want {
		t.Fatalf("€STR %v", estr)
	}
	ratesfeedtest.Polite(t, srv, "/graph/fredgraph.csv", rd, clk, reg, "fred:demo")
}

func TestConfigErrors(t *testing.T) {
	run, _ := ratesfeedtest.Runner(clock.NewFake(time.Now()))
	for _, cfg := range []Config{
		{},
		{Series: []SeriesConfig{{ID: "DFII10", As: "par_real:9Y"}}},
		{Series: []SeriesConfig{{ID: "DFII10", As: "libor"}}},
		{Series: []SeriesConfig{{As: "sofr"}}},
		{Series: []SeriesConfig{{ID: "A", As: "sofr"}, {ID: "A", As: "effr"}}},
	} {
		if _, _, err := NewSource(cfg, run); err == nil {
			t.Fatalf("%+v accepted", cfg)
		}
	}
}
