// Package ratesgen generates a year of mi.rates.v1 records at production
// rates, for the cold-start benchmarks of the rates view (sinks/ratesview)
// and of its rebuild from the topic (pipeline).
package ratesgen

import (
	"fmt"
	"math/big"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/schemas"
)

// Reserves and Funds are the chains and funds of the records (production's
// five chains and five funds; the addresses are the view's keys).
var (
	Reserves = []struct{ Chain, Pool, Asset string }{
		{"ethereum", "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"},
		{"base", "0xa238dd80c259a72e81d7e4664a9801593f98d1c5", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"},
		{"arbitrum", "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0xaf88d065e77c8cc2239327c5edb3a432268e5831"},
		{"optimism", "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0x0b2c639c533813f4aa9d7837caf62653d097ff85"},
		{"polygon", "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"},
	}
	Funds = []struct{ Symbol, Token string }{
		{"BUIDL", "0x7712c34205737192402172409a8f7ccef8aa2aec"},
		{"OUSG", "0x1b19c19393e2d034d8ff31ff34c81252fcbbee92"},
		{"USDY", "0x96f6ef951840721adbf46ac996b59e0235cb985c"},
		{"USTB", "0x43415eb6ff9db7e26a15b704e7a3edce97d31c4e"},
		{"USYC", "0x136471a34f6ef19fe571effc1ca711fdb8e49f2b"},
	}
)

// Year returns a year of records ending at end: every bond business day a
// nominal and a real curve, SOFR, EFFR and €STR; each of five reserves
// every 5 minutes; each of five funds every hour; two bill auctions a day
// (Monday to Thursday), announced then auctioned; a fault a day.
func Year(end time.Time) []*schemas.RatesRecord {
	start := end.AddDate(-1, 0, 0)
	var rs []*schemas.RatesRecord
	add := func(t time.Time, body any) {
		r := &schemas.RatesRecord{Source: "gen", Publisher: "generated", Url: "gen", ReadTimeNs: t.UnixNano()}
		switch b := body.(type) {
		case *schemas.YieldCurve:
			r.Body = &schemas.RatesRecord_Curve{Curve: b}
		case *schemas.OvernightRate:
			r.Body = &schemas.RatesRecord_Overnight{Overnight: b}
		case *schemas.LendingRate:
			r.Body = &schemas.RatesRecord_Lending{Lending: b}
		case *schemas.FundSupply:
			r.Body = &schemas.RatesRecord_FundSupply{FundSupply: b}
		case *schemas.TreasuryAuction:
			r.Body = &schemas.RatesRecord_Auction{Auction: b}
		case *schemas.RatesFault:
			r.Body = &schemas.RatesRecord_Fault{Fault: b}
		}
		rs = append(rs, r)
	}
	pts := func(tenors []string, base []float64, x float64) []*schemas.CurvePoint {
		out := make([]*schemas.CurvePoint, len(tenors))
		for i := range tenors {
			out[i] = &schemas.CurvePoint{Tenor: tenors[i], Percent: base[i] + x}
		}
		return out
	}
	f64 := func(v float64) *float64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	terms := []string{"4-Week", "8-Week", "13-Week", "17-Week", "26-Week", "52-Week"}
	e21 := new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)
	cusip := 0
	for d := uscal.DateOf(start); d <= uscal.DateOf(end); d++ {
		day := d.Time()
		if uscal.Bond.IsBusinessDay(d) {
			date := d.String()
			x := float64(d%100) / 100
			add(day.Add(22*time.Hour), &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, Date: date,
				Points: pts([]string{"1M", "3M", "2Y", "5Y", "10Y", "30Y"}, []float64{4, 4.1, 3.9, 3.8, 4, 4.3}, x)})
			add(day.Add(22*time.Hour), &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_REAL, Date: date,
				Points: pts([]string{"5Y", "10Y", "30Y"}, []float64{1.5, 1.8, 2.1}, x)})
			for k := schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR; k <= schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR; k++ {
				add(day.Add(13*time.Hour), &schemas.OvernightRate{Kind: k, Date: date, Percent: 4 + x, Volume: f64(2000)})
			}
			if d.Weekday() != time.Friday {
				for range 2 {
					cusip++
					a := &schemas.TreasuryAuction{Cusip: fmt.Sprintf("912797%03d", cusip%1000), SecurityType: "Bill", SecurityTerm: terms[cusip%len(terms)],
						Kind: "Bill", Status: schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED, AuctionDate: date, OfferingAmount: i64(80e9)}
					add(day.Add(-72*time.Hour), a)
					b := proto.Clone(a).(*schemas.TreasuryAuction)
					b.Status, b.HighDiscountRate, b.BidToCover = schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED, f64(4+x), f64(2.8)
					b.CompetitiveAccepted, b.IndirectAccepted, b.PrimaryDealerAccepted, b.DirectAccepted = i64(79e9), i64(50e9), i64(20e9), i64(9e9)
					add(day.Add(16*time.Hour), b)
				}
			}
		}
		for m := 0; m < 24*60; m += 5 {
			t := day.Add(time.Duration(m) * time.Minute)
			if t.After(end) {
				break
			}
			for i, r := range Reserves {
				ray := new(big.Int).Mul(big.NewInt(int64(40000+m+i*100)), e21).String()
				add(t, &schemas.LendingRate{Protocol: "aave-v3", Chain: r.Chain, Pool: r.Pool, Asset: r.Asset, AssetSymbol: "USDC",
					LiquidityRateRay: ray, VariableBorrowRateRay: ray + "1", LiquidityIndexRay: "1000000000000000000000000000",
					VariableBorrowIndexRay: "1000000000000000000000000000", LastUpdateTime: t.Unix() - 30, BlockNumber: uint64(t.Unix() / 12),
					BlockTime: t.Unix() - 1, Active: true, Decimals: 6})
			}
			if m%60 == 0 {
				for i, f := range Funds {
					raw := new(big.Int).Mul(big.NewInt(int64(1_000_000_000+int(d)*1000+m+i)), big.NewInt(1_000_000)).String()
					add(t, &schemas.FundSupply{Symbol: f.Symbol, Chain: "ethereum", Token: f.Token, TotalSupplyRaw: raw, Decimals: 6,
						BlockNumber: uint64(t.Unix() / 12), BlockTime: t.Unix() + 12, SnapshotTime: t.Unix()})
				}
			}
		}
		add(day.Add(3*time.Hour), &schemas.RatesFault{Scope: "aave-v3:optimism", Reason: "rpc error: timeout", FirstFailureNs: day.Add(3 * time.Hour).UnixNano()})
	}
	return rs
}
