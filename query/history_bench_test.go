package query

import (
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// historyBenchServer writes days of synthetic 1m candles (and 5m signal documents)
// and serves them with the default DuckDB memory limit,
// for n symbols on venues and returns a server whose clock is the end of
// the last day.
func historyBenchServer(b *testing.B, first time.Time, days, n int, venues []string) *Server {
	b.Helper()
	root := b.TempDir()
	w := histtest.New(b, root)
	w.GenCandles(first, days, venues, n)
	w.GenSignals("5m", first, days, n)
	now := first.AddDate(0, 0, days)
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return New(Deps{Now: func() time.Time { return now }, History: st, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
}

// benchGet serves target b.N times and reports the median latency as
// p50-ms besides the mean, and the process CPU time per request (Go and
// DuckDB's threads, from getrusage) as cpu-ms/op: on the shared machine
// the wall times move with the load, the CPU time much less.
func benchGet(b *testing.B, s *Server, target string) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	cpu0 := processCPU()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		resp, err := s.App().Test(httptest.NewRequest("GET", target, nil), fiber.TestConfig{Timeout: 0})
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET %s: %v %v", target, err, resp.StatusCode)
		}
		resp.Body.Close()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDatasetDay: one symbol's one-day 1m dataset (2 DEX venues, 2880
// rows) as JSON and as CSV.
func BenchmarkDatasetDay(b *testing.B) {
	first := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	s := historyBenchServer(b, first, 1, 1, []string{"uniswap_v3_ethereum", "raydium"})
	for _, f := range []string{"json", "csv"} {
		b.Run(f, func(b *testing.B) { benchGet(b, s, "/api/v1/datasets/SYM000USD?date=2026-01-05&format="+f) })
	}
}

// BenchmarkQueryRoute: 20 symbols × 7 days at 1m (2 venues each).
func BenchmarkQueryRoute(b *testing.B) {
	first := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	s := historyBenchServer(b, first, 7, 20, []string{"uniswap_v3_ethereum", "raydium"})
	syms := make([]string, 20)
	for i := range syms {
		syms[i] = histtest.Symbol(i)
	}
	from := first.Add(time.Minute).Format(time.RFC3339)
	to := first.AddDate(0, 0, 7).Format(time.RFC3339)
	benchGet(b, s, "/api/v1/intelligence/query?symbols="+strings.Join(syms, ",")+"&from="+from+"&to="+to)
}

// BenchmarkBacktestRoute: 30 days × 50 symbols at 1m (one venue): 2.16M
// candles and 2.16M signal documents.
func BenchmarkBacktestRoute(b *testing.B) {
	first := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	s := historyBenchServer(b, first, 30, 50, []string{"uniswap_v3_ethereum"})
	end := first.AddDate(0, 0, 30).Format(time.RFC3339)
	benchGet(b, s, "/api/v1/intelligence/backtest?start="+first.Format(time.RFC3339)+"&end="+end)
}
