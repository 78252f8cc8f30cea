package opportunity

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"
)

// flow is a reading that meets unusual_buying with the default constraints.
func flow(sym string) Flow {
	return Flow{Symbol: sym, BuyPressure: 70, MomentumScore: 60, PriceChangePercent: 1, VolumeMultiple: 2,
		BaselineReady: true, VolumeUsd: 50_000, Confidence: 70, TradeCount: 40, EventType: "NORMAL"}
}

func TestJudge(t *testing.T) {
	f := func(o Objective, c Constraints, in Flow, wantReason string) {
		t.Helper()
		_, reason := judge(o, c, in)
		if reason != wantReason {
			t.Errorf("%s %+v: reason %q, want %q", o, in, reason, wantReason)
		}
	}
	d := Defaults
	with := func(mod func(*Flow)) Flow { x := flow("X"); mod(&x); return x }
	f(UnusualBuying, d, flow("X"), "")
	f(UnusualBuying, d, with(func(x *Flow) { x.BuyPressure = 60 }), "")                             // edge: ≥ 60
	f(UnusualBuying, d, with(func(x *Flow) { x.BuyPressure = 59.99 }), ReasonBelowBuyPressure)      // just under
	f(UnusualBuying, d, with(func(x *Flow) { x.VolumeMultiple = 1.5 }), "")                         // edge: ≥ 1.5
	f(UnusualBuying, d, with(func(x *Flow) { x.VolumeMultiple = 1.49 }), ReasonBelowVolumeMultiple) // just under
	f(UnusualBuying, d, with(func(x *Flow) { x.BaselineReady = false }), ReasonNoBaseline)          // no baseline: no multiple
	f(UnusualBuying, d, with(func(x *Flow) { x.TradeCount = 2 }), ReasonTooFewTrades)               // < 3 trades
	f(UnusualBuying, d, with(func(x *Flow) { x.Confidence = 49 }), ReasonBelowConfidence)           // < 50
	f(UnusualBuying, Constraints{MinBuyPressure: 60, MinVolumeMultiple: 1.5, MinVolumeUsd: 50_001, MinConfidence: 50, MinIndependentSources: 1, MaxResults: 10},
		flow("X"), ReasonBelowVolumeUsd)
	f(UnusualSelling, d, flow("X"), ReasonBelowBuyPressure)                                                          // 30% sell pressure
	f(UnusualSelling, d, with(func(x *Flow) { x.BuyPressure = 40 }), "")                                             // 60% sell pressure
	f(Breakout, d, with(func(x *Flow) { x.MomentumScore = 65 }), "")                                                 // momentum edge, volume confirms
	f(Breakout, d, with(func(x *Flow) { x.MomentumScore = 64.9 }), ReasonRuleNotMet)                                 // below 65
	f(Breakout, d, with(func(x *Flow) { x.MomentumScore = 80; x.PriceChangePercent = 0 }), ReasonRuleNotMet)         // price not up
	f(Breakout, d, with(func(x *Flow) { x.MomentumScore = 80; x.VolumeMultiple = 1 }), ReasonRuleNotMet)             // not confirmed
	f(Breakout, d, with(func(x *Flow) { x.MomentumScore = 80; x.VolumeMultiple = 1; x.EventType = "BREAKOUT" }), "") // event confirms
	f(Breakdown, d, with(func(x *Flow) { x.MomentumScore = 35; x.PriceChangePercent = -2 }), "")
	f(Breakdown, d, with(func(x *Flow) { x.MomentumScore = 35.1; x.PriceChangePercent = -2 }), ReasonRuleNotMet)
	f(Breakdown, d, with(func(x *Flow) {
		x.MomentumScore = 20
		x.PriceChangePercent = -2
		x.VolumeMultiple = 1
		x.EventType = "BREAKOUT"
	}), ReasonRuleNotMet)
	f(Breakdown, d, with(func(x *Flow) {
		x.MomentumScore = 20
		x.PriceChangePercent = -2
		x.VolumeMultiple = 1
		x.EventType = "DISTRIBUTION"
	}), "")
}

// reads makes one reading per flow, and n readings without any source.
func reads(n int, flows ...Flow) []Reading {
	out := make([]Reading, 0, len(flows)+n)
	for i := range flows {
		out = append(out, Reading{Symbol: flows[i].Symbol, Flow: &flows[i]})
	}
	for i := range n {
		out = append(out, Reading{Symbol: fmt.Sprintf("NONE%d", i)})
	}
	return out
}

