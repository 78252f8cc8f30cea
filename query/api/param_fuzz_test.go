package api

import (
	"testing"
	"time"
)

// FuzzHistoryParams feeds arbitrary strings to the parameter parsers of
// the history routes: none panics, and an accepted value is in range.
func FuzzHistoryParams(f *testing.F) {
	for _, s := range []string{"", "2026-01-05", "2026-01-05T00:00:00Z", "2026-01-05T00:00:00+05:30", "momentum,regime",
		"1m", "1h", "2026-13-01", "' OR 1=1 --", "9999-12-31T23:59:59Z", "true", "2020-01-01T00:00:00.123456789Z"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if v, perr := (Instant{Name: "from"}).parse(s, now, time.Time{}); perr == nil {
			if v.Location() != time.UTC || v.Year() < 2020 || v.After(now.Add(24*time.Hour)) {
				t.Fatalf("accepted %q as %v", s, v)
			}
		}
		if d, perr := (Day{Name: "date"}).parse(s, now); perr == nil && (len(d) != 10 || d > "2026-01-06") {
			t.Fatalf("accepted day %q as %q", s, d)
		}
		signals := Subset{Name: "signals", Values: []string{"momentum", "activity", "buying", "selling", "anomaly", "regime"}}
		if sigs, perr := signals.parse(s); perr == nil && (len(sigs) == 0 || len(sigs) > len(signals.Values)) {
			t.Fatalf("signals %q gave %v", s, sigs)
		}
		if v, perr := (Enum{Name: "interval", Values: []string{"1m", "5m", "15m", "1h"}, Default: "1m"}).parse(s); perr == nil && v == "" {
			t.Fatalf("interval %q accepted as empty", s)
		}
		if v, perr := (Int{Name: "days", Min: 1, Max: 365, Default: 30}).parse(s); perr == nil && (v < 1 || v > 365) {
			t.Fatalf("days %q accepted as %d", s, v)
		}
		if v, perr := (Number{Name: "minAnomaly", Min: 0, Max: 100}).parse(s); perr == nil && (v < 0 || v > 100 || v != v) {
			t.Fatalf("minAnomaly %q accepted as %v", s, v)
		}
	})
}
