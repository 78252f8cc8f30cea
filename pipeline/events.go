package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// Consumer groups of the alert stages.
const (
	EventsGroup = "mi-alert-events"
	OutboxGroup = "mi-alert-outbox"
)

// DetectEvents runs the alert detectors (operators.AlertDetector) over
// mi.signals.v1 and publishes what they fire to mi.events.v1 (key: symbol;
// value: the JSON of operators.AlertEvent). It first reads its own output
// topic to restore the detectors (cooldowns, last decisions), then consumes
// the signals in consumer group EventsGroup, committing offsets after each
// poll's events are flushed. Delivery is at least once; an event produced
// twice has the same id, and the outbox keeps one. One instance per cluster
// keeps the detector state whole (run it with the process role).
func DetectEvents(ctx context.Context, brokers []string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	det := operators.NewAlertDetector()
	restored := 0
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	err := ReadCommitted(rctx, brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
		var e operators.AlertEvent
		if string(r.Key) == SentinelKey || json.Unmarshal(r.Value, &e) != nil {
			return
		}
		det.Observe(e)
		restored++
	})
	cancel()
	if err != nil {
		return fmt.Errorf("cannot restore the alert detectors from %s: %w", schemas.TopicEvents, err)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumerGroup(EventsGroup),
		kgo.ConsumeTopics(schemas.TopicSignals),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create alert detector consumer: %w", err)
	}
	defer cl.Close()
	logger.Info("alert detectors running", "restoredEvents", restored, "live", operators.LiveAlertEvents())
	var d schemas.IntelligenceDocument
	var out []operators.AlertEvent
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			logger.Warn("alert detector fetch failed", "topic", t, "partition", p, "err", err)
		})
		out = out[:0]
		fs.EachRecord(func(r *kgo.Record) {
			d.Reset()
			if proto.Unmarshal(r.Value, &d) != nil {
				return
			}
			out = det.Push(&d, out)
		})
		for _, e := range out {
			v, err := json.Marshal(e)
			if err != nil {
				panic("BUG: cannot marshal alert event: " + err.Error())
			}
			cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}, nil)
		}
		if len(out) > 0 {
			if err := cl.Flush(ctx); err != nil {
				return fmt.Errorf("cannot publish alert events: %w", err)
			}
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("cannot commit alert detector offsets", "err", err)
		}
	}
}

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
