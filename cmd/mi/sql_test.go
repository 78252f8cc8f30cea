package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

func TestSQLViewsAndExport(t *testing.T) {
	root := t.TempDir()
	day := time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC)
	var rows []pqsink.CandleRow
	for i, sym := range []string{"AUSD", "BUSD", "AUSD"} {
		rows = append(rows, pqsink.CandleRow{TS: day.Add(time.Duration(i) * time.Minute).UnixMicro(), Symbol: sym, VenueKind: "cex", Close: float64(i + 1), TradeCount: 2})
	}
	if err := pqsink.WriteRows(filepath.Join(datasets.CandleDir(root, "1m", "2026-01-06", "v"), datasets.DayFileName), rows); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := runSQL(context.Background(), &out, root, "256MB",
		"SELECT symbol, venue, interval, count(*) AS n, sum(trade_count) AS trades FROM candles GROUP BY ALL ORDER BY symbol", true)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "symbol,venue,interval,n,trades|AUSD,v,1m,2,4|BUSD,v,1m,1,2"
	var got []string
	for _, r := range recs {
		got = append(got, strings.Join(r, ","))
	}
	if strings.Join(got, "|") != want {
		t.Fatalf("CSV = %q, want %q", strings.Join(got, "|"), want)
	}
	// Datasets without files are empty views with their columns.
	out.Reset()
	if err := runSQL(context.Background(), &out, root, "256MB", "SELECT count(*) AS n, count(wallet) AS w FROM trades", false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(1 rows)") || !strings.Contains(out.String(), "0") {
		t.Fatalf("table output %q", out.String())
	}
	// Export with a symbol filter keeps only that symbol's rows.
	dest := t.TempDir()
	if err := cmdExport(context.Background(), []string{"--data-dir", root, "--from", "2026-01-05", "--to", "2026-01-06", "--dest", dest, "--symbols", "busd"}); err != nil {
		t.Fatal(err)
	}
	got2, err := pqsink.ReadRows[pqsink.CandleRow](filepath.Join(datasets.CandleDir(dest, "1m", "2026-01-06", "v"), datasets.DayFileName))
	if err != nil || len(got2) != 1 || got2[0].Symbol != "BUSD" {
		t.Fatalf("exported %+v, %v; want the one BUSD row", got2, err)
	}
	if err := cmdExport(context.Background(), []string{"--data-dir", root, "--from", "2026-01-07", "--dest", dest}); err == nil {
		t.Fatal("export of a range without day files succeeded")
	}
}

func TestParseDayRange(t *testing.T) {
	f := func(from, to, wantErr string) {
		t.Helper()
		_, _, err := parseDayRange(from, to)
		if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Fatalf("parseDayRange(%q, %q) = %v, want error containing %q", from, to, err, wantErr)
		}
	}
	f("2026-01-05", "", "")
	f("2026-01-05", "2026-01-09", "")
	f("", "", "--from")
	f("05/01/2026", "", "--from")
	f("2026-01-05", "tomorrow", "--to")
	f("2026-01-05", "2026-01-04", "before")
}
