package operators

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func TestRobust(t *testing.T) {
	f := func(x []float64, median, sigma float64) {
		t.Helper()
		gotM, gotS := robust(slices.Clone(x))
		if !near(gotM, median) || !near(gotS, sigma) {
			t.Errorf("robust(%v) = %v, %v; want %v, %v", x, gotM, gotS, median, sigma)
		}
	}
	f(nil, 0, 0)
	f([]float64{5}, 5, 1)                         // MAD 0: floor max(0.5, 1)
	f([]float64{100, 100, 100, 100}, 100, 10)     // flat: 10% of the median
	f([]float64{1, 2, 3, 4, 100}, 3, 1.4826)      // MAD 1; the outlier does not move it
	f([]float64{0, 0, 0, 0}, 0, 1)                // all zero: unit floor
	f([]float64{10, 20, 30, 40}, 25, madScale*10) // even count: mean of the middle two; MAD 10
	f([]float64{1000, 2000, 3000, 4000, 5000}, 3000, madScale*1000)
}

func TestZScoreAndMultiple(t *testing.T) {
	fz := func(x, m, s, want float64) {
		t.Helper()
		if got := zScore(x, m, s); !near(got, want) {
			t.Errorf("zScore(%v, %v, %v) = %v, want %v", x, m, s, got, want)
		}
	}
	fz(10, 5, 1, 5)
	fz(0, 5, 2, -2.5)
	fz(1e9, 1, 1, 50)
	fz(-1e9, 1, 1, -50)
	fm := func(x, m, want float64) {
		t.Helper()
		if got := multiple(x, m); !near(got, want) {
			t.Errorf("multiple(%v, %v) = %v, want %v", x, m, got, want)
		}
	}
	fm(30, 10, 3)
	fm(3, 0, 3)       // median below one unit divides by one
	fm(5000, 0, 1000) // capped
	fm(0, 10, 0)
}

func TestBaselineRing(t *testing.T) {
	var b baseline
	for i := range baselineSize + 5 {
		b.push(float64(i), uint32(i), 0)
	}
	if int(b.n) != baselineSize {
		t.Fatalf("n = %d", b.n)
	}
	for i := range baselineSize {
		if v, c, _ := b.at(i); v != float64(i+5) || c != uint32(i+5) {
			t.Fatalf("sample %d = %v, %d; want %d", i, v, c, i+5)
		}
	}
}

func TestMomentumScore(t *testing.T) {
	f := func(change, typical, bp, want float64) {
		t.Helper()
		if got := momentumScore(change, typical, bp); !near(got, want) {
			t.Errorf("momentumScore(%v, %v, %v) = %v, want %v", change, typical, bp, got, want)
		}
	}
	f(0, 0.5, 50, 50)
	f(0, 0.5, 100, 65)
	f(0, 0.5, 0, 35)
	f(0.5, 0.5, 50, 50+35*math.Tanh(1))
	f(-100, 0.5, 0, 0)
	f(100, 0.5, 100, 100)
}

func TestActivityScore(t *testing.T) {
	f := func(ready bool, m, want float64) {
		t.Helper()
		if got := activityScore(ready, m); !near(got, want) {
			t.Errorf("activityScore(%v, %v) = %v, want %v", ready, m, got, want)
		}
	}
	f(true, 1, 50)
	f(true, 3, 75)
	f(true, 9, 90)
	f(true, 0, 0)
	f(false, 5, 0)
}

func TestAnomalyPart(t *testing.T) {
	f := func(z, m, want float64) {
		t.Helper()
		if got := anomalyPart(z, m); !near(got, want) {
			t.Errorf("anomalyPart(%v, %v) = %v, want %v", z, m, got, want)
		}
	}
	f(5, 3, 70)
	f(-5, 3, 70)
	f(50, 3, 70) // the multiple limits it
	f(5, 1000, 70)
	f(5, 1, 0)
	f(0, 10, 0)
	if anomalyPart(4.9, 10) >= UnusualAnomalyScore || anomalyPart(10, 2.9) >= UnusualAnomalyScore {
		t.Error("unusual below z 5 or multiple 3")
	}
}

func TestConfidenceScore(t *testing.T) {
	f := func(n float64, samples int, want float64) {
		t.Helper()
		if got := confidenceScore(n, samples); !near(got, want) {
			t.Errorf("confidenceScore(%v, %d) = %v, want %v", n, samples, got, want)
		}
	}
	f(0, 48, 0)
	f(10, 0, 20)
	f(10, 48, 50)
	f(90, 48, 90)
	f(90, 24, 90*0.7)
}