func TestScore(t *testing.T) {
	f := func(dir string, in Flow, want int) {
		t.Helper()
		if got := Score(dir, in); got != want {
			t.Errorf("Score(%s, %+v) = %d, want %d", dir, in, got, want)
		}
	}
	// 0.35·0.4 + 0.25·0.25 + 0.15·0.2 + 0.15·0.7 + 0 = 0.3375 → 34
	f(Bullish, flow("X"), 34)
	// bearish reading of the same flow: side 30, momentum 40 → 0 + 0.0625 + 0 + 0.105 = 0.1675 → 17
	f(Bearish, flow("X"), 17)
	// everything at full: 100
	f(Bullish, Flow{BuyPressure: 100, MomentumScore: 100, VolumeMultiple: 9, BaselineReady: true, Confidence: 100, EventType: "ACCUMULATION"}, 100)
	// no baseline: the volume part is 0; NaN pressure counts 0
	f(Bullish, Flow{BuyPressure: 100, MomentumScore: 50, VolumeMultiple: 9, Confidence: 0}, 35)
}

func TestScanRanksAndCounts(t *testing.T) {
	a, b, c := flow("AAA"), flow("BBB"), flow("CCC")
	b.BuyPressure = 90 // higher score
	c.VolumeUsd = 60_000
	thin := flow("DDD")
	thin.TradeCount = 1
	d := Defaults
	d.MaxResults = 2
	r := Scan(UnusualBuying, d, reads(3, c, thin, a, b))
	var got []string
	for _, x := range r.Candidates {
		got = append(got, fmt.Sprintf("%s %d", x.Symbol, x.Score))
	}
	// BBB first (score), then CCC over AAA (same score, more volume); AAA beyond maxResults.
	if want := []string{"BBB 48", "CCC 34"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ranked %v, want %v", got, want)
	}
	wantOut := map[string]int{ReasonNoFreshData: 3, ReasonTooFewTrades: 1, ReasonBeyondMaxResults: 1}
	for _, reason := range Reasons {
		if r.FilteredOut[reason] != wantOut[reason] {
			t.Errorf("filteredOut[%s] = %d, want %d", reason, r.FilteredOut[reason], wantOut[reason])
		}
	}
	if len(r.FilteredOut) != len(Reasons) {
		t.Errorf("filteredOut has %d reasons, want every one of %d", len(r.FilteredOut), len(Reasons))
	}
	top := r.Candidates[0]
	if !reflect.DeepEqual(top.ConfirmingSources, []string{SourceSpotFlow}) || len(top.Supporting) == 0 || top.Direction != Bullish {
		t.Fatalf("top candidate %+v", top)
	}
	// Unusual volume is ACTIVITY evidence, supporting.
	found := false
	for _, e := range top.Supporting {
		found = found || e.Type == "volume_multiple" && e.Direction == Activity
	}
	if !found {
		t.Errorf("no ACTIVITY volume evidence in %+v", top.Supporting)
	}
}

func TestScanMissingPrimarySource(t *testing.T) {
	// Documents alone: the positioning and smart-money objectives count
	// every symbol under source_unavailable; a symbol with nothing under
	// no_fresh_data for the flow objectives.
	for _, o := range []Objective{CrowdedPositioning, SmartMoneyAccumulation, SmartMoneyDistribution} {
		r := Scan(o, Defaults, reads(0, flow("A"), flow("B")))
		if len(r.Candidates) != 0 || r.FilteredOut[ReasonSourceUnavailable] != 2 {
			t.Errorf("%s: %+v", o, r)
		}
	}
	r := Scan(UnusualBuying, Defaults, reads(2))
	if len(r.Candidates) != 0 || r.FilteredOut[ReasonNoFreshData] != 2 {
		t.Errorf("no data: %+v", r)
	}
}

func TestScanEvidenceConflicts(t *testing.T) {
	x := flow("X")
	x.BuyPressure, x.MomentumScore, x.PriceChangePercent = 30, 70, 6 // sellers dominate, price rose
	r := Scan(UnusualSelling, Defaults, reads(0, x))
	if len(r.Candidates) != 1 {
		t.Fatalf("%+v", r)
	}
	c := r.Candidates[0]
	var con []string
	for _, e := range c.Conflicting {
		con = append(con, e.Type)
	}
	if !reflect.DeepEqual(con, []string{"momentum", "price_change"}) {
		t.Errorf("conflicting %v", con)
	}
	var rk []string
	for _, k := range c.Risks {
		rk = append(rk, k.Type)
	}
	if !reflect.DeepEqual(rk, []string{"extended_move"}) {
		t.Errorf("risks %v", rk)
	}
}

func BenchmarkScan1000(b *testing.B) {
	flows := make([]Flow, 1000)
	for i := range flows {
		flows[i] = flow(fmt.Sprintf("S%04d", i))
		flows[i].BuyPressure = 50 + float64(i%50)
		flows[i].VolumeMultiple = 1 + float64(i%7)/2
	}
	rs := reads(0, flows...)
	b.ReportAllocs()
	for b.Loop() {
		Scan(UnusualBuying, Defaults, rs)
	}
}

