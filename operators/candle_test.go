package operators

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// TestCandleCloseTiming checks that a candle is emitted exactly when the
// watermark of its venue kind reaches the end of its minute.
func TestCandleCloseTiming(t *testing.T) {
	// f pushes trades and wants, after each, the starts of the candles
	// emitted by that push ("" for none).
	f := func(cfg Config, trades []*schemas.Trade, want ...string) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(cfg, r.emit())
		var got []string
		for _, x := range trades {
			n := len(r.candles)
			e.Push(x)
			var starts []string
			for _, c := range r.candles[n:] {
				starts = append(starts, fmt.Sprintf("%s/%s", c.Venue, offset(testBase, c.StartNs)))
			}
			got = append(got, fmt.Sprint(starts))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("emitted %q, want %q", got, want)
		}
	}
	s := time.Second
	c := func(off time.Duration) *schemas.Trade { return tr("A", "x", cex, buy, off, 1, 1) }
	o := func(off time.Duration) *schemas.Trade { return tr("A", "u", evm, buy, off, 1, 1) }
	cfg := DefaultConfig()
	// W_cex = t-5s: minute 0 closes when a trade reaches 65s, not before.
	f(cfg, []*schemas.Trade{c(10 * s), c(64*s + 999999999), c(65 * s)}, "[]", "[]", "[x/0s]")
	// Minutes with no trades emit nothing; a jump closes every minute passed.
	f(cfg, []*schemas.Trade{c(10 * s), c(70 * s), c(10 * time.Minute)}, "[]", "[x/0s]", "[x/1m0s]")
	// The EVM candle waits for the EVM watermark (30s), not for CEX trades.
	f(cfg, []*schemas.Trade{o(10 * s), c(100 * s), o(89 * s), o(90 * s)}, "[]", "[]", "[]", "[u/0s]")
	// A late-but-accepted trade lands in its still-open candle.
	f(cfg, []*schemas.Trade{c(59 * s), c(62 * s), c(58 * s), c(66 * s)}, "[]", "[]", "[]", "[x/0s]")
	// Long lateness: several minutes open at once, closed in order.
	cfg.LatenessCEX = 3 * time.Minute
	f(cfg, []*schemas.Trade{c(10 * s), c(70 * s), c(130 * s), c(6 * time.Minute)}, "[]", "[]", "[]", "[x/0s x/1m0s x/2m0s]")
}

// TestCandleOHLC checks open/close by event time with arrival order
// breaking ties, and high/low.
func TestCandleOHLC(t *testing.T) {
	type p struct {
		off   time.Duration
		price float64
	}
	f := func(in []p, open, high, low, close float64) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		for i, x := range in {
			t := tr("A", "x", cex, buy, x.off, x.price, 1)
			t.TradeId = fmt.Sprint(i)
			e.Push(t)
		}
		e.Push(tr("A", "x", cex, buy, 2*time.Minute, 1, 1))
		c := r.candles[0]
		if c.Open != open || c.High != high || c.Low != low || c.Close != close {
			t.Fatalf("OHLC %v %v %v %v, want %v %v %v %v", c.Open, c.High, c.Low, c.Close, open, high, low, close)
		}
	}
	ms := time.Millisecond
	f([]p{{1 * ms, 10}}, 10, 10, 10, 10)
	f([]p{{1 * ms, 10}, {2 * ms, 12}, {3 * ms, 9}, {4 * ms, 11}}, 10, 12, 9, 11)
	// Out of order: open is the earliest event time, close the latest.
	f([]p{{5 * ms, 10}, {2 * ms, 12}, {9 * ms, 9}, {4 * ms, 11}}, 12, 12, 9, 9)
	// Ties: open is the first arrival at the earliest time, close the last
	// arrival at the latest time.
	f([]p{{5 * ms, 10}, {5 * ms, 12}, {5 * ms, 9}}, 10, 12, 9, 9)
	f([]p{{7 * ms, 20}, {1 * ms, 10}, {1 * ms, 11}, {7 * ms, 21}, {7 * ms, 22}, {3 * ms, 30}}, 10, 30, 10, 22)
}

