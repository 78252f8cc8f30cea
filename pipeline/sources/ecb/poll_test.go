package ecb

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// TestSourceEndToEnd serves the hand-made portal answers (testdata; no
// recording exists) at the Data Portal's path, in both formats.
func TestSourceEndToEnd(t *testing.T) {
	for _, tc := range []struct{ format, file string }{{"csvdata", "handmade_estr_csvdata.csv"}, {"jsondata", "handmade_estr_jsondata.json"}} {
		t.Run(tc.format, func(t *testing.T) {
			srv, err := pubreplay.New([]pubreplay.Route{{Path: DataPath, Query: url.Values{"format": {tc.format}}, Body: readTestdata(t, tc.file)}})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			clk := clock.NewFake(time.Date(2024, 6, 7, 6, 30, 0, 0, time.UTC))
			run, reg := ratesfeedtest.Runner(clk)
			src, s, err := NewSource(Config{Format: tc.format, BaseURL: hs.URL}, run)
			if err != nil {
				t.Fatal(err)
			}
			if u := s.URL(true); u != hs.URL+DataPath+"?format="+tc.format+"&lastNObservations=60" {
				t.Fatal(u)
			}
			rd := ratesfeedtest.Read(t, src)
			recs, dead := ratesfeedtest.Split(t, rd.Take(t, 4, 10*time.Second))
			if len(dead) != 0 {
				t.Fatal(dead)
			}
			last := recs[3]
			if o := last.GetOvernight(); rateString(o) != "2024-06-06 3.911 p25=3.88 p75=3.95 vol=52206" || last.Publisher != Publisher || last.Source != "ecb:estr" {
				t.Fatalf("%s %s %s", rateString(o), last.Publisher, last.Source)
			}
			ratesfeedtest.Polite(t, srv, DataPath, rd, clk, reg, "ecb:estr")
		})
	}
}
