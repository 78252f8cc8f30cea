package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// window accumulates the trades of one symbol in a stretch of time.
type window struct {
	trades, buys, sells   int
	firstPrice, lastPrice float64
	buyUSD, sellUSD       float64
}

func (w *window) add(tr *schemas.Trade) {
	if w.trades == 0 {
		w.firstPrice = tr.Price
	}
	w.trades++
	w.lastPrice = tr.Price
	switch tr.Side {
	case schemas.Side_SIDE_BUY:
		w.buys++
		w.buyUSD += tr.NotionalUsd
	case schemas.Side_SIDE_SELL:
		w.sells++
		w.sellUSD += tr.NotionalUsd
	}
}

func (w *window) buyShare() float64 { return float64(w.buys) / float64(w.buys+w.sells) }

// TestStatistics runs six simulated hours of the default universe and checks
// that the injected events look like what they are labelled, against the
// quiet stretches around them.
func TestStatistics(t *testing.T) {
	t.Parallel()
	const hours = 6
	end := testStart.Add(hours * time.Hour)
	cfg := Config{Seed: 1, Start: testStart, End: end}
	events := schedule(t, cfg)

	bySymbol := map[string][]int{} // event indexes per symbol
	for i, e := range events {
		bySymbol[e.Symbol] = append(bySymbol[e.Symbol], i)
	}
	in := make([]window, len(events))     // trades within each event
	before := make([]window, len(events)) // trades in the QuietGap before each event
	var quiet window                      // trades at least QuietGap away from any event
	quietTrades := map[string]int{}
	notionals := map[string][]float64{}
	next := map[string]int{} // first event of the symbol that may still matter

	s := mustNew(t, cfg)
	each(t, s, func(tr *schemas.Trade) bool {
		ts := time.Unix(0, tr.EventTimeNs)
		if tr.Symbol == "BTCUSD" || tr.Symbol == "PEPEUSD" {
			notionals[tr.Symbol] = append(notionals[tr.Symbol], tr.NotionalUsd)
		}
		idx := bySymbol[tr.Symbol]
		k := next[tr.Symbol]
		for k < len(idx) && !ts.Before(events[idx[k]].End.Add(QuietGap)) {
			k++
		}
		next[tr.Symbol] = k
		if k == len(idx) || ts.Before(events[idx[k]].Start.Add(-QuietGap)) {
			if k == 0 || !ts.Before(events[idx[k-1]].End.Add(QuietGap)) {
				quiet.add(tr)
				quietTrades[tr.Symbol]++
			}
			return true
		}
		e := events[idx[k]]
		switch {
		case e.Contains(ts):
			in[idx[k]].add(tr)
		case ts.Before(e.Start):
			before[idx[k]].add(tr)
		}
		return true
	})

	// Quiet time per symbol: the run minus QuietGap around each event.
	quietSeconds := map[string]float64{}
	for _, sym := range DefaultSymbols() {
		total := end.Sub(testStart)
		for _, i := range bySymbol[sym] {
			e := events[i]
			from, to := e.Start.Add(-QuietGap), e.End.Add(QuietGap)
			if to.After(end) {
				to = end
			}
			total -= to.Sub(from)
		}
		quietSeconds[sym] = total.Seconds()
	}

	if share := quiet.buyShare(); share < 0.48 || share > 0.52 {
		t.Fatalf("buy share in quiet stretches is %.4f over %d trades; want near 0.5", share, quiet.trades)
	}
	t.Logf("quiet: %d trades, buy share %.4f", quiet.trades, quiet.buyShare())

	counts := map[string]int{}
	var breakoutRet, breakdownRet []float64
	for i, e := range events {
		w := &in[i]
		counts[e.Type]++
		dur := e.End.Sub(e.Start).Seconds()
		baseRate := float64(quietTrades[e.Symbol]) / quietSeconds[e.Symbol]
		rateMult := float64(w.trades) / dur / baseRate
		ret := w.lastPrice/w.firstPrice - 1
		t.Logf("%-12s %-8s trades %6d rate x%5.2f (param %5.2f) buy share %.3f (param %.3f) return %+.4f (param %+.2f%%) sell/buy USD per trade %.2f",
			e.Type, e.Symbol, w.trades, rateMult, e.Params["rate_multiplier"], w.buyShare(), e.Params["buy_prob"], ret, e.Params["return_pct"],
			(w.sellUSD/float64(w.sells))/(w.buyUSD/float64(w.buys)))
		if w.trades < 100 {
			t.Fatalf("event %d (%s %s) has only %d trades", i, e.Type, e.Symbol, w.trades)
		}
		switch e.Type {
		case EventVolumeBurst:
			if rateMult < 3 {
				t.Fatalf("volume_burst %d on %s: trade rate is %.2f times the quiet rate; want >= 3", i, e.Symbol, rateMult)
			}
			if share := w.buyShare(); share < 0.42 || share > 0.58 {
				t.Fatalf("volume_burst %d on %s: buy share %.3f; want balanced", i, e.Symbol, share)
			}
		case EventBreakout:
			if share := w.buyShare(); share <= 0.6 {
				t.Fatalf("breakout %d on %s: buy share %.3f; want > 0.6", i, e.Symbol, share)
			}
			if rateMult < 1.5 {
				t.Fatalf("breakout %d on %s: trade rate only %.2f times the quiet rate", i, e.Symbol, rateMult)
			}
			breakoutRet = append(breakoutRet, ret)
		case EventBreakdown:
			if share := w.buyShare(); share >= 0.4 {
				t.Fatalf("breakdown %d on %s: buy share %.3f; want < 0.4", i, e.Symbol, share)
			}
			breakdownRet = append(breakdownRet, ret)
		case EventDistribution:
			if share := 1 - w.buyShare(); share <= 0.6 {
				t.Fatalf("distribution %d on %s: sell share %.3f; want > 0.6", i, e.Symbol, share)
			}
			if perSell, perBuy := w.sellUSD/float64(w.sells), w.buyUSD/float64(w.buys); perSell < 2*perBuy {
				t.Fatalf("distribution %d on %s: mean sell %.0f USD is not much larger than mean buy %.0f USD", i, e.Symbol, perSell, perBuy)
			}
			if ret < -0.03 || ret > 0.02 {
				t.Fatalf("distribution %d on %s: price moved %+.4f; want flat to slightly down", i, e.Symbol, ret)
			}
		}
	}
	for _, typ := range EventTypes {
		if counts[typ] < 3 {
			t.Fatalf("only %d %s events in %d hours", counts[typ], typ, hours)
		}
	}
	// Prices rise in every breakout and fall in every breakdown.
	for _, r := range breakoutRet {
		if r <= 0.005 {
			t.Fatalf("breakout returns %v; want all clearly positive", breakoutRet)
		}
	}
	for _, r := range breakdownRet {
		if r >= -0.005 {
			t.Fatalf("breakdown returns %v; want all clearly negative", breakdownRet)
		}
	}

	// Heavy-tailed notionals: the largest trade is thousands of medians.
	for sym, ns := range notionals {
		slices.Sort(ns)
		median, maxN := ns[len(ns)/2], ns[len(ns)-1]
		if maxN/median < 1000 {
			t.Fatalf("%s: max notional %.0f is only %.0f times the median %.2f", sym, maxN, maxN/median, median)
		}
		mean := 0.0
		for _, n := range ns {
			mean += n
		}
		mean /= float64(len(ns))
		if mean/median < 1.5 || math.IsInf(mean, 0) {
			t.Fatalf("%s: mean notional %.2f is not well above the median %.2f", sym, mean, median)
		}
		t.Logf("%s: %d trades, median notional %.2f, mean %.2f, max %.0f", sym, len(ns), median, mean, maxN)
	}
}
