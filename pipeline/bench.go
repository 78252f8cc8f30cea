package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// BenchConfig configures Bench.
type BenchConfig struct {
	Trades     int
	Partitions int
	// Brokers of an external Kafka cluster whose mi topics are empty (a
	// fresh cluster); empty runs on an in-memory embedded broker.
	Brokers []string
	// Instances is the number of operator instances (one consumer group,
	// each with its own transactional ids), all in this process; default 1.
	Instances int
	// RateScale is the simulator's intensity multiplier; higher means more
	// trades per second of event time and so fewer documents per trade.
	RateScale float64
	Logger    *slog.Logger
	Progress  func(processed int64)
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Trades     int64
	Elapsed    time.Duration // first produce to last trade processed and committed
	Rate       float64       // trades/s end to end
	IngestRate float64       // trades/s committed by the ingest loop alone
	Candles    uint64
	Documents  uint64
}

// Bench pushes cfg.Trades simulated trades through the whole pipeline on an
// in-memory embedded broker, or on the Kafka cluster of cfg.Brokers — the
// simulator opened from its spec and run by Drive into ingest transactions
// (as mi run does), cfg.Instances operator loops with their transactions and
// state changelog — and measures the end-to-end rate.
func Bench(ctx context.Context, cfg BenchConfig) (BenchResult, error) {
	if cfg.Partitions == 0 {
		cfg.Partitions = 4
	}
	if cfg.Instances == 0 {
		cfg.Instances = 1
	}
	if cfg.RateScale == 0 {
		cfg.RateScale = 50
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	quiet := slog.New(slog.DiscardHandler)
	brokers := cfg.Brokers
	if len(brokers) == 0 {
		emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
		if err != nil {
			return BenchResult{}, err
		}
		defer emb.Close()
		brokers = []string{emb.Addr()}
	}
	if err := EnsureTopics(ctx, brokers, cfg.Partitions); err != nil {
		return BenchResult{}, err
	}
	if len(cfg.Brokers) > 0 {
		if n, err := topicRecords(ctx, brokers, schemas.TopicTrades); err != nil {
			return BenchResult{}, err
		} else if n > 0 {
			return BenchResult{}, fmt.Errorf("cannot bench on a cluster whose %s already holds %d records: use a fresh cluster", schemas.TopicTrades, n)
		}
	}
	src, err := SourceSpec{Kind: "sim", Seed: 42, Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), RateScale: cfg.RateScale, MaxSpeed: true}.Open()
	if err != nil {
		return BenchResult{}, err
	}
	defer src.Close()
	lim := &limited{Source: src, left: int64(cfg.Trades)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	proc := &ProcessStats{} // shared by the instances: counters only
	perr := make(chan error, cfg.Instances)
	for i := range cfg.Instances {
		id := "bench-" + strconv.Itoa(i)
		go func() {
			perr <- Process(ctx, ProcessConfig{Brokers: brokers, InstanceID: id, Operators: operators.DefaultConfig(), Logger: quiet}, proc)
		}()
	}
	start := time.Now()
	ierr := make(chan error, 1)
	var ingestDone time.Duration
	go func() {
		err := Ingest(ctx, IngestConfig{Brokers: brokers, Logger: quiet, TxnRecords: 20_000}, lim, Checkpoint{})
		ingestDone = time.Since(start)
		ierr <- err
	}()
	want := uint64(cfg.Trades)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	ingested := false
	for proc.Trades.Load() < want {
		select {
		case <-ctx.Done():
			return BenchResult{}, ctx.Err()
		case err := <-perr:
			return BenchResult{}, fmt.Errorf("operator loop stopped: %w", err)
		case err := <-ierr:
			if err != nil {
				return BenchResult{}, fmt.Errorf("ingest stopped: %w", err)
			}
			ingested = true
		case <-tick.C:
			if cfg.Progress != nil {
				cfg.Progress(int64(proc.Trades.Load()))
			}
		}
	}
	elapsed := time.Since(start)
	if !ingested {
		if err := <-ierr; err != nil {
			return BenchResult{}, fmt.Errorf("ingest stopped: %w", err)
		}
	}
	log.Info("bench finished", "trades", want, "elapsed", elapsed)
	return BenchResult{
		Trades: int64(want), Elapsed: elapsed, Rate: float64(want) / elapsed.Seconds(),
		IngestRate: float64(want) / ingestDone.Seconds(),
		Candles:    proc.Candles.Load(), Documents: proc.Documents.Load(),
	}, nil
}

// topicRecords returns the sum of a topic's end offsets.
func topicRecords(ctx context.Context, brokers []string, topic string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("cannot list the end offsets of %s: %w", topic, err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n, nil
}

// limited ends a source after a number of records.
type limited struct {
	sources.Source
	left int64
}

func (l *limited) Next(ctx context.Context) (sources.Record, error) {
	if l.left <= 0 {
		return sources.Record{}, io.EOF
	}
	r, err := l.Source.Next(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) {
			l.left = 0
		}
		return r, err
	}
	l.left--
	return r, nil
}
