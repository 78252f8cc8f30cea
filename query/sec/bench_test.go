package sec

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources/edgar/edgartest"
)

// BenchmarkFundamentalsCached is a fundamentals answer served from the
// computed-answer cache and rendered as JSON, as the route does; it
// reports the median (target: p50 < 5 ms).
func BenchmarkFundamentalsCached(b *testing.B) {
	srv := edgartest.New(b)
	clk := &at{t: time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)}
	s := service(b, srv, clk.now, nil)
	ctx := context.Background()
	if _, err := s.Fundamentals(ctx, "AAPL"); err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		out, err := s.Fundamentals(ctx, "AAPL")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkFundamentalsCold is a whole answer with nothing computed: the
// EDGAR documents from the client's cache (no request within their TTL),
// companyfacts decoded, the answer computed.
func BenchmarkFundamentalsCold(b *testing.B) {
	srv := edgartest.New(b)
	clk := &at{t: time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)}
	s := service(b, srv, clk.now, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.fund = newCache[*fundamentalsAnswer](10)
		if _, err := s.Fundamentals(ctx, "AAPL"); err != nil {
			b.Fatal(err)
		}
	}
}
