package operators

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

var alertT0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func alertDoc(sym, window string, at time.Duration, eventType string, conf float64, signal string) *schemas.IntelligenceDocument {
	return &schemas.IntelligenceDocument{
		Id: sym + "-" + window + "-" + at.String(), Symbol: sym, Window: window,
		TimestampNs: alertT0.Add(at).UnixNano(), EventType: eventType, ConfidenceScore: conf, Signal: signal,
		Price: 100,
	}
}

func TestAlertDetectorUnusualFlow(t *testing.T) {
	a := NewAlertDetector()
	f := func(d *schemas.IntelligenceDocument, want int) {
		t.Helper()
		got := a.Push(d, nil)
		if len(got) != want {
			t.Fatalf("Push(%s %s %s conf=%v) fired %d events, want %d", d.Symbol, d.Window, d.EventType, d.ConfidenceScore, len(got), want)
		}
		for _, e := range got {
			if e.Event != AlertUnusualFlow || e.Symbol != d.Symbol || !e.OccurredAt.Equal(time.Unix(0, d.TimestampNs)) {
				t.Fatalf("bad event %+v", e)
			}
			var data UnusualFlowData
			if err := json.Unmarshal(e.Data, &data); err != nil || data.EventType != d.EventType || data.DocumentID != d.Id {
				t.Fatalf("bad data %s: %v", e.Data, err)
			}
		}
	}
	f(alertDoc("BTCUSD", "5m", 0, EventBreakout, 80, SignalBullish), 1)
	f(alertDoc("BTCUSD", "5m", time.Minute, EventBreakout, 80, SignalBullish), 0)        // cooldown
	f(alertDoc("BTCUSD", "5m", 2*time.Minute, EventDistribution, 80, SignalBearish), 1)  // other eventType
	f(alertDoc("ETHUSD", "5m", 2*time.Minute, EventBreakout, 80, SignalBullish), 1)      // other symbol
	f(alertDoc("BTCUSD", "5m", 59*time.Minute, EventBreakout, 90, SignalBullish), 0)     // still cooldown
	f(alertDoc("BTCUSD", "5m", 60*time.Minute, EventBreakout, 90, SignalBullish), 1)     // an hour later
	f(alertDoc("SOLUSD", "5m", 0, EventMomentum, 59.9, SignalBullish), 0)                // confidence < 60
	f(alertDoc("SOLUSD", "5m", 0, EventNormal, 99, SignalBullish), 0)                    // normal
	f(alertDoc("SOLUSD", "1m", 0, EventMomentum, 99, SignalBullish), 0)                  // not 5m
	f(alertDoc("SOLUSD", "5m", time.Second, EventUnusualActivity, 60, SignalNeutral), 1) // exactly 60
	f(&schemas.IntelligenceDocument{Symbol: "", Window: "5m", EventType: EventMomentum, ConfidenceScore: 99}, 0)
}

// TestAlertDetectorDeterministic checks the same documents give the same
// events and ids, and a checkpoint of the symbols changed since the last
// one, restored into a new detector, continues exactly where it left off.
func TestAlertDetectorDeterministic(t *testing.T) {
	var docs []*schemas.IntelligenceDocument
	evs := []string{EventBreakout, EventNormal, EventMomentum, EventDistribution}
	sigs := []string{SignalBullish, SignalNeutral, SignalBearish}
	for i := range 600 {
		at := time.Duration(i) * 37 * time.Second
		docs = append(docs, alertDoc("BTCUSD", "5m", at, evs[i%len(evs)], float64(50+i%40), sigs[i%3]))
		docs = append(docs, alertDoc("BTCUSD", "15m", at, EventNormal, float64(40+i%50), sigs[(i/40)%3]))
		docs = append(docs, alertDoc("ETHUSD", "15m", at, EventNormal, float64(40+i%50), sigs[(i/25)%3]))
	}
	run := func(a *AlertDetector, ds []*schemas.IntelligenceDocument) []AlertEvent {
		var out []AlertEvent
		for _, d := range ds {
			out = a.Push(d, out)
		}
		return out
	}
	same := func(a, b []AlertEvent) bool {
		return slices.EqualFunc(a, b, func(a, b AlertEvent) bool { return a.ID == b.ID && string(a.Data) == string(b.Data) })
	}
	all := run(NewAlertDetector(), docs)
	if len(all) < 5 || !same(all, run(NewAlertDetector(), docs)) {
		t.Fatalf("not deterministic or too few events (%d)", len(all))
	}
	// Checkpoints every 100 documents into a changelog (last value per
	// key), and a restore from it at every one of them.
	a := NewAlertDetector()
	log := map[string][]byte{}
	var got []AlertEvent
	for i := 0; i < len(docs); i += 100 {
		got = a.Push(docs[i], got)
		for _, d := range docs[i+1 : min(i+100, len(docs))] {
			got = a.Push(d, got)
		}
		for _, s := range a.DirtySymbols() {
			log[s] = a.AppendSymbolState(nil, s)
		}
		a.ClearDirty()
		if len(a.DirtySymbols()) != 0 {
			t.Fatal("dirty after ClearDirty")
		}
		b := NewAlertDetector()
		for s, v := range log {
			if err := b.RestoreSymbolState(s, v); err != nil {
				t.Fatal(err)
			}
		}
		a = b
	}
	if !same(got, all) {
		t.Fatalf("with checkpoints and restores: %d events, want %d identical", len(got), len(all))
	}
	if err := a.RestoreSymbolState("BTCUSD", []byte("{")); err == nil {
		t.Fatal("RestoreSymbolState accepted bad JSON")
	}
}

func TestAlertEventNames(t *testing.T) {
	if len(AlertEventNames) != 8 {
		t.Fatalf("want 8 event names, got %d", len(AlertEventNames))
	}
	for _, e := range append(slices.Clone(SignalAlertEvents), NewsAlertEvents...) {
		if !IsAlertEvent(e) {
			t.Fatalf("detector event %s not in AlertEventNames", e)
		}
	}
	if IsAlertEvent("bogus") {
		t.Fatal("bogus accepted")
	}
}

func BenchmarkAlertDetector(b *testing.B) {
	a := NewAlertDetector()
	d := alertDoc("BTCUSD", "5m", 0, EventBreakout, 80, SignalBullish)
	d15 := alertDoc("BTCUSD", "15m", 0, EventNormal, 80, SignalBullish)
	var out []AlertEvent
	b.ReportAllocs()
	for i := range b.N {
		d.TimestampNs += int64(time.Second)
		d15.TimestampNs = d.TimestampNs
		if i%2 == 0 {
			out = a.Push(d, out[:0])
		} else {
			out = a.Push(d15, out[:0])
		}
	}
}
