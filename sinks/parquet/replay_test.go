package parquet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
)

// TestBackfillReplay backfills two real Binance captures of consecutive
// days: the first day, which the second capture's trades pass, gets its day
// files with every trade; the second stays staged, as in a live run.
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
	if len(res.Days) != 1 || res.Days[0] != "2024-08-08" {
		t.Fatalf("days closed = %v, want 2024-08-08", res.Days)
	}
	rows, err := ReadRows[TradeRow](filepath.Join(datasets.TradeDir(root, "2024-08-08", "binance"), datasets.DayFileName))
	if err != nil {
		t.Fatal(err)
	}
	// The capture has 9757 trades (replay_test.go); the operators reject a
	// few as late, and the file holds the accepted ones.
	if len(rows) < 9700 || len(rows) > 9757 {
		t.Fatalf("%d trades in the 2024-08-08 day file, want the capture's 9757 less a few late ones", len(rows))
	}
	parts, _ := filepath.Glob(filepath.Join(datasets.Staged(root, datasets.TradeDir(root, "2024-08-09", "binance")), "part-*.parquet"))
	staged := 0
	for _, p := range parts {
		r, err := ReadRows[TradeRow](p)
		if err != nil {
			t.Fatal(err)
		}
		staged += len(r)
	}
	if int64(len(rows)+staged) != res.Trades {
		t.Fatalf("%d + %d staged trades, want the %d accepted", len(rows), staged, res.Trades)
	}
	if rows[0].Symbol != "BTCUSD" || rows[0].LogIndex != -1 || rows[0].VenueKind != "cex" {
		t.Fatalf("first trade %+v", rows[0])
	}
	if _, err := os.Stat(filepath.Join(datasets.CandleDir(root, "1m", "2024-08-08", "binance"), datasets.DayFileName)); err != nil {
		t.Fatal(err)
	}
	if days, err := StagedDays(root); err != nil || len(days) != 1 || days[0] != "2024-08-09" {
		t.Fatalf("staged days = %v, %v; want 2024-08-09", days, err)
	}
	if _, err := Backfill(context.Background(), BackfillConfig{Root: root, Source: "replay:", From: time.Now(), To: time.Now()}); err == nil {
		t.Fatal(`source "replay:" accepted`)
	}
}
