package ratesview

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// allRecords is a record set touching every answer.
func allRecords() []*schemas.RatesRecord {
	eth, base, pol := testReserves[0], testReserves[1], testReserves[2]
	buidl, ousg := testFunds[0], testFunds[1]
	rs := []*schemas.RatesRecord{
		rec("2024-10-10T22:00:00Z", par20241010), rec("2024-10-09T22:00:00Z", par20241009), rec("2024-07-30T22:00:00Z", par20240730),
		rec("2024-07-30T22:30:00Z", real20240730), rec("2024-07-29T22:30:00Z", real20240729),
		rec("2024-10-11T09:00:00Z", nominal("2024-10-10", "1M=4.98", "2M=4.84", "3M=4.75", "4M=4.65", "6M=4.45", "1Y=4.22", "2Y=3.98", "3Y=3.88", "5Y=3.91", "7Y=3.99", "10Y=4.10", "20Y=4.44", "30Y=4.38")), // a revision of the 10-year
		rec("2024-06-06T13:00:00Z", &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR, Date: "2024-06-06", Percent: 5.33, Volume: f64(2008)}),
		rec("2024-06-05T13:00:00Z", &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR, Date: "2024-06-05", Percent: 5.33}),
		rec("2023-06-06T14:00:00Z", &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_EFFR, Date: "2023-06-06", Percent: 5.08, TargetFrom: f64(5), TargetTo: f64(5.25)}),
		rec("2024-06-07T08:00:00Z", &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, Date: "2024-06-06", Percent: 3.911}),
		rec("2024-10-11T11:55:00Z", lending(eth, "55000000000000000000000000", "70000000000000000000000000", 20_900_000, "2024-10-11T11:54:59Z")),
		rec("2024-10-11T11:50:00Z", lending(eth, "54000000000000000000000000", "70000000000000000000000000", 20_899_975, "2024-10-11T11:49:59Z")),
		rec("2024-10-11T11:55:00Z", lending(pol, "2815387323021300469652266", "22059241931586727924925162", 62_000_000, "2024-10-11T11:54:58Z")),
		rec("2024-10-11T11:40:00Z", lending(base, "60000000000000000000000000", "80000000000000000000000000", 21_000_000, "2024-10-11T11:39:59Z")),
		rec("2024-10-11T11:55:01Z", &schemas.RatesFault{Scope: "aave-v3:base", Reason: "rpc error: connection refused", FirstFailureNs: ns("2024-10-11T11:45:00Z")}),
		rec("2024-10-11T11:50:01Z", &schemas.RatesFault{Scope: "aave-v3:base", Reason: "rpc error: timeout", FirstFailureNs: ns("2024-10-11T11:45:00Z")}),
		snap(buidl, "2024-10-11T11:00:00Z", "2525000000000000", 6), snap(buidl, "2024-10-10T11:00:00Z", "2500000000000000", 6),
		snap(ousg, "2024-10-11T11:00:00Z", "499000000000000000000000", 18), snap(ousg, "2024-10-10T11:00:00Z", "500000000000000000000000", 18),
		snap(buidl, "2024-09-01T11:00:00Z", "1", 6), // older than the kept history
	}
	return append(rs, auctionRecords()...)
}

func answers(t *testing.T, v *View, now time.Time) string {
	t.Helper()
	c, err := v.Curve(now)
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.DefiSpread(now)
	if err != nil {
		t.Fatal(err)
	}
	f, err := v.TokenizedTreasuries(now)
	if err != nil {
		t.Fatal(err)
	}
	a, err := v.Auctions(now.AddDate(2, 0, 0), DefaultAuctionDays) // the auctions are of January 2026
	if err != nil {
		t.Fatal(err)
	}
	return toJSON(t, map[string]any{"curve": c, "defiSpread": d, "tokenizedTreasuries": f, "auctions": a})
}

func fullView(rs []*schemas.RatesRecord) *View {
	v := New(Config{Notice: "NOTICE", NoticeURL: "https://www.newyorkfed.org/privacy/termsofuse", Reserves: testReserves, Funds: testFunds})
	for _, r := range rs {
		if err := v.Apply(r); err != nil {
			panic(err)
		}
	}
	return v
}

// TestOrderIndependence applies the same records in 50 random orders, some
// twice (at-least-once delivery): every answer is byte-identical.
func TestOrderIndependence(t *testing.T) {
	now := at("2024-10-11T12:00:00Z")
	rs := allRecords()
	want := answers(t, fullView(rs), now)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		p := append([]*schemas.RatesRecord(nil), rs...)
		rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
		if i%2 == 1 {
			p = append(p, p[:len(p)/3]...)
		}
		if got := answers(t, fullView(p), now); got != want {
			t.Fatalf("order %d gives another answer:\n%s\nwant\n%s", i, got, want)
		}
	}
}

// TestGoldenAnswers pins the JSON of the four answers.
func TestGoldenAnswers(t *testing.T) {
	golden(t, "answers.golden.json", answers(t, fullView(allRecords()), at("2024-10-11T12:00:00Z")))
}
