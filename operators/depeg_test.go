package operators

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

var depegT0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func quoteAt(min int, price, depth float64) *schemas.StablecoinQuote {
	at := depegT0.Add(time.Duration(min) * 5 * time.Minute).UnixNano()
	return &schemas.StablecoinQuote{Symbol: "USDC", Chain: "base", Pool: "0xpool", Venue: "uniswap_v3", ObservedNs: at, ReadNs: at, DexPrice: price, DepthUsd: depth}
}

func TestDepegLevelOf(t *testing.T) {
	f := func(cur string, bps float64, want string) {
		t.Helper()
		if got := DepegLevelOf(cur, bps); got != want {
			t.Fatalf("%s %v: %s, want %s", cur, bps, got, want)
		}
	}
	f(DepegNormal, 29.99, DepegNormal)
	f(DepegNormal, 30, DepegWatch)
	f(DepegNormal, -30, DepegWatch)
	f(DepegNormal, 99.9, DepegWatch)
	f(DepegNormal, -100, DepegLevel)
	f(DepegWatch, 25, DepegWatch) // inside the exit band
	f(DepegWatch, 24.9, DepegNormal)
	f(DepegLevel, 95, DepegLevel)
	f(DepegLevel, 94.9, DepegWatch)
	f(DepegLevel, 10, DepegNormal)
}

// TestDepegDetector walks a stablecoin through its levels.
func TestDepegDetector(t *testing.T) {
	d := NewDepegDetector()
	var evs []AlertEvent
	push := func(q *schemas.StablecoinQuote) int {
		n := len(evs)
		evs = d.Push(q, evs)
		return len(evs) - n
	}
	deep, thin := 1e6, 10_000.0
	steps := []struct {
		q    *schemas.StablecoinQuote
		fire int
		what string
	}{
		{quoteAt(0, 0.9999, deep), 0, "on the peg"},
		{quoteAt(1, 0.9960, thin), 0, "40 bp in a thin pool, no oracle: unconfirmed"},
		{quoteAt(2, 0.9960, deep), 1, "40 bp in a deep pool: WATCH"},
		{quoteAt(3, 0.9965, deep), 0, "still WATCH"},
		{quoteAt(4, 0.9890, deep), 1, "110 bp: DEPEG"},
		{quoteAt(5, 0.9880, deep), 0, "still DEPEG"},
		{quoteAt(6, 0.9990, deep), 0, "back to the peg: silent"},
		{quoteAt(7, 0.9960, deep), 1, "WATCH again"},
		{quoteAt(7, 0.9800, deep), 0, "not newer: ignored"},
	}
	for _, s := range steps {
		if got := push(s.q); got != s.fire {
			t.Fatalf("%s: %d events", s.what, got)
		}
	}
	var data StablecoinDepegData
	if err := json.Unmarshal(evs[1].Data, &data); err != nil {
		t.Fatal(err)
	}
	if evs[1].Event != AlertStablecoinDepeg || data.Level != DepegLevel || data.Previous != DepegWatch || data.ThresholdBps != 100 ||
		data.ConfirmedBy != "depth" || data.DeviationBps > -109.9 || data.DeviationBps < -110.1 || evs[1].Symbol != "USDC" {
		t.Fatalf("event %+v %+v", evs[1], data)
	}
	// Replaying gives the same ids.
	d2 := NewDepegDetector()
	var again []AlertEvent
	for _, s := range steps {
		again = d2.Push(s.q, again)
	}
	for i := range evs {
		if again[i].ID != evs[i].ID {
			t.Fatal("ids differ on replay")
		}
	}
	// State round trip.
	d3 := NewDepegDetector()
	if err := d3.RestoreState(d.MarshalState()); err != nil || string(d3.MarshalState()) != string(d.MarshalState()) {
		t.Fatalf("state: %v", err)
	}
	if err := d3.RestoreState([]byte(`[{"key":"X|base","level":"PANIC"}]`)); err == nil {
		t.Fatal("bad level restored")
	}
}

// TestDepegOracleConfirms: a thin pool's reading fires when the Chainlink
// answer agrees on the side and is fresh; not when stale or opposite.
func TestDepegOracleConfirms(t *testing.T) {
	f := func(oracle float64, age time.Duration, want int, by string) {
		t.Helper()
		d := NewDepegDetector()
		q := quoteAt(1, 0.9950, 10_000)
		q.HasOracle, q.OraclePrice, q.OracleUpdatedNs = true, oracle, q.ObservedNs-int64(age)
		evs := d.Push(q, nil)
		if len(evs) != want {
			t.Fatalf("oracle %v age %v: %d events", oracle, age, len(evs))
		}
		if want == 1 {
			var data StablecoinDepegData
			_ = json.Unmarshal(evs[0].Data, &data)
			if data.ConfirmedBy != by || data.OraclePrice == nil || *data.OraclePrice != oracle {
				t.Fatalf("confirmed by %q, oracle %v", data.ConfirmedBy, data.OraclePrice)
			}
		}
	}
	f(0.9960, time.Hour, 1, "oracle")
	f(0.9960, 25*time.Hour, 0, "")
	f(1.0040, time.Hour, 0, "") // the other side
	f(0.9990, time.Hour, 0, "") // 10 bp: the oracle does not see a depeg
}
