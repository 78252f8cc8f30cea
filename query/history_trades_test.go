package query

import (
	"database/sql"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/internal/testhistory"
	"github.com/marketintel/mi/query/history"
)

// TestCandlesRouteEqualsSQLOverTrades backfills a simulated day (the same
// files a live run leaves), then checks every 5m candle the candles route
// answers against DuckDB SQL computed independently over the stored
// normalized trades: per venue first and last trade, extremes, sums, then
// the cross-venue rule of docs/history.md (volumes and counts summed, high
// and low the extremes, open and close the leading venue's — the most USD
// volume, ties to the name that sorts first — exactly, vwap over all trades).
func TestCandlesRouteEqualsSQLOverTrades(t *testing.T) {
	root := t.TempDir()
	day := testhistory.DefaultFrom
	testhistory.Build(t, root, testhistory.Options{From: day, Symbols: []string{"BTCUSD", "ETHUSD"}, Rate: 0.02})
	now := day.Add(25 * time.Hour)
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Deps{Now: func() time.Time { return now }, History: st})

	status, _, body := do(t, s.App(), http.MethodGet, "/api/v1/intelligence/candles/ETHUSD?interval=5m&limit=1000")
	if status != 200 {
		t.Fatalf("candles route: %d %s", status, body)
	}
	var got struct {
		Candles []struct {
			TS                                   time.Time
			Open, High, Low, Close, Volume, VWAP float64
			VolumeUSD                            float64 `json:"volumeUsd"`
			BuyVolumeUSD                         float64 `json:"buyVolumeUsd"`
			SellVolumeUSD                        float64 `json:"sellVolumeUsd"`
			TradeCount, BuyCount, SellCount      int64
		} `json:"candles"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Candles) < 200 {
		t.Fatalf("the route answered %d 5m candles for a simulated day, want most of 288", len(got.Candles))
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rows, err := db.Query(`
WITH t AS (
  SELECT venue, to_timestamp(floor(epoch(event_time) / 300) * 300) AS b, event_time, trade_id, log_index,
         price, size, notional_usd, side
  FROM read_parquet(?, hive_partitioning = true) WHERE symbol = 'ETHUSD'
), v AS (
  SELECT venue, b,
    arg_min(price, (event_time, trade_id, log_index)) AS o, arg_max(price, (event_time, trade_id, log_index)) AS c,
    max(price) AS h, min(price) AS l, sum(size) AS vol, sum(notional_usd) AS vu, sum(price * size) AS ps,
    coalesce(sum(notional_usd) FILTER (side = 'BUY'), 0) AS bu, coalesce(sum(notional_usd) FILTER (side = 'SELL'), 0) AS su,
    count(*) AS n, count(*) FILTER (side = 'BUY') AS nb, count(*) FILTER (side = 'SELL') AS ns
  FROM t GROUP BY venue, b
)
SELECT b, arg_min(o, (-vu, venue)), max(h), min(l), arg_min(c, (-vu, venue)), sum(vol), sum(vu), sum(ps) / sum(vol),
       sum(bu), sum(su), sum(n), sum(nb), sum(ns)
FROM v GROUP BY b ORDER BY b`, filepath.Join(root, "trades", "date=*", "venue=*", "data.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type want struct {
		o, h, l, c, vol, vu, vwap, bu, su float64
		n, nb, ns                         int64
	}
	sqlCandles := map[time.Time]want{}
	for rows.Next() {
		var b time.Time
		var w want
		if err := rows.Scan(&b, &w.o, &w.h, &w.l, &w.c, &w.vol, &w.vu, &w.vwap, &w.bu, &w.su, &w.n, &w.nb, &w.ns); err != nil {
			t.Fatal(err)
		}
		sqlCandles[b.UTC()] = w
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-12 }
	for _, g := range got.Candles {
		w, ok := sqlCandles[g.TS.UTC()]
		if !ok {
			t.Fatalf("the route has a candle at %s that the trades do not", g.TS)
		}
		if g.TradeCount != w.n || g.BuyCount != w.nb || g.SellCount != w.ns || g.High != w.h || g.Low != w.l ||
			g.Open != w.o || g.Close != w.c || !near(g.Volume, w.vol) || !near(g.VolumeUSD, w.vu) ||
			!near(g.VWAP, w.vwap) || !near(g.BuyVolumeUSD, w.bu) || !near(g.SellVolumeUSD, w.su) {
			t.Fatalf("candle %s: route %+v, SQL over trades %+v", g.TS, g, w)
		}
	}
	t.Logf("%d 5m candles from the route equal SQL over the trades", len(got.Candles))
	if len(got.Candles) != len(sqlCandles) {
		t.Fatalf("the route answered %d candles, the trades make %d", len(got.Candles), len(sqlCandles))
	}
}
