package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// SideFiles is what SinkSide writes side-topic records through: files of a
// domain (the rates Parquet files, ...).
type SideFiles interface {
	// Add buffers one record value of topic. An error skips the record
	// (it is logged): the producer validated it, so it is a record this
	// version cannot read.
	Add(topic string, value []byte) error
	// Flush makes the buffered records durable.
	Flush() error
	// Pending is the number of buffered rows.
	Pending() int
}

// SideSinkConfig configures SinkSide.
type SideSinkConfig struct {
	Brokers []string
	// Group is the consumer group, one per kind of files (e.g.
	// "mi-rates-parquet").
	Group  string
	Topics []string
	Files  SideFiles
	// FlushInterval is how often the files are flushed and the consumed
	// offsets committed; default 30 s.
	FlushInterval time.Duration
	// MaxPending flushes early once this many rows are buffered; default
	// 100,000.
	MaxPending int
	Logger     *slog.Logger
}

// SinkSide consumes side topics (read committed, in a consumer group) into
// files until ctx ends. Delivery is at least once: offsets are committed
// only after a flush, so a crash re-reads at most one flush interval, and
// the files must keep one row per natural key (sinks/ratesfiles does).
func SinkSide(ctx context.Context, cfg SideSinkConfig) error {
	if cfg.Group == "" || len(cfg.Topics) == 0 || cfg.Files == nil {
		panic("BUG: SinkSide without a group, topics or files")
	}
	if cfg.FlushInterval == 0 {
		cfg.FlushInterval = 30 * time.Second
	}
	if cfg.MaxPending == 0 {
		cfg.MaxPending = 100_000
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var mu sync.Mutex // the files; rebalance callbacks run on the client's goroutine
	var cl *kgo.Client
	flush := func(ctx context.Context) error {
		if err := cfg.Files.Flush(); err != nil {
			return err
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			return fmt.Errorf("cannot commit the offsets of %s: %w", cfg.Group, err)
		}
		return nil
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(250*time.Millisecond),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsRevoked(func(ctx context.Context, _ *kgo.Client, _ map[string][]int32) {
			mu.Lock()
			defer mu.Unlock()
			if err := flush(ctx); err != nil {
				log.Warn("side sink: cannot flush before a rebalance; the records are read again", "group", cfg.Group, "err", err)
			}
		}),
	)
	if err != nil {
		return fmt.Errorf("cannot create the consumer of %s: %w", cfg.Group, err)
	}
	defer cl.Close()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := flush(fctx); err != nil {
			log.Warn("side sink: final flush failed; the records are read again", "group", cfg.Group, "err", err)
		}
	}()
	skipped := 0
	last := time.Now()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				log.Warn("side sink fetch error", "group", cfg.Group, "topic", t, "partition", p, "err", err)
			}
		})
		mu.Lock()
		fs.EachRecord(func(r *kgo.Record) {
			if err := cfg.Files.Add(r.Topic, r.Value); err != nil {
				if skipped++; skipped <= 10 {
					log.Warn("side sink: skipping a record", "group", cfg.Group, "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
				}
			}
		})
		var err error
		if time.Since(last) >= cfg.FlushInterval || cfg.Files.Pending() >= cfg.MaxPending {
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
	}
}
