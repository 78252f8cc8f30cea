package history_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// TestSingleVenueCandleIsServedAsStored: one trade at 105905.7 on one
// venue comes back with exactly the stored open, high, low and close. (A
// USD-volume-weighted mean of one venue's open, 105905.7 × v / v, gave
// 105905.70000000001 for this v.)
func TestSingleVenueCandleIsServedAsStored(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	c := histtest.Flat("BTCUSD", "coinbase", day0, 105905.7, 1)
	c.VolumeUSD = 653.9604088129786
	w.Candles("1m", false, []datasets.Candle{c})
	s := open(t, root)
	for _, iv := range []string{"1m", "5m"} {
		res, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"BTCUSD"}, Interval: iv, From: day0, To: day0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Candles[0]
		if got.Open != c.Open || got.High != c.High || got.Low != c.Low || got.Close != c.Close || got.VolumeUSD != c.VolumeUSD {
			t.Errorf("%s: stored o/h/l/c %v %v %v %v, served %v %v %v %v", iv, c.Open, c.High, c.Low, c.Close, got.Open, got.High, got.Low, got.Close)
		}
	}
}

// randomBucket returns the candles of 1 to 6 venues for one bucket, each
// valid on its own (low <= open, close <= high), with prices and volumes
// drawn to provoke rounding: near-equal prices, equal volumes, zero
// volume, tiny and huge magnitudes.
func randomBucket(r *rand.Rand, sym string, t time.Time) []datasets.Candle {
	venues := []string{"binance", "coinbase", "kraken", "okx", "raydium", "uniswap_v3_ethereum"}
	r.Shuffle(len(venues), func(i, j int) { venues[i], venues[j] = venues[j], venues[i] })
	base := []float64{105905.7, 0.000123456, 1, 3012.33, 1e9 / 7}[r.IntN(5)]
	vols := []float64{0, 653.9604088129786, 1, 1e-9, 5e6}
	var out []datasets.Candle
	for _, v := range venues[:1+r.IntN(len(venues))] {
		p := func() float64 {
			if r.IntN(3) == 0 {
				return base
			}
			return base * (1 + (r.Float64()-0.5)*1e-3*float64(r.IntN(3)))
		}
		a, b, x, y := p(), p(), p(), p()
		lo, hi := min(a, b, x, y), max(a, b, x, y)
		c := histtest.Flat(sym, v, t, base, 1)
		c.Open, c.Close, c.Low, c.High = x, y, lo, hi
		c.VolumeUSD = vols[r.IntN(len(vols))]
		if r.IntN(4) == 0 {
			c.VolumeUSD = r.Float64() * 1e4
		}
		out = append(out, c)
	}
	return out
}

// TestCrossVenueOpenCloseWithinLowHigh combines 3,000 random venue sets
// (one per minute) through the candles statement, at the stored width and
// rolled up, and checks low <= open, close <= high for every one, and that
// open and close are those of the leading venue (operators.Leads).
func TestCrossVenueOpenCloseWithinLowHigh(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	r := rand.New(rand.NewPCG(21, 4))
	const n = 3000
	byVenue := map[string][]datasets.Candle{}
	sets := make(map[time.Time][]datasets.Candle, n)
	for i := range n {
		ts := day0.Add(time.Duration(i) * time.Minute)
		set := randomBucket(r, "BTCUSD", ts)
		sets[ts] = set
		for _, c := range set {
			byVenue[c.Venue] = append(byVenue[c.Venue], c)
		}
	}
	for _, cs := range byVenue {
		w.Candles("1m", false, cs)
	}
	s := open(t, root)
	res, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"BTCUSD"}, Interval: "1m", From: day0, To: day0.Add(3 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candles) != n {
		t.Fatalf("%d candles, want %d", len(res.Candles), n)
	}
	for _, got := range res.Candles {
		set := sets[got.Time]
		lead := set[0]
		for _, c := range set[1:] {
			if operators.Leads(c.VolumeUSD, c.Venue, lead.VolumeUSD, lead.Venue) {
				lead = c
			}
		}
		if !(got.Low <= got.Open && got.Open <= got.High && got.Low <= got.Close && got.Close <= got.High) {
			t.Fatalf("%v: low %v open %v close %v high %v over %+v", got.Time, got.Low, got.Open, got.Close, got.High, set)
		}
		if got.Open != lead.Open || got.Close != lead.Close {
			t.Fatalf("%v: open/close %v/%v, the leading venue %s has %v/%v", got.Time, got.Open, got.Close, lead.Venue, lead.Open, lead.Close)
		}
	}
	// Rolled up to 15m and 1h the invariant holds too.
	for _, iv := range []string{"15m", "1h"} {
		res, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"BTCUSD"}, Interval: iv, From: day0, To: day0.Add(3 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range res.Candles {
			if !(got.Low <= got.Open && got.Open <= got.High && got.Low <= got.Close && got.Close <= got.High) {
				t.Fatalf("%s %v: low %v open %v close %v high %v", iv, got.Time, got.Low, got.Open, got.Close, got.High)
			}
		}
	}
}

// FuzzLeads: Leads is a strict order over (volume, venue) pairs, so the
// leading venue of a set does not depend on the order venues are met.
func FuzzLeads(f *testing.F) {
	f.Add(653.9604088129786, "coinbase", 653.9604088129786, "binance", 0.0, "kraken")
	f.Add(math.NaN(), "a", 0.0, "b", math.Copysign(0, -1), "c")
	f.Fuzz(func(t *testing.T, v1 float64, n1 string, v2 float64, n2 string, v3 float64, n3 string) {
		type venue struct {
			v float64
			n string
		}
		vs := []venue{{v1, n1}, {v2, n2}, {v3, n3}}
		if n1 == n2 || n2 == n3 || n1 == n3 {
			return // venue names are unique within a bucket
		}
		lead := func(order []venue) string {
			l := order[0]
			for _, x := range order[1:] {
				if operators.Leads(x.v, x.n, l.v, l.n) {
					l = x
				}
			}
			return l.n
		}
		want := lead(vs)
		for _, p := range [][]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
			order := []venue{vs[p[0]], vs[p[1]], vs[p[2]]}
			if got := lead(order); got != want {
				t.Fatalf("leading venue %q in one order, %q in %v", want, got, order)
			}
		}
		if !slices.ContainsFunc(vs, func(x venue) bool { return x.n == want }) {
			t.Fatal("BUG")
		}
	})
}
