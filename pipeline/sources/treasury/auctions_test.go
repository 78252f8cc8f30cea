package treasury

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

const (
	fixTDSearch   = "treasury/treasurydirect_securities_search_2023-11_subset.json"
	fixFDResults  = "treasury/fiscaldata_auctions_query_bills_2026-01.json"
	fixFDUpcoming = "treasury/fiscaldata_upcoming_auctions_recorded_2026-07-16.json"
)

// auctionString renders the figures the routes use.
func auctionString(a *schemas.TreasuryAuction) string {
	f := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	i := func(v *int64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	return fmt.Sprintf("%s %s %s %s/%s orig=%s reopen=%v %s ann=%s issue=%s mat=%s offer=%s y=%s d=%s inv=%s px=%s btc=%s comp=%s ind=%s dir=%s pd=%s rec=%s",
		a.AuctionDate, a.Cusip, a.Kind, a.SecurityType, a.SecurityTerm, a.OriginalSecurityTerm, a.Reopening,
		strings.TrimPrefix(a.Status.String(), "AUCTION_STATUS_"), a.AnnouncementDate, a.IssueDate, a.MaturityDate,
		i(a.OfferingAmount), f(a.HighYield), f(a.HighDiscountRate), f(a.HighInvestmentRate), f(a.PricePer_100), f(a.BidToCover),
		i(a.CompetitiveAccepted), i(a.IndirectAccepted), i(a.DirectAccepted), i(a.PrimaryDealerAccepted), a.RecordDate)
}

func findAuction(t *testing.T, as []*schemas.TreasuryAuction, cusip string) string {
	t.Helper()
	for _, a := range as {
		if a.Cusip == cusip {
			return auctionString(a)
		}
	}
	t.Fatalf("no auction of %s", cusip)
	return ""
}

// TestParseSecuritiesFixture reads the TreasuryDirect securities search
// subset. Figures read by hand from the fixture's records (SOURCES.md
// lists the same: 10Y highYield 4.5190, bid-to-cover 2.45, ...).
func TestParseSecuritiesFixture(t *testing.T) {
	res, err := ParseSecurities(readFixture(t, fixTDSearch))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Auctions) != 4 || len(res.Rejected) != 0 {
		t.Fatalf("%d auctions, rejected %+v", len(res.Auctions), res.Rejected)
	}
	f := func(cusip, want string) {
		t.Helper()
		if got := findAuction(t, res.Auctions, cusip); got != want {
			t.Fatalf("\ngot  %s\nwant %s", got, want)
		}
	}
	f("91282CJJ1", "2023-11-08 91282CJJ1 Note Note/10-Year orig=10-Year reopen=false AUCTIONED ann=2023-11-01 issue=2023-11-15 mat=2033-11-15 offer=40000000000 y=4.519 d=- inv=- px=99.848482 btc=2.45 comp=39731221000 ind=27703020000 dir=6028022000 pd=6000179000 rec=")
	f("912797GN1", "2023-11-13 912797GN1 Bill Bill/13-Week orig=26-Week reopen=true AUCTIONED ann=2023-11-09 issue=2023-11-16 mat=2024-02-15 offer=75000000000 y=- d=5.285 inv=5.446 px=98.664069 btc=2.76 comp=72771157000 ind=45222117000 dir=2945000000 pd=24604040000 rec=")
	f("912810TV0", "2023-11-09 912810TV0 Bond Bond/30-Year orig=30-Year reopen=false AUCTIONED ann=2023-11-01 issue=2023-11-15 mat=2053-11-15 offer=24000000000 y=4.769 d=- inv=- px=99.698482 btc=2.24 comp=23910420000 ind=14371980000 dir=3625500000 pd=5912940000 rec=")
	// The order is by auction date.
	if res.Auctions[0].Cusip != "91282CJK8" || res.Auctions[3].Cusip != "912797GN1" {
		t.Fatalf("order %s .. %s", res.Auctions[0].Cusip, res.Auctions[3].Cusip)
	}
}

// TestParseFiscalDataResults reads the Fiscal Data auction results of
// January 2026 bills (fixture); the first auction's figures read by hand.
func TestParseFiscalDataResults(t *testing.T) {
	res, err := ParseFiscalData(readFixture(t, fixFDResults))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Auctions) != 25 || len(res.Rejected) != 0 || res.Next != "" {
		t.Fatalf("%d auctions, next %q, rejected %+v", len(res.Auctions), res.Next, res.Rejected)
	}
	got := findAuction(t, res.Auctions, "912797SL2")
	want := "2026-01-05 912797SL2 Bill Bill/13-Week orig=26-Week reopen=true AUCTIONED ann=2025-12-31 issue=2026-01-08 mat=2026-04-09 offer=86000000000 y=- d=3.54 inv=3.622 px=99.105167 btc=2.84 comp=81948440600 ind=43127859600 dir=6444955000 pd=32375626000 rec=2026-01-08"
	if got != want {
		t.Fatalf("\ngot  %s\nwant %s", got, want)
	}
	// Every auction's bidder categories add up to the competitive
	// accepted amount (SOURCES.md's check).
	for _, a := range res.Auctions {
		if a.Status != schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED || a.Kind != "Bill" {
			t.Fatalf("%s: %v %s", a.Cusip, a.Status, a.Kind)
		}
		if *a.PrimaryDealerAccepted+*a.DirectAccepted+*a.IndirectAccepted != *a.CompetitiveAccepted {
			t.Fatalf("%s: bidder categories do not add up", a.Cusip)
		}
	}
}

