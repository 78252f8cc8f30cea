package groundtruth

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/operators"
)

// The fixed market of TestGroundTruth: seed 7, four simulated hours of the
// whole universe with 12 injected events per symbol and day (about 5 M
// trades, 87 labelled events).
var testConfig = Config{
	Seed:                  7,
	Start:                 time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
	Duration:              4 * time.Hour,
	EventsPerSymbolPerDay: 12,
}

// TestGroundTruth runs the simulator through the operators and holds the
// detectors to the published bounds in the default window (5m): unusual
// activity (any non-NORMAL event type) finds at least 90% of the labelled
// events and flags at most 5% of the quiet symbol-minutes; volume bursts
// are found as UNUSUAL_ACTIVITY at least 90% of the time.
func TestGroundTruth(t *testing.T) {
	rep, err := Run(context.Background(), testConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep.Markdown())
	if len(rep.Events) < 50 {
		t.Fatalf("only %d labelled events; the measurement needs more", len(rep.Events))
	}
	any := rep.Row("5m", AnyEvent)
	if any.Events < 40 || any.QuietMinutes < 2000 {
		t.Fatalf("5m: %d events and %d quiet minutes measured; too few to judge", any.Events, any.QuietMinutes)
	}
	if r := any.Recall(); r < 0.9 {
		t.Errorf("5m unusual-activity recall %.3f (%d of %d events), want ≥ 0.9", r, any.Detected, any.Events)
	}
	if fp := any.FPRate(); fp > 0.05 {
		t.Errorf("5m unusual-activity false-positive rate %.3f (%d of %d quiet minutes), want ≤ 0.05", fp, any.Flagged, any.QuietMinutes)
	}
	if ua := rep.Row("5m", operators.EventUnusualActivity); ua.Recall() < 0.9 {
		t.Errorf("5m UNUSUAL_ACTIVITY recall of volume bursts %.3f (%d of %d), want ≥ 0.9", ua.Recall(), ua.Detected, ua.Events)
	}
}

// TestRowRates checks the rate arithmetic and its zero cases.
func TestRowRates(t *testing.T) {
	f := func(r Row, recall, fp float64) {
		t.Helper()
		if r.Recall() != recall || r.FPRate() != fp {
			t.Errorf("%+v: recall %v fp %v, want %v %v", r, r.Recall(), r.FPRate(), recall, fp)
		}
	}
	f(Row{}, 0, 0)
	f(Row{Events: 4, Detected: 3, QuietMinutes: 200, Flagged: 10}, 0.75, 0.05)
}

// TestRunRejectsNoDuration checks the one configuration error Run owns.
func TestRunRejectsNoDuration(t *testing.T) {
	if _, err := Run(context.Background(), Config{Start: testConfig.Start}); err == nil {
		t.Fatal("Run accepted a zero Duration")
	}
}
