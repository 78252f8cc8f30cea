// Package histtest writes history files in the exact layout of package
// datasets for tests and benchmarks, with DuckDB's COPY … TO … (FORMAT
// parquet), so the query tier can be tested before (and independently of)
// the Parquet sink.
package histtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
)

// Writer writes day files and staging parts under Root.
type Writer struct {
	tb   testing.TB
	Root string
	conn *duckdb.Connector
	db   *sql.DB
	n    int
}

// New returns a Writer over root; it is closed when tb ends.
func New(tb testing.TB, root string) *Writer {
	tb.Helper()
	c, err := duckdb.NewConnector("?threads=2", func(e driver.ExecerContext) error {
		_, err := e.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close(); c.Close() })
	return &Writer{tb: tb, Root: root, conn: c, db: db}
}

// Exec runs a statement (for benchmarks generating files with SQL).
func (w *Writer) Exec(stmt string, args ...any) {
	w.tb.Helper()
	if _, err := w.db.Exec(stmt, args...); err != nil {
		w.tb.Fatalf("cannot run %q: %v", stmt, err)
	}
}

func ddl(cols []datasets.Column) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + c.Name + `" ` + c.Type)
	}
	return b.String()
}

// write appends rows to a fresh table of cols and copies it to path.
func (w *Writer) write(path string, cols []datasets.Column, rows [][]driver.Value) {
	w.tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.tb.Fatal(err)
	}
	w.n++
	table := fmt.Sprintf("t%d", w.n)
	w.Exec("CREATE TABLE " + table + " (" + ddl(cols) + ")")
	conn, err := w.conn.Connect(context.Background())
	if err != nil {
		w.tb.Fatal(err)
	}
	app, err := duckdb.NewAppenderFromConn(conn, "", table)
	if err != nil {
		w.tb.Fatal(err)
	}
	for _, r := range rows {
		if err := app.AppendRow(r...); err != nil {
			w.tb.Fatal(err)
		}
	}
	if err := app.Close(); err != nil {
		w.tb.Fatal(err)
	}
	conn.Close()
	w.Exec("COPY " + table + " TO '" + strings.ReplaceAll(path, "'", "''") + "' (FORMAT parquet)")
	w.Exec("DROP TABLE " + table)
}

// Path returns the file a leaf directory gets: the day file, or a part
// file under the staging tree when staged.
func (w *Writer) Path(dir string, staged bool) string {
	if staged {
		w.n++
		return filepath.Join(datasets.Staged(w.Root, dir), fmt.Sprintf("part-%06d.parquet", w.n))
	}
	return filepath.Join(dir, datasets.DayFileName)
}

// Candles writes rows (each with Venue, VenueKind, Chain set) at interval,
// one file per (day, venue): day files, or staging parts when staged.
func (w *Writer) Candles(interval string, staged bool, rows []datasets.Candle) {
	w.tb.Helper()
	groups := map[string][][]driver.Value{}
	for _, c := range rows {
		dir := datasets.CandleDir(w.Root, interval, datasets.Day(c.Time), c.Venue)
		groups[dir] = append(groups[dir], []driver.Value{c.Time.UTC(), c.Symbol, c.VenueKind, c.Chain, c.Open, c.High,
			c.Low, c.Close, c.Volume, c.VolumeUSD, c.BuyVolume, c.SellVolume, c.BuyVolumeUSD, c.SellVolumeUSD,
			c.BuyPressure, c.VWAP, c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount})
	}
	for dir, g := range groups {
		w.write(w.Path(dir, staged), datasets.CandleColumns, g)
	}
}

