package operators

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// TestDocumentTiming checks when documents are emitted and for which
// symbols, in which order.
func TestDocumentTiming(t *testing.T) {
	// f pushes trades and wants, after each, the documents that push
	// emitted as "symbol/window@offset".
	f := func(trades []*schemas.Trade, want ...string) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		var got []string
		for _, x := range trades {
			n := len(r.docs)
			e.Push(x)
			var docs []string
			for _, d := range r.docs[n:] {
				docs = append(docs, fmt.Sprintf("%s/%s@%s", d.Symbol, d.Window, offset(testBase, d.TimestampNs)))
			}
			got = append(got, strings.Join(docs, " "))
		}
		for i := range want {
			want[i] = expandTiming(want[i])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("documents\n%q\nwant\n%q", got, want)
		}
	}
	ms, s, m := time.Millisecond, time.Second, time.Minute
	c := func(sym string, off time.Duration) *schemas.Trade { return tr(sym, "x", cex, buy, off, 1, 1) }
	o := func(sym string, off time.Duration) *schemas.Trade { return tr(sym, "u", evm, buy, off, 1, 1) }
	abc := func(sym string, at string) string {
		return fmt.Sprintf("%s/1m@%s %s/5m@%s %s/15m@%s", sym, at, sym, at, sym, at)
	}
	// Nothing until a trade crosses into a new second; then the symbols
	// with trades since the last documents, sorted, windows shortest first.
	f([]*schemas.Trade{c("B", 100*ms), c("A", 200*ms), c("B", 999*ms), c("B", s)},
		"", "", "", abc("A", "1s")+" "+abc("B", "1s"))
	// Only the newest boundary is emitted when seconds are skipped, and it
	// covers symbols that traded in the skipped seconds.
	f([]*schemas.Trade{c("A", 100*ms), c("A", 1500*ms), c("B", 7200*ms), c("B", 7300*ms), c("A", 9*s)},
		"", "1s:A", "7s:A", "", "9s:B")
	// Rejected trades neither trigger nor receive documents.
	late := c("A", 0)
	late.TradeId = "late"
	f([]*schemas.Trade{c("A", 10*s), late, c("B", 20*s+ms), c("B", 20*s+ms)},
		"", "", abc("A", "20s"), "")
	// A trade accepted from a lagging source touches its symbol without
	// crossing a second.
	f([]*schemas.Trade{c("A", 10*s), o("B", 5*s), c("A", 11*s)}, "", "", abc("A", "11s")+" "+abc("B", "11s"))
	// At a minute boundary, every symbol whose 15m window holds a trade,
	// touched or not; a symbol idle for 15 minutes drops out.
	f([]*schemas.Trade{c("A", 10*s), c("B", 20*s), c("B", 30*s), c("B", m+s), c("B", 15*m+15*s), c("B", 16*m)},
		"", "20s:A", "30s:B", abc("A", "1m1s")+" "+abc("B", "1m1s"), abc("B", "15m15s"), abc("B", "16m0s"))
}

// expandTiming turns the shorthand "<at>:<symbols>" into document names, so
// the cases above stay readable.
func init() {
	expandTiming = func(s string) string {
		at, syms, ok := strings.Cut(s, ":")
		if !ok {
			return s
		}
		var out []string
		for _, sym := range strings.Split(syms, ",") {
			for _, w := range windowNames {
				out = append(out, fmt.Sprintf("%s/%s@%s", sym, w, at))
			}
		}
		return strings.Join(out, " ")
	}
}

var expandTiming func(string) string

// TestWindowReference checks every document field against a plain
// recomputation from the accepted trades. Prices and sizes are small
// integers, so every sum is exact in any order and fields compare with ==.
func TestWindowReference(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { windowReference(t, seed) })
	}
}

type refTrade struct {
	t     *schemas.Trade
	large bool
}

