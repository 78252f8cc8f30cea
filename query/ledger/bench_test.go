package ledger

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDebitRefund measures one paid call on credits that fails: a debit
// before the handler and its refund after, each its own transaction.
// Sequential: one call at a time. Parallel: calls from GOMAXPROCS×4
// goroutines on one key, the shape of concurrent API traffic.
func BenchmarkDebitRefund(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		for _, parallel := range []bool{false, true} {
			mode := "sequential"
			if parallel {
				mode = "parallel"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				s, _ := backends()[name](b)
				ctx := context.Background()
				key, err := s.CreateKey(ctx, 1_000_000_000, "bench", "")
				if err != nil {
					b.Fatal(err)
				}
				call := func(i int64) {
					c := Charge{Route: "GET /api/v1/intelligence/:symbol", AmountMicroUSD: 5_000,
						RequestID: fmt.Sprintf("bench-%s-%d", mode, i), At: time.Now()}
					if err := s.DebitKey(ctx, key, c); err != nil {
						b.Error(err)
						return
					}
					if err := s.RefundKey(ctx, key, c); err != nil {
						b.Error(err)
					}
				}
				start := time.Now()
				b.ResetTimer()
				if parallel {
					b.SetParallelism(4)
					var n atomicCounter
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							call(n.next())
						}
					})
				} else {
					for i := 0; i < b.N; i++ {
						call(int64(i))
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
				if bal, err := s.KeyBalance(ctx, key); err != nil || bal != 1_000_000_000 {
					b.Fatalf("balance %d, %v after debit+refund pairs", bal, err)
				}
			})
		}
	}
}

type atomicCounter struct{ v atomic.Int64 }

func (c *atomicCounter) next() int64 { return c.v.Add(1) }
