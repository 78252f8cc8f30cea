package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// SyncViews materializes mi.signals.v1 into v, and the closed candles of
// mi.candles.v1 into v.Candles(): it reads both topics from the beginning
// (read committed), so a restarted API rebuilds its views, and then follows
// them until ctx ends. Every API replica runs its own copy,
// without a consumer group, so replicas are stateless and interchangeable.
// ready, when not nil, is closed once the records that existed at the start
// have been applied.
func SyncViews(ctx context.Context, brokers []string, v *views.Views, logger *slog.Logger, ready chan<- struct{}) error {
	if logger == nil {
		logger = slog.Default()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(schemas.TopicSignals, schemas.TopicCandles),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(100*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create view consumer: %w", err)
	}
	defer cl.Close()
	var d schemas.IntelligenceDocument
	var k schemas.Candle
	candles := v.Candles()
	start := time.Now()
	caughtUp := false
	applied := 0
	for {
		pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fs.IsClientClosed() {
			return nil
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			if r.Topic == schemas.TopicCandles {
				k.Reset()
				if err := proto.Unmarshal(r.Value, &k); err != nil {
					logger.Warn("skipping undecodable candle", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset)
					return
				}
				candles.Apply(&k)
				n++
				return
			}
			d.Reset()
			if err := proto.Unmarshal(r.Value, &d); err != nil {
				logger.Warn("skipping undecodable document", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset)
				return
			}
			v.Apply(&d)
			n++
		})
		applied += n
		if n == 0 && !caughtUp {
			// An empty poll after the initial read means the backlog is in.
			caughtUp = true
			logger.Info("views rebuilt from "+schemas.TopicSignals+" and "+schemas.TopicCandles, "records", applied, "symbols", len(v.Symbols()), "took", time.Since(start).Round(time.Millisecond))
			if ready != nil {
				close(ready)
			}
		}
	}
}
