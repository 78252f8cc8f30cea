package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// OutboxGroup is the consumer group of the alert outbox sink. The events
// themselves are detected by the operators (Process), in the same
// transactions and checkpoints as the documents they come from.
const OutboxGroup = "mi-alert-outbox"

// SinkEvents writes the events of mi.events.v1 into the alert outbox st,
// one pending delivery per matching subscription. It consumes in consumer
// group OutboxGroup and commits offsets only after the events are stored,
// so a crash stores an event again, which AddEvent ignores (idempotent by
// event id).
func SinkEvents(ctx context.Context, brokers []string, st *alerts.Store, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumerGroup(OutboxGroup),
		kgo.ConsumeTopics(schemas.TopicEvents),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create alert outbox consumer: %w", err)
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if fs.IsClientClosed() {
			return nil
		}
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == SentinelKey {
				return
			}
			var e operators.AlertEvent
			if err := json.Unmarshal(r.Value, &e); err != nil || e.ID == "" || !operators.IsAlertEvent(e.Event) {
				logger.Warn("skipping undecodable alert event", "partition", r.Partition, "offset", r.Offset)
				return
			}
			// The database may be briefly unavailable: retry until stored,
			// so no event is skipped.
			for wait := 100 * time.Millisecond; ctx.Err() == nil; wait = min(2*wait, 10*time.Second) {
				_, err := st.AddEvent(ctx, alerts.Event{ID: e.ID, Event: e.Event, Symbol: e.Symbol, OccurredAt: e.OccurredAt, Data: e.Data})
				if err == nil {
					return
				}
				logger.Warn("cannot store alert event; retrying", "event", e.ID, "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(wait):
				}
			}
		})
		if ctx.Err() != nil {
			return nil
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("cannot commit alert outbox offsets", "err", err)
		}
	}
}
