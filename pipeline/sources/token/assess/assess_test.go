package assess

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestFlowVerdict(t *testing.T) {
	pool := []Pool{{Address: "0xp", LiquidityUSD: 50_000}}
	f := func(pools []Pool, liq float64, swaps int, vol, bp float64, want string) {
		t.Helper()
		fl := &Flow{Pools: pools, LiquidityUSD: liq, Swaps: swaps, VolumeUSD: vol, BuyPressure: bp}
		if got, reason := FlowVerdict(fl); got != want || reason == "" {
			t.Fatalf("liq %v swaps %d vol %v bp %v: %s, want %s", liq, swaps, vol, bp, got, want)
		}
	}
	f(nil, 0, 100, 1e6, 90, NoPool)
	f(pool, 9_999, 100, 1e6, 90, Illiquid)
	f(pool, 10_000, 4, 1e6, 90, Illiquid)
	f(pool, 10_000, 5, 999, 90, Illiquid)
	f(pool, 10_000, 5, 1_000, 60, Accumulation)
	f(pool, 10_000, 5, 1_000, 59.99, Balanced)
	f(pool, 10_000, 5, 1_000, 40.01, Balanced)
	f(pool, 10_000, 5, 1_000, 40, Distribution)
	f(pool, 10_000, 5, 1_000, 0, Distribution)
}

// TestSummarize: six trades by hand. Buys 1000 + 500 + 250 = 1750 USD,
// sells 100 + 150 = 250, one trade of the shallow pool (200, buy) →
// buy 1950 / 2200 = 88.636 %. Wallets: A 1250 (1000+250), B 650
// (500+150), C 100, D 200 → top five = all 2200 of 2200. Price change from
// the deep pool's first price 1.00 to its last 1.10: +10 %.
func TestSummarize(t *testing.T) {
	fl := &Flow{Pools: []Pool{{Address: "deep", LiquidityUSD: 80_000, PriceUSD: 1.1}, {Address: "shallow", LiquidityUSD: 20_000, PriceUSD: 1.2}}}
	trades := []Trade{
		{Pool: "deep", Block: 3, LogIndex: 1, Trader: "A", Buy: true, USD: 250, PriceUSD: 1.05},
		{Pool: "deep", Block: 1, LogIndex: 0, Trader: "A", Buy: true, USD: 1000, PriceUSD: 1.00, TxHash: "0xa"},
		{Pool: "deep", Block: 2, LogIndex: 0, Trader: "B", Buy: true, USD: 500, PriceUSD: 1.02},
		{Pool: "deep", Block: 4, LogIndex: 0, Trader: "C", Buy: false, USD: 100, PriceUSD: 1.04},
		{Pool: "deep", Block: 5, LogIndex: 0, Trader: "B", Buy: false, USD: 150, PriceUSD: 1.10},
		{Pool: "shallow", Block: 5, LogIndex: 3, Trader: "D", Buy: true, USD: 200, PriceUSD: 1.3},
	}
	Summarize(fl, trades, nil)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("%s = %v, want %v", name, got, want)
		}
	}
	if fl.Swaps != 6 || fl.Buys != 4 || fl.Sells != 2 {
		t.Fatalf("counts %d %d %d", fl.Swaps, fl.Buys, fl.Sells)
	}
	near("buy", fl.BuyVolumeUSD, 1950)
	near("sell", fl.SellVolumeUSD, 250)
	near("pressure", fl.BuyPressure, 100*1950.0/2200)
	near("net", fl.NetFlowUSD, 1700)
	near("liquidity", fl.LiquidityUSD, 100_000)
	near("price", fl.PriceUSD, 1.1)
	near("change", fl.PriceChangePercent, 10)
	near("top share", fl.Concentration.TopSharePercent, 100)
	if fl.Concentration.Traders != 4 || fl.LargestTrade.TxHash != "0xa" || fl.Verdict != Accumulation {
		t.Fatalf("%+v %+v %s", fl.Concentration, fl.LargestTrade, fl.Verdict)
	}
	// With seven wallets the top five hold (1250+650+200+100+90)/(2200+90+80).
	trades = append(trades, Trade{Pool: "deep", Block: 6, Trader: "E", USD: 90, Buy: true}, Trade{Pool: "deep", Block: 7, Trader: "F", USD: 80, Buy: true})
	fl2 := &Flow{Pools: fl.Pools}
	Summarize(fl2, trades, nil)
	near("top five", fl2.Concentration.TopSharePercent, 100*2290.0/2370)
}

