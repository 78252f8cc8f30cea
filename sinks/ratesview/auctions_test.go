package ratesview

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

func i64(v int64) *int64 { return &v }

// bill13 is a 13-week bill auction with results, figures typed from the
// Fiscal Data auction results fixture
// (treasury/fiscaldata_auctions_query_bills_2026-01.json).
func bill13(cusip, date string, disc, inv, btc float64, comp, ind, dir, pd, offer int64) *schemas.TreasuryAuction {
	return &schemas.TreasuryAuction{Cusip: cusip, SecurityType: "Bill", SecurityTerm: "13-Week", OriginalSecurityTerm: "26-Week", Kind: "Bill",
		Reopening: true, Status: schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED, AuctionDate: date, OfferingAmount: i64(offer),
		HighDiscountRate: f64(disc), HighInvestmentRate: f64(inv), BidToCover: f64(btc),
		CompetitiveAccepted: i64(comp), IndirectAccepted: i64(ind), DirectAccepted: i64(dir), PrimaryDealerAccepted: i64(pd)}
}

func auctionRecords() []*schemas.RatesRecord {
	sl2 := bill13("912797SL2", "2026-01-05", 3.54, 3.622, 2.84, 81948440600, 43127859600, 6444955000, 32375626000, 86000000000)
	qd2 := bill13("912797QD2", "2026-01-12", 3.57, 3.653, 2.79, 82692683000, 40802423000, 7345000000, 34545260000, 86000000000)
	sm0 := bill13("912797SM0", "2026-01-20", 3.59, 3.673, 2.70, 86169257900, 49464376900, 5473000000, 31231881000, 89000000000)
	sn8 := bill13("912797SN8", "2026-01-26", 3.58, 3.663, 2.90, 85196122700, 52618322700, 5416350000, 27161450000, 89000000000)
	// The same auction as announced (upcoming_auctions, no results), read
	// after the results: the results still win.
	sn8Announced := &schemas.TreasuryAuction{Cusip: "912797SN8", SecurityType: "Bill", SecurityTerm: "13-Week", Kind: "Bill", Reopening: true,
		Status: schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED, AuctionDate: "2026-01-26", OfferingAmount: i64(89000000000), RecordDate: "2026-01-16"}
	// The 2-year note of the upcoming auctions fixture (record date
	// 2026-01-16, offering amount "null"); no results held.
	note := &schemas.TreasuryAuction{Cusip: "91282CPV7", SecurityType: "Note", SecurityTerm: "2-Year", Kind: "Note",
		Status: schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED, AnnouncementDate: "2026-01-22", AuctionDate: "2026-01-26", IssueDate: "2026-02-02", RecordDate: "2026-01-16"}
	// An announced bill after the newest results — invented for the test.
	next := &schemas.TreasuryAuction{Cusip: "912797TX1", SecurityType: "Bill", SecurityTerm: "13-Week", Kind: "Bill",
		Status: schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED, AuctionDate: "2026-02-02", OfferingAmount: i64(89000000000)}
	return []*schemas.RatesRecord{
		rec("2026-01-06T12:00:00Z", sl2), rec("2026-01-13T12:00:00Z", qd2), rec("2026-01-21T12:00:00Z", sm0),
		rec("2026-01-27T12:00:00Z", sn8), rec("2026-01-28T12:00:00Z", sn8Announced), rec("2026-01-22T12:00:00Z", note),
		rec("2026-01-29T12:00:00Z", next),
	}
}

func figureString(f AuctionFigure) string {
	s := fmt.Sprintf("%s %s %s %s", f.AuctionDate, f.Cusip, f.Series, f.Status)
	if f.HighDiscountRate != nil {
		s += fmt.Sprintf(" disc=%v inv=%v btc=%v ind=%.4f pd=%.4f dir=%.4f", *f.HighDiscountRate, *f.HighInvestmentRate, *f.BidToCover,
			*f.IndirectSharePercent, *f.PrimaryDealerSharePercent, *f.DirectSharePercent)
	}
	if f.OfferingAmount != nil {
		s += fmt.Sprintf(" offer=%d", *f.OfferingAmount)
	}
	if f.Previous != nil {
		s += fmt.Sprintf(" prev=%s/%s/%v", f.Previous.AuctionDate, f.Previous.Cusip, *f.Previous.HighDiscountRate)
	}
	return s
}

