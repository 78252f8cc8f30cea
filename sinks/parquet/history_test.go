package parquet_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/sinks/parquet"
)

var day0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

var testSymbols = []string{"BTCUSD", "ETHUSD", "SOLUSD", "PEPEUSD"}

var shared struct {
	once sync.Once
	root string
	res  pipeline.BackfillResult
	err  error
}

// backfill returns two days of simulated history, written by mi backfill's
// code (pipeline.Backfill, which runs the simulator and the operators into
// a Sink), shared by the tests of the day files (read only).
func backfill(t *testing.T) (string, pipeline.BackfillResult) {
	t.Helper()
	shared.once.Do(func() {
		shared.root, shared.err = os.MkdirTemp("", "mi-parquet-history-")
		if shared.err == nil {
			shared.res, shared.err = pipeline.Backfill(context.Background(), pipeline.BackfillConfig{
				Root: shared.root, Source: "sim", From: day0, To: day0.AddDate(0, 0, 1), RateScale: 0.03, Symbols: testSymbols,
			})
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.root, shared.res
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.root != "" {
		os.RemoveAll(shared.root)
	}
	os.Exit(code)
}

// duck is the package's DuckDB helper (duck_test.go).
var duck = parquet.Duck

// TestColumnsMatchLayout checks every file's columns, in order and type,
// against datasets.*Columns.
func TestColumnsMatchLayout(t *testing.T) {
	root, _ := backfill(t)
	db := duck(t)
	d := "2026-03-02"
	for _, c := range []struct {
		file string
		cols []datasets.Column
	}{
		{filepath.Join(datasets.CandleDir(root, "1m", d, "sim_cex"), datasets.DayFileName), datasets.CandleColumns},
		{filepath.Join(datasets.SignalDir(root, "1m", d), datasets.DayFileName), datasets.SignalColumns},
		{filepath.Join(datasets.TradeDir(root, d, "sim_cex"), datasets.DayFileName), datasets.TradeColumns},
		{filepath.Join(datasets.SignalChangeDir(root, d), datasets.DayFileName), datasets.SignalChangeColumns},
	} {
		rows, err := db.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning=false))", c.file)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			if i >= len(c.cols) || c.cols[i].Name != name || c.cols[i].Type != typ {
				t.Errorf("%s column %d = %s %s, want %+v", c.file, i, name, typ, c.cols[min(i, len(c.cols)-1)])
			}
			i++
		}
		rows.Close()
		if i != len(c.cols) {
			t.Errorf("%s has %d columns, want %d", c.file, i, len(c.cols))
		}
	}
}