// baseFacts are a clean token's facts.
func baseFacts() Facts {
	return Facts{Token: "0xT", Chain: "base", Symbol: "T", Decimals: 18,
		Sim:         SimFacts{Ran: true, Pool: "0xP", Buyer: "0xB", BuyerSource: "the most recent buyer", QuoteIn: "0.1 WETH", BuyTried: true, BuyOK: true, SellTried: true, SellOK: true},
		Owner:       OwnerFacts{Read: true},
		Proxy:       ProxyFacts{Read: true},
		CodeScanned: true, Functions: map[string][]string{},
		Liquidity:   LiquidityFacts{Read: true, USD: 600_000, Pools: 1, LPShareKnown: true, LPBurnedShare: 1, LPPool: "0xP"},
		ObservedTax: ObservedTaxFacts{Read: true, Samples: 3},
		Flow:        &Flow{Verdict: Balanced, Swaps: 10, VolumeUSD: 5000, BuyPressure: 50},
		Timestamp:   time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), ReadAt: time.Date(2026, 3, 2, 10, 0, 1, 0, time.UTC)}
}

// TestAssessRules: each rule's result, penalty and the verdict.
func TestAssessRules(t *testing.T) {
	f := func(name string, edit func(*Facts), wantVerdict string, wantScore int, wantChecks map[string]string) {
		t.Helper()
		facts := baseFacts()
		edit(&facts)
		r := Assess(facts)
		if r.Verdict != wantVerdict || r.SafetyScore != wantScore {
			t.Fatalf("%s: %s %d, want %s %d\n%+v", name, r.Verdict, r.SafetyScore, wantVerdict, wantScore, r.Checks)
		}
		for c, res := range wantChecks {
			found := false
			for _, ch := range r.Checks {
				if ch.Name == c {
					found = true
					if ch.Result != res {
						t.Fatalf("%s: %s = %s, want %s (%s)", name, c, ch.Result, res, ch.Detail)
					}
				}
			}
			if !found {
				t.Fatalf("%s: no check %s", name, c)
			}
		}
	}
	f("clean", func(*Facts) {}, LowRisk, 100, map[string]string{"sell_simulation": Pass, "buy_tax": Pass, "sell_tax": Pass, "ownership": Pass, "lp_burned_or_locked": Pass})
	f("honeypot", func(f *Facts) { f.Sim.SellOK, f.Sim.SellError = false, "execution reverted: no" }, HighRisk, 0, map[string]string{"sell_simulation": Fail})
	f("tax 2.99%", func(f *Facts) { f.Sim.SellTax = 0.0299 }, LowRisk, 100, map[string]string{"sell_tax": Pass})
	f("tax 3%", func(f *Facts) { f.Sim.SellTax = 0.03 }, LowRisk, 85, map[string]string{"sell_tax": Warn})
	f("tax 10% both", func(f *Facts) { f.Sim.SellTax, f.Sim.BuyTax = 0.1, 0.1 }, Caution, 70, map[string]string{"sell_tax": Warn, "buy_tax": Warn})
	f("tax 25%", func(f *Facts) { f.Sim.SellTax = 0.25 }, HighRisk, 50, map[string]string{"sell_tax": Fail})
	f("buy reverts", func(f *Facts) { f.Sim.BuyOK, f.Sim.BuyError = false, "execution reverted: Trading is not open" }, HighRisk, 60, map[string]string{"buy_simulation": Fail})
	f("not simulated", func(f *Facts) { f.Sim = SimFacts{Reason: "cannot read the chain: timeout", Failed: true} }, Caution, 70, map[string]string{"sell_simulation": Unknown, "buy_simulation": Unknown})
	f("owned", func(f *Facts) { f.Owner = OwnerFacts{Read: true, HasOwner: true, Address: "0xO"} }, LowRisk, 95, map[string]string{"ownership": Warn})
	f("renounced with mint", func(f *Facts) {
		f.Owner = OwnerFacts{Read: true, HasOwner: true, Address: "0x0000000000000000000000000000000000000000", Renounced: true}
		f.Functions = map[string][]string{"mint_function": {"mint(address,uint256)"}}
	}, LowRisk, 100, map[string]string{"ownership": Pass, "mint_function": Info})
	f("owned blacklist pause mint", func(f *Facts) {
		f.Owner = OwnerFacts{Read: true, HasOwner: true, Address: "0xO"}
		f.Functions = map[string][]string{"mint_function": {"mint(address,uint256)"}, "blacklist_function": {"setBlacklist(address,bool)"}, "pause_function": {"pause()"}}
	}, Caution, 45, map[string]string{"blacklist_function": Warn, "pause_function": Warn, "mint_function": Warn})
	f("proxy", func(f *Facts) { f.Proxy = ProxyFacts{Read: true, Kind: "eip1967", Implementation: "0xI", Admin: "0xA"} }, Caution, 75, map[string]string{"proxy": Warn})
	f("clone", func(f *Facts) { f.Proxy = ProxyFacts{Read: true, Kind: "eip1167", Implementation: "0xI"} }, LowRisk, 100, map[string]string{"proxy": Info})
	f("thin", func(f *Facts) { f.Liquidity.USD = 20_000 }, LowRisk, 90, map[string]string{"liquidity": Warn})
	f("no liquidity", func(f *Facts) { f.Liquidity.USD = 9_000 }, Caution, 70, map[string]string{"liquidity": Fail})
	f("no pool", func(f *Facts) {
		f.Liquidity = LiquidityFacts{Read: true}
		f.Sim = SimFacts{Reason: "no pool of the token on the listed venues"}
	}, Caution, 40, map[string]string{"liquidity": Fail, "sell_simulation": Unknown})
	f("LP unlocked", func(f *Facts) { f.Liquidity.LPBurnedShare = 0.5 }, LowRisk, 95, map[string]string{"lp_burned_or_locked": Warn})
	f("observed tax", func(f *Facts) { f.ObservedTax.Tax = 0.3 }, Caution, 70, map[string]string{"observed_buy_tax": Fail})
	f("distribution", func(f *Facts) { f.Flow.Verdict = Distribution }, LowRisk, 95, map[string]string{"last_hour_flow": Warn})
	f("code unread", func(f *Facts) { f.CodeScanned, f.CodeReason = false, "timeout" }, LowRisk, 90, map[string]string{"bytecode_scan": Unknown})
}