// TestParseFiscalDataUpcoming reads the upcoming auctions dataset with its
// past snapshots: 90 rows, each of a different auction; the latest snapshot (record date
// 2026-07-10) has 5 auctions (fixture rows read by hand).
func TestParseFiscalDataUpcoming(t *testing.T) {
	res, err := ParseFiscalData(readFixture(t, fixFDUpcoming))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Auctions) != 90 || len(res.Rejected) != 0 {
		t.Fatalf("%d auctions, rejected %+v", len(res.Auctions), res.Rejected)
	}
	var latest []string
	nullAmounts := 0
	for _, a := range res.Auctions {
		if a.Status != schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED {
			t.Fatalf("%s: %v", a.Cusip, a.Status)
		}
		if a.OfferingAmount == nil {
			nullAmounts++
		}
		if a.RecordDate == "2026-07-10" {
			latest = append(latest, fmt.Sprintf("%s %s %s %d", a.AuctionDate, a.Cusip, a.SecurityTerm, *a.OfferingAmount))
		}
	}
	want := "2026-07-20 912797TM9 26-Week 79000000000|2026-07-20 912797UL9 13-Week 92000000000|2026-07-21 912797RS8 6-Week 95000000000|" +
		"2026-07-22 912810UV8 19-Year 10-Month 13000000000|2026-07-23 91282CRE3 10-Year 21000000000"
	if strings.Join(latest, "|") != want {
		t.Fatalf("latest snapshot:\ngot  %s\nwant %s", strings.Join(latest, "|"), want)
	}
	if nullAmounts == 0 {
		t.Fatal("the fixture's \"null\" offering amounts were not read as absent")
	}
}

func TestParseAuctionsMalformed(t *testing.T) {
	f := func(name string, td bool, in string, phrase string, rejected int) {
		t.Helper()
		var res AuctionResult
		var err error
		if td {
			res, err = ParseSecurities([]byte(in))
		} else {
			res, err = ParseFiscalData([]byte(in))
		}
		if rejected < 0 {
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), phrase) {
				t.Fatalf("%s: error %v, want %q", name, err, phrase)
			}
			return
		}
		if err != nil || len(res.Rejected) != rejected {
			t.Fatalf("%s: %v, rejected %+v", name, err, res.Rejected)
		}
		for _, r := range res.Rejected {
			if !strings.HasPrefix(r.Reason, phrase) {
				t.Fatalf("%s: reason %q, want %q", name, r.Reason, phrase)
			}
		}
	}
	ok := `"cusip":"91282CJJ1","securityType":"Note","securityTerm":"10-Year","auctionDate":"2023-11-08T00:00:00"`
	f("not json", true, `<html>`, "malformed json", -1)
	f("truncated", true, `[{`+ok, "malformed json", -1)
	f("object", true, `{"a":1}`, "malformed json", -1)
	f("element not an object", true, `[1]`, "malformed json", 1)
	f("bad yield", true, `[{`+ok+`,"highYield":"4.5x"}]`, "bad rate", 1)
	f("bad amount", true, `[{`+ok+`,"offeringAmount":"4e10"}]`, "bad amount", 1)
	f("fractional amount", true, `[{`+ok+`,"offeringAmount":"100.5"}]`, "bad amount", 1)
	f("bad date", true, `[{"cusip":"91282CJJ1","securityType":"Note","securityTerm":"10-Year","auctionDate":"11/08/2023"}]`, "bad date", 1)
	f("no cusip", true, `[{"securityType":"Note","securityTerm":"10-Year","auctionDate":"2023-11-08"}]`, "bad security", 1)
	f("numbers and nulls", true, `[{`+ok+`,"highYield":4.519,"offeringAmount":40000000000,"bidToCoverRatio":null}]`, "", 0)
	f("fd no data", false, `{"meta":{}}`, "malformed json", -1)
	f("fd bad record date", false, `{"data":[{"cusip":"912797SL2","security_type":"Bill","security_term":"13-Week","auction_date":"2026-01-05","record_date":"x"}]}`, "bad date", 1)
	f("fd null strings", false, `{"data":[{"cusip":"912797SL2","security_type":"Bill","security_term":"13-Week","auction_date":"2026-01-05","high_discnt_rate":"null","offering_amt":"null"}],"links":{"next":"&page%5Bnumber%5D=2"}}`, "", 0)
	res, _ := ParseFiscalData([]byte(`{"data":[],"links":{"next":"&page%5Bnumber%5D=2"}}`))
	if res.Next != "&page%5Bnumber%5D=2" {
		t.Fatalf("next %q", res.Next)
	}
}

func FuzzParseSecurities(f *testing.F) {
	f.Add(readFixture(f, fixTDSearch))
	f.Add([]byte(`[{"cusip":"91282CJJ1","securityType":"Note","securityTerm":"10-Year","auctionDate":"2023-11-08T00:00:00","highYield":4.5}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseSecurities(b)
		checkAuctionResult(t, res, err)
	})
}

func FuzzParseFiscalData(f *testing.F) {
	b := readFixture(f, fixFDResults)
	f.Add(b[:3000])
	f.Add(readFixture(f, fixFDUpcoming)[:2000])
	f.Add([]byte(`{"data":[{"cusip":"912797SL2","security_type":"Bill","security_term":"13-Week","auction_date":"2026-01-05","offering_amt":"null"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseFiscalData(b)
		checkAuctionResult(t, res, err)
	})
}

func checkAuctionResult(t *testing.T, res AuctionResult, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		return
	}
	for _, a := range res.Auctions {
		rec := &schemas.RatesRecord{Source: "fuzz", ReadTimeNs: schemas.MinEventTimeNs, Body: &schemas.RatesRecord_Auction{Auction: a}}
		if err := schemas.ValidateRates(rec); err != nil {
			t.Fatalf("invalid auction %v: %v", a, err)
		}
	}
	for _, r := range res.Rejected {
		if r.Reason == "" {
			t.Fatal("rejection without a reason")
		}
	}
}
