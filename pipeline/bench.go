package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
)

// BenchConfig configures Bench.
type BenchConfig struct {
	Trades     int
	Partitions int
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
// in-memory embedded broker — the simulator opened from its spec and run
// by Drive into ingest transactions (as mi run does), the operator loop with
// its transactions and state changelog — and measures the end-to-end rate.
func Bench(ctx context.Context, cfg BenchConfig) (BenchResult, error) {
	if cfg.Partitions == 0 {
		cfg.Partitions = 4
	}
	if cfg.RateScale == 0 {
		cfg.RateScale = 50
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	quiet := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		return BenchResult{}, err
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, cfg.Partitions); err != nil {
		return BenchResult{}, err
	}
	src, err := SourceSpec{Kind: "sim", Seed: 42, Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), RateScale: cfg.RateScale, MaxSpeed: true}.Open()
	if err != nil {
		return BenchResult{}, err
	}
	defer src.Close()
	lim := &limited{Source: src, left: int64(cfg.Trades)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	proc := &ProcessStats{}
	perr := make(chan error, 1)
	go func() {
		perr <- Process(ctx, ProcessConfig{Brokers: brokers, Operators: operators.DefaultConfig(), Logger: quiet}, proc)
	}()
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
