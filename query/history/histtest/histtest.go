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

// Flat returns a 1m candle of one venue whose OHLC are all price, with
// volume base units traded half by buyers and half by sellers.
func Flat(symbol, venue string, t time.Time, price, volume float64) datasets.Candle {
	return datasets.Candle{Time: t, Symbol: symbol, Venue: venue, VenueKind: "cex", Open: price, High: price,
		Low: price, Close: price, Volume: volume, VolumeUSD: volume * price, BuyVolume: volume / 2,
		SellVolume: volume / 2, BuyVolumeUSD: volume * price / 2, SellVolumeUSD: volume * price / 2,
		BuyPressure: 50, VWAP: price, TradeCount: 2, BuyCount: 1, SellCount: 1}
}
