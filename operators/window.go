package operators

import (
	"slices"

	"github.com/marketintel/mi/schemas"
)

// Trailing windows: each symbol has one ring per window, of bucketsPerWindow
// buckets of window/60 (1s, 5s, 15s), plus trade count and USD volume of the
// bucketsPerWindow buckets before them for the previous comparable window.
const (
	numWindows       = 3
	bucketsPerWindow = 60
	maxVenueSlots    = 64 // venues per symbol that a bucket's bitmask can name
)

// windowNames are the window names of schemas.Windows, shortest first.
var windowNames = [numWindows]string{"1m", "5m", "15m"}

// windowNs are the window lengths in nanoseconds.
var windowNs = [numWindows]int64{60e9, 300e9, 900e9}

// bucketNs returns the bucket width of window w in nanoseconds.
func bucketNs(w int) int64 { return windowNs[w] / bucketsPerWindow }

// bucket aggregates the trades of one symbol whose event time falls in one
// bucket of a window. Volumes are USD notional unless named otherwise.
type bucket struct {
	idx int64 // bucket number: event time / bucket width

	count uint32 // trades
	large uint32 // large trades
	late  uint32 // trades rejected as late while this was the newest bucket
	dup   uint32 // trades rejected as duplicates while this was the newest bucket

	buy, sell, unknown   float64 // notional by aggressor side
	largeBuy, largeSell  float64 // notional of large trades by side
	size, quote          float64 // sum of size (base) and of price*size, for vwap
	maxSize, maxNotional float64
	high, low            float64
	firstPrice           float64 // price of the earliest trade, first arrival on ties
	firstNs              int64   // its event time

	venues uint64 // bit i set: the venue in slot i of the symbol's table traded
}

// volume returns the bucket's USD volume, always computed the same way
// whether the bucket is read in detail or after it moved to the previous
// part of its ring.
func (b *bucket) volume() float64 { return b.buy + b.sell + b.unknown }

// add folds one trade into b.
func (b *bucket) add(t *schemas.Trade, large bool, venueSlot int) {
	p, n := t.Price, t.NotionalUsd
	if b.count == 0 {
		b.high, b.low = p, p
		b.maxSize, b.maxNotional = t.Size, n
		b.firstPrice, b.firstNs = p, t.EventTimeNs
	} else {
		b.high = max(b.high, p)
		b.low = min(b.low, p)
		b.maxSize = max(b.maxSize, t.Size)
		b.maxNotional = max(b.maxNotional, n)
		if t.EventTimeNs < b.firstNs {
			b.firstPrice, b.firstNs = p, t.EventTimeNs
		}
	}
	b.count++
	switch t.Side {
	case schemas.Side_SIDE_BUY:
		b.buy += n
	case schemas.Side_SIDE_SELL:
		b.sell += n
	default:
		b.unknown += n
	}
	if large {
		b.large++
		switch t.Side {
		case schemas.Side_SIDE_BUY:
			b.largeBuy += n
		case schemas.Side_SIDE_SELL:
			b.largeSell += n
		}
	}
	b.size += t.Size
	b.quote += p * t.Size
	if venueSlot >= 0 {
		b.venues |= 1 << venueSlot
	}
}

// prevBucket is a bucket that left the current window: only what the
// previous comparable window needs.
type prevBucket struct {
	idx    int64
	volume float64
	count  uint32
}

// ring holds the buckets of one window of one symbol. With head the bucket
// of the symbol's newest accepted event time, detail holds the non-empty
// buckets in [head-59, head] and prev those in [head-119, head-60], both
// sorted by idx. Buckets are kept sparse: a quiet symbol costs little.
type ring struct {
	detail []bucket
	prev   []prevBucket

	// Derived, not encoded: the aggregate of a document with newest bucket
	// cacheHi over every bucket but the newest. Summing in ascending order
	// is a left fold, so folding the newest bucket into it gives exactly
	// the full sum. Any change to a bucket before cacheHi drops it.
	cache   windowAgg
	cacheHi int64
	cached  bool
}

// changed records that bucket idx changed.
func (r *ring) changed(idx int64) {
	if idx < r.cacheHi {
		r.cached = false
	}
}

// advance moves buckets that fell out of the current window when the head
// moved to head, and drops those older than the previous window.
func (r *ring) advance(head int64) {
	r.cached = false
	lo, prevLo := head-(bucketsPerWindow-1), head-(2*bucketsPerWindow-1)
	n := 0
	for n < len(r.prev) && r.prev[n].idx < prevLo {
		n++
	}
	r.prev = slices.Delete(r.prev, 0, n)
	n = 0
	for n < len(r.detail) && r.detail[n].idx < lo {
		if b := &r.detail[n]; b.idx >= prevLo && b.count > 0 {
			r.prev = append(r.prev, prevBucket{idx: b.idx, volume: b.volume(), count: b.count})
		}
		n++
	}
	r.detail = slices.Delete(r.detail, 0, n)
}

