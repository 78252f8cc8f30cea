package e2e

import (
	"context"
	"database/sql"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// candlesOf reads the committed candles of a finished run keyed by
// venue|symbol|start.
func candlesOf(t *testing.T, brokers []string) map[string]*schemas.Candle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := map[string]*schemas.Candle{}
	for _, r := range readAll(ctx, brokers, schemas.TopicCandles) {
		c := &schemas.Candle{}
		if err := proto.Unmarshal(r.Value, c); err != nil {
			t.Fatal(err)
		}
		k := c.Venue + "|" + c.Symbol + "|" + strconv.FormatInt(c.StartNs, 10)
		if _, dup := out[k]; dup {
			t.Fatalf("candle %s emitted twice", k)
		}
		out[k] = c
	}
	return out
}

// TestBinanceCandlesEqualDuckDB replays the Binance spot BTCUSDT capture
// through the pipeline and checks that every closed 1m candle equals, to the
// last bit, the candle DuckDB SQL computes from the same accepted trades in
// the same order.
func TestBinanceCandlesEqualDuckDB(t *testing.T) {
	h := startPipeline(t, t.TempDir(), "replay:"+
		fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")+","+
		fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz"))
	waitDone(t, h.brokers, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	rejected := map[string]bool{}
	for _, r := range readAll(ctx, h.brokers, schemas.TopicTradesDLQ) {
		var tr schemas.Trade
		if proto.Unmarshal(r.Value, &tr) == nil && tr.TradeId != "" {
			rejected[tr.TradeId] = true
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, db, `SET threads = 1`)
	mustExec(t, db, `CREATE TABLE trades (seq BIGINT, venue VARCHAR, symbol VARCHAR, event_ns BIGINT, price DOUBLE, size DOUBLE, notional DOUBLE, side VARCHAR)`)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, r := range readAll(ctx, h.brokers, schemas.TopicTrades) {
		if pipeline.IsEnd(r) || pipeline.IsGap(r) {
			continue
		}
		var tr schemas.Trade
		if err := proto.Unmarshal(r.Value, &tr); err != nil {
			t.Fatal(err)
		}
		if rejected[tr.TradeId] {
			continue
		}
		if _, err := ins.Exec(i, tr.Venue, tr.Symbol, tr.EventTimeNs, tr.Price, tr.Size, tr.NotionalUsd, schemas.SideName(tr.Side)); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n < 19000 {
		t.Fatalf("expected ~19,900 trades, loaded %d", n)
	}
	got := candlesOf(t, h.brokers)
	if len(got) < 9 {
		t.Fatalf("expected ≥ 9 closed candles over 11 minutes, got %d", len(got))
	}
	// Plain sums in arrival order (one thread, rows in insertion order) are
	// what the operator computes; ordered aggregates are kept in a separate
	// query so they cannot reorder the sums.
	rows, err := db.Query(`
		SELECT venue, symbol, (event_ns // 60000000000) * 60000000000 AS start_ns,
		       sum(size), sum(notional),
		       coalesce(sum(size) FILTER (WHERE side = 'BUY'), 0), coalesce(sum(size) FILTER (WHERE side = 'SELL'), 0),
		       coalesce(sum(notional) FILTER (WHERE side = 'BUY'), 0), coalesce(sum(notional) FILTER (WHERE side = 'SELL'), 0),
		       sum(price * size), count(*), count(*) FILTER (WHERE side = 'BUY'), count(*) FILTER (WHERE side = 'SELL'),
		       max(price), min(price)
		FROM trades GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	type agg struct {
		venue, symbol                                                   string
		start                                                           int64
		vol, volUSD, buyVol, sellVol, buyUSD, sellUSD, quote, high, low float64
		cnt, buys, sells                                                int64
	}
	var aggs []agg
	for rows.Next() {
		var a agg
		if err := rows.Scan(&a.venue, &a.symbol, &a.start, &a.vol, &a.volUSD, &a.buyVol, &a.sellVol, &a.buyUSD, &a.sellUSD, &a.quote, &a.cnt, &a.buys, &a.sells, &a.high, &a.low); err != nil {
			t.Fatal(err)
		}
		aggs = append(aggs, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	checked := 0
	for _, a := range aggs {
		venue, symbol, start := a.venue, a.symbol, a.start
		vol, volUSD, buyVol, sellVol, buyUSD, sellUSD, quote, high, low := a.vol, a.volUSD, a.buyVol, a.sellVol, a.buyUSD, a.sellUSD, a.quote, a.high, a.low
		cnt, buys, sells := a.cnt, a.buys, a.sells
		c, ok := got[venue+"|"+symbol+"|"+strconv.FormatInt(start, 10)]
		if !ok {
			// The end of input closes the last minute too.
			t.Errorf("%s %s: no candle for a minute with %d trades", symbol, time.Unix(0, start).UTC().Format("2006-01-02 15:04"), cnt)
			continue
		}
		var open, closep float64
		if err := db.QueryRow(`SELECT first(price ORDER BY event_ns, seq), last(price ORDER BY event_ns, seq) FROM trades
			WHERE venue = ? AND symbol = ? AND (event_ns // 60000000000) * 60000000000 = ?`, venue, symbol, start).Scan(&open, &closep); err != nil {
			t.Fatal(err)
		}
		pressure := 50.0
		if buyUSD+sellUSD > 0 {
			pressure = 100 * (buyUSD / (buyUSD + sellUSD)) // the documented formula: divide first
		}
		f := func(name string, gotv, want float64) {
			t.Helper()
			if gotv != want {
				t.Errorf("%s %s %s: pipeline %v, DuckDB %v", symbol, time.Unix(0, start).UTC().Format("15:04"), name, gotv, want)
			}
		}
		f("open", c.Open, open)
		f("high", c.High, high)
		f("low", c.Low, low)
		f("close", c.Close, closep)
		f("volume", c.Volume, vol)
		f("volume_usd", c.VolumeUsd, volUSD)
		f("buy_volume", c.BuyVolume, buyVol)
		f("sell_volume", c.SellVolume, sellVol)
		f("buy_volume_usd", c.BuyVolumeUsd, buyUSD)
		f("sell_volume_usd", c.SellVolumeUsd, sellUSD)
		f("vwap", c.Vwap, quote/vol)
		f("buy_pressure", c.BuyPressure, pressure)
		f("trade_count", float64(c.TradeCount), float64(cnt))
		f("buy_count", float64(c.BuyCount), float64(buys))
		f("sell_count", float64(c.SellCount), float64(sells))
		checked++
	}
	if checked != len(got) {
		t.Fatalf("compared %d candles, the pipeline closed %d", checked, len(got))
	}
}

// TestUniswapCandlesMatchMinuteFile replays the Uniswap v3 USDC/WETH 0.05%
// day and compares the pipeline's 1m candles with the fixture's per-minute
// file where the definitions match: inAmount0 is the USDC paid into the pool
// by buyers of WETH (our buy_volume_usd, in USDC atomic units) and inAmount1
// is the WETH paid in by sellers (our sell_volume). Trade counts are not in
// that file; see docs/replay.md.
func TestUniswapCandlesMatchMinuteFile(t *testing.T) {
	h := startPipeline(t, t.TempDir(), "replay:"+fixtures.Path(t, "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_raw_logs_2024-01-05.csv"))
	waitDone(t, h.brokers, 2*time.Minute)
	got := candlesOf(t, h.brokers)

	f, err := os.Open(fixtures.Path(t, "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_minute_2024-01-05.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked, trades := 0, uint32(0)
	for _, rec := range recs[1:] {
		ts, err := time.Parse("2006-01-02 15:04:05", rec[0])
		if err != nil {
			t.Fatal(err)
		}
		in0, _ := strconv.ParseFloat(rec[7], 64)
		in1, _ := strconv.ParseFloat(rec[8], 64)
		c, ok := got["uniswap_v3|ETHUSD|"+strconv.FormatInt(ts.UnixNano(), 10)]
		if !ok {
			if in0 != 0 && ts.Before(time.Date(2024, 1, 5, 23, 58, 0, 0, time.UTC)) {
				t.Errorf("%s: the minute file has swaps but the pipeline closed no candle", rec[0])
			}
			continue
		}
		near := func(name string, gotv, want float64) {
			t.Helper()
			if math.Abs(gotv-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s %s: pipeline %v, minute file %v", rec[0], name, gotv, want)
			}
		}
		near("buy_volume_usd vs inAmount0", c.BuyVolumeUsd, in0/1e6)
		near("sell_volume vs inAmount1", c.SellVolume, in1/1e18)
		trades += c.TradeCount
		checked++
	}
	if checked < 1000 {
		t.Fatalf("compared only %d minutes", checked)
	}
	if trades < 6000 {
		t.Fatalf("candles hold %d trades; the day has 6,046 swaps", trades)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