func TestTypicalMove(t *testing.T) {
	st := baselineStats{rngMedian: 0.3, rngSamples: BaselineReadySamples / 2}
	if got := typicalMove(1, true, &st); got != 0.3 {
		t.Errorf("ready: %v", got)
	}
	st.rngSamples--
	if got := typicalMove(1, true, &st); got != defaultTypicalMove[1] {
		t.Errorf("too few samples with a range: %v", got)
	}
	st.rngSamples++
	st.rngMedian = 0.001
	if got := typicalMove(1, true, &st); got != minTypicalMove {
		t.Errorf("floored: %v", got)
	}
	for w, want := range defaultTypicalMove {
		if got := typicalMove(w, false, &st); got != want {
			t.Errorf("not ready %s: %v", windowNames[w], got)
		}
	}
}

func TestEventType(t *testing.T) {
	base := scoreInputs{window: 0, count: 50, ready: true, samples: 20, stats: baselineStats{rngMedian: 0.2, rngSamples: 20},
		buyPressure: 50, activityMult: 1, volMult: 1}
	f := func(name string, mod func(*scoreInputs), want string) {
		t.Helper()
		in := base
		mod(&in)
		if got := computeScores(&in).eventType; got != want {
			t.Errorf("%s: event %s, want %s", name, got, want)
		}
	}
	hot := func(in *scoreInputs) { in.volMult, in.volZ = 4, 8 }              // volume part 77: unusual
	busy := func(in *scoreInputs) { in.activityMult, in.activityZ = 2.5, 4 } // activity part 64: elevated only
	f("normal", func(*scoreInputs) {}, EventNormal)
	f("breakout", func(in *scoreInputs) { hot(in); in.change, in.buyPressure = 0.5, 70 }, EventBreakout)
	f("breakout on elevated activity", func(in *scoreInputs) { busy(in); in.change, in.buyPressure = 0.5, 70 }, EventBreakout)
	f("breakout needs buy pressure", func(in *scoreInputs) { hot(in); in.change, in.buyPressure = 1, 59 }, EventUnusualActivity)
	f("breakout needs a move of the typical range", func(in *scoreInputs) { hot(in); in.change, in.buyPressure = 0.19, 90 }, EventUnusualActivity)
	f("breakout needs elevated activity", func(in *scoreInputs) {
		in.activityMult, in.activityZ, in.change, in.buyPressure = 1.8, 4, 0.5, 70
	}, EventNormal)
	f("breakdown", func(in *scoreInputs) { hot(in); in.change, in.buyPressure = -0.5, 30 }, EventBreakdown)
	f("distribution", func(in *scoreInputs) {
		hot(in)
		in.buyPressure, in.change, in.largeSell, in.largeBuy = 35, 0, 10, 5
	}, EventDistribution)
	f("distribution needs unusual volume", func(in *scoreInputs) {
		in.volMult, in.volZ, in.buyPressure, in.change, in.largeSell, in.largeBuy = 2, 8, 35, 0, 10, 5
	}, EventNormal)
	f("distribution needs large sells", func(in *scoreInputs) {
		hot(in)
		in.buyPressure, in.change, in.largeSell, in.largeBuy = 35, 0, 5, 5
	}, EventUnusualActivity)
	f("distribution needs a flat price", func(in *scoreInputs) {
		hot(in)
		in.buyPressure, in.change, in.largeSell = 40, 0.1, 10
	}, EventUnusualActivity)
	f("accumulation", func(in *scoreInputs) {
		hot(in)
		in.buyPressure, in.change, in.largeBuy = 60, -0.04, 1
	}, EventAccumulation)
	f("unusual", func(in *scoreInputs) { in.activityMult, in.activityZ = 3, 5 }, EventUnusualActivity)
	f("momentum", func(in *scoreInputs) { busy(in); in.change = 0.3 }, EventMomentum)
	f("momentum down", func(in *scoreInputs) { busy(in); in.change = -0.3 }, EventMomentum)
	f("momentum needs elevated activity", func(in *scoreInputs) { in.change, in.buyPressure, in.activityMult = 0.3, 80, 1.2 }, EventNormal)
	f("momentum needs a move of the typical range", func(in *scoreInputs) { busy(in); in.change, in.buyPressure = 0.15, 100 }, EventNormal)
	f("not ready", func(in *scoreInputs) { hot(in); in.change, in.buyPressure, in.ready = 0.5, 70, false }, EventNormal)
	f("no trades", func(in *scoreInputs) { hot(in); in.count = 0 }, EventNormal)
	f("few trades are no direction", func(in *scoreInputs) { hot(in); in.count, in.change, in.buyPressure = 4, 0.5, 70 }, EventUnusualActivity)
	f("few trades, ordinary volume", func(in *scoreInputs) { busy(in); in.count, in.change = 4, 0.3 }, EventNormal)
}

