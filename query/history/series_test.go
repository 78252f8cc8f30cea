package history_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// TestSeriesEqualsCrossVenueCandles checks that Series, which reads the
// cross-venue candles with its own statement and computes buy pressure in
// Go, answers the cross-venue candles of Candles, up to the order in which
// the sums add the venues, which SQL leaves unspecified (an ulp or two with
// three venues; extremes and counts exact): three venues, a symbol with
// zero-volume venue rows (the plain-mean fallbacks), buckets covered by one
// venue only, stored 1m read at 1m (no roll-up) and rolled up to 5m and 1h.
func TestSeriesEqualsCrossVenueCandles(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	w.GenCandles(day0, 2, []string{"uniswap_v3_ethereum", "raydium", "orca"}, 3)
	var hand []datasets.Candle
	for m := range 30 {
		ts := day0.Add(time.Duration(m) * time.Minute)
		a := histtest.Flat("ZEROUSD", "coinbase", ts, 100+float64(m), 0)
		a.High, a.Low = a.Open+1, a.Open-2
		hand = append(hand, a)
		if m%3 != 0 {
			hand = append(hand, histtest.Flat("ZEROUSD", "kraken", ts, 103+float64(m)/7, 0))
		}
		if m%5 == 0 {
			hand = append(hand, histtest.Flat("ZEROUSD", "bitstamp", ts, 99.5, float64(m)/3))
		}
	}
	w.Candles("1m", false, hand)
	s := open(t, root)
	syms := []string{histtest.Symbol(0), histtest.Symbol(1), histtest.Symbol(2), "ZEROUSD", "NOPEUSD"}
	from, to := day0.Add(7*time.Minute), day0.Add(47*time.Hour)
	for _, iv := range []string{"1m", "5m", "1h"} {
		series, res, err := s.Series(t.Context(), syms, iv, from, to)
		if err != nil {
			t.Fatal(iv, err)
		}
		if len(res) != 1 || res[0] != "1m" {
			t.Fatalf("%s: resolutions %v, want [1m]", iv, res)
		}
		cr, err := s.Candles(t.Context(), history.CandleQuery{Symbols: syms, Interval: iv, From: from, To: to})
		if err != nil {
			t.Fatal(iv, err)
		}
		want := map[string][]datasets.Candle{}
		for _, c := range cr.Candles {
			want[c.Symbol] = append(want[c.Symbol], c)
		}
		if len(series) != len(want) || len(series) != 4 {
			t.Fatalf("%s: series of %d symbols, candles of %d, want 4", iv, len(series), len(want))
		}
		for sym, cs := range want {
			se := series[sym]
			var got []struct {
				TS                                             time.Time
				Open, High, Low, Close, VolumeUSD, BuyPressure float64
				TradeCount                                     int64
			}
			if err := json.Unmarshal(se.SeriesJSON, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(cs) || se.Candles != int64(len(cs)) {
				t.Fatalf("%s %s: %d series candles (%d counted), %d candles", iv, sym, len(got), se.Candles, len(cs))
			}
			var vwapVolume, volume, buy, sell float64
			for i, c := range cs {
				g := got[i]
				if !g.TS.Equal(c.Time) || !ulps(g.Open, c.Open) || g.High != c.High || g.Low != c.Low ||
					!ulps(g.Close, c.Close) || !ulps(g.VolumeUSD, c.VolumeUSD) || !ulps(g.BuyPressure, c.BuyPressure) ||
					g.TradeCount != c.TradeCount {
					t.Fatalf("%s %s candle %d: series %+v, SQL %+v", iv, sym, i, g, c)
				}
				vwapVolume += c.VWAP * c.Volume
				volume += c.Volume
				buy += c.BuyVolumeUSD
				sell += c.SellVolumeUSD
			}
			wantVWAP := cs[len(cs)-1].Close
			if volume != 0 {
				wantVWAP = vwapVolume / volume
			}
			if !ulps(se.VWAP, wantVWAP) || !ulps(se.BuyVolumeUSD, buy) || !ulps(se.SellVolumeUSD, sell) {
				t.Fatalf("%s %s: series vwap %v buy %v sell %v, SQL candles %v %v %v", iv, sym, se.VWAP,
					se.BuyVolumeUSD, se.SellVolumeUSD, wantVWAP, buy, sell)
			}
		}
	}
}

// ulps reports whether a and b are equal up to summation order: within
// 1e-14 relative.
func ulps(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Max(math.Abs(a), math.Abs(b)) }
