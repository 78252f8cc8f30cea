package query

import (
	"testing"
	"time"
)

// FuzzHistoryParams feeds arbitrary strings to the history parameter
// parsers: none panics, and an accepted value is in range.
func FuzzHistoryParams(f *testing.F) {
	for _, s := range []string{"", "2026-01-05", "2026-01-05T00:00:00Z", "2026-01-05T00:00:00+05:30", "momentum,regime",
		"1m", "1h", "2026-13-01", "' OR 1=1 --", "9999-12-31T23:59:59Z", "true", "2020-01-01T00:00:00.123456789Z"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if v, perr := parseInstant("from", s, now, time.Time{}); perr == nil {
			if v.Location() != time.UTC || v.Year() < 2020 || v.After(now.Add(24*time.Hour)) {
				t.Fatalf("accepted %q as %v", s, v)
			}
		}
		if d, perr := parseDay("date", s, now); perr == nil && (len(d) != 10 || d > "2026-01-06") {
			t.Fatalf("accepted day %q as %q", s, d)
		}
		if sigs, perr := parseQuerySignals(s); perr == nil && (len(sigs) == 0 || len(sigs) > len(querySignals)) {
			t.Fatalf("signals %q gave %v", s, sigs)
		}
		parseInterval(s)
		parseEnum("format", s, "json", datasetFormats)
		parseBool("persist", s)
	})
}
