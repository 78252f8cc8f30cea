package sim

import (
	"context"
	"testing"
	"time"
)

// BenchmarkNext measures the simulator's throughput over the default
// universe. It reports trades/s; allocs/op counts the per-trade allocations
// (trades and trade-id strings are carved from slabs, so it is near 0).
func BenchmarkNext(b *testing.B) {
	s, err := New(Config{Start: time.Date(2024, 8, 8, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	var last int64
	for b.Loop() {
		r, err := s.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		last = r.Trade.EventTimeNs
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
	if last == 0 {
		b.Fatal("no trade")
	}
}

// BenchmarkNew measures building a simulator over the default universe
// (wallet populations, pool addresses, the first hour of events).
func BenchmarkNew(b *testing.B) {
	start := time.Date(2024, 8, 8, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(Config{Start: start})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
