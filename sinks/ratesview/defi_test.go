package ratesview

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

var testReserves = []Reserve{
	{Protocol: "aave-v3", Chain: "ethereum", ChainID: 1, Pool: "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2", Asset: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", Symbol: "USDC"},
	{Protocol: "aave-v3", Chain: "base", ChainID: 8453, Pool: "0xa238dd80c259a72e81d7e4664a9801593f98d1c5", Asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", Symbol: "USDC"},
	{Protocol: "aave-v3", Chain: "polygon", ChainID: 137, Pool: "0x794a61358d6845594f94dc1db02a252b5b4814ad", Asset: "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", Symbol: "USDC"},
}

func lending(r Reserve, supplyRay, borrowRay string, block uint64, blockTime string) *schemas.LendingRate {
	return &schemas.LendingRate{Protocol: r.Protocol, Chain: r.Chain, ChainId: r.ChainID, Pool: r.Pool, Asset: r.Asset, AssetSymbol: r.Symbol,
		LiquidityRateRay: supplyRay, VariableBorrowRateRay: borrowRay, LiquidityIndexRay: "1000000000000000000000000000", VariableBorrowIndexRay: "1000000000000000000000000000",
		LastUpdateTime: ns(blockTime)/1e9 - 30, BlockNumber: block, BlockTime: ns(blockTime) / 1e9, Active: true, Decimals: 6}
}

func nearly(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// TestDefiSpread: Ethereum at 5.5 % APR (a made-up rate), Polygon at the
// recorded WETH reserve's rates (fixture defi/aave_v3_polygon_Pool_*:
// currentLiquidityRate 2815387323021300469652266, variable borrow
// 22059241931586727924925162), Base failing; the bill is the 2024-10-10
// 3-month yield, 4.75 %. Expected values from 50-digit decimal
// arithmetic.
func TestDefiSpread(t *testing.T) {
	v := New(Config{Reserves: testReserves})
	eth, base, pol := testReserves[0], testReserves[1], testReserves[2]
	mustApply(t, v,
		rec("2024-10-10T22:00:00Z", par20241010),
		rec("2024-10-11T11:55:00Z", lending(eth, "55000000000000000000000000", "70000000000000000000000000", 20_900_000, "2024-10-11T11:54:59Z")),
		rec("2024-10-11T11:50:00Z", lending(eth, "10000000000000000000000000", "20000000000000000000000000", 20_899_975, "2024-10-11T11:49:59Z")), // older block, read late
		rec("2024-10-11T11:55:00Z", lending(pol, "2815387323021300469652266", "22059241931586727924925162", 62_000_000, "2024-10-11T11:54:58Z")),
		rec("2024-10-11T11:40:00Z", lending(base, "60000000000000000000000000", "80000000000000000000000000", 21_000_000, "2024-10-11T11:39:59Z")),
		rec("2024-10-11T11:55:01Z", &schemas.RatesFault{Scope: "aave-v3:base", Reason: "rpc error: dial tcp: connection refused", FirstFailureNs: ns("2024-10-11T11:45:00Z")}),
	)
	a, err := v.DefiSpread(at("2024-10-11T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bill3M == nil || a.Bill3M.Date != "2024-10-10" || a.Bill3M.Yield != 4.75 || a.Bill3M.Days != 91 {
		t.Fatalf("bill %+v", a.Bill3M)
	}
	nearly(t, "bill APY", &a.Bill3M.APY, 4.8353609288426362348)
	c := a.Chains
	if len(c) != 3 || c[0].Chain != "ethereum" || c[1].Chain != "base" || c[2].Chain != "polygon" {
		t.Fatalf("chains %+v", c)
	}
	nearly(t, "ethereum supply APR", c[0].SupplyAPR, 5.5)
	nearly(t, "ethereum supply APY", c[0].SupplyAPY, 5.6540614624821477698)
	nearly(t, "ethereum borrow APR", c[0].BorrowAPR, 7)
	nearly(t, "ethereum spread", c[0].SpreadBp, 81.870053363951153491)
	if *c[0].BlockNumber != 20_900_000 || c[0].Stale || *c[0].BlockTime != "2024-10-11T11:54:59.000Z" {
		t.Fatalf("ethereum %+v", c[0])
	}
	nearly(t, "polygon supply APR", c[2].SupplyAPR, 0.2815387323021300469652266)
	nearly(t, "polygon supply APY", c[2].SupplyAPY, 0.28193542477209503067)
	nearly(t, "polygon borrow APY", c[2].BorrowAPY, 2.2304345952767673597)
	nearly(t, "polygon spread", c[2].SpreadBp, -455.34255040705412042)
	// Base's RPC fails: stale, its last figures shown, left out.
	if !c[1].Stale || !strings.HasPrefix(c[1].StaleReason, "rpc error") || *c[1].StaleSince != "2024-10-11T11:45:00.000Z" || c[1].SupplyAPR == nil {
		t.Fatalf("base %+v", c[1])
	}
	if a.ChainsAveraged != 2 || *a.Signal != "TREASURY_PREMIUM" {
		t.Fatalf("average over %d chains, signal %v", a.ChainsAveraged, a.Signal)
	}
	nearly(t, "average spread", a.AverageSpreadBp, -186.73624852155148346)

	// Base recovers: its new read is later than the fault.
	mustApply(t, v, rec("2024-10-11T11:56:00Z", lending(base, "60000000000000000000000000", "80000000000000000000000000", 21_000_300, "2024-10-11T11:55:59Z")))
	a, _ = v.DefiSpread(at("2024-10-11T12:00:00Z"))
	if a.Chains[1].Stale || a.ChainsAveraged != 3 {
		t.Fatalf("base did not recover: %+v", a.Chains[1])
	}
	// An hour later nothing was read: every chain is stale, no signal.
	a, _ = v.DefiSpread(at("2024-10-11T13:00:00Z"))
	if a.ChainsAveraged != 0 || a.Signal != nil || a.AverageSpreadBp != nil || !a.Chains[0].Stale || !strings.Contains(a.Chains[0].StaleReason, "more than 15m0s") {
		t.Fatalf("%+v", a)
	}
}

// A read answered from an old block (a node that stopped following its
// chain, or the offline demo's chain holding a recorded reserve at its
// recorded time) is stale with its block's time, its figures shown and
// left out of the average.
func TestDefiSpreadOldBlock(t *testing.T) {
	v := New(Config{Reserves: testReserves})
	eth, pol := testReserves[0], testReserves[2]
	mustApply(t, v,
		rec("2024-10-10T22:00:00Z", par20241010),
		rec("2024-10-11T11:55:00Z", lending(eth, "55000000000000000000000000", "70000000000000000000000000", 20_900_000, "2024-10-11T11:54:59Z")),
		rec("2024-10-11T11:58:00Z", lending(pol, "2815387323021300469652266", "22059241931586727924925162", 62_000_100, "2024-10-11T11:30:00Z")),
	)
	a, err := v.DefiSpread(at("2024-10-11T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	p := a.Chains[2]
	if !p.Stale || p.StaleReason != "the block read was 28m0s old when read, more than 15m0s" || *p.StaleSince != "2024-10-11T11:30:00.000Z" ||
		*p.BlockNumber != 62_000_100 || p.SupplyAPR == nil || a.ChainsAveraged != 1 || a.Chains[0].Stale {
		t.Fatalf("polygon %+v, averaged %d", p, a.ChainsAveraged)
	}
}

func TestDefiSpreadWithoutData(t *testing.T) {
	v := New(Config{Reserves: testReserves})
	if _, err := v.DefiSpread(at("2024-10-11T12:00:00Z")); !errors.Is(err, ErrNoData) {
		t.Fatalf("%v", err)
	}
	// Rates without a curve: no bill, no spread, no signal.
	mustApply(t, v, rec("2024-10-11T11:55:00Z", lending(testReserves[0], "55000000000000000000000000", "70000000000000000000000000", 1, "2024-10-11T11:54:59Z")))
	a, err := v.DefiSpread(at("2024-10-11T12:00:00Z"))
	if err != nil || a.Bill3M != nil || a.Chains[0].SpreadBp != nil || a.Signal != nil || !a.Chains[1].Stale || a.Chains[1].StaleReason != "not read yet" {
		t.Fatalf("%v %+v", err, a)
	}
}