// Signals writes signal documents of window, one file per day.
func (w *Writer) Signals(window string, staged bool, rows []history.Signal) {
	w.tb.Helper()
	groups := map[string][][]driver.Value{}
	for _, s := range rows {
		dir := datasets.SignalDir(w.Root, window, datasets.Day(s.Time))
		groups[dir] = append(groups[dir], []driver.Value{s.Time.UTC(), s.Symbol, s.ID, s.Price, s.PriceChangePercent,
			s.Volume, s.BuyPressure, s.TradeCount, s.Momentum, s.Activity, s.Anomaly, s.Confidence, s.Signal,
			s.Strength, s.EventType, s.VolumeMultiple, s.ActivityMultiple, s.BaselineSamples, s.BaselineReady,
			s.AlgorithmVersion})
	}
	for dir, g := range groups {
		w.write(w.Path(dir, staged), datasets.SignalColumns, g)
	}
}

// Changes writes signal changes, one file per day.
func (w *Writer) Changes(staged bool, rows []history.Change) {
	w.tb.Helper()
	groups := map[string][][]driver.Value{}
	for _, c := range rows {
		dir := datasets.SignalChangeDir(w.Root, datasets.Day(c.ChangedAt))
		groups[dir] = append(groups[dir], []driver.Value{c.ChangedAt.UTC(), c.Symbol, c.Window, c.AlgorithmVersion,
			c.PreviousSignal, c.Signal, c.Strength, c.EventType, c.DocumentID, c.Price, c.Momentum, c.Activity,
			c.Anomaly, c.Confidence, c.BuyPressure, c.Volume, c.TradeCount, c.BaselineSamples})
	}
	for dir, g := range groups {
		w.write(w.Path(dir, staged), datasets.SignalChangeColumns, g)
	}
}

// Trade is one normalized trade of a trades file (datasets.TradeColumns);
// Venue is the partition.
type Trade struct {
	Time                                    time.Time
	Symbol, Venue, VenueKind, Chain, Market string
	VenueSymbol                             string
	Price, Size, NotionalUSD                float64
	Side, TradeID                           string
	LogIndex                                int64
	Wallet                                  string
}

// Trades writes normalized trades, one file per (day, venue); ingest time
// is the event time.
func (w *Writer) Trades(staged bool, rows []Trade) {
	w.tb.Helper()
	groups := map[string][][]driver.Value{}
	for _, t := range rows {
		dir := datasets.TradeDir(w.Root, datasets.Day(t.Time), t.Venue)
		groups[dir] = append(groups[dir], []driver.Value{t.Time.UTC(), t.Time.UTC(), t.Symbol, t.VenueKind, t.Chain, t.Market,
			t.VenueSymbol, t.Price, t.Size, t.NotionalUSD, t.Side, t.TradeID, t.LogIndex, t.Wallet})
	}
	for dir, g := range groups {
		w.write(w.Path(dir, staged), datasets.TradeColumns, g)
	}
}

// Flat returns a 1m candle of one venue whose OHLC are all price, with
// volume base units traded half by buyers and half by sellers.
func Flat(symbol, venue string, t time.Time, price, volume float64) datasets.Candle {
	return datasets.Candle{Time: t, Symbol: symbol, Venue: venue, VenueKind: "cex", Open: price, High: price,
		Low: price, Close: price, Volume: volume, VolumeUSD: volume * price, BuyVolume: volume / 2,
		SellVolume: volume / 2, BuyVolumeUSD: volume * price / 2, SellVolumeUSD: volume * price / 2,
		BuyPressure: 50, VWAP: price, TradeCount: 2, BuyCount: 1, SellCount: 1}
}

// Symbol returns the name of synthetic symbol i: SYM000USD, SYM001USD, ...
func Symbol(i int) string { return fmt.Sprintf("SYM%03dUSD", i) }

