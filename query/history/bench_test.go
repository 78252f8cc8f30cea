package history_test

import (
	"testing"
	"time"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

func BenchmarkCandles20x7d(b *testing.B) { benchCandles20x7d(b, "1m", 1440) }

// BenchmarkCandles20x7d5m is BenchmarkCandles20x7d rolled up to 5m: every
// bucket sums five stored rows per venue, the order-free sums' case.
func BenchmarkCandles20x7d5m(b *testing.B) { benchCandles20x7d(b, "5m", 288) }

// benchCandles20x7d reads 20 symbols × 7 days of 1m candles on two venues
// at interval, perDay buckets per symbol and day.
func benchCandles20x7d(b *testing.B, interval string, perDay int) {
	root := b.TempDir()
	w := histtest.New(b, root)
	first := day0.AddDate(0, 0, -7)
	w.GenCandles(first, 7, []string{"uniswap_v3_ethereum", "raydium"}, 20)
	s := openDefault(b, root)
	syms := make([]string, 20)
	for i := range syms {
		syms[i] = histtest.Symbol(i)
	}
	b.ResetTimer()
	for range b.N {
		res, err := s.Candles(b.Context(), history.CandleQuery{Symbols: syms, Interval: interval, From: first, To: first.Add(7 * 24 * time.Hour)})
		if err != nil || len(res.Candles) != 20*7*perDay {
			b.Fatal(err, len(res.Candles))
		}
	}
}

// BenchmarkSeries20x7d is the store part of the query route: 20 symbols ×
// 7 days of 1m candles on two venues, summarized with the JSON series.
func BenchmarkSeries20x7d(b *testing.B) {
	root := b.TempDir()
	w := histtest.New(b, root)
	first := day0.AddDate(0, 0, -7)
	w.GenCandles(first, 7, []string{"uniswap_v3_ethereum", "raydium"}, 20)
	s := openDefault(b, root)
	syms := make([]string, 20)
	for i := range syms {
		syms[i] = histtest.Symbol(i)
	}
	b.ResetTimer()
	for range b.N {
		res, _, err := s.Series(b.Context(), syms, "1m", first, first.Add(7*24*time.Hour))
		if err != nil || len(res) != 20 {
			b.Fatal(err, len(res))
		}
	}
}

// openDefault opens the store with the production memory limit
// (DefaultMemoryLimit), as the service runs: the week-long benchmarks hold
// up to 201,600 cross-venue buckets, and the order-free sums of a roll-up
// (datasets.ExactSums) need more than the 256MB the tests run with.
func openDefault(b *testing.B, root string) *history.Store {
	b.Helper()
	s, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return day0.Add(48 * time.Hour) }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
