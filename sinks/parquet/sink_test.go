package parquet

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

func candle(venue, sym string, start time.Time, price float64) *schemas.Candle {
	return &schemas.Candle{Venue: venue, VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Symbol: sym, StartNs: start.UnixNano(),
		IntervalNs: int64(time.Minute), Open: price, High: price, Low: price, Close: price, Volume: 1, VolumeUsd: price, TradeCount: 1}
}

// TestCompactionDedupesAndResumes delivers rows twice across part files,
// closes the day by event time, then fakes a crash in the middle of a
// compaction (parts left beside the day file, a temporary file left over)
// and checks that Open finishes it without changing the day file, and that
// a late row is merged by the next compaction.
func TestCompactionDedupesAndResumes(t *testing.T) {
	root := t.TempDir()
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for m := 0; m < 10; m++ {
		s.AddCandle(candle("x", "AUSD", day.Add(time.Duration(m)*time.Minute), float64(m)))
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for m := 5; m < 20; m++ { // 5..9 delivered again
		s.AddCandle(candle("x", "AUSD", day.Add(time.Duration(m)*time.Minute), float64(m)))
	}
	if days, err := s.FlushAndCompact(); err != nil || len(days) != 0 {
		t.Fatalf("compacted %v, %v before the day closed", days, err)
	}
	s.AddCandle(candle("x", "AUSD", day.Add(24*time.Hour), 1)) // watermark 00:01 next day: within the grace
	if days, err := s.FlushAndCompact(); err != nil || len(days) != 0 {
		t.Fatalf("compacted %v, %v within the grace period", days, err)
	}
	s.AddCandle(candle("x", "AUSD", day.Add(24*time.Hour+time.Minute), 1)) // 00:02: closes the day
	days, err := s.FlushAndCompact()
	if err != nil || len(days) != 1 || days[0] != "2026-04-01" {
		t.Fatalf("compacted %v, %v; want 2026-04-01", days, err)
	}
	file := filepath.Join(datasets.CandleDir(root, "1m", "2026-04-01", "x"), datasets.DayFileName)
	rows, err := ReadRows[CandleRow](file)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20 {
		t.Fatalf("%d rows in the day file, want 20 (duplicates dropped)", len(rows))
	}
	for i, r := range rows {
		if r.TS != day.Add(time.Duration(i)*time.Minute).UnixMicro() || r.Close != float64(i) {
			t.Fatalf("row %d = %+v, want minute %d in order", i, r, i)
		}
	}
	staged := datasets.Staged(root, datasets.CandleDir(root, "1m", "2026-04-01", "x"))
	if _, err := os.Stat(staged); !os.IsNotExist(err) {
		t.Fatalf("staging directory of a compacted day still there: %v", err)
	}
	before, _ := os.ReadFile(file)

	// Crash after the rename, before the parts were deleted: the parts are
	// back, and a temporary day file is left over.
	if err := WriteRows(filepath.Join(staged, "part-00000000000000000001-00000001.parquet"), rows[:7]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file+tmpSuffix, []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Root: root}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(file)
	if !bytes.Equal(before, after) {
		t.Fatal("finishing an interrupted compaction changed the day file")
	}
	for _, p := range []string{staged, file + tmpSuffix} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after Open: %v", p, err)
		}
	}

	// A late row for the closed day is merged by the next compaction.
	s2, err := Open(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	s2.AddCandle(candle("x", "BUSD", day.Add(time.Hour), 7))
	s2.AddCandle(candle("x", "AUSD", day.Add(24*time.Hour+3*time.Minute), 1))
	if _, err := s2.FlushAndCompact(); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadRows[CandleRow](file); err != nil || len(rows) != 21 {
		t.Fatalf("after a late row: %d rows, %v; want 21", len(rows), err)
	}
}

// TestSignalRowsAtMinuteCloses feeds documents every second: only the first
// of each symbol, window and minute becomes a row, stamped with the minute.
func TestSignalRowsAtMinuteCloses(t *testing.T) {
	s, err := Open(Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	added := 0
	for sec := 0; sec < 180; sec++ {
		for _, w := range []string{"1m", "5m"} {
			d := &schemas.IntelligenceDocument{Symbol: "AUSD", Window: w, TimestampNs: t0.Add(time.Duration(sec)*time.Second + 3*time.Second).UnixNano()}
			ok, err := s.AddDocument(d)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				added++
			}
		}
	}
	if added != 8 { // 10:00:03 to 10:03:02: four minutes
		t.Fatalf("%d rows from 4 minutes × 2 windows of documents, want 8", added)
	}
	b := s.signals.bufs[datasets.SignalDir(s.root, "1m", "2026-04-01")]
	if b == nil || b.n != 4 || b.chunks[0][1].TS != t0.Add(time.Minute).UnixMicro() {
		t.Fatalf("1m rows = %+v, want 4 stamped on the minutes", b)
	}
}

func TestBadPartitionValuesAreRefused(t *testing.T) {
	s, err := Open(Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"", ".", "..", "../x", "a/b", `a\b`, "x y"} {
		if err := s.AddTrade(&schemas.Trade{Venue: v, Symbol: "AUSD"}); !errors.Is(err, ErrBadPartition) {
			t.Errorf("venue %q: %v, want ErrBadPartition", v, err)
		}
		if _, err := s.AddDocument(&schemas.IntelligenceDocument{Window: v, Symbol: "AUSD"}); !errors.Is(err, ErrBadPartition) {
			t.Errorf("window %q: %v, want ErrBadPartition", v, err)
		}
	}
	if s.Buffered() != 0 {
		t.Fatalf("%d rows buffered from refused records", s.Buffered())
	}
	if err := s.AddCandle(candle("uniswap_v3", "AUSD", time.Unix(0, 0), 1)); err != nil {
		t.Fatal(err)
	}
}

// TestStagingPartsAreMerged flushes one row at a time: the staging
// directory stays at a handful of leveled parts, and the day file gets
// every row once.
func TestStagingPartsAreMerged(t *testing.T) {
	root := t.TempDir()
	s, err := Open(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	staged := datasets.Staged(root, datasets.CandleDir(root, "1m", "2026-04-01", "x"))
	for m := 0; m < 200; m++ {
		s.AddCandle(candle("x", "AUSD", day.Add(time.Duration(m)*time.Minute), float64(m)))
		if m%10 == 0 {
			s.AddCandle(candle("x", "AUSD", day.Add(time.Duration(m)*time.Minute), float64(m))) // redelivered
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if parts, _ := filepath.Glob(filepath.Join(staged, "part-*.parquet")); len(parts) > 3*mergeFanIn {
			t.Fatalf("%d parts after %d flushes", len(parts), m+1)
		}
	}
	if err := s.CompactDay("2026-04-01"); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadRows[CandleRow](filepath.Join(datasets.CandleDir(root, "1m", "2026-04-01", "x"), datasets.DayFileName))
	if err != nil || len(rows) != 200 {
		t.Fatalf("%d rows, %v; want 200", len(rows), err)
	}
	for i, r := range rows {
		if r.Close != float64(i) {
			t.Fatalf("row %d close %g", i, r.Close)
		}
	}
}