func windowReference(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 77))
	venues := []string{"a", "b", "c", "d"}
	var trades []*schemas.Trade
	now := int64(0)
	for i := range 6000 {
		now += rng.Int64N(int64(700 * time.Millisecond))
		if rng.IntN(500) == 0 {
			now += int64(3 * time.Minute) // quiet stretches
		}
		off := now - rng.Int64N(int64(6*time.Second)) // some late
		venue, kind := venues[rng.IntN(len(venues))], cex
		if rng.IntN(5) == 0 {
			// A lagging chain source: 3 minutes behind, on time for its own
			// watermark. Its trades land in the previous part of the 1m
			// ring or fall off it, and in the current 5m and 15m windows.
			venue, kind = "u", evm
			off = now - int64(3*time.Minute) - rng.Int64N(int64(25*time.Second))
		}
		x := tr("A", venue, kind, schemas.Side(rng.IntN(3)), time.Duration(off), float64(100+rng.IntN(100)), float64(1+rng.IntN(10)))
		if rng.IntN(20) == 0 {
			x.Size *= 1000 // some large
			x.NotionalUsd = x.Price * x.Size
		}
		x.TradeId = fmt.Sprint(i)
		if rng.IntN(30) == 0 && len(trades) > 0 {
			x = trades[len(trades)-1-rng.IntN(min(10, len(trades)))] // duplicate
		}
		trades = append(trades, x)
	}

	var (
		accepted      []refTrade
		lateAt, dupAt []int64 // symbol's newest event time when rejected
		hist          histogram
		lastNs        int64
		lastPrice     float64
		coverage      int64 = math.MaxInt64
		checked       int
	)
	e := NewEngine(DefaultConfig(), Emit{})
	var reason string
	e.emit.Reject = func(_ *schemas.Trade, r string) { reason = r }
	e.emit.Document = func(d *schemas.IntelligenceDocument) {
		checked++
		checkDocument(t, d, accepted, lateAt, dupAt, lastNs, lastPrice, coverage, hist.threshold())
	}
	for _, x := range trades {
		reason = ""
		large := x.NotionalUsd >= hist.threshold()
		e.Push(x)
		switch reason {
		case "":
			hist.add(x.NotionalUsd)
			accepted = append(accepted, refTrade{x, large})
			if x.EventTimeNs >= lastNs {
				lastNs, lastPrice = x.EventTimeNs, x.Price
			}
			coverage = min(coverage, x.EventTimeNs)
		case ReasonLate:
			lateAt = append(lateAt, lastNs)
		case ReasonDuplicate:
			dupAt = append(dupAt, lastNs)
		default:
			t.Fatalf("unexpected reject %q", reason)
		}
	}
	if checked < 3000 || len(lateAt) == 0 || len(dupAt) == 0 {
		t.Fatalf("checked %d documents, %d late, %d duplicates: sequence too tame", checked, len(lateAt), len(dupAt))
	}
}

