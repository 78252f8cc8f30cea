// Package premium computes the price gap (premium) of tokenized equities
// between two venue groups (spec §4.4): group A, the Solana DEX pools of
// the xStocks (venue kind solana_dex), against group B, the EVM DEX pools
// of the same stocks (venue kind onchain_dex). It is pure: the bins are
// passed in, time comes from them and from the caller; docs/decisions.md
// states the rules.
package premium

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/marketintel/mi/operators/uscal"
)

// The venue groups: their venue kinds, A first.
var Groups = [2]string{"solana_dex", "onchain_dex"}

// BinWidth is the width of the bins the premium is computed on.
const BinWidth = 15 * time.Minute

// Row is one venue's candle of one bin.
type Row struct {
	StartNs   int64
	VenueKind string
	// VWAP is the venue's volume-weighted price in the bin, Volume its
	// base-unit volume (the VWAP's weight), VolumeUSD its notional.
	VWAP, Volume, VolumeUSD float64
	Trades                  int64
}

// Bin is one bin of both groups: the groups' volume-weighted prices and
// volumes (index 0 group A, 1 group B).
type Bin struct {
	StartNs   int64
	VWAP      [2]float64
	Volume    [2]float64
	VolumeUSD [2]float64
	Trades    [2]int64
}

// Both reports whether both groups traded in the bin.
func (b Bin) Both() bool {
	return b.Trades[0] > 0 && b.Trades[1] > 0 && b.VWAP[0] > 0 && b.VWAP[1] > 0
}

// PremiumBp is group A's price over group B's, in basis points:
// 10,000 × (VWAP_A / VWAP_B − 1).
func (b Bin) PremiumBp() float64 { return 1e4*(b.VWAP[0]/b.VWAP[1]-1) + 0 }

// Fold groups rows into bins of widthNs (a multiple of the rows' width)
// aligned to UTC, ordered by start. A group's VWAP is the mean of its
// venues' VWAPs weighted by their base volumes; rows of other venue kinds,
// and rows without volume or a positive VWAP, are ignored.
func Fold(rows []Row, widthNs int64) []Bin {
	type acc struct {
		pv, v, usd [2]float64
		n          [2]int64
	}
	m := map[int64]*acc{}
	for _, r := range rows {
		g := slices.Index(Groups[:], r.VenueKind)
		if g < 0 || !(r.Volume > 0) || !(r.VWAP > 0) || math.IsInf(r.VWAP, 0) || math.IsInf(r.Volume, 0) {
			continue
		}
		start := r.StartNs - ((r.StartNs%widthNs)+widthNs)%widthNs
		a := m[start]
		if a == nil {
			a = &acc{}
			m[start] = a
		}
		a.pv[g] += r.VWAP * r.Volume
		a.v[g] += r.Volume
		a.usd[g] += r.VolumeUSD
		a.n[g] += r.Trades
	}
	bins := make([]Bin, 0, len(m))
	for start, a := range m {
		b := Bin{StartNs: start, Volume: a.v, VolumeUSD: a.usd, Trades: a.n}
		for g := range 2 {
			if a.v[g] > 0 {
				b.VWAP[g] = a.pv[g] / a.v[g]
			}
		}
		bins = append(bins, b)
	}
	sort.Slice(bins, func(i, j int) bool { return bins[i].StartNs < bins[j].StartNs })
	return bins
}

// Latest is the latest premium of one stock.
type Latest struct {
	// Bin is the latest 15-minute bin with trades on both groups that
	// ends within the hour before the end.
	Bin Bin
	// VolumeUSD1h is each group's notional over the hour before the end.
	VolumeUSD1h [2]float64
}

// LatestOf returns the latest premium of bins (15-minute bins, ordered)
// as of endNs: the last bin with trades on both groups among those that
// start in [endNs − 1h, endNs − 15m], and both groups' 1-hour volumes over
// the same bins. ok is false when no such bin exists.
func LatestOf(bins []Bin, endNs int64) (Latest, bool) {
	var l Latest
	ok := false
	from := endNs - int64(time.Hour)
	for _, b := range bins {
		if b.StartNs < from || b.StartNs+int64(BinWidth) > endNs {
			continue
		}
		l.VolumeUSD1h[0] += b.VolumeUSD[0]
		l.VolumeUSD1h[1] += b.VolumeUSD[1]
		if b.Both() {
			l.Bin, ok = b, true
		}
	}
	return l, ok
}

// Stats summarizes premiums in basis points.
type Stats struct {
	Points  int     `json:"points"`
	Average float64 `json:"averageBp"`
	Median  float64 `json:"medianBp"`
	Min     float64 `json:"minBp"`
	Max     float64 `json:"maxBp"`
}

// StatsOf summarizes ps (not modified); the zero Stats when ps is empty.
func StatsOf(ps []float64) Stats {
	if len(ps) == 0 {
		return Stats{}
	}
	s := slices.Clone(ps)
	slices.Sort(s)
	var sum float64
	for _, p := range s {
		sum += p
	}
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Stats{Points: n, Average: sum/float64(n) + 0, Median: med + 0, Min: s[0] + 0, Max: s[n-1] + 0}
}

// Point is one bin of a premium series.
type Point struct {
	Bin     Bin
	Session uscal.SessionLabel
}

// Series returns the bins of bins (ordered) with trades on both groups as
// points labelled with the US market session at their start, the overall
// statistics and the statistics per session (only sessions with points).
func Series(bins []Bin) ([]Point, Stats, map[uscal.SessionLabel]Stats) {
	var pts []Point
	var all []float64
	per := map[uscal.SessionLabel][]float64{}
	for _, b := range bins {
		if !b.Both() {
			continue
		}
		s := uscal.SessionAt(time.Unix(0, b.StartNs)).Label
		pts = append(pts, Point{Bin: b, Session: s})
		all = append(all, b.PremiumBp())
		per[s] = append(per[s], b.PremiumBp())
	}
	st := map[uscal.SessionLabel]Stats{}
	for s, ps := range per {
		st[s] = StatsOf(ps)
	}
	return pts, StatsOf(all), st
}
