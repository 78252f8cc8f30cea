package operators

import (
	"testing"
	"time"
	"unsafe"

	"github.com/marketintel/mi/schemas"
)

// benchTrades is the realistic mix of BenchmarkEngine: 50 symbols, six
// venues of all three kinds with their own block times and arrival lags,
// event time advancing 1ms per trade.
func benchTrades() []*schemas.Trade {
	return genTrades(genOptions{seed: 42, n: 1 << 17, symbols: 50, step: time.Millisecond})
}

// BenchmarkEngine pushes the realistic mix through one engine, on one core,
// with documents emitted every second of event time and candles every
// minute. The sequence repeats with event times shifted past the dedupe
// horizon, so the engine is in steady state.
func BenchmarkEngine(b *testing.B) {
	trades := benchTrades()
	times := make([]int64, len(trades))
	for i, t := range trades {
		times[i] = t.EventTimeNs
	}
	span := int64(len(trades)) * int64(time.Millisecond)
	var docs, candles, rejects int
	e := NewEngine(DefaultConfig(), Emit{
		Candle:   func(*schemas.Candle) { candles++ },
		Document: func(*schemas.IntelligenceDocument) { docs++ },
		Reject:   func(*schemas.Trade, string) { rejects++ },
	})
	// Warm up: every symbol known, every buffer at its working size.
	for i, t := range trades {
		t.EventTimeNs = times[i]
		e.Push(t)
	}
	docs, candles, rejects = 0, 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	shift := span
	for i := range b.N {
		j := i % len(trades)
		if j == 0 && i > 0 {
			shift += span
		}
		t := trades[j]
		t.EventTimeNs = times[j] + shift
		e.Push(t)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
	b.ReportMetric(float64(docs)/float64(b.N), "docs/trade")
	if rejects > b.N/100 {
		b.Fatalf("%d of %d trades rejected: the mix is not realistic", rejects, b.N)
	}
}

// BenchmarkDocument measures computing the documents of a busy symbol
// (every bucket of every window filled) as of successive seconds, as the
// engine does: per op, one document of one window.
func BenchmarkDocument(b *testing.B) {
	e, sym := busySymbol()
	sec := floorDiv(sym.lastNs, nsPerSecond) + 1
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.fillDocument(sym, i%numWindows, sec+int64(i/numWindows%60))
	}
}

// busySymbol returns an engine with one symbol that traded in every bucket
// of every window, its current and previous part, on three venues, with
// some large, late and duplicate trades: the largest window state there is.
func busySymbol() (*Engine, *symbol) {
	e := NewEngine(DefaultConfig(), Emit{})
	venues := []string{"binance", "coinbase", "okx"}
	end := int64(2 * 15 * time.Minute)
	step := int64(250 * time.Millisecond)
	for off := int64(0); off < end; off += step {
		v := venues[(off/step)%3]
		t := tr("BTCUSD", v, cex, schemas.Side((off/step)%3), time.Duration(off), 60000+float64(off%7e9)/1e9, 0.01+float64(off%13)/1e3)
		if off%(97*step) == 0 {
			t.Size = 30 // large
			t.NotionalUsd = t.Price * t.Size
		}
		e.Push(t)
		if off%(31*step) == 0 {
			e.Push(t) // duplicate
		}
	}
	return e, e.symbols["BTCUSD"]
}

// BenchmarkState reports the size of per-symbol state, per symbol and
// window: for a saturated symbol (busy-*: traded in every bucket of every
// window), the whole encoded state divided by 3, the encoded windows alone
// and the windows in memory; and the same averaged over the 50 symbols of
// the realistic mix of BenchmarkEngine (mix-*). The encoded state includes
// the dedupe keys of the retained horizon, which dominate for busy symbols.
func BenchmarkState(b *testing.B) {
	e, sym := busySymbol()
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buf = e.AppendState(buf[:0], sym.name)
	}
	b.StopTimer()
	winBytes := 0
	for w := range sym.win {
		winBytes += len(appendRing(nil, sym, w))
	}
	b.ReportMetric(float64(len(buf))/numWindows, "busy-state-B")
	b.ReportMetric(float64(winBytes)/numWindows, "busy-window-B")
	b.ReportMetric(float64(ringMemory(sym))/numWindows, "busy-window-mem-B")

	mix := NewEngine(DefaultConfig(), Emit{})
	for _, t := range benchTrades() {
		mix.Push(t)
	}
	var total, windows, mem int
	for _, s := range mix.sorted {
		total += len(mix.AppendState(nil, s.name))
		for w := range s.win {
			windows += len(appendRing(nil, s, w))
		}
		mem += ringMemory(s)
	}
	n := float64(len(mix.sorted) * numWindows)
	b.ReportMetric(float64(total)/n, "mix-state-B")
	b.ReportMetric(float64(windows)/n, "mix-window-B")
	b.ReportMetric(float64(mem)/n, "mix-window-mem-B")
}

// ringMemory returns the bytes the window rings of sym hold in memory,
// counting slice capacity.
func ringMemory(sym *symbol) int {
	n := 0
	for w := range sym.win {
		r := &sym.win[w]
		n += int(unsafe.Sizeof(*r))
		n += cap(r.detail) * int(unsafe.Sizeof(bucket{}))
		n += cap(r.prev) * int(unsafe.Sizeof(prevBucket{}))
	}
	return n
}
