package operators

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func TestHistEdges(t *testing.T) {
	f := func(i int, want float64) {
		t.Helper()
		if histEdges[i] != want {
			t.Fatalf("histEdges[%d] = %v, want %v", i, histEdges[i], want)
		}
	}
	f(0, 1)
	f(1, 1.334)
	f(4, 3.162)
	f(8, 10)
	f(40, 100000)
	f(63, 7.499e7)
	f(64, 1e8)
}

func TestHistBin(t *testing.T) {
	f := func(usd float64, want int) {
		t.Helper()
		if got := histBin(usd); got != want {
			t.Fatalf("histBin(%v) = %d, want %d", usd, got, want)
		}
	}
	f(0, 0)
	f(0.5, 0)
	f(1, 0)
	f(1.333, 0)
	f(1.334, 1)
	f(10, 8)
	f(99_999, 39)
	f(100_000, 40)
	f(7.499e7, 63)
	f(1e8, 63)
	f(1e15, 63)
}

// bruteThreshold is the percentile rule written plainly.
func bruteThreshold(h *histogram) float64 {
	n := int(h.total)
	if n < histMinSamples {
		return fixedLargeUSD
	}
	r := int(math.Ceil(0.95 * float64(n)))
	cum := 0
	for i, c := range h.counts {
		cum += int(c)
		if cum >= r {
			return histEdges[i]
		}
	}
	panic("unreachable")
}

func TestHistogramThreshold(t *testing.T) {
	f := func(notionals []float64, want float64) {
		t.Helper()
		var h histogram
		for _, n := range notionals {
			h.add(n)
		}
		if got := h.threshold(); got != want {
			t.Fatalf("threshold() = %v, want %v", got, want)
		}
	}
	repeat := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// Fewer than 200 trades: the fixed $100k threshold.
	f(nil, 100_000)
	f(repeat(199, 50), 100_000)
	// 200 trades of $50: the percentile bin is that of $50 (bin 13, from $42.17).
	f(repeat(200, 50), 42.17)
	// 190 small and 10 large: the 190th trade is the 95th percentile.
	f(append(repeat(190, 10), repeat(10, 1e6)...), 10)
	// 189 small and 11 large: the 95th percentile is a large one.
	f(append(repeat(189, 10), repeat(11, 1e6)...), 1e6)
}

// TestHistogramIncremental checks the incrementally kept percentile bin
// against a plain recomputation after every add, across decays.
func TestHistogramIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h histogram
	for i := range 20_000 {
		usd := math.Exp(rng.NormFloat64()*2 + 5)
		if i > 10_000 {
			usd *= 100 // the distribution shifts: the decay lets it follow
		}
		h.add(usd)
		if got, want := h.threshold(), bruteThreshold(&h); got != want {
			t.Fatalf("after %d adds: threshold %v, want %v", i+1, got, want)
		}
		if h.total >= histDecayAt {
			t.Fatalf("total %d not decayed", h.total)
		}
	}
}

func TestHistogramDecay(t *testing.T) {
	var h histogram
	for range histDecayAt - 1 {
		h.add(10)
	}
	if h.total != histDecayAt-1 || h.counts[8] != histDecayAt-1 {
		t.Fatalf("total %d, bin 8 %d", h.total, h.counts[8])
	}
	h.add(1000)
	// 4095 halves to 2047, 1 to 0.
	if h.total != 2047 || h.counts[8] != 2047 || h.counts[histBin(1000)] != 0 {
		t.Fatalf("after decay: total %d, bin 8 %d, bin of $1000 %d", h.total, h.counts[8], h.counts[histBin(1000)])
	}
}

// TestLargeTrades checks the large-trade rule end to end: the threshold is
// computed before the trade is added, and large volumes are split by side.
func TestLargeTrades(t *testing.T) {
	f := func(notionals []float64, sides []int, wantLarge int64, wantBuy, wantSell, wantThr float64) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		for i, n := range notionals {
			e.Push(tr("X", "v", cex, []schemas.Side{unk, buy, sell}[sides[i]], time.Duration(i)*time.Millisecond, 1, n))
		}
		e.Push(tr("X", "v", cex, buy, time.Minute, 1, 1)) // crosses a second: documents
		d := r.docsOf("X", "15m")
		if len(d) == 0 {
			t.Fatal("no documents")
		}
		last := d[len(d)-1]
		if last.LargeTradeCount != wantLarge || last.LargeBuyVolume != wantBuy || last.LargeSellVolume != wantSell {
			t.Fatalf("large count %d, buy %v, sell %v; want %d, %v, %v",
				last.LargeTradeCount, last.LargeBuyVolume, last.LargeSellVolume, wantLarge, wantBuy, wantSell)
		}
		if got := last.Observations.LargeTradeThresholdUsd; got != wantThr {
			t.Fatalf("threshold %v, want %v", got, wantThr)
		}
	}
	// Before 200 trades the fixed $100k threshold applies; unknown side
	// counts in large_trade_count only.
	f([]float64{100_000, 99_999, 200_000, 150_000}, []int{1, 1, 2, 0}, 3, 100_000, 200_000, 100_000)
	// 200 trades of $10, then a $10 trade is large (bin lower edge $10),
	// and a $9 trade is not.
	many := make([]float64, 202)
	for i := range many {
		many[i] = 10
	}
	many[201] = 9
	sides := make([]int, 202)
	for i := range sides {
		sides[i] = 1
	}
	// trades 1..200 see fewer than 200 before them: not large; trade 201
	// ($10) is large; trade 202 ($9) is not.
	f(many, sides, 1, 10, 0, 10)
}