func checkDocument(t *testing.T, d *schemas.IntelligenceDocument, accepted []refTrade, lateAt, dupAt []int64,
	lastNs int64, lastPrice float64, coverage int64, threshold float64) {
	t.Helper()
	secs, _ := schemas.WindowSeconds(d.Window)
	width := secs * 1e9 / bucketsPerWindow
	s := d.TimestampNs
	hi := floorDiv(s-1, width)
	lo, prevLo := (hi-59)*width, (hi-119)*width
	end := (hi + 1) * width

	var (
		n, large, prevN, late, dup                         int64
		buyV, sellV, unkV, lBuy, lSell, size, quote, prevV float64
		maxSize, maxUSD, high, low, first                  float64
		firstNs                                            int64 = math.MaxInt64
		venues                                             []string
	)
	for _, a := range accepted {
		x := a.t
		switch {
		case x.EventTimeNs >= prevLo && x.EventTimeNs < lo:
			prevN++
			prevV += x.NotionalUsd
		case x.EventTimeNs >= lo && x.EventTimeNs < end:
			if n == 0 {
				high, low = x.Price, x.Price
			}
			n++
			high, low = max(high, x.Price), min(low, x.Price)
			maxSize, maxUSD = max(maxSize, x.Size), max(maxUSD, x.NotionalUsd)
			if x.EventTimeNs < firstNs {
				firstNs, first = x.EventTimeNs, x.Price
			}
			switch x.Side {
			case buy:
				buyV += x.NotionalUsd
			case sell:
				sellV += x.NotionalUsd
			default:
				unkV += x.NotionalUsd
			}
			if a.large {
				large++
				switch x.Side {
				case buy:
					lBuy += x.NotionalUsd
				case sell:
					lSell += x.NotionalUsd
				}
			}
			size += x.Size
			quote += x.Price * x.Size
			if !slices.Contains(venues, x.Venue) {
				venues = append(venues, x.Venue)
			}
		}
	}
	for _, at := range lateAt {
		if at >= lo && at < end {
			late++
		}
	}
	for _, at := range dupAt {
		if at >= lo && at < end {
			dup++
		}
	}
	slices.Sort(venues)
	volume := buyV + sellV + unkV
	var change float64
	if n > 0 {
		change = 100 * (lastPrice - first) / first
	}
	ws := float64(s-max(lo, floorDiv(coverage, 1e9)*1e9)) / 1e9
	o := d.Observations
	q := o.Quality
	type field struct {
		name      string
		got, want any
	}
	fields := []field{
		{"id", d.Id, fmt.Sprintf("A-%s-%d", d.Window, s/1e9)},
		{"price", d.Price, lastPrice},
		{"last_trade_time_ns", d.LastTradeTimeNs, lastNs},
		{"trade_count", d.TradeCount, n},
		{"volume", d.Volume, volume},
		{"buy_volume", d.BuyVolume, buyV},
		{"sell_volume", d.SellVolume, sellV},
		{"buy_pressure", d.BuyPressure, pressure(buyV, sellV)},
		{"buy_sell_ratio", d.BuySellRatio, cappedRatio(buyV, sellV)},
		{"buy_sell_imbalance", d.BuySellImbalance, 100 * ratioOrZero(buyV-sellV, volume)},
		{"price_change_percent", d.PriceChangePercent, change},
		{"volume_acceleration", d.VolumeAcceleration, cappedRatio(volume, prevV)},
		{"trade_acceleration", d.TradeAcceleration, cappedRatio(float64(n), float64(prevN))},
		{"average_trade_size", d.AverageTradeSize, ratioOrZero(volume, float64(n))},
		{"trade_rate_per_minute", d.TradeRatePerMinute, ratioOrZero(float64(n), ws/60)},
		{"volume_rate_per_minute", d.VolumeRatePerMinute, ratioOrZero(volume, ws/60)},
		{"price_change_per_minute", d.PriceChangePerMinute, ratioOrZero(change, ws/60)},
		{"large_trade_count", d.LargeTradeCount, large},
		{"large_buy_volume", d.LargeBuyVolume, lBuy},
		{"large_sell_volume", d.LargeSellVolume, lSell},
		{"max_trade_size", d.MaxTradeSize, maxSize},
		{"max_trade_notional", d.MaxTradeNotional, maxUSD},
		{"dominant_side", d.DominantSide, dominantSide(pressure(buyV, sellV))},
		{"late_trades", int64(q.LateTrades), late},
		{"duplicate_trades", int64(q.DuplicateTrades), dup},
		{"unknown_side_share", q.UnknownSideShare, ratioOrZero(unkV, volume)},
		{"venues", strings.Join(q.Venues, ","), strings.Join(venues, ",")},
		{"venue_count", int(q.VenueCount), len(venues)},
		{"window_seconds", o.WindowSeconds, ws},
		{"previous_volume", o.PreviousVolume, prevV},
		{"previous_trade_count", int64(o.PreviousTradeCount), prevN},
		{"first_price", o.FirstPrice, first},
		{"large_trade_threshold_usd", o.LargeTradeThresholdUsd, threshold},
		{"high", o.High, high},
		{"low", o.Low, low},
		{"vwap", o.Vwap, ratioOrZero(quote, size)},
	}
	for _, f := range fields {
		if f.got != f.want {
			t.Fatalf("%s as of %s: %s = %v, want %v", d.Window, offset(testBase, s), f.name, f.got, f.want)
		}
	}
}

// TestWindowSpan checks window_seconds: the 5m and 15m windows end with a
// partial bucket, and nothing before the partition's first trade counts.
func TestWindowSpan(t *testing.T) {
	f := func(first, at time.Duration, want1m, want5m, want15m float64) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		e.Push(tr("A", "x", cex, buy, first, 1, 1))
		e.Push(tr("A", "x", cex, buy, at-time.Millisecond, 1, 2))
		e.Push(tr("A", "x", cex, buy, at, 1, 3))
		var got []float64
		for _, d := range r.docs[len(r.docs)-3:] {
			got = append(got, d.Observations.WindowSeconds)
		}
		if want := []float64{want1m, want5m, want15m}; !slices.Equal(got, want) {
			t.Fatalf("window seconds %v, want %v", got, want)
		}
	}
	s, m := time.Second, time.Minute
	// Long after the first trade: 60s; 5m ends 3s into a 5s bucket: 298s;
	// 15m ends 3s into a 15s bucket: 888s.
	f(0, 30*m+3*s, 60, 298, 888)
	f(0, 30*m+5*s, 60, 300, 890)
	f(0, 30*m+15*s, 60, 300, 900)
	// Shortly after the first trade (at 0.5s: coverage from 0s).
	f(500*time.Millisecond, 10*s, 10, 10, 10)
	f(0, 2*m+1*s, 60, 121, 121)
}