func TestAuctions(t *testing.T) {
	v := testView()
	if _, err := v.Auctions(at("2026-11-26T12:00:00Z"), 14); !errors.Is(err, ErrNoData) {
		t.Fatalf("empty: %v", err)
	}
	mustApply(t, v, auctionRecords()...)
	f := func(days int, dataAsOf, from string, recent, announced []string) {
		t.Helper()
		a, err := v.Auctions(at("2026-11-26T12:00:00Z"), days)
		if err != nil {
			t.Fatal(err)
		}
		if a.DataAsOf != dataAsOf || a.From != from || a.Days != days {
			t.Fatalf("window %s..%s (%d days)", a.From, a.DataAsOf, a.Days)
		}
		var r, an []string
		for _, x := range a.Recent {
			r = append(r, figureString(x))
		}
		for _, x := range a.Announced {
			an = append(an, figureString(x))
		}
		if strings.Join(r, "\n") != strings.Join(recent, "\n") || strings.Join(an, "\n") != strings.Join(announced, "\n") {
			t.Fatalf("days=%d\nrecent\n  %s\nwant\n  %s\nannounced\n  %s\nwant\n  %s", days, strings.Join(r, "\n  "), strings.Join(recent, "\n  "),
				strings.Join(an, "\n  "), strings.Join(announced, "\n  "))
		}
	}
	// Shares of the competitive accepted amount (fixture figures):
	// 912797SN8 indirect 52618322700 / 85196122700 = 61.7614 % (computed
	// separately in Python from the fixture values).
	sn8 := "2026-01-26 912797SN8 Bill 13-Week AUCTIONED disc=3.58 inv=3.663 btc=2.9 ind=61.7614 pd=31.8811 dir=6.3575 offer=89000000000 prev=2026-01-20/912797SM0/3.59"
	sm0 := "2026-01-20 912797SM0 Bill 13-Week AUCTIONED disc=3.59 inv=3.673 btc=2.7 ind=57.4037 pd=36.2448 dir=6.3515 offer=89000000000 prev=2026-01-12/912797QD2/3.57"
	note := "2026-01-26 91282CPV7 Note 2-Year ANNOUNCED"
	next := "2026-02-02 912797TX1 Bill 13-Week ANNOUNCED offer=89000000000 prev=2026-01-26/912797SN8/3.58"
	f(14, "2026-01-26", "2026-01-13", []string{note, sn8, sm0}, []string{next})
	f(1, "2026-01-26", "2026-01-26", []string{note, sn8}, nil)
	f(60, "2026-01-26", "2025-11-28", []string{note, sn8, sm0,
		"2026-01-12 912797QD2 Bill 13-Week AUCTIONED disc=3.57 inv=3.653 btc=2.79 ind=49.3422 pd=41.7755 dir=8.8823 offer=86000000000 prev=2026-01-05/912797SL2/3.54",
		"2026-01-05 912797SL2 Bill 13-Week AUCTIONED disc=3.54 inv=3.622 btc=2.84 ind=52.6280 pd=39.5073 dir=7.8646 offer=86000000000",
	}, []string{next})
	// Asked before the newest results' date, the window ends on the day
	// asked.
	a, _ := v.Auctions(at("2026-01-21T08:00:00Z"), 14)
	if a.DataAsOf != "2026-01-21" || len(a.Recent) != 2 || len(a.Announced) != 3 {
		t.Fatalf("%s: %d recent, %d announced", a.DataAsOf, len(a.Recent), len(a.Announced))
	}
}
