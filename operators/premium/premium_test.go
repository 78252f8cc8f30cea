package premium

import (
	"math"
	"testing"
	"time"

	"github.com/marketintel/mi/operators/uscal"
)

var t0 = time.Date(2024, 8, 8, 14, 0, 0, 0, time.UTC) // 10:00 New York, REGULAR

func at(min int) int64 { return t0.Add(time.Duration(min) * time.Minute).UnixNano() }

func TestFold(t *testing.T) {
	rows := []Row{
		{StartNs: at(0), VenueKind: "solana_dex", VWAP: 100, Volume: 1, VolumeUSD: 100, Trades: 2},
		{StartNs: at(5), VenueKind: "solana_dex", VWAP: 103, Volume: 2, VolumeUSD: 206, Trades: 1}, // same 15m bin
		{StartNs: at(1), VenueKind: "onchain_dex", VWAP: 101, Volume: 4, VolumeUSD: 404, Trades: 3},
		{StartNs: at(1), VenueKind: "cex", VWAP: 500, Volume: 4, VolumeUSD: 2000, Trades: 3},       // other group
		{StartNs: at(16), VenueKind: "onchain_dex", VWAP: 0, Volume: 4, VolumeUSD: 0, Trades: 3},   // no price
		{StartNs: at(16), VenueKind: "onchain_dex", VWAP: 99, Volume: 0, VolumeUSD: 0, Trades: 0},  // no volume
		{StartNs: at(31), VenueKind: "onchain_dex", VWAP: 98, Volume: 1, VolumeUSD: 98, Trades: 1}, // one group
	}
	bins := Fold(rows, int64(BinWidth))
	if len(bins) != 2 || bins[0].StartNs != at(0) || bins[1].StartNs != at(30) {
		t.Fatalf("bins %+v", bins)
	}
	b := bins[0]
	if b.VWAP[0] != (100+2*103)/3.0 || b.VWAP[1] != 101 || b.VolumeUSD != [2]float64{306, 404} || b.Trades != [2]int64{3, 3} || !b.Both() {
		t.Fatalf("bin %+v", b)
	}
	if bins[1].Both() {
		t.Fatal("a bin with one group counts")
	}
	// 10,000 × (102/101 − 1) = 99.0099… bp.
	if p := b.PremiumBp(); math.Abs(p-1e4*(102.0/101-1)) > 1e-9 {
		t.Fatalf("premium %v", p)
	}
}

func bin(min int, a, b float64, usdA, usdB float64) Bin {
	n := func(v float64) int64 {
		if v > 0 {
			return 1
		}
		return 0
	}
	return Bin{StartNs: at(min), VWAP: [2]float64{a, b}, Volume: [2]float64{1, 1}, VolumeUSD: [2]float64{usdA, usdB}, Trades: [2]int64{n(a), n(b)}}
}

func TestLatestOf(t *testing.T) {
	bins := []Bin{bin(-30, 100, 100, 1, 1), bin(15, 101, 100, 10, 20), bin(30, 102, 0, 5, 0), bin(45, 0, 100, 0, 7), bin(60, 103, 100, 1, 1)}
	// As of 11:00 New York (minute 60): bins 0..45 are within the hour; the
	// last with both groups is minute 15; the bin at 60 has not ended.
	l, ok := LatestOf(bins, at(60))
	if !ok || l.Bin.StartNs != at(15) || l.VolumeUSD1h != [2]float64{15, 27} {
		t.Fatalf("%v %+v", ok, l)
	}
	if _, ok := LatestOf(bins, at(200)); ok {
		t.Fatal("a bin older than an hour counts")
	}
}

func TestSeriesAndStats(t *testing.T) {
	// 13:30 UTC is 09:30 New York (REGULAR); 13:00 UTC is PRE_MARKET.
	bins := []Bin{bin(-60, 101, 100, 1, 1), bin(-30, 102, 100, 1, 1), bin(0, 99, 100, 1, 1), bin(15, 100, 0, 1, 0), bin(30, 103, 100, 1, 1)}
	pts, all, per := Series(bins)
	if len(pts) != 4 || pts[0].Session != uscal.PreMarket || pts[1].Session != uscal.Regular {
		t.Fatalf("points %+v", pts)
	}
	p := func(a float64) float64 { return 1e4 * (a/100 - 1) }
	if all.Points != 4 || math.Abs(all.Median-(p(101)+p(102))/2) > 1e-9 || all.Min != p(99) || all.Max != p(103) ||
		math.Abs(all.Average-(p(101)+p(102)+p(99)+p(103))/4) > 1e-9 {
		t.Fatalf("stats %+v", all)
	}
	if per[uscal.PreMarket].Points != 1 || per[uscal.Regular].Points != 3 || per[uscal.Regular].Median != p(102) {
		t.Fatalf("per session %+v", per)
	}
	if s := StatsOf(nil); s != (Stats{}) {
		t.Fatalf("empty %+v", s)
	}
}