// TestCandlesEqualSQLOverTrades recomputes every 1m candle of the day files
// with DuckDB from the stored trades and compares.
func TestCandlesEqualSQLOverTrades(t *testing.T) {
	root, _ := backfill(t)
	db := duck(t)
	q := `
WITH t AS (
  SELECT venue, symbol, time_bucket(INTERVAL 1 minute, event_time::TIMESTAMP)::TIMESTAMP AS ts,
         event_time, price, size, notional_usd, side, trade_id, log_index
  FROM read_parquet('` + filepath.Join(root, "trades", "*", "*", "*.parquet") + `', hive_partitioning=true)
), s AS (
  SELECT venue, symbol, ts,
    arg_min(price, (event_time, trade_id, log_index)) AS open, max(price) AS high, min(price) AS low,
    arg_max(price, (event_time, trade_id, log_index)) AS close,
    sum(size) AS volume, sum(notional_usd) AS volume_usd,
    sum(size) FILTER (side = 'BUY') AS buy_volume, sum(size) FILTER (side = 'SELL') AS sell_volume,
    count(*) AS trade_count, count(*) FILTER (side = 'BUY') AS buy_count,
    count(*) FILTER (side = 'SELL') AS sell_count, sum(price*size)/sum(size) AS vwap
  FROM t GROUP BY ALL
), c AS (
  SELECT venue, symbol, ts::TIMESTAMP AS ts, open, high, low, close, volume, volume_usd, buy_volume, sell_volume,
         trade_count, buy_count, sell_count, vwap
  FROM read_parquet('` + datasets.CandleGlob(root, "1m") + `', hive_partitioning=true)
)
SELECT
  (SELECT count(*) FROM s), (SELECT count(*) FROM c),
  count(*) FILTER (s.ts IS NULL OR c.ts IS NULL),
  count(*) FILTER (s.trade_count <> c.trade_count OR s.buy_count <> c.buy_count OR s.sell_count <> c.sell_count),
  count(*) FILTER (s.high <> c.high OR s.low <> c.low),
  count(*) FILTER (abs(s.volume - c.volume) > 1e-9 * c.volume OR abs(s.volume_usd - c.volume_usd) > 1e-9 * c.volume_usd
                   OR abs(coalesce(s.buy_volume,0) - c.buy_volume) > 1e-9 * c.volume
                   OR abs(coalesce(s.sell_volume,0) - c.sell_volume) > 1e-9 * c.volume
                   OR abs(s.vwap - c.vwap) > 1e-9 * c.vwap),
  count(*) FILTER (s.open <> c.open OR s.close <> c.close)
FROM s FULL OUTER JOIN c USING (venue, symbol, ts)`
	var ns, nc, missing, counts, hl, vols, oc int64
	if err := db.QueryRow(q).Scan(&ns, &nc, &missing, &counts, &hl, &vols, &oc); err != nil {
		t.Fatal(err)
	}
	t.Logf("candles from SQL %d, stored %d", ns, nc)
	if ns == 0 || ns != nc || missing != 0 || counts != 0 || hl != 0 || vols != 0 || oc != 0 {
		t.Errorf("SQL %d vs stored %d candles: %d unmatched, %d count, %d high/low, %d volume/vwap, %d open/close mismatches",
			ns, nc, missing, counts, hl, vols, oc)
	}
}

// TestDuckDBSeesColumnStatistics checks, through DuckDB's
// parquet_metadata, that the time and numeric columns of a day file carry
// min/max statistics in every row group (the pruning docs/datasets.md
// promises; the writer skips only the per-page copies) and that the
// statistics of event_time are the true extremes.
func TestDuckDBSeesColumnStatistics(t *testing.T) {
	root, _ := backfill(t)
	db := duck(t)
	file := filepath.Join(datasets.TradeDir(root, "2026-03-03", "sim_cex"), datasets.DayFileName)
	rows, err := db.Query("SELECT path_in_schema, stats_min_value, stats_max_value FROM parquet_metadata('" + file + "') WHERE path_in_schema IN ('event_time', 'price', 'log_index', 'trade_id')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]int{}
	for rows.Next() {
		var col string
		var lo, hi sql.NullString
		if err := rows.Scan(&col, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		seen[col]++
		if hasStats := lo.Valid && hi.Valid && lo.String != "" && hi.String != ""; hasStats != (col != "trade_id") {
			t.Errorf("%s: statistics %q..%q (valid %v)", col, lo.String, hi.String, lo.Valid && hi.Valid)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 {
		t.Fatalf("columns seen in parquet_metadata: %v", seen)
	}
	// Same-width renderings of TIMESTAMP_NS values order as the values do.
	var lo, hi, statLo, statHi string
	if err := db.QueryRow("SELECT min(event_time)::VARCHAR, max(event_time)::VARCHAR FROM read_parquet('"+file+"')").Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT min(stats_min_value), max(stats_max_value) FROM parquet_metadata('"+file+"') WHERE path_in_schema = 'event_time'").Scan(&statLo, &statHi); err != nil {
		t.Fatal(err)
	}
	if lo != statLo || hi != statHi {
		t.Errorf("event_time statistics %s..%s, the column holds %s..%s", statLo, statHi, lo, hi)
	}
}