func TestSignalOf(t *testing.T) {
	f := func(ready bool, m, bp float64, want string) {
		t.Helper()
		if got := signalOf(ready, m, bp); got != want {
			t.Errorf("signalOf(%v, %v, %v) = %s, want %s", ready, m, bp, got, want)
		}
	}
	f(true, 60, 55, SignalBullish)
	f(true, 59.9, 90, SignalNeutral)
	f(true, 90, 54.9, SignalNeutral)
	f(true, 40, 45, SignalBearish)
	f(true, 40.1, 0, SignalNeutral)
	f(false, 100, 100, SignalNeutral)
}

func TestStrengthOf(t *testing.T) {
	f := func(sig string, m, c float64, want string) {
		t.Helper()
		if got := strengthOf(sig, m, c); got != want {
			t.Errorf("strengthOf(%s, %v, %v) = %s, want %s", sig, m, c, got, want)
		}
	}
	f(SignalBullish, 80, 60, StrengthHigh)
	f(SignalBearish, 20, 60, StrengthHigh)
	f(SignalBullish, 80, 59, StrengthMedium)
	f(SignalBullish, 70, 40, StrengthMedium)
	f(SignalBullish, 69, 99, StrengthLow)
	f(SignalBullish, 75, 39, StrengthLow)
	f(SignalNeutral, 100, 100, StrengthLow)
}

