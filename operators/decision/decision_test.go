package decision

import (
	"math"
	"testing"
)

func fp(v float64) *float64 { return &v }

// good returns inputs every check passes for a buy.
func good() Inputs {
	return Inputs{
		Side:       Buy,
		Flow:       &Flow{BuyPressure: 70, MomentumScore: 65, TradeCount: 50, EventType: "NORMAL"},
		Volatility: &Volatility{Closes: []float64{100, 100.1, 100.05, 100.12, 100.1, 100.15, 100.2}, BarMinutes: 1},
		Regime:     "BULLISH",
		News:       &News{},
		Slippage:   &Slippage{CostBps: map[int]*float64{1000: fp(5), 10000: fp(12), 50000: fp(40)}},
	}
}

func TestAssess(t *testing.T) {
	f := func(name string, in Inputs, verdict Verdict, score, known int, results map[string]Result) {
		t.Helper()
		a := Assess(in)
		if a.Verdict != verdict || a.Score != score || a.KnownWeight != known {
			t.Fatalf("%s: %s %d (known %d), want %s %d (%d); %+v", name, a.Verdict, a.Score, a.KnownWeight, verdict, score, known, a)
		}
		for _, c := range a.Checks {
			if want, ok := results[c.Name]; ok && c.Result != want {
				t.Fatalf("%s: %s = %s, want %s (%s)", name, c.Name, c.Result, want, c.Detail)
			}
		}
	}
	f("all pass", good(), Favorable, 100, 100, nil)

	// A thin pool: the $10k order moves the price more than 1%.
	in := good()
	in.Slippage = &Slippage{CostBps: map[int]*float64{1000: fp(60), 10000: nil, 50000: nil}}
	f("thin pool", in, Unfavorable, 85, 100, map[string]Result{CheckSlippage: Fail})
	in.Slippage.CostBps[10000] = fp(101)
	f("costly pool", in, Unfavorable, 85, 100, map[string]Result{CheckSlippage: Fail})
	in.Slippage.CostBps[10000] = fp(100)
	// 85 + 15·50/100 = 92.5 → 93 (round half away from zero).
	f("warn pool", in, Favorable, 93, 100, map[string]Result{CheckSlippage: Warn})

	// The same market for a sell: flow 30, momentum 35, regime BULLISH: FAIL,
	// FAIL (35 is not below 35: WARN), FAIL.
	in = good()
	in.Side = Sell
	// flow FAIL 0·20, momentum WARN 50·15, vol PASS 15, events PASS 15, regime FAIL 0, news PASS 10, slip PASS 15
	// = (750+1500+1500+1000+1500)/100 = 62.5 → 63
	f("sell into buying", in, Caution, 63, 100, map[string]Result{CheckOrderFlow: Fail, CheckMomentum: Warn, CheckRegime: Fail})

	// Adverse events veto.
	in = good()
	in.Flow.EventType = "DISTRIBUTION"
	f("distribution", in, Unfavorable, 85, 100, map[string]Result{CheckEvents: Fail})
	in.Flow.EventType = "UNUSUAL_ACTIVITY"
	f("unusual", in, Favorable, 93, 100, map[string]Result{CheckEvents: Warn})

	// Missing sources are UNKNOWN and left out of the score.
	in = good()
	in.News, in.Slippage, in.Volatility = nil, nil, nil
	f("no news, pools, candles", in, Favorable, 100, 60, map[string]Result{CheckNews: Unknown, CheckSlippage: Unknown, CheckVolatility: Unknown})
	in.Regime = "NO_DATA"
	f("coverage too low", in, Caution, 100, 50, map[string]Result{CheckRegime: Unknown})
	f("nothing known", Inputs{Side: Buy}, Caution, 50, 0, nil)
	in = good()
	in.Flow.TradeCount = 2
	f("too few trades", in, Caution, 100, 80, map[string]Result{CheckOrderFlow: Unknown})
	// Neutral flow, momentum against, a mixed market: the score reaches 70
	// but the flow is not on the buyer's side (seen in the demo).
	in = good()
	in.Flow = &Flow{BuyPressure: 50, MomentumScore: 44, TradeCount: 500, EventType: "NORMAL"}
	in.Regime, in.News, in.Slippage = "MIXED", nil, nil
	f("no edge", in, Caution, 70, 75, map[string]Result{CheckOrderFlow: Warn, CheckMomentum: Warn})

	// Low score.
	in = good()
	in.Flow = &Flow{BuyPressure: 30, MomentumScore: 20, TradeCount: 50, EventType: "NORMAL"}
	in.Regime = "BEARISH"
	in.News = &News{Negative: 2}
	// flow 0, momentum 0, vol 15·100, events 15·100, regime 0, news 10·50, slip 15·100 → 50
	f("bearish", in, Caution, 50, 100, map[string]Result{CheckNews: Warn})
	in.News.MaterialNegative = 1
	in.Volatility.Closes = []float64{100, 102, 99, 103, 98, 104, 97}
	// news FAIL, vol FAIL → 30
	f("bearish and wild", in, Unfavorable, 30, 100, map[string]Result{CheckNews: Fail, CheckVolatility: Fail})
}

func TestMinuteVolatility(t *testing.T) {
	f := func(closes []float64, bar int, want float64, n int) {
		t.Helper()
		v, gotN := MinuteVolatility(closes, bar)
		if gotN != n || math.Abs(v-want) > 1e-9 {
			t.Fatalf("MinuteVolatility(%v, %d) = %v, %d; want %v, %d", closes, bar, v, gotN, want, n)
		}
	}
	f([]float64{100, 100, 100}, 1, 0, 2)
	// Returns +ln(1.01), −ln(1.01): sample sd = ln(1.01)·√2.
	r := math.Log(1.01)
	f([]float64{100, 101, 100}, 1, 100*r*math.Sqrt2, 2)
	f([]float64{100, 101, 100}, 4, 100*r*math.Sqrt2/2, 2)
	f([]float64{100, 0, math.NaN(), 101, 100}, 1, 100*r*math.Sqrt2, 2) // bad closes skipped
	f([]float64{100}, 1, 0, 0)
}

func TestAssessPanicsOnBadSide(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Assess(Inputs{Side: "hold"})
}

func BenchmarkAssess(b *testing.B) {
	in := good()
	for b.Loop() {
		_ = Assess(in)
	}
}
