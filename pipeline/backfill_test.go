package pipeline

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

var backfillDay0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

var backfillSymbols = []string{"BTCUSD", "ETHUSD", "SOLUSD", "PEPEUSD"}

func backfillInto(t *testing.T, root string, days int, rate float64, symbols []string) BackfillResult {
	t.Helper()
	start := time.Now()
	res, err := Backfill(context.Background(), BackfillConfig{
		Root: root, Source: "sim", From: backfillDay0, To: backfillDay0.AddDate(0, 0, days-1), RateScale: rate, Symbols: symbols,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("backfilled %d days in %s: %+v", days, time.Since(start), res)
	return res
}

func duck(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("SET TimeZone='UTC'; SET threads=1"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBackfillSimWritesCompleteDays backfills two simulated days: both are
// compacted, nothing stays staged, every dataset has its day files, the
// candles cover both days' minutes and the signal keys are unique.
func TestBackfillSimWritesCompleteDays(t *testing.T) {
	root := t.TempDir()
	res := backfillInto(t, root, 2, 0.03, backfillSymbols)
	if len(res.Days) != 2 || res.Days[0] != "2026-03-02" || res.Days[1] != "2026-03-03" {
		t.Fatalf("days compacted = %v, want 2026-03-02 and 2026-03-03", res.Days)
	}
	if days, err := pqsink.StagedDays(root); err != nil || len(days) != 0 {
		t.Fatalf("staged days left = %v, %v; want none", days, err)
	}
	for _, dir := range []string{
		datasets.CandleDir(root, "1m", "2026-03-02", "sim_cex"),
		datasets.TradeDir(root, "2026-03-03", "sim_cex"),
		datasets.SignalDir(root, "5m", "2026-03-02"),
		datasets.SignalChangeDir(root, "2026-03-03"),
	} {
		if _, err := os.Stat(filepath.Join(dir, datasets.DayFileName)); err != nil {
			t.Errorf("missing day file: %v", err)
		}
	}
	db := duck(t)
	var n, minTS, maxTS int64
	q := "SELECT count(*), min(epoch_us(ts)), max(epoch_us(ts)) FROM read_parquet('" + datasets.CandleGlob(root, "1m") + "', hive_partitioning=true)"
	if err := db.QueryRow(q).Scan(&n, &minTS, &maxTS); err != nil {
		t.Fatal(err)
	}
	if n != res.Candles {
		t.Errorf("candle rows = %d, want %d written", n, res.Candles)
	}
	if minTS != backfillDay0.UnixMicro() || maxTS != backfillDay0.Add(48*time.Hour-time.Minute).UnixMicro() {
		t.Errorf("candle ts range = %s..%s, want the two days' first and last minute", time.UnixMicro(minTS).UTC(), time.UnixMicro(maxTS).UTC())
	}
	// Signals: one row per symbol, window and minute.
	var dup int64
	if err := db.QueryRow("SELECT count(*) FROM (SELECT symbol, \"window\", ts FROM read_parquet('" + filepath.Join(root, "signals", "*", "*", "*.parquet") + "', hive_partitioning=true) GROUP BY ALL HAVING count(*) > 1)").Scan(&dup); err != nil {
		t.Fatal(err)
	}
	if dup != 0 {
		t.Errorf("%d signal keys appear more than once", dup)
	}
}

func TestBackfillIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	backfillInto(t, a, 1, 0.01, backfillSymbols[:2])
	backfillInto(t, b, 1, 0.01, backfillSymbols[:2])
	n := 0
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s only in the first run", rel)
			return nil
		}
		if string(x) != string(y) {
			t.Errorf("%s differs between runs", rel)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

// TestBackfillReplay backfills two real Binance captures of consecutive
// days: the end of input closes both days, each with its day files holding
// every accepted trade, and nothing stays staged.
func TestBackfillReplay(t *testing.T) {
	root := t.TempDir()
	a := fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	b := fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz")
	res, err := Backfill(context.Background(), BackfillConfig{
		Root: root, Source: "replay:" + a + "," + b,
		From: time.Date(2024, 8, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 8, 31, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Days) != 2 || res.Days[0] != "2024-08-08" || res.Days[1] != "2024-08-09" {
		t.Fatalf("days closed = %v, want 2024-08-08 and 2024-08-09", res.Days)
	}
	rows, err := pqsink.ReadRows[pqsink.TradeRow](filepath.Join(datasets.TradeDir(root, "2024-08-08", "binance"), datasets.DayFileName))
	if err != nil {
		t.Fatal(err)
	}
	// The capture has 9757 trades (replay_test.go); the operators reject a
	// few as late, and the file holds the accepted ones.
	if len(rows) < 9700 || len(rows) > 9757 {
		t.Fatalf("%d trades in the 2024-08-08 day file, want the capture's 9757 less a few late ones", len(rows))
	}
	second, err := pqsink.ReadRows[pqsink.TradeRow](filepath.Join(datasets.TradeDir(root, "2024-08-09", "binance"), datasets.DayFileName))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)+len(second)) != res.Trades {
		t.Fatalf("%d + %d trades in the day files, want the %d accepted", len(rows), len(second), res.Trades)
	}
	if rows[0].Symbol != "BTCUSD" || rows[0].LogIndex != -1 || rows[0].VenueKind != "cex" {
		t.Fatalf("first trade %+v", rows[0])
	}
	if _, err := os.Stat(filepath.Join(datasets.CandleDir(root, "1m", "2024-08-08", "binance"), datasets.DayFileName)); err != nil {
		t.Fatal(err)
	}
	if days, err := pqsink.StagedDays(root); err != nil || len(days) != 0 {
		t.Fatalf("staged days = %v, %v; want none", days, err)
	}
	f := func(source, want string) {
		t.Helper()
		if _, err := Backfill(context.Background(), BackfillConfig{Root: root, Source: source, From: time.Now(), To: time.Now()}); err == nil || err.Error() != want {
			t.Fatalf("source %q: %v, want %q", source, err, want)
		}
	}
	f("replay:", `cannot backfill: cannot use source "replay:": replay needs at least one path; accepted: "sim[:seed=N,start=RFC3339,duration=D,rate=X,events=X,speed=max]" or "replay:PATH[,PATH...]"`)
	f("sim:start=2026-01-01T00:00:00Z", `cannot backfill from source "sim:start=2026-01-01T00:00:00Z": a backfill simulates the days of --from and --to as fast as it goes; leave start, duration and speed out`)
	f("kafka", `cannot backfill: cannot use source "kafka": accepted: "sim[:seed=N,start=RFC3339,duration=D,rate=X,events=X,speed=max]" or "replay:PATH[,PATH...]"`)
}

// TestBackfillEndOfInput backfills one day from one real capture: the day
// is compacted at once (readable with DuckDB from its day files, as mi sql
// reads them), the last trade's minute has its candle, the candles count
// every accepted trade, and the last minute has its signal rows.
func TestBackfillEndOfInput(t *testing.T) {
	root := t.TempDir()
	day := time.Date(2024, 8, 9, 0, 0, 0, 0, time.UTC)
	res, err := Backfill(context.Background(), BackfillConfig{
		Root: root, Source: "replay:" + fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz"), From: day, To: day,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Days) != 1 || res.Days[0] != "2024-08-09" {
		t.Fatalf("days closed = %v, want 2024-08-09", res.Days)
	}
	db := duck(t)
	var lastTrade, lastCandle, lastSignal time.Time
	var trades, counted int64
	dayFiles := func(kind string) string { return filepath.Join(root, kind, "**", datasets.DayFileName) }
	if err := db.QueryRow("SELECT count(*), max(event_time) FROM read_parquet('"+dayFiles(datasets.KindTrades)+"')").Scan(&trades, &lastTrade); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT sum(trade_count), max(ts) FROM read_parquet('"+dayFiles(datasets.KindCandles)+"')").Scan(&counted, &lastCandle); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT max(ts) FROM read_parquet('" + dayFiles(datasets.KindSignals) + "')").Scan(&lastSignal); err != nil {
		t.Fatal(err)
	}
	if trades != res.Trades || trades == 0 {
		t.Fatalf("%d trades in the day files, want the %d accepted", trades, res.Trades)
	}
	if counted != trades {
		t.Errorf("the candles count %d trades, want all %d", counted, trades)
	}
	if want := lastTrade.Truncate(time.Minute); !lastCandle.Equal(want) {
		t.Errorf("last candle %s, want the last trade's minute %s", lastCandle, want)
	}
	if want := lastTrade.Truncate(time.Minute).Add(time.Minute); !lastSignal.Equal(want) {
		t.Errorf("last signal row %s, want the minute close after the last trade %s", lastSignal, want)
	}
}

// TestBackfillCountsRejections: a backfill ends with its accepted and
// rejected counts by reason, and a file whose every row is rejected (an
// unknown venue kind, a price that is no number) is an error naming the
// top reasons with a count and an example, not an empty success.
func TestBackfillCountsRejections(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rows ...string) string {
		p := filepath.Join(dir, name)
		body := "time,venue,venue_kind,symbol,price,size,side,trade_id\n" + strings.Join(rows, "\n") + "\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	day := time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)
	good := "2024-01-05T00:00:23+00:00,x,cex,BTCUSD,42000,0.1,buy,1"
	bad := []string{
		"2024-01-05T00:00:24+00:00,x,cex,BTCUSD,abc,0.1,buy,2",
		"2024-01-05T00:00:25+00:00,x,cex,BTCUSD,-,0.1,buy,3",
		"2024-01-05T00:00:26+00:00,x,moon,BTCUSD,1,0.1,buy,4",
	}
	res, err := Backfill(context.Background(), BackfillConfig{Root: t.TempDir(), Source: "replay:" + write("mixed.csv", append([]string{good, good}, bad...)...), From: day, To: day})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 1 || res.Trades != 1 {
		t.Fatalf("accepted %d, trades %d; want 1 and 1", res.Accepted, res.Trades)
	}
	var total uint64
	for _, n := range res.Rejected {
		total += n
	}
	if total != 4 || res.Rejected["duplicate"] != 1 {
		t.Fatalf("rejected %v, want 4 in all, one duplicate", res.Rejected)
	}
	_, err = Backfill(context.Background(), BackfillConfig{Root: t.TempDir(), Source: "replay:" + write("bad.csv", bad...), From: day, To: day})
	if err == nil || !strings.Contains(err.Error(), "all 3 of its records were rejected") || !strings.Contains(err.Error(), "bad price ×2") || !strings.Contains(err.Error(), "bad venue kind ×1") {
		t.Fatalf("every row rejected: %v, want an error naming the reasons", err)
	}
	t.Log(err)
}
