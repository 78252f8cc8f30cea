package pipeline

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/cputime"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesview/ratesgen"
)

// BenchmarkRatesColdStart is an API instance starting on a topic holding a
// year of rates records (ratesgen.Year, about 620,000 records): the time
// until FollowSide has rebuilt the rates view from the embedded broker and
// says it is ready.
func BenchmarkRatesColdStart(b *testing.B) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 4); err != nil {
		b.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(1<<20))
	if err != nil {
		b.Fatal(err)
	}
	rs := ratesgen.Year(time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC))
	for _, r := range rs {
		v, err := proto.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicRates, Key: []byte(schemas.RatesKey(r)), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				b.Error(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	cl.Close()
	cpu0 := cputime.Seconds()
	b.ResetTimer()
	for b.Loop() {
		v, sv, _ := RatesView("bench", nil)
		fctx, cancel := context.WithCancel(ctx)
		ready := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = FollowSide(fctx, brokers, []SideView{sv}, quiet, ready)
		}()
		<-ready // the backlog is applied (TestFollowSideReadyMeansBacklogApplied)
		cancel()
		<-done
		if v.Applied() != len(rs) {
			b.Fatalf("applied %d of %d records", v.Applied(), len(rs))
		}
	}
	b.ReportMetric(float64(len(rs)), "records")
	b.ReportMetric((cputime.Seconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
}