// TestLPDetail: the WARN detail of lp_burned_or_locked says what was
// counted — burned LP alone when no locker is listed (the default), the
// listed lockers otherwise — and that the rest may sit in a locker the
// check does not know.
func TestLPDetail(t *testing.T) {
	f := func(lockers int, want string) {
		t.Helper()
		facts := baseFacts()
		facts.Liquidity.LPBurnedShare, facts.Liquidity.LPLockers = 0.25, lockers
		for _, c := range Assess(facts).Checks {
			if c.Name == "lp_burned_or_locked" {
				if c.Result != Warn || c.Detail != want {
					t.Fatalf("%d lockers: %s %q, want WARN %q", lockers, c.Result, c.Detail, want)
				}
				return
			}
		}
		t.Fatal("no lp_burned_or_locked check")
	}
	f(0, "25.0% of the LP tokens of 0xP burned (0x0, 0x…dEaD): the rest can withdraw the liquidity unless it sits in a locker this check does not list")
	f(2, "25.0% of the LP tokens of 0xP burned (0x0, 0x…dEaD) or in one of 2 listed lockers: the rest can withdraw the liquidity unless it sits in a locker this check does not list")
}

// TestScanFunctions: the selectors of a signature list are found by class.
func TestScanFunctions(t *testing.T) {
	if Selector("mint(address,uint256)") != 0x40c10f19 || Selector("pause()") != 0x8456cb59 || Selector("openTrading()") != 0xc9567bf9 {
		t.Fatal("selector")
	}
	got := ScanFunctions([]uint32{0x40c10f19, 0x8456cb59, 0xdeadbeef})
	if !slices.Equal(got["mint_function"], []string{"mint(address,uint256)"}) || !slices.Equal(got["pause_function"], []string{"pause()"}) || len(got) != 2 {
		t.Fatalf("%v", got)
	}
}

// TestReportGolden: the JSON of a fee token's report.
func TestReportGolden(t *testing.T) {
	facts := baseFacts()
	facts.Sim.BuyTax, facts.Sim.SellTax = 0.1, 0.1
	facts.Owner = OwnerFacts{Read: true, HasOwner: true, Address: "0x00000000000000000000000000000000000000aa"}
	facts.Functions = map[string][]string{"fee_setter": {"setFees(uint256,uint256)"}}
	facts.ObservedTax.Tax = 0.1
	b, err := json.MarshalIndent(Assess(facts), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "report_fee.golden.json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b) {
		t.Fatalf("report differs from %s (go test -update):\n%s", path, b)
	}
}