func TestInterpretationWords(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{momentumWord(75), "strong_up"}, {momentumWord(60), "up"}, {momentumWord(50), "flat"},
		{momentumWord(40), "down"}, {momentumWord(25), "strong_down"},
		{activityWord(false, 9), "warming_up"}, {activityWord(true, 3), "very_high"}, {activityWord(true, 1.5), "high"},
		{activityWord(true, 1), "normal"}, {activityWord(true, 0.5), "low"}, {activityWord(true, 0), "none"},
		{buyingWord(0, 90), "no_trades"}, {buyingWord(1, 65), "strong_buying"}, {buyingWord(1, 55), "buying"},
		{buyingWord(1, 50), "balanced"}, {buyingWord(1, 45), "selling"}, {buyingWord(1, 35), "strong_selling"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestAppendUSD(t *testing.T) {
	f := func(x float64, want string) {
		t.Helper()
		if got := string(appendUSD(nil, x)); got != want {
			t.Errorf("appendUSD(%v) = %s, want %s", x, got, want)
		}
	}
	f(0, "$0")
	f(950.4, "$950")
	f(380_000, "$380k")
	f(1_234_567, "$1.2M")
	f(3.45e9, "$3.5B")
	f(2e12, "$2.0T")
}

// steady returns one trade every 10s for d, alternating buy and sell, at a
// flat price of 100 and $1,000 each: 6 trades and $6,000 per minute.
func steady(d time.Duration) []*schemas.Trade {
	var out []*schemas.Trade
	for off := time.Duration(0); off < d; off += 10 * time.Second {
		side := buy
		if off/(10*time.Second)%2 == 1 {
			side = sell
		}
		out = append(out, tr("S", "binance", cex, side, off, 100, 10))
	}
	return out
}

// TestBaselineReadiness checks the number of samples, readiness and the
// medians as aligned windows close: the first (partial) window is skipped,
// empty windows count as zero.
func TestBaselineReadiness(t *testing.T) {
	trades := steady(15 * time.Minute)
	r := run(t, DefaultConfig(), testBase, trades)
	docs := r.docsOf("S", "1m")
	if len(docs) == 0 {
		t.Fatal("no documents")
	}
	for _, d := range docs {
		// The document at s is emitted before the trade at s: the newest
		// trade is at s − 10s, so minutes up to floor((s−10s)/60s) − 1
		// closed; minute 0 does not count.
		last := (d.TimestampNs - testBase - int64(10*time.Second)) / int64(time.Minute)
		want := max(0, last-1)
		if d.BaselineSamples != want || d.BaselineReady != (want >= BaselineReadySamples) {
			t.Fatalf("at %s: samples %d ready %v, want %d", offset(testBase, d.TimestampNs), d.BaselineSamples, d.BaselineReady, want)
		}
		if want > 0 && (d.Observations.BaselineTradeCountMedian != 6 || d.Observations.BaselineVolumeMedian != 6000) {
			t.Fatalf("medians %v %v", d.Observations.BaselineTradeCountMedian, d.Observations.BaselineVolumeMedian)
		}
		if !d.BaselineReady && (d.ActivityMultiple != 0 || d.VolumeMultiple != 0 || d.AnomalyScore != 0 || d.Signal != SignalNeutral) {
			t.Fatalf("not ready but %v", d)
		}
		if d.BaselineReady && (d.ActivityMultiple != 1 || d.VolumeMultiple != 1 || d.ActivityZScore != 0) {
			t.Fatalf("steady but multiples %v %v z %v", d.ActivityMultiple, d.VolumeMultiple, d.ActivityZScore)
		}
	}
	// A 5-minute pause: the empty minutes count as zero samples.
	more := append(slices.Clone(trades), tr("S", "binance", cex, buy, 20*time.Minute+30*time.Second, 100, 10),
		tr("S", "binance", cex, buy, 21*time.Minute+30*time.Second, 100, 10))
	docs = run(t, DefaultConfig(), testBase, more).docsOf("S", "1m")
	d := docs[len(docs)-1]
	// Minutes 1..13 (13 samples), 14 (6 trades), 15..19 empty; minute 20
	// closes only after the last document.
	if d.BaselineSamples != 19 || d.Observations.BaselineTradeCountMedian != 6 {
		t.Fatalf("after the pause: %d samples, median %v", d.BaselineSamples, d.Observations.BaselineTradeCountMedian)
	}
}

// burst is steady trading for 13 minutes, then one buy per second with a
// rising price for 40s, then one sell per second with a falling price.
func burst() []*schemas.Trade {
	trades := steady(13 * time.Minute)
	p := 100.0
	start := 13 * time.Minute
	for i := range 40 {
		p *= 1.0005
		trades = append(trades, tr("S", "binance", cex, buy, start+time.Duration(i)*time.Second, p, 10))
	}
	for i := range 60 {
		p *= 0.999
		trades = append(trades, tr("S", "binance", cex, sell, start+time.Duration(40+i)*time.Second, p, 10))
	}
	return trades
}

// TestLifecycle checks NEW_SIGNAL, PERSISTING, previous signal, signal age
// and the SignalChange records on a burst of buying then selling.
func TestLifecycle(t *testing.T) {
	r := run(t, DefaultConfig(), testBase, burst())
	docs := r.docsOf("S", "1m")
	var changes []*schemas.SignalChange
	for _, c := range r.changes {
		if c.Window == "1m" {
			changes = append(changes, c)
		}
	}
	var signals []string
	var prev *schemas.IntelligenceDocument
	sawBreakout := false
	for i, d := range docs {
		sawBreakout = sawBreakout || d.EventType == EventBreakout
		switch {
		case i == 0:
			if d.LifecycleState != LifecycleNew || d.PreviousSignal != "" || d.SignalAgeSeconds != 0 || d.SignalChangedAtNs != d.TimestampNs {
				t.Fatalf("first document: %s prev %q age %d", d.LifecycleState, d.PreviousSignal, d.SignalAgeSeconds)
			}
			signals = append(signals, d.Signal)
		case d.Signal != prev.Signal:
			if d.LifecycleState != LifecycleNew || d.PreviousSignal != prev.Signal || d.SignalChangedAtNs != d.TimestampNs || d.SignalAgeSeconds != 0 {
				t.Fatalf("change at %s: %s prev %q", offset(testBase, d.TimestampNs), d.LifecycleState, d.PreviousSignal)
			}
			c := changes[len(signals)-1]
			if c.DocumentId != d.Id || c.PreviousSignal != prev.Signal || c.Signal != d.Signal || c.AlgorithmVersion != AlgorithmVersion ||
				c.ChangedAtNs != d.TimestampNs || c.MomentumScore != d.MomentumScore || c.ConfidenceScore != d.ConfidenceScore ||
				c.EventType != d.EventType || c.TradeCount != d.TradeCount || c.BaselineSamples != d.BaselineSamples {
				t.Fatalf("change %v does not match document %v", c, d)
			}
			signals = append(signals, d.Signal)
		default:
			if d.LifecycleState != LifecyclePersist || d.PreviousSignal != prev.PreviousSignal || d.SignalChangedAtNs != prev.SignalChangedAtNs ||
				d.SignalAgeSeconds != (d.TimestampNs-d.SignalChangedAtNs)/1e9 {
				t.Fatalf("persisting at %s: %s prev %q since %d age %d", offset(testBase, d.TimestampNs), d.LifecycleState,
					d.PreviousSignal, d.SignalChangedAtNs, d.SignalAgeSeconds)
			}
		}
		prev = d
	}
	if len(changes) != len(signals)-1 {
		t.Fatalf("%d changes for signals %v", len(changes), signals)
	}
	if !slices.Equal(signals[:3], []string{SignalNeutral, SignalBullish, SignalNeutral}) || !slices.Contains(signals, SignalBearish) {
		t.Fatalf("signals %v", signals)
	}
	if !sawBreakout {
		t.Error("no BREAKOUT during the buying burst")
	}
	// The last document with evidence (evidence is due on changes and every
	// evidenceInterval, docs/signals.md).
	last := docs[len(docs)-1]
	for i := len(docs) - 1; i >= 0 && len(docs[i].Evidence) == 0; i-- {
		last = docs[max(i-1, 0)]
	}
	if len(last.Evidence) < 4 || !strings.HasPrefix(last.Evidence[2], "Volume is ") || last.Interpretation.RelativeStrength != "n/a" {
		t.Errorf("evidence %q interpretation %v", last.Evidence, last.Interpretation)
	}
}

// TestSignalChangeDeterminism runs the same long input twice: the signal
// changes are identical and there are some in every window.
func TestSignalChangeDeterminism(t *testing.T) {
	trades := genTrades(genOptions{seed: 21, n: 12000, symbols: 3, step: time.Second, dupEvery: 41, oddEvery: 59})
	var got [2][][]byte
	windows := map[string]int{}
	for i := range got {
		r := run(t, DefaultConfig(), testBase, trades)
		for _, c := range r.changes {
			b, err := marshalDet.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], b)
			windows[c.Window]++
		}
	}
	if len(got[0]) != len(got[1]) {
		t.Fatalf("%d and %d changes", len(got[0]), len(got[1]))
	}
	for i := range got[0] {
		if !bytes.Equal(got[0][i], got[1][i]) {
			t.Fatalf("change %d differs", i)
		}
	}
	for _, w := range windowNames {
		if windows[w] == 0 {
			t.Errorf("no signal change in window %s: %v", w, windows)
		}
	}
}

