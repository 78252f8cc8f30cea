package sim

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("cannot update %s: %v", path, err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s differs at line %d:\ngot  %s\nwant %s\n(run with -update if the change is intended, and say so in docs/simulator.md)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: got %d lines, want %d", path, len(gl), len(wl))
	}
}

// TestGolden pins the output of seed 1: the first trades, and the ground
// truth of one simulated day. A change in the model shows up here first.
func TestGolden(t *testing.T) {
	start := time.Date(2024, 8, 8, 0, 0, 0, 0, time.UTC)
	gtPath := filepath.Join(t.TempDir(), "gt.ndjson")
	s := mustNew(t, Config{Start: start, End: start.Add(24 * time.Hour), RateScale: MinRateScale, GroundTruthPath: gtPath})
	var b []byte
	n := 0
	each(t, s, func(tr *schemas.Trade) bool {
		if n < 300 {
			b = fmt.Appendf(b, "%d %s %s %s %s %s %s %.9g %.9g %.9g %s %s %d %s\n",
				tr.EventTimeNs, tr.Symbol, tr.Venue, schemas.VenueKindName(tr.VenueKind), tr.Chain, tr.Market, tr.VenueSymbol,
				tr.Price, tr.Size, tr.NotionalUsd, schemas.SideName(tr.Side), tr.TradeId, tr.LogIndex, tr.Wallet)
		}
		n++
		if math.IsNaN(tr.Price) {
			t.Fatalf("NaN price")
		}
		return true
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	gt, err := os.ReadFile(gtPath)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "seed1_trades.golden", b)
	checkGolden(t, "seed1_ground_truth.ndjson", gt)
}

// FuzzSimulate checks the invariants of the output for arbitrary seeds,
// rates, event frequencies and symbol subsets: every trade is valid, inside
// [Start, End), in event-time order, and the events are well-formed.
func FuzzSimulate(f *testing.F) {
	f.Add(int64(1), 1.0, 3.0, uint64(0), int64(0))
	f.Add(int64(-5), 0.001, 24.0, uint64(1), int64(12345678901))
	f.Add(int64(99), 50.0, -1.0, uint64(0xfff0000000000), int64(-86400e9))
	f.Add(int64(3), 10000.0, 0.5, uint64(1<<55), int64(3e15))
	f.Fuzz(func(t *testing.T, seed int64, rate, events float64, mask uint64, offsetNs int64) {
		if !(rate >= MinRateScale && rate <= MaxRateScale) || math.IsNaN(events) || events > MaxEventsPerSymbolPerDay {
			return // New's validation is tested elsewhere
		}
		var symbols []string
		for i, sym := range DefaultSymbols() {
			if mask&(1<<i) != 0 {
				symbols = append(symbols, sym)
			}
		}
		start := time.Date(2024, 8, 8, 0, 0, 0, 0, time.UTC).Add(time.Duration(offsetNs % (5 * 365 * 86400e9)))
		// Long enough for about 2000 trades, and at least an hour.
		total := 0.0
		for _, sym := range symbols {
			total += lookupSpec(sym).rate
		}
		if len(symbols) == 0 {
			total = 290
		}
		dur := max(time.Hour, time.Duration(2000/(total*rate)*float64(time.Second)))
		if dur > 30*24*time.Hour {
			dur = 30 * 24 * time.Hour
		}
		end := start.Add(dur)
		s, err := New(Config{Seed: seed, Start: start, End: end, Symbols: symbols, RateScale: rate, EventsPerSymbolPerDay: events})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer s.Close()
		var last int64
		n := 0
		each(t, s, func(tr *schemas.Trade) bool {
			if err := schemas.Validate(tr); err != nil {
				t.Fatalf("invalid trade: %v: %v", err, tr)
			}
			if tr.EventTimeNs < last || tr.EventTimeNs < start.UnixNano() || tr.EventTimeNs >= end.UnixNano() {
				t.Fatalf("trade at %d out of order or outside the run", tr.EventTimeNs)
			}
			last = tr.EventTimeNs
			n++
			return n < 5000
		})
		for _, e := range s.Events() {
			if !e.End.After(e.Start) || e.Start.Sub(start) < QuietGap || e.End.After(end) {
				t.Fatalf("bad event %+v", e)
			}
		}
	})
}
