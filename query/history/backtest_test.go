package history_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// pathPrice is the hand-built price path of TestBacktestKnownAnswer: the
// price of the 1m candle starting at minute m after t0.
func pathPrice(m int) float64 {
	switch {
	case m < 10:
		return 100
	case m < 14:
		return 101
	case m < 24:
		return 103
	case m < 69:
		return 104
	case m < 80:
		return 95
	case m < 84:
		return 94.05
	case m < 94:
		return 96.9
	case m < 139:
		return 95
	}
	return 90.25
}

// knownPath writes the candles of pathPrice for minutes [0, minutes) with
// the highs and lows of the test, and future(m) applied from minute 140.
func knownPath(t0 time.Time, minutes int, future func(m int, c *datasets.Candle)) []datasets.Candle {
	var cs []datasets.Candle
	for m := range minutes {
		c := histtest.Flat("TESTUSD", "uniswap", t0.Add(time.Duration(m)*time.Minute), pathPrice(m), 1)
		switch m {
		case 9:
			c.High = 500 // ends at the first signal: must not count
		case 12:
			c.Low = 98
		case 20:
			c.High = 106
		case 79:
			c.Low = 1 // ends at the second signal: must not count
		case 82:
			c.Low = 85.5
		case 85:
			c.High = 99.75
		}
		if m >= 140 && future != nil {
			future(m, &c)
		}
		cs = append(cs, c)
	}
	return cs
}

func knownSignals(t0 time.Time) []history.Signal {
	doc := func(m int, sig, ev string, conf float64, samples int64, price float64) history.Signal {
		return history.Signal{Time: t0.Add(time.Duration(m) * time.Minute), Symbol: "TESTUSD", ID: "x", Price: price,
			Confidence: conf, Signal: sig, EventType: ev, BaselineSamples: samples, BaselineReady: true, Strength: "HIGH"}
	}
	return []history.Signal{
		doc(10, "BULLISH", "BREAKOUT", 80, 30, 100),   // qualifies
		doc(11, "BULLISH", "BREAKOUT", 80, 30, 101),   // same signal and event: not an onset
		doc(30, "NEUTRAL", "NORMAL", 90, 30, 104),     // neutral
		doc(40, "BULLISH", "MOMENTUM", 50, 30, 104),   // below minConfidence
		doc(50, "BEARISH", "MOMENTUM", 90, 1, 104),    // below minBaselineSamples
		doc(80, "BEARISH", "BREAKDOWN", 65, 30, 95),   // qualifies
		doc(200, "BULLISH", "BREAKOUT", 99, 30, 1000), // after end
	}
}