func pos(flag string, long, oi, funding float64) *Positioning {
	return &Positioning{OpenInterestUSD: oi, HasShare: true, LongShare: long, ShortShare: 1 - long, FundingAnnualizedPercent: funding, Flag: flag}
}

func smart(dir string, buy, sell float64, wallets int) *SmartMoney {
	return &SmartMoney{Direction: dir, TopDecileWallets: wallets, TopDecileBuyUSD: buy, TopDecileSellUSD: sell, TopDecileNetUSD: buy - sell}
}

func TestJudgeSources(t *testing.T) {
	f := func(o Objective, minSources int, rd Reading, wantReason, wantDir, wantSources string) {
		t.Helper()
		c := Defaults
		c.MinIndependentSources = minSources
		cand, reason := judgeReading(o, c, rd)
		if reason != wantReason || reason == "" && (cand.Direction != wantDir || fmt.Sprint(cand.ConfirmingSources) != wantSources) {
			t.Errorf("%s min %d %+v: reason %q dir %q sources %v; want %q %q %s", o, minSources, rd, reason, cand.Direction,
				cand.ConfirmingSources, wantReason, wantDir, wantSources)
		}
	}
	buying, selling, flat := flow("X"), flow("X"), flow("X") // 70%, 30%, 52% buy pressure
	selling.BuyPressure, flat.BuyPressure = 30, 52
	long := pos(FlagCrowdedLong, 0.72, 2e6, 15)
	short := pos(FlagCrowdedShort, 0.30, 2e6, -15)
	stale := pos(FlagCrowdedLong, 0.72, 2e6, 15)
	stale.Stale = true
	r := func(fl *Flow, p *Positioning, m *SmartMoney) Reading {
		return Reading{Symbol: "X", Flow: fl, Positioning: p, SmartMoney: m}
	}
	// crowded_positioning: the direction is against the crowd.
	f(CrowdedPositioning, 1, r(nil, long, nil), "", Bearish, "[perp_positioning]")
	f(CrowdedPositioning, 1, r(nil, short, nil), "", Bullish, "[perp_positioning]")
	f(CrowdedPositioning, 1, r(nil, pos("NONE", 0.64, 2e6, 0), nil), ReasonRuleNotMet, "", "")
	f(CrowdedPositioning, 1, r(nil, pos("THIN", 0.90, 40_000, 0), nil), ReasonRuleNotMet, "", "")
	f(CrowdedPositioning, 1, r(&buying, nil, nil), ReasonSourceUnavailable, "", "")
	f(CrowdedPositioning, 1, r(nil, stale, nil), ReasonNoFreshData, "", "")
	// The document's filters apply when there is a document.
	lowConf := flow("X")
	lowConf.Confidence = 40
	f(CrowdedPositioning, 1, r(&lowConf, long, nil), ReasonBelowConfidence, "", "")
	// Independent sources: spot flow selling confirms fading a crowded long;
	// spot buying does not; smart money selling adds the third.
	f(CrowdedPositioning, 2, r(&selling, long, nil), "", Bearish, "[spot_dex_flow perp_positioning]")
	f(CrowdedPositioning, 2, r(&buying, long, nil), ReasonTooFewSources, "", "")
	f(CrowdedPositioning, 2, r(&flat, long, nil), ReasonTooFewSources, "", "")
	f(CrowdedPositioning, 3, r(&selling, long, smart(SmartSelling, 1e4, 9e4, 4)), "", Bearish, "[spot_dex_flow perp_positioning smart_money]")
	f(CrowdedPositioning, 3, r(&selling, long, smart(SmartBuying, 9e4, 1e4, 4)), ReasonTooFewSources, "", "")
	// A flow objective confirmed by positioning and smart money.
	f(UnusualBuying, 1, r(&buying, nil, nil), "", Bullish, "[spot_dex_flow]")
	f(UnusualBuying, 2, r(&buying, nil, nil), ReasonTooFewSources, "", "")
	f(UnusualBuying, 2, r(&buying, long, nil), ReasonTooFewSources, "", "")
	f(UnusualBuying, 2, r(&buying, stale, nil), ReasonTooFewSources, "", "")
	f(UnusualBuying, 2, r(&buying, short, nil), "", Bullish, "[spot_dex_flow perp_positioning]")
	f(UnusualBuying, 3, r(&buying, short, smart(SmartBuying, 9e4, 1e4, 4)), "", Bullish, "[spot_dex_flow perp_positioning smart_money]")
	// Smart money: the top decile's direction is the rule.
	f(SmartMoneyAccumulation, 1, r(nil, nil, smart(SmartBuying, 9e4, 1e4, 4)), "", Bullish, "[smart_money]")
	f(SmartMoneyAccumulation, 1, r(nil, nil, smart(SmartSelling, 1e4, 9e4, 4)), ReasonRuleNotMet, "", "")
	f(SmartMoneyAccumulation, 1, r(nil, nil, smart("FLAT", 5e4, 5e4, 4)), ReasonRuleNotMet, "", "")
	f(SmartMoneyDistribution, 1, r(nil, nil, smart(SmartSelling, 1e4, 9e4, 4)), "", Bearish, "[smart_money]")
	f(SmartMoneyDistribution, 1, r(&buying, nil, nil), ReasonSourceUnavailable, "", "")
	staleSmart := smart(SmartBuying, 9e4, 1e4, 4)
	staleSmart.Stale = true
	f(SmartMoneyAccumulation, 1, r(nil, nil, staleSmart), ReasonNoFreshData, "", "")
	f(SmartMoneyAccumulation, 2, r(&buying, nil, smart(SmartBuying, 9e4, 1e4, 4)), "", Bullish, "[spot_dex_flow smart_money]")
	f(SmartMoneyAccumulation, 2, r(&selling, nil, smart(SmartBuying, 9e4, 1e4, 4)), ReasonTooFewSources, "", "")
}

