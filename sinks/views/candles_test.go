package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

// t0 is a UTC multiple of 5 minutes: 2024-08-08T12:00:00Z.
const t0 = int64(1723118400) * 1e9

// candle returns a closed 1m candle starting min minutes after t0.
func candle(symbol, venue string, min int64, close, buyUSD, sellUSD float64, trades uint32) *schemas.Candle {
	return &schemas.Candle{Venue: venue, Symbol: symbol, StartNs: t0 + min*minuteNs, IntervalNs: minuteNs,
		Close: close, VolumeUsd: buyUSD + sellUSD, BuyVolumeUsd: buyUSD, SellVolumeUsd: sellUSD, TradeCount: trades}
}

// render renders bars as "start:close/volume/pressure" with start in
// minutes after t0 and "-" for a missing close.
func render(bars []Bar) string {
	var out []string
	for _, b := range bars {
		cl := "-"
		if b.HasClose {
			cl = fmt.Sprint(b.Close)
		}
		out = append(out, fmt.Sprintf("%d:%s/%g/%g/%d", (b.StartNs-t0)/minuteNs, cl, b.VolumeUSD, b.BuyPressure, b.Trades))
	}
	return strings.Join(out, " ")
}

func TestCandlesBars(t *testing.T) {
	f := func(name string, cs []*schemas.Candle, symbol string, n int, delayMin int64, want string, wantAsOf int64) {
		t.Helper()
		c := NewCandles(PreviewSymbols)
		for range 2 { // applying twice (a rebuild) changes nothing
			for _, k := range cs {
				c.Apply(k)
			}
			bars, asOf, ok := c.Bars(symbol, n, 5*minuteNs, delayMin*minuteNs)
			if !ok {
				t.Fatalf("%s: no market clock", name)
			}
			if got := render(bars); got != want || asOf != t0+wantAsOf*minuteNs {
				t.Fatalf("%s:\ngot  %s (as of %d)\nwant %s (as of %d)", name, got, (asOf-t0)/minuteNs, want, wantAsOf)
			}
		}
	}
	// Two venues in minute 0, one in minute 4; clock = end of minute 9
	// (10), no delay: bars [0,5) and [5,10).
	two := []*schemas.Candle{
		candle("ETHUSD", "a", 0, 100, 300, 100, 4),
		candle("ETHUSD", "b", 0, 110, 100, 100, 2),
		candle("ETHUSD", "a", 4, 104, 0, 200, 1),
		candle("BTCUSD", "a", 9, 60000, 1, 1, 1),
	}
	f("aggregated", two, "ETHUSD", 2, 0, "0:104/800/50/7 5:104/0/50/0", 10)
	// Minute 0 alone: the close is the leading venue's (a, 400 USD against
	// 200), the cross-venue rule of the history routes (operators.Leads).
	f("leading close", two[:2], "ETHUSD", 1, 0, "-5:-/0/50/0", 1)
	f("leading close, later clock", append(two[:2:2], candle("TSLA", "x", 5, 1, 0, 0, 1)), "ETHUSD", 1, 0,
		"0:100/600/66.66666666666667/6", 6)
	// Equal volumes: the venue name that sorts first; a venue without
	// trades has no say; one venue's close comes back as stored.
	tie := []*schemas.Candle{
		candle("ETHUSD", "b", 0, 110, 100, 100, 2),
		candle("ETHUSD", "a", 0, 105905.7, 100, 100, 2),
		candle("ETHUSD", "c", 0, 1, 1e6, 0, 0),
		candle("TSLA", "x", 5, 1, 0, 0, 1),
	}
	f("tie", tie, "ETHUSD", 1, 0, "0:105905.7/1.0004e+06/99.98000799680128/4", 6)
	f("single venue", append(tie[1:2:2], candle("TSLA", "x", 5, 1, 0, 0, 1)), "ETHUSD", 1, 0, "0:105905.7/200/50/2", 6)
	// The delay counts from the market clock (minute 10 → 7 → bars end at 5).
	f("delayed", two, "ETHUSD", 2, 3, "-5:-/0/50/0 0:104/800/50/7", 7)
	// A close carries into later empty bars, from before the first bar.
	f("carry", two, "ETHUSD", 1, 0, "5:104/0/50/0", 10)
	f("unknown symbol", two, "TSLA", 1, 0, "5:-/0/50/0", 10)
}

func TestCandlesEdges(t *testing.T) {
	c := NewCandles(PreviewSymbols)
	if _, _, ok := c.Bars("ETHUSD", 6, 5*minuteNs, 0); ok {
		t.Fatal("bars without any candle")
	}
	c.Apply(nil)
	c.Apply(&schemas.Candle{Symbol: "ETHUSD"}) // no interval
	if c.ClockNs() != 0 {
		t.Fatal("ignored candles moved the clock")
	}
	c.Apply(candle("ETHUSD", "a", 200, 1, 1, 1, 1))
	c.Apply(candle("ETHUSD", "a", 0, 2, 1, 1, 1)) // older than the retention: ignored
	if got := len(c.minutes["ETHUSD"]); got != 1 {
		t.Fatalf("%d minutes kept, want 1", got)
	}
	c.Apply(candle("ETHUSD", "a", 400, 1, 1, 1, 1)) // prunes minute 200
	if _, kept := c.minutes["ETHUSD"][t0+200*minuteNs]; kept {
		t.Fatal("minute beyond the retention not pruned")
	}
	c.Apply(candle("DOGEUSD", "a", 401, 1, 1, 1, 1)) // other symbol: clock only
	if c.ClockNs() != t0+402*minuteNs || c.minutes["DOGEUSD"] != nil {
		t.Fatalf("clock %d, DOGEUSD kept %v", (c.ClockNs()-t0)/minuteNs, c.minutes["DOGEUSD"] != nil)
	}
}
