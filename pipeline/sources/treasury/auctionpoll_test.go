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
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/schemas"
)

func auctionFigures(recs []*schemas.RatesRecord, cusip string) string {
	for _, r := range recs {
		if a := r.GetAuction(); a != nil && a.Cusip == cusip {
			return auctionString(a)
		}
	}
	return ""
}

// TestTreasuryDirectSourceEndToEnd reads the recorded TreasuryDirect
// securities at the API's paths; the announced list is an empty array
// (hand-made: no recording of /announced was found).
func TestTreasuryDirectSourceEndToEnd(t *testing.T) {
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: tdAuctioned, Query: url.Values{"format": {"json"}}, File: fixtures.Path(t, fixTDSearch)},
		{Path: tdAnnounced, Query: url.Values{"format": {"json"}}, Body: []byte("[]"), ContentType: "application/json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clk := clock.NewFake(time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC))
	run, reg := testRunner(clk)
	src, _, err := NewAuctionSource(AuctionConfig{BaseURL: hs.URL}, run)
	if err != nil {
		t.Fatal(err)
	}
	rd := ratesfeedtest.Read(t, src)
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 4, 10*time.Second))
	if len(dead) != 0 {
		t.Fatal(dead)
	}
	// Figures of the fixture (SOURCES.md: 10Y highYield 4.5190, bid-to-cover 2.45).
	got := auctionFigures(recs, "91282CJJ1")
	want := "2023-11-08 91282CJJ1 Note Note/10-Year orig=10-Year reopen=false AUCTIONED ann=2023-11-01 issue=2023-11-15 mat=2033-11-15 offer=40000000000 y=4.519 d=- inv=- px=99.848482 btc=2.45 comp=39731221000 ind=27703020000 dir=6028022000 pd=6000179000 rec="
	if got != want {
		t.Fatalf("\ngot  %s\nwant %s", got, want)
	}
	if r := recs[0]; r.Source != "treasury:auctions" || !strings.Contains(r.Url, "days=120") {
		t.Fatalf("first poll %s %s", r.Source, r.Url)
	}
	ratesfeedtest.Settle(t, clk)
	if f := health(reg, "treasury:auctions"); f.State != "ok" || f.LastData.Format("2006-01-02") != "2023-11-13" {
		t.Fatalf("%+v", f)
	}
	// Later polls read 14 days; unchanged auctions are not emitted again;
	// 304, 429, truncated and malformed answers.
	ratesfeedtest.Polite(t, srv, tdAuctioned, rd, clk, reg, "treasury:auctions")
}

// TestFiscalDataSourceEndToEnd reads the recorded Fiscal Data results and
// upcoming auctions; a hand-made two-page answer checks links.next.
func TestFiscalDataSourceEndToEnd(t *testing.T) {
	page1 := `{"data":[{"cusip":"912797AA1","security_type":"Bill","security_term":"4-Week","auction_date":"2026-02-03","record_date":"2026-01-30"}],` +
		`"links":{"next":"&page%5Bnumber%5D=2&page%5Bsize%5D=1"}}`
	page2 := `{"data":[{"cusip":"912797AB9","security_type":"Bill","security_term":"8-Week","auction_date":"2026-02-03","record_date":"2026-01-30"}],"links":{"next":null}}`
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: fdResults, File: fixtures.Path(t, fixFDResults)},
		{Path: fdUpcoming, File: fixtures.Path(t, fixFDUpcoming)},
		{Path: "/paged", Body: []byte(page1), ContentType: "application/json"},
		{Path: "/paged", Query: url.Values{"page[number]": {"2"}}, Body: []byte(page2), ContentType: "application/json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clk := clock.NewFake(time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC))
	run, _ := testRunner(clk)
	src, s, err := NewAuctionSource(AuctionConfig{API: "fiscaldata", BaseURL: hs.URL}, run)
	if err != nil {
		t.Fatal(err)
	}
	if u := s.URLs(clk.Now(), true); !strings.Contains(u[0], "filter=auction_date%3Agte%3A2026-07-27") {
		t.Fatalf("first poll reads %v", u)
	}
	rd := ratesfeedtest.Read(t, src)
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 25+90, 10*time.Second))
	if len(dead) != 0 {
		t.Fatal(dead)
	}
	want := "2026-01-05 912797SL2 Bill Bill/13-Week orig=26-Week reopen=true AUCTIONED ann=2025-12-31 issue=2026-01-08 mat=2026-04-09 offer=86000000000 y=- d=3.54 inv=3.622 px=99.105167 btc=2.84 comp=81948440600 ind=43127859600 dir=6444955000 pd=32375626000 rec=2026-01-08"
	if got := auctionFigures(recs, "912797SL2"); got != want {
		t.Fatalf("\ngot  %s\nwant %s", got, want)
	}
	// Paging: links.next is followed and both pages are read.
	got, err := nextPage(hs.URL+"/paged?filter=x", "&page%5Bnumber%5D=2&page%5Bsize%5D=1")
	if err != nil || !strings.Contains(got, "page%5Bnumber%5D=2") || !strings.Contains(got, "filter=x") {
		t.Fatalf("%s %v", got, err)
	}
	r, err := run.Client.Get(t.Context(), hs.URL+"/paged?filter=x")
	if err != nil {
		t.Fatal(err)
	}
	s2 := &AuctionSource{cfg: AuctionConfig{API: "fiscaldata"}, client: run.Client}
	var emitted []string
	s2.feed = newCollectingFeed(&emitted)
	if _, err := s2.handle(t.Context(), hs.URL+"/paged?filter=x", r); err != nil {
		t.Fatal(err)
	}
	if strings.Join(emitted, ",") != "912797AA1,912797AB9" {
		t.Fatalf("paged: %v", emitted)
	}
}
