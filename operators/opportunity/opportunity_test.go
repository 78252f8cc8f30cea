package opportunity

import (
	"fmt"
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
	f(UnusualBuying, Constraints{MinBuyPressure: 60, MinVolumeMultiple: 1.5, MinConfidence: 50, MinIndependentSources: 2, MaxResults: 10},
		flow("X"), ReasonTooFewSources) // only spot_dex_flow confirms
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
	r := Scan(UnusualBuying, d, []Flow{c, thin, a, b}, 3)
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

func TestScanUnconnectedSources(t *testing.T) {
	for _, o := range []Objective{CrowdedPositioning, SmartMoneyAccumulation, SmartMoneyDistribution} {
		r := Scan(o, Defaults, []Flow{flow("A"), flow("B")}, 1)
		if len(r.Candidates) != 0 || r.FilteredOut[ReasonSourceUnavailable] != 2 || r.FilteredOut[ReasonNoFreshData] != 1 {
			t.Errorf("%s: %+v", o, r)
		}
	}
}

func TestScanEvidenceConflicts(t *testing.T) {
	x := flow("X")
	x.BuyPressure, x.MomentumScore, x.PriceChangePercent = 30, 70, 6 // sellers dominate, price rose
	r := Scan(UnusualSelling, Defaults, []Flow{x}, 0)
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
	b.ReportAllocs()
	for b.Loop() {
		Scan(UnusualBuying, Defaults, flows, 0)
	}
}