func runKnown(t *testing.T, future func(m int, c *datasets.Candle), extra int) history.BacktestResults {
	t.Helper()
	root := t.TempDir()
	w := histtest.New(t, root)
	t0 := day0.Add(2 * time.Hour)
	w.Candles("1m", false, knownPath(t0, 150+extra, future))
	w.Signals("5m", false, knownSignals(t0))
	s := open(t, root)
	r, err := s.Backtest(t.Context(), history.BacktestParams{Window: "5m", MinConfidence: 60, MinBaselineSamples: 10,
		Start: t0, End: t0.Add(150 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBacktestKnownAnswer(t *testing.T) {
	r := runKnown(t, nil, 0)
	if r.SymbolsAnalyzed != 1 || r.SignalsEvaluated != 2 || r.MinConfidence != 60 || r.MinBaselineSamples != 10 ||
		r.Window != "5m" || r.EffectiveWindow != "300" || r.DataResolution != "1m" || r.Methodology == "" {
		t.Fatalf("header %+v", r)
	}
	f := func(got, want history.EventStats) {
		t.Helper()
		nums := [][2]float64{{float64(got.Occurrences), float64(want.Occurrences)}, {got.AverageConfidence, want.AverageConfidence},
			{got.WinRate5m, want.WinRate5m}, {got.WinRate15m, want.WinRate15m}, {got.WinRate60m, want.WinRate60m},
			{got.AverageReturn5m, want.AverageReturn5m}, {got.AverageReturn15m, want.AverageReturn15m},
			{got.AverageReturn60m, want.AverageReturn60m}, {got.MedianReturn15m, want.MedianReturn15m},
			{got.AverageMFE15m, want.AverageMFE15m}, {got.AverageMAE15m, want.AverageMAE15m}}
		for i, n := range nums {
			if math.Abs(n[0]-n[1]) > 1e-9 {
				t.Errorf("field %d: got %v, want %v (%+v)", i, n[0], n[1], got)
			}
		}
		if got.Direction != want.Direction {
			t.Errorf("direction %s, want %s", got.Direction, want.Direction)
		}
	}
	breakout := history.EventStats{Occurrences: 1, AverageConfidence: 80, WinRate5m: 100, WinRate15m: 100, WinRate60m: 0,
		AverageReturn5m: 3, AverageReturn15m: 4, AverageReturn60m: -5, MedianReturn15m: 4, AverageMFE15m: 6, AverageMAE15m: 2, Direction: "BULLISH"}
	breakdown := history.EventStats{Occurrences: 1, AverageConfidence: 65, WinRate5m: 0, WinRate15m: 0, WinRate60m: 100,
		AverageReturn5m: -2, AverageReturn15m: 0, AverageReturn60m: 5, MedianReturn15m: 0, AverageMFE15m: 10, AverageMAE15m: 5, Direction: "BEARISH"}
	if len(r.Signals) != 2 || len(r.ConfidenceCalibration) != 2 {
		t.Fatalf("maps %+v %+v", r.Signals, r.ConfidenceCalibration)
	}
	f(r.Signals["BREAKOUT"], breakout)
	f(r.Signals["BREAKDOWN"], breakdown)
	f(r.ConfidenceCalibration["80-89"], breakout)
	f(r.ConfidenceCalibration["60-69"], breakdown)
	for h, want := range map[string]history.ReturnStats{
		"1m":  {Samples: 2, Average: 1, Median: 1, PositiveRate: 100},
		"5m":  {Samples: 2, Average: 0.5, Median: 0.5, PositiveRate: 50},
		"15m": {Samples: 2, Average: 2, Median: 2, PositiveRate: 50},
		"60m": {Samples: 2, Average: 0, Median: 0, PositiveRate: 50},
	} {
		got := r.AllSignalsForwardReturns[h]
		if got.Samples != want.Samples || math.Abs(got.Average-want.Average) > 1e-9 ||
			math.Abs(got.Median-want.Median) > 1e-9 || got.PositiveRate != want.PositiveRate {
			t.Errorf("%s: got %+v, want %+v", h, got, want)
		}
	}
}

// TestBacktestCannotSeeTheFuture moves every price after the last
// evaluation horizon (minute 140 on) and adds later candles: nothing in the
// results changes.
func TestBacktestCannotSeeTheFuture(t *testing.T) {
	base := runKnown(t, nil, 0)
	moved := runKnown(t, func(m int, c *datasets.Candle) {
		p := 1000.0 + float64(m)
		c.Open, c.High, c.Low, c.Close, c.VWAP = p, p*3, p/3, p, p
	}, 300)
	if base.SignalsEvaluated != moved.SignalsEvaluated {
		t.Fatalf("evaluated %d vs %d", base.SignalsEvaluated, moved.SignalsEvaluated)
	}
	for k, v := range base.Signals {
		if moved.Signals[k] != v {
			t.Errorf("%s: %+v became %+v", k, v, moved.Signals[k])
		}
	}
	for k, v := range base.AllSignalsForwardReturns {
		if moved.AllSignalsForwardReturns[k] != v {
			t.Errorf("%s: %+v became %+v", k, v, moved.AllSignalsForwardReturns[k])
		}
	}
}

func TestBacktestPersist(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	r, err := s.Persist(history.BacktestResults{Window: "5m", SignalsEvaluated: 3})
	if err != nil || r.ID == "" {
		t.Fatal(r.ID, err)
	}
	back, err := s.LoadBacktest(r.ID)
	if err != nil || back.SignalsEvaluated != 3 || back.ID != r.ID {
		t.Fatalf("%+v %v", back, err)
	}
	if len(r.ID) != len("bt_20260105T000000Z_")+32 {
		t.Errorf("id %q does not carry 128 random bits", r.ID)
	}
	for _, id := range []string{"../etc/passwd", "", "bt_", r.ID + "0", r.ID[:len(r.ID)-1] + "G", "bt_2026010XT000000Z_0123456789ab"} {
		if _, err := s.LoadBacktest(id); !errors.Is(err, history.ErrNoData) {
			t.Errorf("LoadBacktest(%q): %v, want ErrNoData", id, err)
		}
	}
}

// TestBacktestBatchesChangeNothing runs one backtest over 7 symbols as one
// statement and as one statement per symbol (the batches a small memory
// limit makes): the outcomes and the results are the same.
func TestBacktestBatchesChangeNothing(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	first := day0.AddDate(0, 0, -2)
	w.GenCandles(first, 2, []string{"uniswap_v3_ethereum", "raydium"}, 7)
	w.GenSignals("5m", first, 2, 7)
	s := open(t, root)
	for _, syms := range [][]string{nil, {histtest.Symbol(5), histtest.Symbol(1), histtest.Symbol(3), histtest.Symbol(1)}} {
		p := history.BacktestParams{Window: "5m", MinConfidence: 60, MinBaselineSamples: 10, Start: first.Add(time.Hour),
			End: first.Add(40 * time.Hour), Symbols: syms}
		one, _, _, err := s.Outcomes(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := s.Backtest(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		restore := history.SetBytesPerOutcomeCandle(1 << 40)
		each, _, _, err := s.Outcomes(t.Context(), p)
		if err != nil {
			restore()
			t.Fatal(err)
		}
		batched, err := s.Backtest(t.Context(), p)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if len(one) < 20 || len(one) != len(each) {
			t.Fatalf("symbols %v: %d outcomes in one statement, %d in batches", syms, len(one), len(each))
		}
		for i := range one {
			a, b := one[i], each[i]
			if a.Symbol != b.Symbol || !a.Time.Equal(b.Time) || a.Signal != b.Signal || a.Entry != b.Entry ||
				fmt.Sprint(a.Returns, a.MFE, a.MAE) != fmt.Sprint(b.Returns, b.MFE, b.MAE) {
				t.Fatalf("outcome %d: %+v in one statement, %+v in batches", i, a, b)
			}
		}
		if fmt.Sprintf("%+v", whole) != fmt.Sprintf("%+v", batched) {
			t.Errorf("results differ:\n%+v\n%+v", whole, batched)
		}
	}
}

func TestOpenReadsTheMemoryLimit(t *testing.T) {
	for _, v := range []string{"512MB", "2GB", "1.5 GiB", "64mib", "1000000B"} {
		s, err := history.Open(history.Config{DataDir: t.TempDir(), MemoryLimit: v})
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		s.Close()
	}
	for _, v := range []string{"512", "MB", "-1GB", "0GB", "2 parsecs", "1e3MB"} {
		if s, err := history.Open(history.Config{DataDir: t.TempDir(), MemoryLimit: v}); err == nil {
			s.Close()
			t.Errorf("%q accepted", v)
		}
	}
}

// TestOutcomesMatchSQL checks the Go scoring against the backtest as one
// DuckDB statement (history.OutcomesSQL, the implementation it replaced):
// two venues, a day whose venues are stored at different resolutions (5m
// and 1m, so candle ends are out of start order), a candle without
// volume, a gap in the candles, signals off the minute and near the last
// candle, repeated signals that do not qualify, and symbol filters.
func TestOutcomesMatchSQL(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	first := day0.AddDate(0, 0, -3)
	w.GenCandles(first, 2, []string{"uniswap_v3_ethereum", "raydium"}, 5)
	w.GenSignals("5m", first, 2, 5)
	// Day 3: SYM001USD at 5m on one venue and 1m on another, with a gap.
	d3 := first.AddDate(0, 0, 2)
	var c5, c1 []datasets.Candle
	for m := 0; m < 600; m += 5 {
		c := histtest.Flat("SYM001USD", "uniswap_v3_ethereum", d3.Add(time.Duration(m)*time.Minute), 100+float64(m%37), 3)
		c.High, c.Low = c.Close*1.01, c.Close*0.98
		c5 = append(c5, c)
	}
	for m := 0; m < 720; m++ {
		if (m >= 300 && m < 330) || m%5 == 4 {
			// A gap; and no 1m candle ends with a 5m one, since which of
			// two candles ending together an ASOF join picks is not
			// specified (the Go scoring takes the later start).
			continue
		}
		v := 2.0
		if m == 100 {
			v = 0 // no volume: the venues' plain mean
		}
		c := histtest.Flat("SYM001USD", "raydium", d3.Add(time.Duration(m)*time.Minute), 101+float64(m%23)/2, v)
		c.High, c.Low = c.Close*1.005, c.Close*0.99
		c1 = append(c1, c)
	}
	w.Candles("5m", false, c5)
	w.Candles("1m", false, c1)
	var sigs []history.Signal
	for i, m := range []int{0, 1, 3, 7, 50, 95, 99, 100, 101, 290, 299, 305, 329, 331, 590, 598, 700, 705, 710, 715, 719} {
		sig, ev := "BULLISH", "BREAKOUT"
		switch {
		case i%3 == 1:
			sig, ev = "BEARISH", "BREAKDOWN"
		case i%5 == 4:
			sig, ev = "BULLISH", "BREAKOUT" // repeats the previous one when it was BULLISH too
		}
		at := d3.Add(time.Duration(m)*time.Minute + time.Duration(i%4)*17*time.Second)
		sigs = append(sigs, history.Signal{Time: at, Symbol: "SYM001USD", ID: fmt.Sprint(i), Price: 100 + float64(i),
			Confidence: 60 + float64(i), Signal: sig, EventType: ev, BaselineSamples: 20, AlgorithmVersion: "test"})
	}
	w.Signals("5m", false, sigs)
	s := open(t, root)
	for _, p := range []history.BacktestParams{
		{Window: "5m", MinConfidence: 60, MinBaselineSamples: 10, Start: first, End: first.AddDate(0, 0, 3)},
		{Window: "5m", MinConfidence: 75, MinBaselineSamples: 25, Start: first.Add(time.Hour), End: first.Add(40 * time.Hour)},
		{Window: "5m", MinConfidence: 60, MinBaselineSamples: 10, Start: d3, End: d3.Add(12 * time.Hour), Symbols: []string{"SYM001USD"}},
		{Window: "5m", MinConfidence: 2, MinBaselineSamples: 2, Start: first, End: first.AddDate(0, 0, 3),
			Symbols: []string{"SYM004USD", "SYM001USD", "SYM009USD"}},
	} {
		want, err := s.OutcomesSQL(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, per := range []int64{1000, 1 << 40} { // one batch, then one symbol per batch
			restore := history.SetBytesPerOutcomeCandle(per)
			got, _, _, err := s.Outcomes(t.Context(), p)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(want) < 10 {
				t.Fatalf("%+v: %d outcomes, SQL %d", p, len(got), len(want))
			}
			for i := range want {
				a, b := got[i], want[i]
				if a.Symbol != b.Symbol || !a.Time.Equal(b.Time) || a.Signal != b.Signal || a.EventType != b.EventType ||
					a.Confidence != b.Confidence || a.Entry != b.Entry ||
					fmt.Sprint(a.Returns, a.MFE, a.MAE) != fmt.Sprint(b.Returns, b.MFE, b.MAE) {
					t.Fatalf("%+v outcome %d:\n Go  %+v\n SQL %+v", p, i, a, b)
				}
			}
		}
	}
}
