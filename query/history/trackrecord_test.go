package history_test

import (
	"errors"
	"fmt"
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

// TestTrackRecordMatchesSQL checks the Go scoring of the track record
// against the one DuckDB statement it replaced (history.TrackRecordSQL):
// two venues over two days, changes of several symbols off the minute,
// near the last candle and after now, one symbol without candles, one
// symbol asked for, and one symbol per batch.
func TestTrackRecordMatchesSQL(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	first := day0.AddDate(0, 0, -2)
	w.GenCandles(first, 2, []string{"uniswap_v3_ethereum", "raydium"}, 4)
	var chs []history.Change
	for i := range 60 {
		sym := histtest.Symbol(i % 5) // SYM004USD has no candles
		sig := []string{"BULLISH", "BEARISH", "NEUTRAL"}[i%3]
		at := first.Add(time.Duration(i)*47*time.Minute + time.Duration(i%7)*13*time.Second)
		chs = append(chs, history.Change{ChangedAt: at, Symbol: sym, Window: "5m", PreviousSignal: "NEUTRAL",
			Signal: sig, EventType: "BREAKOUT", Confidence: 50 + float64(i%50), Price: 95 + float64(i%11)})
	}
	w.Changes(false, chs)
	s := open(t, root) // now: day0 + 48 h, so some day-long horizons have not elapsed
	for _, sym := range []string{"", histtest.Symbol(2), histtest.Symbol(4)} {
		for _, per := range []int64{1000, 1 << 40} {
			restore := history.SetBytesPerOutcomeCandle(per)
			got, _, err := s.TrackRecord(t.Context(), "5m", sym, first, first.Add(48*time.Hour))
			restore()
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.TrackRecordSQL(t.Context(), "5m", sym, first, first.Add(48*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(want) < 5 {
				t.Fatalf("symbol %q: %d outcomes, SQL %d", sym, len(got), len(want))
			}
			scored := 0
			for i := range want {
				a, b := got[i], want[i]
				if a.Symbol != b.Symbol || !a.ChangedAt.Equal(b.ChangedAt) || a.Signal != b.Signal || a.Price != b.Price ||
					a.PreviousSignal != b.PreviousSignal || a.Window != b.Window || a.Confidence != b.Confidence ||
					fmt.Sprint(a.Returns) != fmt.Sprint(b.Returns) {
					t.Fatalf("symbol %q change %d:\n Go  %+v\n SQL %+v", sym, i, a, b)
				}
				if !math.IsNaN(a.Returns[0]) {
					scored++
				}
			}
			if sym != histtest.Symbol(4) && scored == 0 {
				t.Fatalf("symbol %q: nothing scored", sym)
			}
		}
	}
}
