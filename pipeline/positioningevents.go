package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// PositioningEventsGroup is the consumer group of the positioning event
// stage.
const PositioningEventsGroup = "mi-positioning-events"

// PositioningEventsConfig configures RunPositioningEvents.
type PositioningEventsConfig struct {
	Brokers []string
	// Funding runs operators.FundingExtremeDetector over mi.positioning.v1;
	// Predictions runs operators.PredictionMoveDetector over
	// mi.prediction-markets.v1. At least one must be set.
	Funding, Predictions bool
	// Group is the consumer group; default PositioningEventsGroup.
	Group  string
	Logger *slog.Logger
}

// Events returns the events the stage raises with cfg: the
// ones to register as live (operators.LiveEvents) when it runs.
func (cfg PositioningEventsConfig) Events() []string {
	var out []string
	if cfg.Funding {
		out = append(out, operators.AlertFundingExtreme)
	}
	if cfg.Predictions {
		out = append(out, operators.AlertPredictionMarketMove)
	}
	return out
}

// RunPositioningEvents is the positioning event stage: it raises
// funding_extreme from the perp snapshots of mi.positioning.v1 and
// prediction_market_move from the quotes of mi.prediction-markets.v1
// (docs/positioning.md#events) on mi.events.v1, until ctx ends.
//
// Like the news stage (RunNews) it first reads its own events back from
// mi.events.v1 and folds them into the detectors (Observe: a perp still in
// extreme funding, a market in its cooldown), so a restarted stage raises
// nothing twice; then it consumes the two topics in consumer group
// PositioningEventsGroup, committing offsets after each poll's events are
// written. Delivery is at least once: an event raised twice has the same
// id (the outbox keeps one). A prediction market's quotes of the hour
// before a restart are not restored: a move spanning a restart is seen from
// the first quote after it. Time comes from the records only. Run one
// instance per cluster.
func RunPositioningEvents(ctx context.Context, cfg PositioningEventsConfig) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var topics []string
	funding := operators.NewFundingExtremeDetector()
	moves := operators.NewPredictionMoveDetector()
	if cfg.Funding {
		topics = append(topics, sidetopic.Positioning.Name)
	}
	if cfg.Predictions {
		topics = append(topics, sidetopic.PredictionMarkets.Name)
	}
	if len(topics) == 0 {
		panic("BUG: RunPositioningEvents without a detector")
	}
	restored := 0
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	err := ReadCommitted(rctx, cfg.Brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
		var e operators.AlertEvent
		if string(r.Key) == SentinelKey || json.Unmarshal(r.Value, &e) != nil {
			return
		}
		switch e.Event {
		case operators.AlertFundingExtreme:
			funding.Observe(e)
			restored++
		case operators.AlertPredictionMarketMove:
			moves.Observe(e)
			restored++
		}
	})
	cancel()
	if err != nil {
		return fmt.Errorf("cannot restore the positioning detectors from %s: %w", schemas.TopicEvents, err)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cmp.Or(cfg.Group, PositioningEventsGroup)),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create the positioning event stage consumer: %w", err)
	}
	defer cl.Close()
	log.Info("positioning event stage running", "restoredEvents", restored, "events", cfg.Events())
	var out []operators.AlertEvent
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			log.Warn("positioning event stage fetch failed", "topic", t, "partition", p, "err", err)
		})
		out = out[:0]
		var newest int64
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == SentinelKey {
				return
			}
			var err error
			switch r.Topic {
			case sidetopic.Positioning.Name:
				var s *schemas.PerpSnapshot
				if s, err = sidetopic.Positioning.Decode(r.Value); err == nil {
					if err = schemas.ValidatePerpSnapshot(s); err == nil {
						out = funding.Push(s, out)
					}
				}
			case sidetopic.PredictionMarkets.Name:
				var q *schemas.PredictionQuote
				if q, err = sidetopic.PredictionMarkets.Decode(r.Value); err == nil {
					if err = schemas.ValidatePredictionQuote(q); err == nil {
						out = moves.Push(q, out)
						newest = max(newest, q.ObservedNs)
					}
				}
			}
			if err != nil {
				log.Warn("positioning event stage skips a record", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
			}
		})
		if newest > 0 {
			// Markets quiet for longer than the cooldown (resolved,
			// delisted) leave the detector: time from the records.
			moves.Forget(newest - int64(operators.PredictionMoveCooldown))
		}
		for _, e := range out {
			v, err := json.Marshal(e)
			if err != nil {
				panic("BUG: cannot marshal alert event: " + err.Error())
			}
			cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}, nil)
		}
		if len(out) > 0 {
			if err := cl.Flush(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("cannot publish positioning events: %w", err)
			}
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil && ctx.Err() == nil {
			log.Warn("cannot commit positioning event stage offsets", "err", err)
		}
	}
}
