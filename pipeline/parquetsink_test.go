package pipeline

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators"
)

// TestParquetSinkRole runs ingest and the operators on the embedded broker
// with a simulation that crosses midnight and the Parquet sink beside them,
// waits for the day to be compacted, stops the sink, then replays every
// topic from the start into the same directory under a second consumer
// group: the day files must keep the same rows (no duplicates). One sink
// writes a data directory at a time.
func TestParquetSinkRole(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	brokersc := make(chan []string, 1)
	stats := &ParquetSinkStats{}
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, RunConfig{
			DataDir: dir, Sources: []string{"sim:seed=3,start=2026-01-05T23:50:00Z,duration=14m,rate=0.05,speed=max"},
			KafkaListen: "127.0.0.1:0", Partitions: 2, InstanceID: "t", Logger: quiet, Operators: operators.DefaultConfig(),
			Roles:       []string{"ingest", "process"},
			BrokerReady: func(b []string) { brokersc <- b },
		})
	}()
	brokers := <-brokersc
	defer func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
		}
	}()
	sctx, scancel := context.WithCancel(ctx)
	sdone := make(chan error, 1)
	go func() {
		sdone <- SinkParquet(sctx, ParquetSinkConfig{Brokers: brokers, DataDir: dir, FlushInterval: 200 * time.Millisecond, Stats: stats, Logger: quiet})
	}()
	day := "2026-01-05"
	candleFile := filepath.Join(datasets.CandleDir(dir, "1m", day, "sim_cex"), datasets.DayFileName)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(candleFile); err == nil && stats.Days.Load() > 0 {
			break
		}
		select {
		case err := <-errc:
			t.Fatalf("run stopped: %v", err)
		case err := <-sdone:
			t.Fatalf("sink stopped: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no day file after 2 minutes: %d records, %d rows, %d flushes", stats.Records.Load(), stats.Rows.Load(), stats.Flushes.Load())
		}
	}
	count := func() (candles, trades, signals, dups int64) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		q := func(glob string) int64 {
			var n int64
			if err := db.QueryRow("SELECT count(*) FROM read_parquet(?)", glob).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		candles = q(datasets.CandleGlob(dir, "1m"))
		trades = q(filepath.Join(dir, "trades", "date="+day, "*", datasets.DayFileName))
		signals = q(filepath.Join(dir, "signals", "*", "date="+day, datasets.DayFileName))
		if err := db.QueryRow(`SELECT count(*) FROM (SELECT trade_id, log_index, event_time FROM read_parquet(?) GROUP BY ALL HAVING count(*) > 1)`,
			filepath.Join(dir, "trades", "date="+day, "*", datasets.DayFileName)).Scan(&dups); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Logf("day compacted after %s: %d records", time.Since(deadline.Add(-2*time.Minute)), stats.Records.Load())
	for n := stats.Records.Load(); ; {
		time.Sleep(time.Second)
		if m := stats.Records.Load(); m == n {
			break
		} else {
			n = m
		}
	}
	scancel()
	if err := <-sdone; err != nil {
		t.Fatal(err)
	}
	c1, t1, s1, d1 := count()
	if c1 == 0 || t1 == 0 || s1 == 0 || d1 != 0 {
		t.Fatalf("day %s: %d candles, %d trades, %d signal rows, %d duplicate trades", day, c1, t1, s1, d1)
	}
	// 10 minutes of the day (23:50 to midnight): at most 10 candles per
	// symbol and venue, and every signal row on a minute.
	// Replay everything under another group into the same directory.
	rctx, rcancel := context.WithCancel(ctx)
	rstats := &ParquetSinkStats{}
	done := make(chan error, 1)
	go func() {
		done <- SinkParquet(rctx, ParquetSinkConfig{Brokers: brokers, DataDir: dir, Group: "replay", FlushInterval: 100 * time.Millisecond, Stats: rstats, Logger: quiet})
	}()
	for rstats.Records.Load() < stats.Records.Load() || rstats.Days.Load() == 0 {
		select {
		case err := <-done:
			t.Fatalf("replay sink stopped: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline.Add(time.Minute)) {
			t.Fatalf("replay read %d of %d records", rstats.Records.Load(), stats.Records.Load())
		}
	}
	rcancel()
	<-done
	c2, t2, s2, d2 := count()
	if c2 != c1 || t2 != t1 || s2 != s1 || d2 != 0 {
		t.Fatalf("after a replay: %d/%d/%d candles/trades/signals (%d dup trades), want %d/%d/%d", c2, t2, s2, d2, c1, t1, s1)
	}
}

// TestRunParquetRole runs pipeline.Run with every role (the Parquet sink
// included by default) over a simulation that crosses midnight, and waits
// for the closed day's files.
func TestRunParquetRole(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, RunConfig{
			DataDir: dir, Sources: []string{"sim:seed=5,start=2026-02-01T23:55:00Z,duration=9m,rate=0.02,speed=max"},
			KafkaListen: "127.0.0.1:0", Partitions: 1, InstanceID: "t", Logger: slog.New(slog.DiscardHandler),
			Operators: operators.DefaultConfig(), Parquet: ParquetSinkConfig{FlushInterval: 100 * time.Millisecond},
		})
	}()
	defer func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
		}
	}()
	want := []string{
		filepath.Join(datasets.CandleDir(dir, "1m", "2026-02-01", "sim_cex"), datasets.DayFileName),
		filepath.Join(datasets.TradeDir(dir, "2026-02-01", "sim_cex"), datasets.DayFileName),
		filepath.Join(datasets.SignalDir(dir, "1m", "2026-02-01"), datasets.DayFileName),
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, p := range want {
		for {
			if _, err := os.Stat(p); err == nil {
				break
			}
			select {
			case err := <-errc:
				t.Fatalf("run stopped: %v", err)
			case <-time.After(100 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 2 minutes", p)
			}
		}
	}
}
