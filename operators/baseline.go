package operators

import (
	"math"
	"slices"
)

// Baselines: per symbol and window, the USD volume, trade count and price
// range of the last baselineSize UTC-aligned windows of that length.
const (
	// baselineSize is the number of aligned windows a baseline holds.
	baselineSize = 48
	// BaselineReadySamples is the number of samples from which a baseline
	// is ready: multiples, z-scores, the anomaly and activity scores and
	// non-NEUTRAL signals need it.
	BaselineReadySamples = 10
	// madScale turns a median absolute deviation into a robust standard
	// deviation (1.4826 for normally distributed data).
	madScale = 1.4826
	// sigmaFloorShare is the smallest robust deviation, as a share of the
	// median, so that a flat baseline cannot divide by zero.
	sigmaFloorShare = 0.1
	// zClamp bounds the z-scores.
	zClamp = 50
)

// minRangeTrades is the least number of trades of a sample whose price
// range counts towards the typical move.
const minRangeTrades = 2

// sigmaFloorUnit is the smallest robust deviation in absolute terms: one
// trade for counts, one US dollar for volumes.
const sigmaFloorUnit = 1

// baseline is the ring of samples of one symbol and window, oldest first
// from pos once it is full. The statistics are derived, not encoded.
type baseline struct {
	primed bool // the symbol's first (partial) aligned window has closed
	n, pos uint8
	volume [baselineSize]float64
	count  [baselineSize]uint32
	rng    [baselineSize]float64 // 100 × (high − low) / low of the window; 0 when empty

	stats baselineStats
}

// baselineStats are the robust statistics of a baseline.
type baselineStats struct {
	volMedian, volSigma float64
	cntMedian, cntSigma float64
	rngMedian           float64 // over the samples with at least minRangeTrades trades
	rngSamples          int     // number of those samples
}

// ready reports whether the baseline holds enough samples.
func (b *baseline) ready() bool { return int(b.n) >= BaselineReadySamples }

// push appends one sample, dropping the oldest when full, without
// recomputing the statistics.
func (b *baseline) push(volume float64, count uint32, rng float64) {
	i := (int(b.pos) + int(b.n)) % baselineSize
	if int(b.n) == baselineSize {
		i = int(b.pos)
		b.pos = uint8((int(b.pos) + 1) % baselineSize)
	} else {
		b.n++
	}
	b.volume[i], b.count[i], b.rng[i] = volume, count, rng
}

// at returns the i-th oldest sample.
func (b *baseline) at(i int) (float64, uint32, float64) {
	j := (int(b.pos) + i) % baselineSize
	return b.volume[j], b.count[j], b.rng[j]
}

// closeWindows records the samples of the aligned windows that closed when
// the ring r's head moved from aligned window from to aligned window to
// (to > from): the window from (unless it is the symbol's first, partial
// one), then a zero sample for each empty window in between.
func (b *baseline) closeWindows(r *ring, from, to int64) {
	if b.primed {
		b.push(r.alignedSample(from))
	}
	b.primed = true
	for range min(to-from-1, baselineSize) {
		b.push(0, 0, 0)
	}
	b.recompute()
}

// alignedSample returns the USD volume, trade count and price range of the
// buckets of aligned window k (buckets [60k, 60k+59]), summed in ascending
// order. The caller calls it before the ring advances past k.
func (r *ring) alignedSample(k int64) (volume float64, count uint32, rng float64) {
	lo, hi := k*bucketsPerWindow, k*bucketsPerWindow+bucketsPerWindow-1
	var high, low float64
	for i := range r.detail {
		bk := &r.detail[i]
		if bk.idx < lo || bk.idx > hi || bk.count == 0 {
			continue
		}
		if count == 0 {
			high, low = bk.high, bk.low
		} else {
			high, low = max(high, bk.high), min(low, bk.low)
		}
		volume += bk.volume()
		count += bk.count
	}
	if count > 0 {
		rng = 100 * (high - low) / low
	}
	return volume, count, rng
}

// recompute derives the statistics from the samples.
func (b *baseline) recompute() {
	var scratch [baselineSize]float64
	n := int(b.n)
	s := &b.stats
	for i := range n {
		scratch[i], _, _ = b.at(i)
	}
	s.volMedian, s.volSigma = robust(scratch[:n])
	for i := range n {
		_, c, _ := b.at(i)
		scratch[i] = float64(c)
	}
	s.cntMedian, s.cntSigma = robust(scratch[:n])
	// The typical range is taken over windows with at least two trades: a
	// window with fewer has no range to observe, not a range of zero.
	m := 0
	for i := range n {
		if _, c, r := b.at(i); c >= minRangeTrades {
			scratch[m] = r
			m++
		}
	}
	s.rngMedian, _ = robust(scratch[:m])
	s.rngSamples = m
}

// robust returns the median of x and its robust deviation: 1.4826 × the
// median absolute deviation, at least sigmaFloorShare × median and
// sigmaFloorUnit. It reorders x. Both are 0 for an empty x.
func robust(x []float64) (median, sigma float64) {
	if len(x) == 0 {
		return 0, 0
	}
	median = medianOf(x)
	for i, v := range x {
		x[i] = math.Abs(v - median)
	}
	mad := medianOf(x)
	return median, max(madScale*mad, sigmaFloorShare*median, sigmaFloorUnit)
}

// medianOf sorts x and returns its median: the middle value, or the mean of
// the two middle values.
func medianOf(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// zScore returns (x − median)/sigma clamped to ±zClamp.
func zScore(x, median, sigma float64) float64 {
	return max(-zClamp, min(zClamp, (x-median)/sigma))
}

// multiple returns x relative to a baseline median, dividing by at least
// sigmaFloorUnit and capped at ratioCap.
func multiple(x, median float64) float64 {
	return min(x/max(median, sigmaFloorUnit), ratioCap)
}
