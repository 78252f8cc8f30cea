package token_test

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// benchEnv deploys the suite once per benchmark.
func benchEnv(b *testing.B) *env {
	b.Helper()
	ch := chaintest.New(b)
	s := tokentest.Deploy(b, ch)
	e := &env{ch: ch, s: s}
	e.venue = newEnvVenues(s)
	return e
}

// BenchmarkRiskFull is a full risk report of the fee token against the
// local simulated node over JSON-RPC, caches cold (a new reader each
// time): flow, pools, logs, owner, proxy, code scan, balance-slot
// discovery, the simulation and the receipts (target < 500 ms).
func BenchmarkRiskFull(b *testing.B) {
	e := benchEnv(b)
	ctx := context.Background()
	for b.Loop() {
		r := e.reader(b, 10*time.Second)
		if _, err := r.Risk(ctx, "base", e.s.Fee); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRiskCached is a report answered from the 120 s cache (target
// < 1 ms).
func BenchmarkRiskCached(b *testing.B) {
	e := benchEnv(b)
	r := e.reader(b, 10*time.Second)
	ctx := context.Background()
	if _, err := r.Risk(ctx, "base", e.s.Fee); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Risk(ctx, "base", e.s.Fee); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFlowCold is one flow read with cold caches.
func BenchmarkFlowCold(b *testing.B) {
	e := benchEnv(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.reader(b, 10*time.Second).Flow(ctx, "base", e.s.Plain); err != nil {
			b.Fatal(err)
		}
	}
}