func TestCappedRatio(t *testing.T) {
	f := func(a, b, want float64) {
		t.Helper()
		if got := cappedRatio(a, b); got != want {
			t.Fatalf("cappedRatio(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	f(0, 0, 0)
	f(0, 5, 0)
	f(5, 0, 1000)
	f(3, 2, 1.5)
	f(2001, 2, 1000)
	f(1e300, 1e-300, 1000)
}

func TestDominantSide(t *testing.T) {
	f := func(bp float64, want string) {
		t.Helper()
		if got := dominantSide(bp); got != want {
			t.Fatalf("dominantSide(%v) = %q, want %q", bp, got, want)
		}
	}
	f(100, "BUY")
	f(55, "BUY")
	f(54.99, "BALANCED")
	f(50, "BALANCED")
	f(45.01, "BALANCED")
	f(45, "SELL")
	f(0, "SELL")
}

// TestPreviousWindow checks the previous comparable window by hand.
func TestPreviousWindow(t *testing.T) {
	r := newRecorder()
	e := NewEngine(DefaultConfig(), r.emit())
	s := time.Second
	e.Push(tr("A", "x", cex, buy, 10*s, 10, 1)) // prev of 1m@2m10s
	e.Push(tr("A", "x", cex, buy, 69*s, 10, 2)) // prev of 1m@2m10s
	e.Push(tr("A", "x", cex, buy, 70*s, 10, 4)) // current of 1m@2m10s
	e.Push(tr("A", "x", cex, sell, 2*60*s+9*s, 10, 8))
	e.Push(tr("A", "x", cex, buy, 2*60*s+10*s, 10, 16))
	d := r.docs[len(r.docs)-3]
	if d.Window != "1m" || d.TimestampNs != testBase+int64(130*s) {
		t.Fatalf("unexpected document %s at %s", d.Window, offset(testBase, d.TimestampNs))
	}
	if d.Volume != 120 || d.TradeCount != 2 || d.Observations.PreviousVolume != 30 || d.Observations.PreviousTradeCount != 2 ||
		d.VolumeAcceleration != 4 || d.TradeAcceleration != 1 {
		t.Fatalf("volume %v n %d prev %v prev n %d accelerations %v %v", d.Volume, d.TradeCount,
			d.Observations.PreviousVolume, d.Observations.PreviousTradeCount, d.VolumeAcceleration, d.TradeAcceleration)
	}
	// The 5m window holds all of it and nothing before: accelerations capped.
	d5 := r.docs[len(r.docs)-2]
	if d5.Volume != 150 || d5.Observations.PreviousVolume != 0 || d5.VolumeAcceleration != 1000 || d5.TradeAcceleration != 1000 {
		t.Fatalf("5m: volume %v prev %v accelerations %v %v", d5.Volume, d5.Observations.PreviousVolume, d5.VolumeAcceleration, d5.TradeAcceleration)
	}
}

// TestVenueSlots checks the venue list when a symbol sees more venues than
// a bucket bitmask can name: slots of venues no longer in any current
// window are reused, and beyond 64 venues in use, extra venues are not
// listed.
func TestVenueSlots(t *testing.T) {
	r := newRecorder()
	e := NewEngine(DefaultConfig(), r.emit())
	s := time.Second
	// 64 venues in the first minute fill the table.
	for i := range 64 {
		e.Push(tr("A", fmt.Sprintf("v%02d", i), cex, buy, time.Duration(i)*s/2, 1, 1))
	}
	// Twenty minutes later none of them is in any current window: new
	// venues reuse their slots.
	for i := range 3 {
		e.Push(tr("A", fmt.Sprintf("w%d", i), cex, buy, 20*time.Minute+time.Duration(i)*s, 1, 1))
	}
	e.Push(tr("A", "w0", cex, buy, 20*time.Minute+5*s, 1, 1))
	d := r.docs[len(r.docs)-1]
	if got := strings.Join(d.Observations.Quality.Venues, ","); got != "w0,w1,w2" || d.Observations.Quality.VenueCount != 3 {
		t.Fatalf("15m venues %q (%d), want w0,w1,w2", got, d.Observations.Quality.VenueCount)
	}
	// 61 more venues within the same minute fill the table again; a 65th
	// in use at the same time is not listed.
	for i := range 62 {
		e.Push(tr("A", fmt.Sprintf("x%02d", i), cex, buy, 20*time.Minute+6*s+time.Duration(i)*time.Millisecond, 1, 1))
	}
	e.Push(tr("A", "w0", cex, buy, 20*time.Minute+7*s, 1, 1))
	d = r.docs[len(r.docs)-1]
	q := d.Observations.Quality
	if q.VenueCount != 64 || len(q.Venues) != 64 || !slices.IsSorted(q.Venues) || slices.Contains(q.Venues, "x61") || d.TradeCount != 66 {
		t.Fatalf("venue count %d, %d names, sorted %v, x61 listed %v, trades %d", q.VenueCount, len(q.Venues),
			slices.IsSorted(q.Venues), slices.Contains(q.Venues, "x61"), d.TradeCount)
	}
}

// TestMinuteClose checks which documents Emit.MinuteClose receives: those
// of the partition's first boundary in each minute, for every symbol
// documented there, each right after its own Document; not a symbol's
// first document later in a minute.
func TestMinuteClose(t *testing.T) {
	f := func(trades []*schemas.Trade, want string) {
		t.Helper()
		var last *schemas.IntelligenceDocument
		var got []string
		e := NewEngine(DefaultConfig(), Emit{
			Document: func(d *schemas.IntelligenceDocument) { last = d },
			MinuteClose: func(d *schemas.IntelligenceDocument) {
				if d != last {
					t.Fatalf("MinuteClose(%s) not right after its Document", d.Id)
				}
				got = append(got, fmt.Sprintf("%s/%s@%s", d.Symbol, d.Window, offset(testBase, d.TimestampNs)))
			},
		})
		for _, tr := range trades {
			e.Push(tr)
		}
		var ws []string
		for _, w := range strings.Fields(want) {
			ws = append(ws, expandTiming(w))
		}
		if g, w := strings.Join(got, " "), strings.Join(ws, " "); g != w {
			t.Fatalf("minute closes\n%q\nwant\n%q", g, w)
		}
	}
	s, m := time.Second, time.Minute
	c := func(sym string, off time.Duration) *schemas.Trade { return tr(sym, "x", cex, buy, off, 1, 1) }
	// Boundaries within the first minute are not minute closes.
	f([]*schemas.Trade{c("A", 10*s), c("A", 20*s), c("B", 30*s)}, "")
	// The first boundary of minute 1 (at 1m5s: no trade crossed earlier)
	// documents A and B; the later boundaries of the minute do not.
	f([]*schemas.Trade{c("A", 10*s), c("B", 20*s), c("A", m+5*s), c("B", m+6*s), c("A", m+30*s)}, "1m5s:A,B")
	// B, idle for more than 15 minutes, is not documented at the first
	// boundary of minute 17; its first document of that minute, when it
	// trades again, is not a minute close. In minute 18 it is. (At 16m B
	// is still due the documents of its first trade.)
	f([]*schemas.Trade{c("B", 10*s), c("A", 16*m), c("A", 17*m), c("B", 17*m+10*s), c("A", 17*m+20*s), c("A", 18*m)},
		"16m0s:B 17m0s:A 18m0s:A,B")
}

// TestReservedSymbols checks that symbols starting with the reserved
// prefix, kept for the changelog's other keys, are refused.
func TestReservedSymbols(t *testing.T) {
	var reasons []string
	e := NewEngine(DefaultConfig(), Emit{Reject: func(_ *schemas.Trade, r string) { reasons = append(reasons, r) }})
	e.Push(tr("~alerts|A", "x", cex, buy, 0, 1, 1))
	e.Push(tr(PartitionKey, "x", cex, buy, 0, 1, 1))
	if len(reasons) != 2 || !strings.HasPrefix(reasons[0], ReasonOutOfRange) || !strings.HasPrefix(reasons[1], ReasonOutOfRange) {
		t.Fatalf("reasons %q, want two %q", reasons, ReasonOutOfRange)
	}
	if err := e.PushGap("~x", &schemas.Gap{Source: "s", Reason: "r", FromNs: testBase, ToNs: testBase}); !errors.Is(err, ErrBadGap) {
		t.Fatalf("PushGap(~x) = %v, want ErrBadGap", err)
	}
	if err := e.RestoreState("~alerts|A", []byte{stateVersion, 0}); !errors.Is(err, ErrCorruptState) {
		t.Fatalf("RestoreState(~alerts|A) = %v, want ErrCorruptState", err)
	}
}
