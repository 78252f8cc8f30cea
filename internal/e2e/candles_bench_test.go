package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/schemas"
)

var (
	benchOnce   sync.Once
	benchTrades []*schemas.Trade
)

// simTrades returns 1M simulated trades (56 symbols, three venue kinds).
func simTrades(b *testing.B) []*schemas.Trade {
	benchOnce.Do(func() {
		src, err := sim.New(sim.Config{Seed: 42, Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), RateScale: 50})
		if err != nil {
			b.Fatal(err)
		}
		for len(benchTrades) < 1_000_000 {
			r, err := src.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if r.Trade != nil {
				benchTrades = append(benchTrades, r.Trade)
			}
		}
	})
	return benchTrades
}

// BenchmarkCandles compares, in one run over the same 1M trades, the
// operator chain (candles, windows and documents, one core) with DuckDB's
// GROUP BY computing only the 1m candles from an in-memory table (one
// thread, and all threads).
func BenchmarkCandles(b *testing.B) {
	trades := simTrades(b)
	b.Run("operators", func(b *testing.B) {
		var candles, docs int
		for range b.N {
			e := operators.NewEngine(operators.DefaultConfig(), operators.Emit{
				Candle:   func(*schemas.Candle) { candles++ },
				Document: func(*schemas.IntelligenceDocument) { docs++ },
				Reject:   func(*schemas.Trade, string) {},
			})
			for _, t := range trades {
				e.Push(t)
			}
		}
		b.ReportMetric(float64(len(trades))*float64(b.N)/b.Elapsed().Seconds(), "trades/s")
	})
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer connector.Close()
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE trades (venue VARCHAR, symbol VARCHAR, event_ns BIGINT, price DOUBLE, size DOUBLE, notional DOUBLE, side VARCHAR)`); err != nil {
		b.Fatal(err)
	}
	conn, err := connector.Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	app, err := duckdb.NewAppenderFromConn(conn, "", "trades")
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range trades {
		if err := app.AppendRow(t.Venue, t.Symbol, t.EventTimeNs, t.Price, t.Size, t.NotionalUsd, schemas.SideName(t.Side)); err != nil {
			b.Fatal(err)
		}
	}
	if err := app.Close(); err != nil {
		b.Fatal(err)
	}
	_ = conn.(driver.Conn).Close()
	const q = `SELECT venue, symbol, (event_ns // 60000000000) AS minute,
		first(price ORDER BY event_ns), max(price), min(price), last(price ORDER BY event_ns),
		sum(size), sum(notional), sum(notional) FILTER (WHERE side = 'BUY'), sum(notional) FILTER (WHERE side = 'SELL'),
		sum(price * size) / sum(size), count(*)
		FROM trades GROUP BY ALL`
	for _, threads := range []string{"1", "2"} {
		b.Run("duckdb_threads="+threads, func(b *testing.B) {
			if _, err := db.Exec("SET threads = " + threads); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				rows, err := db.Query(q)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				rows.Close()
				if n == 0 {
					b.Fatal("no candles")
				}
			}
			b.ReportMetric(float64(len(trades))*float64(b.N)/b.Elapsed().Seconds(), "trades/s")
		})
	}
}
