package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestProgressCurrentRate: off a terminal, progress is plain log lines at
// most every five seconds, and the rate is the one since the previous line
// (a source that caught up at full speed and then slowed down shows its
// current pace, not its average).
func TestProgressCurrentRate(t *testing.T) {
	var logs bytes.Buffer
	clock := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	p := newProgressTo(&logs, slog.New(slog.NewTextHandler(&logs, nil)), false, func() time.Time { return clock })
	step := func(d time.Duration, n int64) {
		clock = clock.Add(d)
		p.update("sim:seed=1", n)
	}
	step(time.Second, 1_000_000) // too soon for a line
	step(4*time.Second, 5_000_000)
	step(5*time.Second, 5_001_500) // caught up: 300 a second now
	step(5*time.Second, 5_003_000)
	got := logs.String()
	if strings.Contains(got, "\r") || strings.Count(got, "msg=progress") != 3 {
		t.Fatalf("want 3 plain log lines:\n%s", got)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	for i, want := range []string{"records=5000000 rate_per_s=1000000", "records=5001500 rate_per_s=300", "records=5003000 rate_per_s=300"} {
		if !strings.Contains(lines[i], want) {
			t.Fatalf("line %d %q, want %q", i, lines[i], want)
		}
	}
}
