package operators

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// gapAt builds a gap of source "src" from testBase+from to testBase+to.
func gapAt(from, to time.Duration, reason string) *schemas.Gap {
	return &schemas.Gap{Source: "src", FromNs: testBase + int64(from), ToNs: testBase + int64(to), Reason: reason}
}

// gapReasons renders the gaps of a document as their reasons.
func gapReasons(d *schemas.IntelligenceDocument) string {
	var r []string
	for _, g := range d.GetObservations().GetQuality().GetGaps() {
		r = append(r, g.Reason)
	}
	return strings.Join(r, ",")
}

// lastDoc returns the newest recorded document of symbol and window.
func lastDoc(t *testing.T, r *recorder, symbol, window string) *schemas.IntelligenceDocument {
	t.Helper()
	docs := r.docsOf(symbol, window)
	if len(docs) == 0 {
		t.Fatalf("no %s %s document", symbol, window)
	}
	return docs[len(docs)-1]
}

// A gap is listed by exactly the documents whose window overlaps it, in
// every window, and ages out of the state 15 minutes after it ended.
func TestGapsOverlapWindows(t *testing.T) {
	r := newRecorder()
	e := NewEngine(DefaultConfig(), r.emit())
	s, m := time.Second, time.Minute
	push := func(off time.Duration) { e.Push(tr("A", "x", cex, buy, off, 1, 1)) }
	gap := func(g *schemas.Gap) {
		t.Helper()
		if err := e.PushGap("A", g); err != nil {
			t.Fatal(err)
		}
	}
	push(0)
	push(10 * m)
	// As of 10m+1s: the 1m window is [9m1s, 10m1s), the 5m one [5m5s,
	// 10m5s) minus the partial bucket, the 15m one [-4m45s, 10m15s).
	gap(gapAt(9*m+30*s, 9*m+40*s, "in-1m"))       // in every window
	gap(gapAt(7*m, 8*m, "in-5m"))                 // before the 1m window
	gap(gapAt(2*m, 3*m, "in-15m"))                // before the 5m window
	gap(gapAt(9*m, 9*m+1*s, "touches-1m"))        // ends inside the 1m window's first second
	gap(gapAt(10*m+1*s, 10*m+5*s, "after"))       // starts at the boundary: in none yet
	gap(gapAt(-20*m, -16*m, "aged-before-start")) // no documents yet: kept
	push(10*m + 1*s + 500*time.Millisecond)
	for w, want := range map[string]string{
		"1m":  "touches-1m,in-1m",
		"5m":  "in-5m,touches-1m,in-1m",
		"15m": "in-15m,in-5m,touches-1m,in-1m",
	} {
		d := lastDoc(t, r, "A", w)
		if d.TimestampNs != testBase+int64(10*m+s) {
			t.Fatalf("%s document at %v", w, time.Duration(d.TimestampNs-testBase))
		}
		if got := gapReasons(d); got != want {
			t.Errorf("%s document gaps %q, want %q", w, got, want)
		}
	}
	// The gap that ended before the 15m window of any document is gone
	// from the state once documents were emitted.
	for _, g := range e.symbols["A"].gaps {
		if g.reason == "aged-before-start" {
			t.Errorf("gap %q kept after its horizon", g.reason)
		}
	}
	// A gap ending before the horizon of the last boundary is not kept.
	gap(gapAt(-30*m, -20*m, "too-old"))
	if n := len(e.symbols["A"].gaps); n != 5 {
		t.Fatalf("%d gaps kept, want 5", n)
	}
	// As of 25m only the newest gap is still within 15m, and only in the
	// 15m window [10m, 25m); the older ones have left the state.
	push(25*m + 500*time.Millisecond)
	if got := gapReasons(lastDoc(t, r, "A", "15m")); got != "after" {
		t.Errorf("15m document gaps %q, want %q", got, "after")
	}
	if got := gapReasons(lastDoc(t, r, "A", "1m")); got != "" {
		t.Errorf("1m document gaps %q, want none", got)
	}
	if n := len(e.symbols["A"].gaps); n != 1 {
		t.Errorf("%d gaps kept, want 1", n)
	}
	push(40 * m)
	if n := len(e.symbols["A"].gaps); n != 0 {
		t.Errorf("%d gaps kept after all aged, want 0", n)
	}
	if got := gapReasons(lastDoc(t, r, "A", "15m")); got != "" {
		t.Errorf("15m document gaps %q after aging, want none", got)
	}
}