// TestCandleSums checks every candle field against sums in arrival order
// with plain float64 addition, bit for bit.
func TestCandleSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	r := newRecorder()
	cfg := DefaultConfig()
	cfg.LatenessCEX = time.Minute // trades arrive in random order over the minute
	e := NewEngine(cfg, r.emit())
	var (
		vol, volUSD, bv, sv, bUSD, sUSD, quote float64
		n, nb, ns, nu                          uint32
	)
	for i := range 1000 {
		x := tr("A", "x", cex, schemas.Side(rng.IntN(3)), time.Duration(rng.Int64N(int64(time.Minute))), 100*rng.Float64()+1, rng.ExpFloat64())
		x.NotionalUsd = x.Price * x.Size * (1 + rng.Float64()/100) // notional is taken as given
		x.TradeId = fmt.Sprint(i)
		e.Push(x)
		vol += x.Size
		volUSD += x.NotionalUsd
		quote += x.Price * x.Size
		n++
		switch x.Side {
		case buy:
			bv += x.Size
			bUSD += x.NotionalUsd
			nb++
		case sell:
			sv += x.Size
			sUSD += x.NotionalUsd
			ns++
		default:
			nu++
		}
	}
	rejected := len(r.rejects) // late ones are not in the candle: none expected
	if rejected != 0 {
		t.Fatalf("%d trades rejected: %q", rejected, r.rejects[0])
	}
	e.Push(tr("A", "x", cex, buy, 3*time.Minute, 1, 1))
	c := r.candles[0]
	got := []float64{c.Volume, c.VolumeUsd, c.BuyVolume, c.SellVolume, c.BuyVolumeUsd, c.SellVolumeUsd, c.Vwap, c.BuyPressure}
	want := []float64{vol, volUSD, bv, sv, bUSD, sUSD, quote / vol, 100 * (bUSD / (bUSD + sUSD))}
	if !slices.Equal(got, want) {
		t.Fatalf("sums %v, want %v", got, want)
	}
	if c.TradeCount != n || c.BuyCount != nb || c.SellCount != ns || c.UnknownSideCount != nu {
		t.Fatalf("counts %d %d %d %d, want %d %d %d %d", c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount, n, nb, ns, nu)
	}
	if c.IntervalNs != 60e9 || c.StartNs != testBase || c.Symbol != "A" || c.Venue != "x" || c.VenueKind != cex {
		t.Fatalf("identity fields: %v", c)
	}
}

// TestCandleBuyPressure checks the 50-when-empty rule with unknown sides.
func TestCandleBuyPressure(t *testing.T) {
	f := func(sides []schemas.Side, want float64) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		for i, s := range sides {
			e.Push(tr("A", "x", cex, s, time.Duration(i), 10, 1))
		}
		e.Push(tr("A", "x", cex, buy, 2*time.Minute, 1, 1))
		if got := r.candles[0].BuyPressure; got != want {
			t.Fatalf("buy pressure %v, want %v", got, want)
		}
	}
	f([]schemas.Side{unk}, 50)
	f([]schemas.Side{unk, buy}, 100)
	f([]schemas.Side{sell, unk}, 0)
	f([]schemas.Side{buy, sell, buy, unk}, 66.66666666666666) // 100 * (20.0 / 30.0) in float64
}

// TestCandleSeries checks one candle per venue, chain and kind, emitted in
// order of start, symbol, venue, chain.
func TestCandleSeries(t *testing.T) {
	r := newRecorder()
	e := NewEngine(DefaultConfig(), r.emit())
	push := func(sym, venue, chain string, off time.Duration) {
		x := tr(sym, venue, cex, buy, off, 1, 1)
		x.Chain = chain
		e.Push(x)
	}
	push("B", "x", "", 10*time.Second)
	push("A", "y", "", 11*time.Second)
	push("A", "x", "base", 12*time.Second)
	push("A", "x", "ethereum", 13*time.Second)
	push("A", "x", "", 70*time.Second)
	push("B", "x", "", 2*time.Minute+10*time.Second)
	var got []string
	for _, c := range r.candles {
		got = append(got, fmt.Sprintf("%s %s %s %s", offset(testBase, c.StartNs), c.Symbol, c.Venue, c.Chain))
	}
	want := []string{"0s A x base", "0s A x ethereum", "0s A y ", "0s B x ", "1m0s A x "}
	if !slices.Equal(got, want) {
		t.Fatalf("candles %q, want %q", got, want)
	}
}

// TestEndClosesLastMinute: at the end of input the last minute of every
// venue kind gets its candle and its minute-close documents, which no
// watermark would otherwise ever close.
func TestEndClosesLastMinute(t *testing.T) {
	s := time.Second
	var closes []string
	r := newRecorder()
	em := r.emit()
	em.MinuteClose = func(d *schemas.IntelligenceDocument) {
		closes = append(closes, fmt.Sprintf("%s/%s/%s", d.Symbol, d.Window, offset(testBase, d.TimestampNs)))
	}
	e := NewEngine(DefaultConfig(), em)
	e.Push(tr("A", "x", cex, buy, 10*s, 1, 1))
	e.Push(tr("A", "x", cex, buy, 62*s, 2, 1))
	e.Push(tr("B", "u", evm, buy, 75*s, 3, 1))
	if len(r.candles) != 0 {
		t.Fatalf("%d candles before the end, want none (the watermarks are still in minute 0)", len(r.candles))
	}
	e.End()
	e.End() // idempotent
	var got []string
	for _, c := range r.candles {
		got = append(got, fmt.Sprintf("%s/%s/%s/%v", c.Symbol, c.Venue, offset(testBase, c.StartNs), c.Close))
	}
	if want := []string{"A/x/0s/1", "A/x/1m0s/2", "B/u/1m0s/3"}; !slices.Equal(got, want) {
		t.Fatalf("candles at the end %q, want %q", got, want)
	}
	if len(closes) == 0 || closes[len(closes)-1] != "B/15m/2m0s" {
		t.Fatalf("minute closes %q, want the last one at 2m0s", closes)
	}
	n := len(r.candles)
	e.Push(tr("A", "x", cex, buy, 80*s, 1, 1))
	if len(r.rejects) != 1 || r.rejects[0] != ReasonLate || len(r.candles) != n {
		t.Fatalf("a trade for a minute End closed: rejects %q, %d new candles; want late and none", r.rejects, len(r.candles)-n)
	}
}
