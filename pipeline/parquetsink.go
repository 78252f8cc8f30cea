package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// ParquetSinkConfig configures SinkParquet.
type ParquetSinkConfig struct {
	Brokers []string
	// DataDir is the root of the datasets (package datasets).
	DataDir string
	// Group is the consumer group; default "mi-parquet".
	Group string
	// InstanceID, when set, is the sink's static membership id in the
	// group (unique per instance), so a restarted sink takes its partitions
	// back at once.
	InstanceID string
	// FlushInterval is how often buffered rows become part files and the
	// consumed offsets are committed; default 30 s. It bounds how stale the
	// staging tree is, and how much is read again after a crash.
	FlushInterval time.Duration
	// MaxBuffered flushes early once this many rows are buffered; default 1M.
	MaxBuffered int
	// Every, when set, is called after each flush (e.g. hourly retention
	// checks); an error stops the sink.
	Every  func(ctx context.Context) error
	Stats  *ParquetSinkStats
	Logger *slog.Logger
}

// ParquetSinkStats are the sink's counters.
type ParquetSinkStats struct {
	Records   atomic.Uint64 // records consumed
	Rows      atomic.Uint64 // rows buffered (signals: minute closes only)
	Undecoded atomic.Uint64 // records skipped: undecodable, invalid, or a bad venue/window name
	Flushes   atomic.Uint64
	Days      atomic.Uint64 // days compacted
}

// ParquetGroup is the default consumer group of the Parquet sink.
const ParquetGroup = "mi-parquet"

// ParquetTopics are the topics the Parquet sink consumes.
var ParquetTopics = []string{schemas.TopicCandles, schemas.TopicSignalMinutes, schemas.TopicTrades, schemas.TopicSignalChanges,
	schemas.TopicStablecoins, schemas.TopicTokenRisk, schemas.TopicPositioning, schemas.TopicPredictionMarkets}

// SinkParquet consumes mi.candles.v1, mi.signal-minutes.v1, mi.trades.v1,
// mi.signal-changes.v1, the token watches' mi.stablecoins.v1 and
// mi.token-risk.v1 and the positioning side topics mi.positioning.v1 and
// mi.prediction-markets.v1 (read committed, in a consumer group) and writes
// the history datasets under cfg.DataDir through a parquet Sink until ctx
// ends. None of them is compacted, so what it writes does not depend on how
// far it lags behind the operators (the compacted mi.signals.v1 keeps only
// the latest document per key).
//
// Delivery is at least once: offsets are committed only after the rows of
// the records before them are durable in part files, so a crash re-reads at
// most one flush interval; the replayed rows are dropped at compaction, which
// dedupes by each dataset's natural key. Days close by event time (the
// sink's watermark), never by the wall clock.
func SinkParquet(ctx context.Context, cfg ParquetSinkConfig) error {
	if cfg.Group == "" {
		cfg.Group = ParquetGroup
	}
	if cfg.FlushInterval == 0 {
		cfg.FlushInterval = 30 * time.Second
	}
	if cfg.MaxBuffered == 0 {
		cfg.MaxBuffered = 1_000_000
	}
	if cfg.Stats == nil {
		cfg.Stats = &ParquetSinkStats{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	sink, err := pqsink.Open(pqsink.Config{Root: cfg.DataDir, Logger: log})
	if err != nil {
		return err
	}
	var mu sync.Mutex // the sink; rebalance callbacks run on the client's goroutine
	var cl *kgo.Client
	flush := func(ctx context.Context) error {
		days, err := sink.FlushAndCompact()
		if err != nil {
			return err
		}
		cfg.Stats.Flushes.Add(1)
		cfg.Stats.Days.Add(uint64(len(days)))
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			return fmt.Errorf("cannot commit the Parquet sink's offsets: %w", err)
		}
		return nil
	}
	opts := []kgo.Opt{}
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	cl, err = kgo.NewClient(append(opts,
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(ParquetTopics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(250*time.Millisecond),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsRevoked(func(ctx context.Context, _ *kgo.Client, _ map[string][]int32) {
			mu.Lock()
			defer mu.Unlock()
			if err := flush(ctx); err != nil {
				log.Warn("Parquet sink: cannot flush before a rebalance; the records are read again", "err", err)
			}
		}),
	)...)
	if err != nil {
		return fmt.Errorf("cannot create the Parquet sink's consumer: %w", err)
	}
	defer cl.Close()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := flush(fctx); err != nil {
			log.Warn("Parquet sink: final flush failed; the records are read again", "err", err)
		}
	}()

	var (
		tr     schemas.Trade
		cd     schemas.Candle
		doc    schemas.IntelligenceDocument
		ch     schemas.SignalChange
		sq     schemas.StablecoinQuote
		tro    schemas.TokenRiskObservation
		ps     schemas.PerpSnapshot
		pq     schemas.PredictionQuote
		intern schemas.Interner
	)
	last := time.Now()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				log.Warn("Parquet sink fetch error", "topic", t, "partition", p, "err", err)
			}
		})
		mu.Lock()
		fs.EachRecord(func(r *kgo.Record) {
			cfg.Stats.Records.Add(1)
			var err error
			switch r.Topic {
			case schemas.TopicTrades:
				if IsGap(r) || IsEnd(r) {
					return // a source gap or end of input, not a trade: the documents carry it
				}
				if err = schemas.UnmarshalTrade(r.Value, &tr, &intern); err == nil {
					if err = schemas.Validate(&tr); err == nil {
						err = sink.AddTrade(&tr)
					}
				}
			case schemas.TopicCandles:
				cd.Reset()
				if err = proto.Unmarshal(r.Value, &cd); err == nil {
					err = sink.AddCandle(&cd)
				}
			case schemas.TopicSignalMinutes:
				doc.Reset()
				if err = proto.Unmarshal(r.Value, &doc); err == nil {
					var added bool
					if added, err = sink.AddDocument(&doc); err == nil && !added {
						return
					}
				}
			case schemas.TopicSignalChanges:
				ch.Reset()
				if err = proto.Unmarshal(r.Value, &ch); err == nil {
					err = sink.AddSignalChange(&ch)
				}
			case schemas.TopicStablecoins:
				sq.Reset()
				if err = proto.Unmarshal(r.Value, &sq); err == nil {
					err = sink.AddStablecoinQuote(&sq)
				}
			case schemas.TopicTokenRisk:
				tro.Reset()
				if err = proto.Unmarshal(r.Value, &tro); err == nil {
					err = sink.AddTokenRiskObservation(&tro)
				}
			case schemas.TopicPositioning:
				if string(r.Key) == SentinelKey {
					return
				}
				ps.Reset()
				if err = proto.Unmarshal(r.Value, &ps); err == nil {
					err = sink.AddPerpSnapshot(&ps)
				}
			case schemas.TopicPredictionMarkets:
				if string(r.Key) == SentinelKey {
					return
				}
				pq.Reset()
				if err = proto.Unmarshal(r.Value, &pq); err == nil {
					err = sink.AddPredictionQuote(&pq)
				}
			}
			if err != nil {
				if cfg.Stats.Undecoded.Add(1) <= 10 {
					log.Warn("Parquet sink: skipping a record", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
				}
				return
			}
			cfg.Stats.Rows.Add(1)
		})
		var err error
		if time.Since(last) >= cfg.FlushInterval || sink.Buffered() >= cfg.MaxBuffered {
			err = flush(ctx)
			last = time.Now()
		}
		mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if cfg.Every != nil {
			if err := cfg.Every(ctx); err != nil {
				return err
			}
		}
	}
}