// detailAt returns the detail bucket idx, creating it in order if needed.
func (r *ring) detailAt(idx int64) *bucket {
	i := len(r.detail)
	for i > 0 && r.detail[i-1].idx > idx {
		i--
	}
	if i > 0 && r.detail[i-1].idx == idx {
		return &r.detail[i-1]
	}
	r.detail = slices.Insert(r.detail, i, bucket{idx: idx})
	return &r.detail[i]
}

// prevAt returns the previous-window bucket idx, creating it if needed.
func (r *ring) prevAt(idx int64) *prevBucket {
	i := len(r.prev)
	for i > 0 && r.prev[i-1].idx > idx {
		i--
	}
	if i > 0 && r.prev[i-1].idx == idx {
		return &r.prev[i-1]
	}
	r.prev = slices.Insert(r.prev, i, prevBucket{idx: idx})
	return &r.prev[i]
}

// add folds an accepted trade into the ring whose head is head (already
// advanced). A trade older than the previous window is not kept.
func (r *ring) add(t *schemas.Trade, idx, head int64, large bool, venueSlot int) {
	switch {
	case idx >= head-(bucketsPerWindow-1):
		r.changed(idx)
		r.detailAt(idx).add(t, large, venueSlot)
	case idx >= head-(2*bucketsPerWindow-1):
		r.changed(idx)
		p := r.prevAt(idx)
		p.volume += t.NotionalUsd
		p.count++
	}
}

// windowAgg is what a document reads from a ring.
type windowAgg struct {
	count, large, late, dup         uint64
	buy, sell, unknown              float64
	largeBuy, largeSell             float64
	size, quote                     float64
	maxSize, maxNotional, high, low float64
	firstPrice                      float64
	venues                          uint64
	prevVolume                      float64
	prevCount                       uint64
}

// aggregate sums the ring as of a document whose newest bucket is hi:
// current window [hi-59, hi], previous window [hi-119, hi-60]. Buckets are
// visited in ascending order, so the float sums are deterministic.
func (r *ring) aggregate(hi int64) windowAgg {
	if !r.cached || r.cacheHi != hi {
		r.cache = r.aggregateBefore(hi)
		r.cacheHi, r.cached = hi, true
	}
	a := r.cache
	if n := len(r.detail); n > 0 && r.detail[n-1].idx == hi {
		a.fold(&r.detail[n-1])
	}
	return a
}

// aggregateBefore sums the previous window and the current window but its
// newest bucket hi.
func (r *ring) aggregateBefore(hi int64) windowAgg {
	var a windowAgg
	lo, prevLo := hi-(bucketsPerWindow-1), hi-(2*bucketsPerWindow-1)
	for i := range r.prev {
		p := &r.prev[i]
		if p.idx >= prevLo && p.idx < lo {
			a.prevVolume += p.volume
			a.prevCount += uint64(p.count)
		}
	}
	for i := range r.detail {
		b := &r.detail[i]
		switch {
		case b.idx >= hi || b.idx < prevLo:
			continue
		case b.idx < lo:
			if b.count > 0 {
				a.prevVolume += b.volume()
				a.prevCount += uint64(b.count)
			}
			continue
		}
		a.fold(b)
	}
	return a
}

// fold adds bucket b of the current window to a.
func (a *windowAgg) fold(b *bucket) {
	a.late += uint64(b.late)
	a.dup += uint64(b.dup)
	if b.count == 0 {
		return
	}
	if a.count == 0 {
		a.high, a.low = b.high, b.low
		a.maxSize, a.maxNotional = b.maxSize, b.maxNotional
		a.firstPrice = b.firstPrice
	} else {
		a.high = max(a.high, b.high)
		a.low = min(a.low, b.low)
		a.maxSize = max(a.maxSize, b.maxSize)
		a.maxNotional = max(a.maxNotional, b.maxNotional)
	}
	a.count += uint64(b.count)
	a.large += uint64(b.large)
	a.buy += b.buy
	a.sell += b.sell
	a.unknown += b.unknown
	a.largeBuy += b.largeBuy
	a.largeSell += b.largeSell
	a.size += b.size
	a.quote += b.quote
	a.venues |= b.venues
}

// hasTrades reports whether the current window as of hi holds a trade.
func (r *ring) hasTrades(hi int64) bool {
	lo := hi - (bucketsPerWindow - 1)
	for i := len(r.detail) - 1; i >= 0; i-- {
		b := &r.detail[i]
		if b.idx < lo {
			return false
		}
		if b.idx <= hi && b.count > 0 {
			return true
		}
	}
	return false
}

// usedVenues returns the venue slots named by any detail bucket.
func (r *ring) usedVenues() uint64 {
	var m uint64
	for i := range r.detail {
		m |= r.detail[i].venues
	}
	return m
}
