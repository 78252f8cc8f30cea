package operators

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func riskObs(step int, verdict, sell string) *schemas.TokenRiskObservation {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(step) * TokenRiskCheckEvery).UnixNano()
	return &schemas.TokenRiskObservation{Chain: "base", Token: "0xT", Symbol: "T", ObservedNs: at, ReadNs: at, Verdict: verdict, SellSimulation: sell}
}

func TestTokenRiskChangeDetector(t *testing.T) {
	d := NewTokenRiskChangeDetector()
	var evs []AlertEvent
	steps := []struct {
		o    *schemas.TokenRiskObservation
		fire int
		what string
	}{
		{riskObs(0, "LOW_RISK", "PASS"), 0, "baseline"},
		{riskObs(1, "LOW_RISK", "PASS"), 0, "unchanged"},
		{riskObs(2, TokenRiskError, ""), 0, "the check failed: nothing"},
		{riskObs(3, "CAUTION", "UNKNOWN"), 1, "verdict changed; an unknown sell is not a change"},
		{riskObs(4, "CAUTION", "PASS"), 0, "sell still PASS"},
		{riskObs(5, "HIGH_RISK", "FAIL"), 1, "both changed"},
		{riskObs(5, "LOW_RISK", "PASS"), 0, "not newer"},
		{riskObs(6, TokenRiskUnsupported, ""), 0, "unsupported"},
		{riskObs(7, "HIGH_RISK", "PASS"), 1, "the sell recovered"},
	}
	for _, s := range steps {
		n := len(evs)
		evs = d.Push(s.o, evs)
		if len(evs)-n != s.fire {
			t.Fatalf("%s: %d events", s.what, len(evs)-n)
		}
	}
	var data TokenRiskChangeData
	if err := json.Unmarshal(evs[1].Data, &data); err != nil {
		t.Fatal(err)
	}
	if evs[1].Symbol != "base:0xT" || len(data.Changed) != 2 || data.PreviousVerdict != "CAUTION" || data.Verdict != "HIGH_RISK" ||
		data.PreviousSellSimulation != "PASS" || data.SellSimulation != "FAIL" {
		t.Fatalf("event %+v", data)
	}
	_ = json.Unmarshal(evs[2].Data, &data)
	if len(data.Changed) != 1 || data.Changed[0] != "sell_simulation" {
		t.Fatalf("recovery %+v", data)
	}
	d2 := NewTokenRiskChangeDetector()
	if err := d2.RestoreState(d.MarshalState()); err != nil || string(d2.MarshalState()) != string(d.MarshalState()) {
		t.Fatalf("state: %v", err)
	}
	// A restored detector does not fire for the same state again.
	if out := d2.Push(riskObs(8, "HIGH_RISK", "PASS"), nil); len(out) != 0 {
		t.Fatal("restored detector fired")
	}
}
