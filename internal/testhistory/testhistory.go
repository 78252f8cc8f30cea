// Package testhistory builds simulated history — the Parquet day files of
// candles, signals, trades and signal changes that a live run leaves — for
// the tests of other packages, with the same code as "mi backfill".
package testhistory

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline"
)

// DefaultFrom is the first simulated day when Options.From is zero.
var DefaultFrom = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

// Options selects the history Build writes; every zero field has a default.
type Options struct {
	// From is the first UTC day (default DefaultFrom); Days the number of
	// days (default 1).
	From time.Time
	Days int
	// Rate is the simulator's rate scale (default 0.02, about 6 trades/s
	// over the whole universe, ~0.5 M trades a day).
	Rate float64
	// Symbols restricts the universe (default: all 56 simulated symbols;
	// fewer symbols make it proportionally faster).
	Symbols []string
	// Seed of the simulator (default 1).
	Seed int64
}

// Build backfills simulated days into dir (the data directory layout of
// package datasets; use t.TempDir()) and returns what was written. The
// files are a pure function of the options. It fails the test on error.
func Build(t testing.TB, dir string, o Options) pipeline.BackfillResult {
	t.Helper()
	if o.From.IsZero() {
		o.From = DefaultFrom
	}
	if o.Days == 0 {
		o.Days = 1
	}
	if o.Rate == 0 {
		o.Rate = 0.02
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	res, err := pipeline.Backfill(context.Background(), pipeline.BackfillConfig{
		Root: dir, Source: "sim", From: o.From, To: o.From.AddDate(0, 0, o.Days-1),
		Seed: o.Seed, RateScale: o.Rate, Symbols: o.Symbols,
	})
	if err != nil {
		t.Fatalf("cannot build test history: %v", err)
	}
	if len(res.Days) != o.Days {
		t.Fatalf("test history: %d days compacted, want %d", len(res.Days), o.Days)
	}
	return res
}
