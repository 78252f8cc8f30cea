package datasets_test

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// synthDay writes one day of 1m candles for two symbols on venue "v" with
// known totals: trade_count 1 + minute%3, volume 1 per minute.
func synthDay(t *testing.T, root string, day time.Time) {
	t.Helper()
	var rows []pqsink.CandleRow
	for m := 0; m < 1440; m++ {
		for _, sym := range []string{"AAAUSD", "BBBUSD"} {
			p := 100 + float64(m)
			rows = append(rows, pqsink.CandleRow{
				TS: day.Add(time.Duration(m) * time.Minute).UnixMicro(), Symbol: sym, VenueKind: "cex",
				Open: p, High: p + 1, Low: p - 1, Close: p + 0.5, Volume: 1, VolumeUSD: p, BuyVolume: 0.5, SellVolume: 0.5,
				BuyVolumeUSD: p / 2, SellVolumeUSD: p / 2, BuyPressure: 50, VWAP: p, TradeCount: int64(1 + m%3), BuyCount: 1, SellCount: int64(m % 3),
			})
		}
	}
	if err := pqsink.WriteRows(filepath.Join(datasets.CandleDir(root, "1m", datasets.Day(day), "v"), datasets.DayFileName), rows); err != nil {
		t.Fatal(err)
	}
}

// TestRetentionOver200Days writes 200 days of 1m candles, advances an
// injected clock through them in 10-day steps applying the policy each
// time, and checks which resolution each day ends at, that totals, opens,
// closes and extremes survive the roll-ups, and that a crash between the
// rename and the delete, and a leftover temporary file, are cleaned up.
func TestRetentionOver200Days(t *testing.T) {
	root := t.TempDir()
	day0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	const days = 200
	for d := 0; d < days; d++ {
		synthDay(t, root, day0.AddDate(0, 0, d))
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	var now time.Time
	for step := 10; step <= days; step += 10 {
		now = day0.AddDate(0, 0, step)
		if _, err := datasets.Retain(ctx, db, root, now); err != nil {
			t.Fatal(err)
		}
	}
	// Crash after a rename, before the delete: the finer file is back, and
	// a temporary file is left over.
	oldest := filepath.Join(datasets.CandleDir(root, "1m", datasets.Day(day0), "v"), datasets.DayFileName)
	synthDay(t, root, day0)
	tmp := filepath.Join(datasets.CandleDir(root, "1h", datasets.Day(day0.AddDate(0, 0, 1)), "v"), datasets.DayFileName+".tmp")
	if err := os.WriteFile(tmp, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := datasets.Retain(ctx, db, root, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1m→5m " + datasets.Day(day0) + " v"; res.RolledUp != 0 || res.Deleted != 1 || len(res.Done) != 1 || res.Done[0] != want {
		t.Errorf("resume after a crash: %+v, want only the finer file deleted (%q)", res, want)
	}
	for _, p := range []string{oldest, tmp} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived", p)
		}
	}
	// Idempotent: nothing left to do.
	if res, err := datasets.Retain(ctx, db, root, now); err != nil || res.RolledUp+res.Deleted+len(res.Done) != 0 {
		t.Errorf("second run: %+v, %v; want nothing done", res, err)
	}

	// now = day0+200: ages 1..200 days.
	if _, err := db.Exec("SET TimeZone='UTC'"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT interval, date::VARCHAR, count(*), sum(trade_count), sum(volume), sum(volume_usd),
	    min(low), max(high), arg_min(open, ts), arg_max(close, ts), max(abs(buy_pressure - 50)), max(abs(vwap - volume_usd / volume))
	  FROM read_parquet(?, hive_partitioning = true) WHERE symbol = 'AAAUSD' GROUP BY ALL ORDER BY 2`,
		filepath.Join(root, "candles", "*", "*", "*", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	perBucket := map[string]int64{"1m": 1440, "5m": 288, "15m": 96, "1h": 24}
	seen := 0
	for rows.Next() {
		var iv, day string
		var n, trades int64
		var vol, volUSD, low, high, open, cl, bp, vwapErr float64
		if err := rows.Scan(&iv, &day, &n, &trades, &vol, &volUSD, &low, &high, &open, &cl, &bp, &vwapErr); err != nil {
			t.Fatal(err)
		}
		seen++
		d, _ := time.Parse(datasets.DateFormat, day)
		age := int(now.Sub(d).Hours() / 24)
		want := "1m"
		switch {
		case age > 180:
			want = "1h"
		case age > 30:
			want = "15m"
		case age > 7:
			want = "5m"
		}
		if iv != want {
			t.Errorf("%s (age %d days) at %s, want %s", day, age, iv, want)
		}
		if n != perBucket[iv] || trades != 2880 || vol != 1440 || math.Abs(volUSD-(100*1440+1439*1440/2)) > 1e-6 ||
			low != 99 || high != 1540 || open != 100 || cl != 1539.5 || bp != 0 || vwapErr > 1e-9 {
			t.Errorf("%s %s: %d candles, %d trades, volume %g/%g, low %g high %g open %g close %g, |bp-50| %g, vwap err %g",
				day, iv, n, trades, vol, volUSD, low, high, open, cl, bp, vwapErr)
		}
	}
	if seen != days {
		t.Errorf("%d days present after retention, want %d", seen, days)
	}
	// A rolled-up file has the columns and types of a 1m file.
	var typ string
	if err := db.QueryRow("SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning=false))",
		filepath.Join(datasets.CandleDir(root, "1h", datasets.Day(day0), "v"), datasets.DayFileName)).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	want := ""
	for i, c := range datasets.CandleColumns {
		if i > 0 {
			want += ", "
		}
		want += c.Name + " " + c.Type
	}
	if typ != want {
		t.Errorf("1h columns:\n%s\nwant\n%s", typ, want)
	}
}
