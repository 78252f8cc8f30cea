package operators

import (
	"math"
	"strconv"
)

// Large-trade detection: each symbol keeps a log-scale histogram of trade
// notionals; a trade is large when its notional reaches the lower edge of the
// bin holding the 95th percentile of the trades seen before it.
const (
	histBins        = 64      // 8 bins per decade from $1 to $10^8
	histBinsPerDec  = 8       // bins per decade
	histDecayAt     = 4096    // all counts are halved when the total reaches this
	histMinSamples  = 200     // below this many trades the fixed threshold applies
	histPercentile  = 95      // percentile whose bin's lower edge is the threshold
	fixedLargeUSD   = 100_000 // threshold before the histogram has histMinSamples trades
	histLowestEdge  = 1.0     // lower edge of bin 0, which also holds notionals below it
	histHighestEdge = 1e8     // upper edge of bin 63, which also holds notionals above it
)

// histEdges[i] is the lower edge of bin i: 10^(i/8) rounded to 4 significant
// digits, so that the table is the same on every platform whatever the last
// bit math.Pow returns. histEdges[64] is 10^8.
var histEdges = func() [histBins + 1]float64 {
	var e [histBins + 1]float64
	for i := range e {
		v := math.Pow(10, float64(i)/histBinsPerDec)
		r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
		if err != nil {
			panic("BUG: cannot round histogram edge: " + err.Error())
		}
		e[i] = r
	}
	return e
}()

// histogram counts trade notionals in histBins log-scale bins. The zero value
// is an empty histogram.
type histogram struct {
	counts [histBins]uint16
	total  uint16 // sum of counts; always < histDecayAt

	// Derived from counts (not encoded): the percentile bin and the number
	// of trades in the bins above it, kept up to date incrementally.
	pbin  int
	above int
}

// histBin returns the bin of a notional in USD.
func histBin(usd float64) int {
	// Binary search for the last edge <= usd among edges 1..63.
	lo, hi := 0, histBins-1 // answer in [lo, hi]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if histEdges[mid] <= usd {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// threshold returns the notional in USD from which a trade is large.
func (h *histogram) threshold() float64 {
	if h.total < histMinSamples {
		return fixedLargeUSD
	}
	return histEdges[h.pbin]
}

// maxAbove returns how many trades may lie above the percentile bin: with
// n trades and r = ceil(0.95 n) the 1-based ascending rank of the
// percentile trade, the percentile bin is the smallest bin whose cumulative
// count reaches r, i.e. with at most n-r trades above it.
func (h *histogram) maxAbove() int {
	n := int(h.total)
	return n - (histPercentile*n+99)/100
}

// add counts one trade of the given notional, halving every count when the
// total reaches histDecayAt.
func (h *histogram) add(usd float64) {
	b := histBin(usd)
	h.counts[b]++
	h.total++
	if h.total >= histDecayAt {
		var total uint16
		for i := range h.counts {
			h.counts[i] >>= 1
			total += h.counts[i]
		}
		h.total = total
		h.rederive()
		return
	}
	if b > h.pbin {
		h.above++
	}
	limit := h.maxAbove()
	for h.above > limit {
		h.pbin++
		h.above -= int(h.counts[h.pbin])
	}
	for h.pbin > 0 && h.above+int(h.counts[h.pbin]) <= limit {
		h.above += int(h.counts[h.pbin])
		h.pbin--
	}
}

// rederive recomputes the percentile bin from the counts.
func (h *histogram) rederive() {
	limit := h.maxAbove()
	h.pbin, h.above = histBins-1, 0
	for h.pbin > 0 && h.above+int(h.counts[h.pbin]) <= limit {
		h.above += int(h.counts[h.pbin])
		h.pbin--
	}
}