// GenCandles writes synthetic 1m candle day files for symbols Symbol(0..n-1)
// on venues (venue kind onchain_dex) for every day from first, days days,
// with SQL inside DuckDB: a deterministic wave per symbol around 100, in
// the column types of datasets.CandleColumns (DOUBLE volumes, not the
// DECIMAL a literal like 10.0 would make).
func (w *Writer) GenCandles(first time.Time, days int, venues []string, n int) {
	w.tb.Helper()
	for d := range days {
		day := first.AddDate(0, 0, d)
		for vi, v := range venues {
			path := filepath.Join(datasets.CandleDir(w.Root, "1m", datasets.Day(day), v), datasets.DayFileName)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				w.tb.Fatal(err)
			}
			w.Exec(`COPY (
  WITH g AS (
    SELECT ?::TIMESTAMPTZ + m * INTERVAL 1 MINUTE AS ts, s, m,
           100 + 10 * sin((m + s * 37 + ?) / 50.0) + s AS p
    FROM range(1440) t(m), range(?) u(s))
  SELECT ts, printf('SYM%03dUSD', s) AS symbol, 'onchain_dex' AS venue_kind, 'ethereum' AS chain,
         p AS open, p * 1.002 AS high, p * 0.998 AS low, p * (1 + 0.001 * sin(m)) AS close,
         (10.0 + (m % 7))::DOUBLE AS volume, (10.0 + (m % 7)) * p AS volume_usd,
         ((10.0 + (m % 7)) * 0.6)::DOUBLE AS buy_volume, ((10.0 + (m % 7)) * 0.4)::DOUBLE AS sell_volume,
         (10.0 + (m % 7)) * p * 0.6 AS buy_volume_usd, (10.0 + (m % 7)) * p * 0.4 AS sell_volume_usd,
         60.0 AS buy_pressure, p AS vwap, 5::BIGINT AS trade_count, 3::BIGINT AS buy_count,
         2::BIGINT AS sell_count, 0::BIGINT AS unknown_side_count
  FROM g ORDER BY symbol, ts) TO '`+strings.ReplaceAll(path, "'", "''")+`' (FORMAT parquet)`, day, vi*3+d, n)
		}
	}
}

// GenSignals writes synthetic signal documents of window for the symbols
// of GenCandles: one per symbol and minute, BULLISH with confidence 80 at
// every 30th minute (event BREAKOUT), BEARISH with confidence 70 at every
// 45th (event BREAKDOWN), NEUTRAL otherwise; price from the same wave.
func (w *Writer) GenSignals(window string, first time.Time, days, n int) {
	w.tb.Helper()
	for d := range days {
		day := first.AddDate(0, 0, d)
		path := filepath.Join(datasets.SignalDir(w.Root, window, datasets.Day(day)), datasets.DayFileName)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			w.tb.Fatal(err)
		}
		w.Exec(`COPY (
  WITH g AS (
    SELECT ?::TIMESTAMPTZ + m * INTERVAL 1 MINUTE AS ts, s, m,
           100 + 10 * sin((m + s * 37 + ?) / 50.0) + s AS p
    FROM range(1440) t(m), range(?) u(s))
  SELECT ts, printf('SYM%03dUSD', s) AS symbol, printf('SYM%03dUSD|5m|%d', s, m) AS id, p AS price,
         0.5 AS price_change_percent, 1000.0 AS volume, 60.0 AS buy_pressure, 10::BIGINT AS trade_count,
         50.0 AS momentum_score, 40.0 AS activity_score, (m % 100)::DOUBLE AS anomaly_score,
         CASE WHEN m % 30 = 0 THEN 80.0 WHEN m % 45 = 0 THEN 70.0 ELSE 30.0 END AS confidence_score,
         CASE WHEN m % 30 = 0 THEN 'BULLISH' WHEN m % 45 = 0 THEN 'BEARISH' ELSE 'NEUTRAL' END AS signal,
         'MEDIUM' AS signal_strength,
         CASE WHEN m % 30 = 0 THEN 'BREAKOUT' WHEN m % 45 = 0 THEN 'BREAKDOWN' ELSE 'NORMAL' END AS event_type,
         1.5 AS volume_multiple, 1.2 AS activity_multiple, 30::BIGINT AS baseline_samples, true AS baseline_ready,
         'mi-signals/1.1.0' AS algorithm_version
  FROM g ORDER BY symbol, ts) TO '`+strings.ReplaceAll(path, "'", "''")+`' (FORMAT parquet)`, day, d, n)
	}
}
