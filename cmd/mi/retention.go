package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/datadir"
)

// cmdRetention is "mi retention": apply the candle retention policy once.
func cmdRetention(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi retention", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./data", "data directory")
	nowFlag := fs.String("now", "", "apply the policy as of this UTC date YYYY-MM-DD (default: today)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Now().UTC()
	if *nowFlag != "" {
		t, err := time.Parse(datasets.DateFormat, *nowFlag)
		if err != nil {
			return fmt.Errorf("cannot use --now %q: accepted a UTC date YYYY-MM-DD", *nowFlag)
		}
		now = t
	}
	if _, err := os.Stat(*dataDir); err != nil {
		return fmt.Errorf("cannot use --data-dir %s: %w", *dataDir, err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fmt.Errorf("cannot open DuckDB: %w", err)
	}
	defer db.Close()
	res, err := datasets.Retain(ctx, db, *dataDir, now)
	if err != nil {
		return datadir.Diagnose(*dataDir, err)
	}
	fmt.Fprintf(os.Stderr, "retention as of %s: %d day files rolled up, %d finer day files deleted\n", now.Format(datasets.DateFormat), res.RolledUp, res.Deleted)
	for _, d := range res.Done {
		fmt.Fprintln(os.Stderr, "  "+d)
	}
	return nil
}

// retentionHook returns the Parquet sink's Every hook for mi run's
// --retention: "on" applies the candle retention policy hourly by the wall
// clock (hourlyRetention), "off" returns nil and logs that nothing is
// rolled up (research replays of old captures, whose 1m candles would
// otherwise be rolled up as soon as their day files are written).
func retentionHook(mode, dataDir string, log *slog.Logger) (func(context.Context) error, error) {
	switch mode {
	case "on":
		return hourlyRetention(dataDir, log), nil
	case "off":
		log.Info("candle retention off: no day file is rolled up (mi retention applies the policy once)")
		return nil, nil
	}
	return nil, fmt.Errorf("cannot use --retention %q: accepted values are on (roll candle day files up by age, hourly, wall clock) and off (keep every 1m candle: research replays)", mode)
}

// hourlyRetention returns a function for the Parquet sink's Every hook that
// applies the retention policy at most once an hour (wall clock: retention
// is about the age of files on this machine, not event time).
func hourlyRetention(dataDir string, log *slog.Logger) func(ctx context.Context) error {
	var last time.Time
	var db *sql.DB
	return func(ctx context.Context) error {
		if time.Since(last) < time.Hour {
			return nil
		}
		last = time.Now()
		if db == nil {
			var err error
			if db, err = sql.Open("duckdb", ""); err != nil {
				return fmt.Errorf("cannot open DuckDB for retention: %w", err)
			}
		}
		res, err := datasets.Retain(ctx, db, dataDir, time.Now())
		if err != nil {
			log.Warn("retention failed; retrying in an hour", "err", err)
			return nil
		}
		if res.RolledUp+res.Deleted > 0 {
			// Say exactly what went, so nobody wonders where 1m candles of
			// an old replay are (mi run --retention off keeps them).
			shown := res.Done[:min(len(res.Done), 20)]
			log.Info("retention applied (wall clock; --retention off keeps every 1m candle)", "as_of", time.Now().UTC().Format(datasets.DateFormat),
				"rolled_up", res.RolledUp, "deleted", res.Deleted, "files", strings.Join(shown, ", "), "more", len(res.Done)-len(shown))
		}
		return nil
	}
}
