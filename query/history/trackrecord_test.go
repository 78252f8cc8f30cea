package history_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

func knownChanges(t0 time.Time) []history.Change {
	ch := func(m int, prev, sig string, conf, price float64) history.Change {
		return history.Change{ChangedAt: t0.Add(time.Duration(m) * time.Minute), Symbol: "TESTUSD", Window: "5m",
			PreviousSignal: prev, Signal: sig, Strength: "HIGH", EventType: "BREAKOUT", Confidence: conf, Price: price}
	}
	c1m := ch(12, "NEUTRAL", "BULLISH", 99, 100)
	c1m.Window = "1m"
	return []history.Change{
		ch(10, "NEUTRAL", "BULLISH", 80, 100),
		ch(30, "BULLISH", "NEUTRAL", 50, 104),
		ch(80, "NEUTRAL", "BEARISH", 65, 95),
		c1m, // another window: not counted
	}
}

func TestTrackRecordKnownAnswer(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	t0 := day0.Add(2 * time.Hour)
	w.Candles("1m", false, knownPath(t0, 150, nil))
	w.Changes(false, knownChanges(t0))
	s := open(t, root)
	outs, logged, err := s.TrackRecord(t.Context(), "5m", "", t0, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if logged != 3 || len(outs) != 2 {
		t.Fatalf("logged %d, outcomes %+v", logged, outs)
	}
	want := [][4]float64{{3, 4, -5, math.NaN()}, {-2, 0, 5, math.NaN()}}
	for i, o := range outs {
		for h := range 4 {
			g, w := o.Returns[h], want[i][h]
			if math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(w) && math.Abs(g-w) > 1e-9) {
				t.Errorf("change %d horizon %s: got %v, want %v", i, history.TrackHorizons[h], g, w)
			}
		}
	}
	sum := history.Summarize(outs)
	wantSum := [4]history.HorizonStats{{2, 50, 0.5}, {2, 50, 2}, {2, 50, 0}, {0, 0, 0}}
	for h := range sum {
		if sum[h].Samples != wantSum[h].Samples || sum[h].HitRate != wantSum[h].HitRate || math.Abs(sum[h].AverageReturn-wantSum[h].AverageReturn) > 1e-9 {
			t.Errorf("%s: got %+v, want %+v", history.TrackHorizons[h], sum[h], wantSum[h])
		}
	}
	if _, _, err := s.TrackRecord(t.Context(), "15m", "", t0, t0.Add(time.Hour)); !errors.Is(err, history.ErrNoData) {
		t.Errorf("no 15m changes: %v", err)
	}
	one, _, err := s.TrackRecord(t.Context(), "1m", "TESTUSD", t0, t0.Add(time.Hour))
	if err != nil || len(one) != 1 || one[0].Confidence != 99 {
		t.Errorf("1m: %+v %v", one, err)
	}
}