// Gaps are never trades: candles and every trade figure of the documents
// are the same with and without them, and a document lists at most
// MaxGaps, the latest by end time.
func TestGapsAreNotTrades(t *testing.T) {
	trades := genTrades(genOptions{seed: 3, n: 3000, symbols: 4, step: 200 * time.Millisecond, dupEvery: 19})
	plain, gapped := newRecorder(), newRecorder()
	e1, e2 := NewEngine(DefaultConfig(), plain.emit()), NewEngine(DefaultConfig(), gapped.emit())
	for i, x := range trades {
		e1.Push(x)
		e2.Push(x)
		if i%20 == 7 {
			g := &schemas.Gap{Source: "s", FromNs: x.EventTimeNs - int64(time.Second), ToNs: x.EventTimeNs, Reason: fmt.Sprint("g", i)}
			if err := e2.PushGap(x.Symbol, g); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.EqualFunc(plain.candles, gapped.candles, func(a, b *schemas.Candle) bool { return proto.Equal(a, b) }) {
		t.Fatal("gaps changed the candles")
	}
	if len(gapped.docs) < len(plain.docs) {
		t.Fatalf("%d documents with gaps, %d without", len(gapped.docs), len(plain.docs))
	}
	byID := map[string]*schemas.IntelligenceDocument{}
	for _, d := range plain.docs {
		byID[d.Id] = d
	}
	listed, most := 0, 0
	for _, d := range gapped.docs {
		gaps := d.Observations.Quality.Gaps
		listed += len(gaps)
		most = max(most, len(gaps))
		for i := 1; i < len(gaps); i++ {
			if gaps[i-1].FromNs > gaps[i].FromNs {
				t.Fatalf("%s: gaps out of order", d.Id)
			}
		}
		for _, g := range gaps {
			if g.ToNs < d.TimestampNs-int64(15*time.Minute) || g.FromNs >= d.TimestampNs {
				t.Fatalf("%s lists gap %s outside its window", d.Id, g.Reason)
			}
		}
		p := byID[d.Id]
		if p == nil {
			continue // emitted because a gap touched the symbol
		}
		c := proto.Clone(d).(*schemas.IntelligenceDocument)
		c.Observations.Quality.Gaps = nil
		if !proto.Equal(c, p) {
			t.Fatalf("%s differs beyond its gaps:\n%v\n%v", d.Id, c, p)
		}
	}
	if listed == 0 || most != MaxGaps {
		t.Fatalf("gaps listed %d, at most %d per document; want some and a full list of %d", listed, most, MaxGaps)
	}
}

// Bad gaps are refused with ErrBadGap and change nothing.
func TestPushGapRefuses(t *testing.T) {
	e := NewEngine(DefaultConfig(), Emit{})
	e.Push(tr("A", "x", cex, buy, 0, 1, 1))
	e.ClearDirty()
	ok := gapAt(0, time.Second, "r")
	for name, c := range map[string]struct {
		sym    string
		g      *schemas.Gap
		phrase string
	}{
		"no symbol":       {"", ok, "invalid gap"},
		"reserved symbol": {PartitionKey, ok, "invalid gap"},
		"no source":       {"A", &schemas.Gap{FromNs: ok.FromNs, ToNs: ok.ToNs, Reason: "r"}, "invalid gap"},
		"no reason":       {"A", &schemas.Gap{Source: "s", FromNs: ok.FromNs, ToNs: ok.ToNs}, "invalid gap"},
		"long reason":     {"A", &schemas.Gap{Source: "s", FromNs: ok.FromNs, ToNs: ok.ToNs, Reason: strings.Repeat("x", 513)}, "invalid gap"},
		"reversed":        {"A", gapAt(time.Second, 0, "r"), "invalid gap"},
		"before 2009":     {"A", &schemas.Gap{Source: "s", FromNs: 1, ToNs: ok.ToNs, Reason: "r"}, "invalid gap"},
		"future":          {"A", gapAt(2*time.Hour, 3*time.Hour, "r"), "future timestamp"},
	} {
		err := e.PushGap(c.sym, c.g)
		if !errors.Is(err, ErrBadGap) || !strings.HasPrefix(err.Error(), c.phrase) {
			t.Errorf("%s: err %v, want %q wrapping ErrBadGap", name, err, c.phrase)
		}
	}
	if k := e.DirtyKeys(); len(k) != 0 {
		t.Errorf("refused gaps changed %q", k)
	}
	// The same gap twice is one gap.
	for range 2 {
		if err := e.PushGap("A", ok); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.symbols["A"].gaps); n != 1 {
		t.Errorf("%d gaps after pushing one twice", n)
	}
}

// A gap of a symbol that has traded brings its documents at the next
// boundary, even when only another symbol trades; a gap of a symbol that
// never traded waits for its first trade.
func TestGapTouchesSymbol(t *testing.T) {
	r := newRecorder()
	e := NewEngine(DefaultConfig(), r.emit())
	s := time.Second
	e.Push(tr("A", "x", cex, buy, 0, 1, 1))
	e.Push(tr("B", "x", cex, buy, 1*s, 1, 1)) // documents of A as of 1s
	if err := e.PushGap("A", gapAt(500*time.Millisecond, 800*time.Millisecond, "lost")); err != nil {
		t.Fatal(err)
	}
	if err := e.PushGap("C", gapAt(500*time.Millisecond, 800*time.Millisecond, "lost")); err != nil {
		t.Fatal(err)
	}
	e.Push(tr("B", "x", cex, buy, 2*s, 1, 1))
	d := lastDoc(t, r, "A", "1m")
	if d.TimestampNs != testBase+int64(2*s) || gapReasons(d) != "lost" {
		t.Fatalf("A's last document at %v with gaps %q", time.Duration(d.TimestampNs-testBase), gapReasons(d))
	}
	if len(r.docsOf("C", "1m")) != 0 {
		t.Fatal("documents of a symbol without trades")
	}
	e.Push(tr("C", "x", cex, buy, 2*s+1, 1, 1))
	e.Push(tr("C", "x", cex, buy, 3*s, 1, 1))
	if got := gapReasons(lastDoc(t, r, "C", "1m")); got != "lost" {
		t.Fatalf("C's gaps %q", got)
	}
}

// Gaps survive a checkpoint: an engine restored from the changelog of an
// engine that had gaps continues with byte-identical output, and state
// without gaps encodes as it did before gaps existed.
func TestGapsRestore(t *testing.T) {
	trades := genTrades(genOptions{seed: 5, n: 2000, symbols: 3, step: 300 * time.Millisecond})
	orig := newRecorder()
	orig.binOnly = true
	e := NewEngine(DefaultConfig(), orig.emit())
	changelog := map[string][]byte{}
	var restored *Engine
	var rest *recorder
	cut := len(trades) / 2
	for i, x := range trades {
		if i%40 == 3 {
			g := &schemas.Gap{Source: "s", FromNs: x.EventTimeNs - int64(20*time.Second), ToNs: x.EventTimeNs - int64(time.Second), Reason: fmt.Sprint("g", i)}
			if err := e.PushGap(x.Symbol, g); err != nil {
				t.Fatal(err)
			}
			if restored != nil {
				if err := restored.PushGap(x.Symbol, g); err != nil {
					t.Fatal(err)
				}
			}
		}
		if i == cut {
			for _, k := range e.DirtyKeys() {
				changelog[k] = e.AppendState(nil, k)
			}
			e.ClearDirty()
			rest = newRecorder()
			rest.binOnly = true
			restored = NewEngine(DefaultConfig(), rest.emit())
			withGaps := 0
			for k, v := range changelog {
				if err := restored.RestoreState(k, v); err != nil {
					t.Fatal(err)
				}
				if k != PartitionKey && len(e.symbols[k].gaps) > 0 {
					withGaps++
				}
			}
			if withGaps == 0 {
				t.Fatal("no symbol has gaps at the cut")
			}
			orig.bin = orig.bin[:0]
		}
		e.Push(x)
		if restored != nil {
			restored.Push(x)
		}
	}
	if len(orig.bin) == 0 || len(orig.bin) != len(rest.bin) {
		t.Fatalf("%d outputs after the cut, restored %d", len(orig.bin), len(rest.bin))
	}
	for i := range orig.bin {
		if !bytes.Equal(orig.bin[i], rest.bin[i]) {
			t.Fatalf("output %d differs after restore", i)
		}
	}
	// A symbol without gaps has no gap flag and no gap bytes.
	plain := NewEngine(DefaultConfig(), Emit{})
	plain.Push(tr("A", "x", cex, buy, 0, 1, 1))
	b := plain.AppendState(nil, "A")
	if b[1]&symHasGaps != 0 {
		t.Fatal("gap flag without gaps")
	}
	if err := plain.PushGap("A", gapAt(0, 1, "r")); err != nil {
		t.Fatal(err)
	}
	g := plain.AppendState(nil, "A")
	if !bytes.HasPrefix(g[2:], b[2:]) || len(g) <= len(b) {
		t.Fatal("gaps are not appended after the state without gaps")
	}
}
