package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// TestRetentionFlag checks mi run's --retention: off keeps an old replay's
// 1m day file where it is (the hook is nil, and says so), on rolls it up
// at the first call and logs which files went; anything else is refused
// naming the accepted values.
func TestRetentionFlag(t *testing.T) {
	root := t.TempDir()
	day := time.Date(2020, 2, 22, 0, 0, 0, 0, time.UTC) // an old capture
	f := filepath.Join(datasets.CandleDir(root, "1m", "2020-02-22", "binance-futures"), datasets.DayFileName)
	if err := pqsink.WriteRows(f, []pqsink.CandleRow{{TS: day.UnixMicro(), Symbol: "BTCUSD", VenueKind: "cex", Open: 1, High: 1, Low: 1, Close: 1, Volume: 1, TradeCount: 1}}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	hook, err := retentionHook("off", root, log)
	if err != nil || hook != nil {
		t.Fatalf("off: hook %v, err %v; want none", hook != nil, err)
	}
	if !strings.Contains(logs.String(), "retention off") {
		t.Fatalf("off is not logged: %q", logs.String())
	}
	if _, err := os.Stat(f); err != nil {
		t.Fatalf("off: %v", err)
	}

	hook, err = retentionHook("on", root, log)
	if err != nil || hook == nil {
		t.Fatalf("on: hook %v, err %v", hook != nil, err)
	}
	if err := hook(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatal("on: the old 1m day file is still there")
	}
	if s := logs.String(); !strings.Contains(s, "1m→5m 2020-02-22 binance-futures") || !strings.Contains(s, "--retention off") {
		t.Fatalf("on: the log does not say what was rolled up: %q", s)
	}

	if _, err := retentionHook("sometimes", root, log); err == nil || !strings.Contains(err.Error(), "accepted values are on") {
		t.Fatalf("bad value: %v", err)
	}
}
