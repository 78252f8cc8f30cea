package ratesview

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/markets/uscal"
	"github.com/marketintel/mi/schemas"
)

// benchReserves and benchFunds are the five chains and five funds of
// production.
var (
	benchReserves = []Reserve{
		{"aave-v3", "ethereum", 1, "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "USDC"},
		{"aave-v3", "base", 8453, "0xa238dd80c259a72e81d7e4664a9801593f98d1c5", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "USDC"},
		{"aave-v3", "arbitrum", 42161, "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0xaf88d065e77c8cc2239327c5edb3a432268e5831", "USDC"},
		{"aave-v3", "optimism", 10, "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0x0b2c639c533813f4aa9d7837caf62653d097ff85", "USDC"},
		{"aave-v3", "polygon", 137, "0x794a61358d6845594f94dc1db02a252b5b4814ad", "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", "USDC"},
	}
	benchFunds = []Fund{
		{"BUIDL", "BUIDL", "BlackRock", "ethereum", "0x7712c34205737192402172409a8f7ccef8aa2aec"},
		{"OUSG", "OUSG", "Ondo", "ethereum", "0x1b19c19393e2d034d8ff31ff34c81252fcbbee92"},
		{"USDY", "USDY", "Ondo", "ethereum", "0x96f6ef951840721adbf46ac996b59e0235cb985c"},
		{"USTB", "USTB", "Superstate", "ethereum", "0x43415eb6ff9db7e26a15b704e7a3edce97d31c4e"},
		{"USYC", "USYC", "Hashnote", "ethereum", "0x136471a34f6ef19fe571effc1ca711fdb8e49f2b"},
	}
)

// genYear generates a year of records ending at end, at production rates:
// every bond business day a nominal and a real curve, SOFR, EFFR and €STR;
// each of five reserves every 5 minutes; each of five funds every hour;
// six auctions a week, announced then auctioned; a fault a day.
func genYear(end time.Time) []*schemas.RatesRecord {
	start := end.AddDate(-1, 0, 0)
	var rs []*schemas.RatesRecord
	add := func(t time.Time, body any) { rs = append(rs, rec(t.UTC().Format(time.RFC3339), body)) }
	terms := []string{"4-Week", "8-Week", "13-Week", "17-Week", "26-Week", "52-Week"}
	cusip := 0
	for d := uscal.DateOf(start); d <= uscal.DateOf(end); d++ {
		day := d.Time()
		if uscal.Bond.IsBusinessDay(d) {
			date := d.String()
			x := float64(d%100) / 100
			add(day.Add(22*time.Hour), nominal(date, fmt.Sprintf("1M=%.2f", 4+x), fmt.Sprintf("3M=%.2f", 4.1+x), fmt.Sprintf("2Y=%.2f", 3.9+x),
				fmt.Sprintf("5Y=%.2f", 3.8+x), fmt.Sprintf("10Y=%.2f", 4+x), fmt.Sprintf("30Y=%.2f", 4.3+x)))
			add(day.Add(22*time.Hour), realCurve(date, fmt.Sprintf("5Y=%.2f", 1.5+x), fmt.Sprintf("10Y=%.2f", 1.8+x), fmt.Sprintf("30Y=%.2f", 2.1+x)))
			for k := schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR; k <= schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR; k++ {
				add(day.Add(13*time.Hour), &schemas.OvernightRate{Kind: k, Date: date, Percent: 4 + x, Volume: f64(2000)})
			}
			if d.Weekday() != time.Friday {
				for i := 0; i < 2; i++ {
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
			for i, r := range benchReserves {
				ray := new(big.Int).Mul(big.NewInt(int64(40000+m+i*100)), new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)).String()
				add(t, lending(r, ray, ray+"1", uint64(t.Unix()/12), t.Add(-time.Second).Format(time.RFC3339)))
			}
			if m%60 == 0 {
				for i, f := range benchFunds {
					raw := new(big.Int).Mul(big.NewInt(int64(1_000_000_000+int(d)*1000+m+i)), big.NewInt(1_000_000)).String()
					add(t, &schemas.FundSupply{Symbol: f.Symbol, Chain: f.Chain, Token: f.Token, TotalSupplyRaw: raw, Decimals: 6,
						BlockNumber: uint64(t.Unix() / 12), BlockTime: t.Unix() + 12, SnapshotTime: t.Unix()})
				}
			}
		}
		add(day.Add(3*time.Hour), &schemas.RatesFault{Scope: "aave-v3:optimism", Reason: "rpc error: timeout", FirstFailureNs: day.Add(3 * time.Hour).UnixNano()})
	}
	return rs
}

var benchEnd = time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC)

func benchView(b *testing.B) (*View, int) {
	b.Helper()
	rs := genYear(benchEnd)
	v := New(Config{Notice: "N", Reserves: benchReserves, Funds: benchFunds})
	for _, r := range rs {
		if err := v.Apply(r); err != nil {
			b.Fatal(err)
		}
	}
	return v, len(rs)
}

// BenchmarkRebuildYear is the cold start: a year of records decoded from
// their wire bytes and applied to an empty view.
func BenchmarkRebuildYear(b *testing.B) {
	rs := genYear(benchEnd)
	wire := make([][]byte, len(rs))
	for i, r := range rs {
		wire[i], _ = proto.Marshal(r)
	}
	b.ReportMetric(float64(len(rs)), "records")
	cpu0 := cpuTime()
	for b.Loop() {
		v := New(Config{Notice: "N", Reserves: benchReserves, Funds: benchFunds})
		for _, w := range wire {
			var r schemas.RatesRecord
			if err := proto.Unmarshal(w, &r); err != nil {
				b.Fatal(err)
			}
			if err := v.Apply(&r); err != nil {
				b.Fatal(err)
			}
		}
	}
	// CPU time of the process per rebuild: the machine is shared, and
	// the wall time counts the other processes too.
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRoutes answers each route from a view holding a year and
// renders it as JSON; p50 and p99 are reported per call.
func BenchmarkRoutes(b *testing.B) {
	v, _ := benchView(b)
	now := benchEnd.Add(time.Minute)
	routes := []struct {
		name string
		call func() (any, error)
	}{
		{"curve", func() (any, error) { return v.Curve(now) }},
		{"defi-spread", func() (any, error) { return v.DefiSpread(now) }},
		{"tokenized-treasuries", func() (any, error) { return v.TokenizedTreasuries(now) }},
		{"auctions", func() (any, error) { return v.Auctions(now, 14) }},
		{"auctions-60d", func() (any, error) { return v.Auctions(now, 60) }},
	}
	for _, r := range routes {
		b.Run(r.name, func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				t0 := time.Now()
				a, err := r.call()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(a); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
