package e2e

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/kafkacluster"
	"github.com/marketintel/mi/pipeline"
)

// BenchmarkEndToEnd pushes simulated trades through ingest and the
// operators (pipeline.Bench) on the embedded broker and on a fresh
// three-node Apache Kafka cluster, with one and two operator instances, and
// reports trades/s. Compare the ratios within one run (BENCHMARKS.md):
//
//	go test -run '^$' -bench EndToEnd -benchtime 1x ./internal/e2e
//
// MI_BENCH_TRADES sets the trades per measurement (default 500,000).
func BenchmarkEndToEnd(b *testing.B) {
	trades := 500_000
	if v := os.Getenv("MI_BENCH_TRADES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("MI_BENCH_TRADES=%q: want a number of at least 1000", v)
		}
		trades = n
	}
	for _, broker := range []string{"embedded", "cluster"} {
		for _, instances := range []int{1, 2} {
			b.Run(broker+"/instances="+strconv.Itoa(instances), func(b *testing.B) {
				var rate, ingest float64
				for range b.N {
					b.StopTimer()
					var brokers []string
					if broker == "cluster" {
						kc := kafkacluster.Start(b, 3) // a fresh cluster: the topics must be empty
						brokers = kc.Brokers
						// Measure the steady state, not the minute after
						// the topics' creation, while followers still learn
						// of them (replication, hence acks=all, stalls then).
						ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
						if err := pipeline.EnsureTopics(ctx, brokers, 4); err != nil {
							b.Fatal(err)
						}
						if err := kc.WaitInSync(ctx); err != nil {
							b.Fatal(err)
						}
						cancel()
						time.Sleep(15 * time.Second)
					}
					b.StartTimer()
					res, err := pipeline.Bench(context.Background(), pipeline.BenchConfig{Trades: trades, Partitions: 4, Brokers: brokers, Instances: instances})
					if err != nil {
						b.Fatal(err)
					}
					rate, ingest = res.Rate, res.IngestRate
				}
				b.ReportMetric(rate, "trades/s")
				b.ReportMetric(ingest, "ingest-trades/s")
			})
		}
	}
}
