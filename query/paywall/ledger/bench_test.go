package ledger

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDebitRefund measures one paid call on credits that fails: a debit
// before the handler and its refund after, each acknowledged durable before
// it returns. Modes:
//
//   - sequential: one call at a time (each operation waits for its own
//     commit; the latency floor);
//   - hot64: 64 goroutines calling on one key (the shape of one busy client);
//   - keys64: 64 goroutines, each on its own key (many clients).
//
// calls/s is wall-clock debit+refund pairs per second; cpu-µs/call is the
// CPU time of this process (user + system, getrusage) per call, which
// includes SQLite but not the PostgreSQL server.
func BenchmarkDebitRefund(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		for _, mode := range []string{"sequential", "hot64", "keys64"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				s, _ := backends()[name](b)
				ctx := context.Background()
				workers, nkeys := 1, 1
				switch mode {
				case "hot64":
					workers = 64
				case "keys64":
					workers, nkeys = 64, 64
				}
				const grant = 1_000_000_000
				keys := make([]string, nkeys)
				for i := range keys {
					k, err := s.CreateKey(ctx, grant, "bench", "")
					if err != nil {
						b.Fatal(err)
					}
					keys[i] = k
				}
				prefix := fmt.Sprintf("bench-%s-%d-", mode, time.Now().UnixNano())
				call := func(key string, i int64) {
					c := Charge{Route: "GET /api/v1/intelligence/:symbol", AmountMicroUSD: 5_000,
						RequestID: prefix + fmt.Sprint(i), At: time.Now()}
					if err := s.DebitKey(ctx, key, c); err != nil {
						b.Error(err)
						return
					}
					if err := s.RefundKey(ctx, key, c); err != nil {
						b.Error(err)
					}
				}
				srv0 := serverCPUSeconds(b, s)
				var next, batches, ops atomic.Int64
				s.commit.beforeBatch = func(n int) { batches.Add(1); ops.Add(int64(n)) }
				cpu0 := cpuSeconds()
				b.ResetTimer()
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						key := keys[w%nkeys]
						for {
							i := next.Add(1)
							if i > int64(b.N) {
								return
							}
							call(key, i)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
				b.ReportMetric((cpuSeconds()-cpu0)*1e6/float64(b.N), "cpu-µs/call")
				b.ReportMetric(float64(ops.Load())/float64(max(batches.Load(), 1)), "ops/batch")
				if s.Dialect() == DialectPostgres {
					b.ReportMetric((serverCPUSeconds(b, s)-srv0)*1e6/float64(b.N), "server-cpu-µs/call")
				}
				for _, k := range keys {
					if bal, err := s.KeyBalance(ctx, k); err != nil || bal != grant {
						b.Fatalf("balance %d, %v after debit+refund pairs", bal, err)
					}
				}
				if err := s.Verify(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// serverCPUSeconds is the CPU time (user + system, from /proc) of the
// PostgreSQL backends connected to the ledger's database, 0 on SQLite. A
// backend that ended is not counted; the pool keeps its connections for the
// benchmark's duration.
func serverCPUSeconds(b *testing.B, s *SQL) float64 {
	if s.Dialect() != DialectPostgres {
		return 0
	}
	rows, err := s.DB().Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var total float64
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // ended, or not on this machine
		}
		// Fields after the command name (in parentheses): state is the
		// 1st, utime the 12th, stime the 13th, in clock ticks (100/s).
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		total += (ut + st) / 100
	}
	return total
}

// cpuSeconds is the CPU time (user + system) of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
