package history

import "testing"

// TestPriceSeriesAsOf: the as-of lookup takes the latest end at or before
// t and, among candles ending together, the later start, whether or not
// the ends are in start order.
func TestPriceSeriesAsOf(t *testing.T) {
	for _, pts := range [][]pricePoint{
		{{us: 0, end: 5, close: 1}, {us: 1, end: 2, close: 2}, {us: 4, end: 5, close: 3}, {us: 5, end: 10, close: 4}},
		{{us: 0, end: 1, close: 1}, {us: 1, end: 2, close: 2}, {us: 4, end: 5, close: 3}, {us: 5, end: 10, close: 4}},
	} {
		ps := newPriceSeries(pts)
		if ps.lastEnd != 10 {
			t.Fatalf("last end %d", ps.lastEnd)
		}
		for _, c := range []struct {
			t     int64
			close float64
			ok    bool
		}{{0, 0, false}, {2, 2, true}, {4, 2, true}, {5, 3, true}, {9, 3, true}, {10, 4, true}, {99, 4, true}} {
			if c.t == 0 && pts[0].end == 1 {
				continue
			}
			p, ok := ps.asOf(c.t)
			if ok != c.ok || p.close != c.close {
				t.Errorf("ends %v: asOf(%d) = %v %v, want close %v %v", ps.byEnd != nil, c.t, p.close, ok, c.close, c.ok)
			}
		}
	}
}