// noisy is a ready baseline (steady trading for 13 minutes), then 20
// minutes of one trade a second whose side and price jitter so that
// momentum and buy pressure keep crossing the BULLISH entry thresholds,
// then 90 s of one sell a second with a steadily falling price: a genuine
// regime change. It returns the trades and the offset where selling starts.
func noisy() ([]*schemas.Trade, time.Duration) {
	trades := steady(13 * time.Minute)
	rng := rand.New(rand.NewPCG(5, 0x5eed))
	start := 13 * time.Minute
	noise := 20 * time.Minute
	for off := time.Duration(0); off < noise; off += time.Second {
		side := sell
		if rng.Float64() < 0.6 {
			side = buy
		}
		p := 100 * (1 + 0.0001*rng.NormFloat64())
		trades = append(trades, tr("S", "binance", cex, side, start+off, p, 10))
	}
	sellFrom := start + noise
	p := 100.0
	for i := range 90 {
		p *= 0.999
		trades = append(trades, tr("S", "binance", cex, sell, sellFrom+time.Duration(i)*time.Second, p, 10))
	}
	return trades, sellFrom
}

// TestHysteresis checks that hysteresis and the minimum hold suppress
// flapping on a noisy sequence around the thresholds, measured against the
// entry rule alone (the 1.0.0 behaviour), and that a genuine regime change
// still changes the signal promptly.
func TestHysteresis(t *testing.T) {
	trades, sellFrom := noisy()
	r := run(t, DefaultConfig(), testBase, trades)
	sellNs := testBase + int64(sellFrom)
	// Only the 1m baseline is ready: 5m and 15m stay NEUTRAL.
	for _, w := range windowNames {
		docs := r.docsOf("S", w)
		entryChanges, changes := 0, 0
		var lastEntry string
		var bearishAt, entryBearishAt int64
		for i, d := range docs {
			entry := signalOf(d.BaselineReady, d.MomentumScore, d.BuyPressure)
			if d.TimestampNs > sellNs {
				if entry == SignalBearish && entryBearishAt == 0 {
					entryBearishAt = d.TimestampNs
				}
				if d.Signal == SignalBearish && bearishAt == 0 {
					bearishAt = d.TimestampNs
				}
				continue
			}
			if i > 0 && entry != lastEntry {
				entryChanges++
			}
			if i > 0 && d.LifecycleState == LifecycleNew {
				changes++
			}
			lastEntry = entry
		}
		if w != "1m" {
			if changes != 0 || bearishAt != 0 {
				t.Errorf("%s: %d changes without a ready baseline", w, changes)
			}
			continue
		}
		t.Logf("%s: %d changes with hysteresis and hold, %d with the entry rule alone; BEARISH %v after selling began, %v after the entry rule",
			w, changes, entryChanges, time.Duration(bearishAt-sellNs), time.Duration(bearishAt-entryBearishAt))
		if entryChanges < 300 || changes > 40 {
			t.Errorf("%s: %d changes, %d by the entry rule: want at most 40", w, changes, entryChanges)
		}
		// The regime change shows as soon as the entry rule sees it, or at
		// the latest when the current signal's hold expires.
		if entryBearishAt == 0 || bearishAt == 0 || bearishAt-entryBearishAt > minHold[0] {
			t.Errorf("%s: BEARISH at %s, by the entry rule at %s", w, offset(testBase, bearishAt), offset(testBase, entryBearishAt))
		}
	}
}

