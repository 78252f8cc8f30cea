package token_test

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/token"
)

// TestDepegSource runs the depeg watch as a source on a fake clock: one
// record per stablecoin at start and at every 5-minute slot, decodable
// from mi.stablecoins.v1, keyed symbol|chain; freshness in the registry.
func TestDepegSource(t *testing.T) {
	e := newEnv(t)
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	reg := sources.NewRegistry(nil, fc)
	coins := []token.Stablecoin{
		{Symbol: "USDT", Chain: "base", Address: e.s.USDT, Decimals: 6, Feed: e.s.USDTFeed},
		{Symbol: "USDC", Chain: "base", Address: e.s.USDC, Decimals: 6},
	}
	src := token.NewDepegSource(e.reader(t, 10*time.Second), coins, token.WatchOptions{Registry: reg, Clock: fc})
	t.Cleanup(func() { src.Close() })
	next := func() (string, string, float64) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Side == nil || r.Side.Topic != "mi.stablecoins.v1" {
			t.Fatalf("record %+v", r)
		}
		q, err := sidetopic.Stablecoins.Decode(r.Side.Value)
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Side.Key), q.Symbol, q.DexPrice
	}
	for cycle := range 2 {
		k1, s1, p1 := next()
		k2, s2, _ := next()
		if k1 != "USDT|base" || s1 != "USDT" || k2 != "USDC|base" || s2 != "USDC" || p1 < 0.99 || p1 > 1.01 {
			t.Fatalf("cycle %d: %s %s %v, %s %s", cycle, k1, s1, p1, k2, s2)
		}
		// Wait until the poller sleeps for its next slot, then move to it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := fc.BlockUntil(ctx, 1); err != nil {
			t.Fatal(err)
		}
		cancel()
		if at, ok := fc.AdvanceToNext(); !ok || !at.Equal(time.Date(2026, 3, 2, 10, 5*(cycle+1), 0, 0, time.UTC)) {
			t.Fatalf("next slot %v %v", at, ok)
		}
	}
	for _, f := range reg.Snapshot() {
		if f.Name == "token:depeg" && f.State != "ok" {
			t.Fatalf("freshness %+v", f)
		}
	}
}