func TestSourceScores(t *testing.T) {
	c := func(p *Positioning, want int) {
		t.Helper()
		if got := CrowdingScore(*p); got != want {
			t.Errorf("CrowdingScore(%+v) = %d, want %d", *p, got, want)
		}
	}
	// S 0.5, O log10(100)/3, F 30/50: 0.25 + 0.1667 + 0.15 → 57
	c(pos(FlagCrowdedLong, 0.75, 5e6, 30), 57)
	// Full: 85% short, $50M, shorts paying 50%/yr.
	c(pos(FlagCrowdedShort, 0.15, 50e6, -50), 100)
	// At the edges: 65% long, $50k, longs receiving funding.
	c(pos(FlagCrowdedLong, 0.65, 50_000, -10), 0)
	m := func(s *SmartMoney, want int) {
		t.Helper()
		if got := SmartMoneyScore(*s); got != want {
			t.Errorf("SmartMoneyScore(%+v) = %d, want %d", *s, got, want)
		}
	}
	// N 1 (80% one-sided), G log10(10)/2, W 0.5: 0.5 + 0.15 + 0.1 → 75
	m(smart(SmartBuying, 90_000, 10_000, 5), 75)
	// N (0.2-0.05)/0.45, G 0, W 0.1: 0.1667 + 0 + 0.02 → 19
	m(smart(SmartBuying, 6_000, 4_000, 1), 19)
	m(smart("FLAT", 0, 0, 0), 0)
}

var update = flag.Bool("update", false, "rewrite the golden files")

// TestScanGolden scans a universe mixing the three sources for each
// objective with minIndependentSources 1 and 2; the results, evidence and
// risks are compared with testdata/scan.golden.json.
func TestScanGolden(t *testing.T) {
	a, b, c, d, e := flow("AAA"), flow("BBB"), flow("CCC"), flow("DDD"), flow("EEE")
	b.BuyPressure, b.MomentumScore, b.PriceChangePercent, b.EventType = 25, 30, -3, "DISTRIBUTION"
	c.TradeCount = 10
	rs := []Reading{
		{Symbol: "AAA", Flow: &a, Positioning: pos(FlagCrowdedShort, 0.28, 8e6, -35), SmartMoney: smart(SmartBuying, 120_000, 20_000, 6)},
		{Symbol: "BBB", Flow: &b, Positioning: pos(FlagCrowdedLong, 0.78, 3e7, 42), SmartMoney: smart(SmartSelling, 5_000, 60_000, 2)},
		{Symbol: "CCC", Flow: &c, Positioning: pos("NONE", 0.55, 1e6, 5)},
		{Symbol: "DDD", Flow: &d, SmartMoney: smart("FLAT", 10_000, 10_000, 3)},
		{Symbol: "EEE", Flow: &e, Positioning: pos(FlagCrowdedLong, 0.81, 9e5, 25), SmartMoney: smart(SmartSelling, 30_000, 80_000, 8)},
		{Symbol: "PERPX", Positioning: pos(FlagCrowdedLong, 0.70, 2e5, 12)},
		{Symbol: "NOPE"},
	}
	type run struct {
		Objective   Objective
		MinSources  int
		Candidates  []Candidate
		FilteredOut map[string]int
	}
	var got []run
	for _, o := range Objectives {
		for _, n := range []int{1, 2} {
			c := Defaults
			c.MinIndependentSources = n
			r := Scan(Objective(o), c, rs)
			got = append(got, run{Objective(o), n, r.Candidates, r.FilteredOut})
		}
	}
	out, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/scan.golden.json"
	if *update {
		if err := os.WriteFile(golden, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(out, '\n'), want) {
		t.Errorf("scan differs from %s (go test -update to accept):\n%s", golden, out)
	}
}