// TestHeldSignal checks the hysteresis bands and the minimum hold.
func TestHeldSignal(t *testing.T) {
	const sec = nsPerSecond
	bull := lifecycle{signal: signalCode(SignalBullish), previous: signalCode(SignalNeutral), changedNs: 0}
	bear := lifecycle{signal: signalCode(SignalBearish), previous: signalCode(SignalNeutral), changedNs: 0}
	neutral := lifecycle{signal: signalCode(SignalNeutral), changedNs: 0}
	f := func(name string, lc lifecycle, ready bool, m, bp, conf float64, ts int64, want string) {
		t.Helper()
		if got := heldSignal(&lc, 0, ready, m, bp, conf, ts); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	f("first document", lifecycle{}, true, 60, 55, 10, 0, SignalBullish)
	f("entry", neutral, true, 60, 55, 10, 31*sec, SignalBullish)
	f("entry held by the hold", neutral, true, 60, 55, 10, 29*sec, SignalNeutral)
	f("bullish inside the band", bull, true, 55, 50, 10, 100*sec, SignalBullish)
	f("bullish exit on momentum", bull, true, 54.9, 60, 10, 100*sec, SignalNeutral)
	f("bullish exit on pressure", bull, true, 70, 49.9, 10, 100*sec, SignalNeutral)
	f("bullish exit held", bull, true, 50, 40, 10, 29*sec, SignalBullish)
	f("bearish inside the band", bear, true, 45, 50, 10, 100*sec, SignalBearish)
	f("bearish exit on momentum", bear, true, 45.1, 40, 10, 100*sec, SignalNeutral)
	f("bearish exit on pressure", bear, true, 30, 50.1, 10, 100*sec, SignalNeutral)
	f("opposite flip, not HIGH, held", bull, true, 25, 20, 90, 5*sec, SignalBullish)
	f("opposite flip with HIGH strength", bull, true, 20, 20, 90, 5*sec, SignalBearish)
	f("opposite flip with HIGH strength", bear, true, 80, 80, 90, 5*sec, SignalBullish)
	f("not ready", bull, false, 90, 90, 90, 5*sec, SignalNeutral)
	if minHold != [numWindows]int64{30 * sec, 120 * sec, 300 * sec} {
		t.Errorf("minHold %v", minHold)
	}
}
