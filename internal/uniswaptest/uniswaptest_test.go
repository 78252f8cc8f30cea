package uniswaptest

import (
	"math/big"
	"testing"

	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// TestDeployV3 deploys Uniswap v3, creates a pool, mints positions, swaps
// through the router and checks the quoter, the pool's state and TickLens
// against what the transactions did.
func TestDeployV3(t *testing.T) {
	ch := chaintest.New(t)
	v := DeployV3(t, ch)
	a, b := v.Token(t, "Token A", "TKA"), v.Token(t, "Token B", "TKB")
	p := v.CreatePool(t, a, b, 3000, SqrtPriceX96(1))
	if p.TickSpacing != 60 {
		t.Fatalf("tick spacing %d", p.TickSpacing)
	}
	e18 := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	m := v.Mint(t, p, -600, 600, new(big.Int).Mul(e18, big.NewInt(100)), new(big.Int).Mul(e18, big.NewInt(100)))
	m2 := v.Mint(t, p, -1200, -60, e18, e18) // below the price: token1 only
	if m.Liquidity.Sign() <= 0 || m.Amount0.Sign() <= 0 || m.Amount1.Sign() <= 0 {
		t.Fatalf("minted %+v", m)
	}
	_, tick, liq := v.Slot0(t, p)
	if tick != 0 || liq.Cmp(m.Liquidity) != 0 {
		t.Fatalf("slot0 tick %d liquidity %v, minted %v", tick, liq, m.Liquidity)
	}
	amountIn := new(big.Int).Mul(e18, big.NewInt(20))
	q := v.QuoteExactIn(t, p, true, amountIn)
	s := v.SwapExactIn(t, p, true, amountIn)
	if s.AmountIn().Cmp(amountIn) != 0 || s.AmountOut().Cmp(q.AmountOut) != 0 || q.SqrtPriceX96After.Cmp(s.SqrtPriceX96) != 0 {
		t.Fatalf("swapped in %v out %v at %v; quoted out %v at %v", s.AmountIn(), s.AmountOut(), s.SqrtPriceX96, q.AmountOut, q.SqrtPriceX96After)
	}
	if q.TicksCrossed == 0 || s.Tick >= -60 {
		t.Fatalf("the swap crossed %d ticks to tick %d", q.TicksCrossed, s.Tick)
	}
	ticks := v.PopulatedTicks(t, p)
	want := []TickNet{{-1200, nil}, {-600, m.Liquidity}, {-60, nil}, {600, new(big.Int).Neg(m.Liquidity)}}
	if len(ticks) != len(want) {
		t.Fatalf("populated ticks %+v", ticks)
	}
	for i, w := range want {
		if ticks[i].Tick != w.Tick || (w.Net != nil && ticks[i].Net.Cmp(w.Net) != 0) {
			t.Fatalf("tick %d: %+v, want %+v", i, ticks[i], w)
		}
	}
	// The swap moved the price into the second range: its liquidity
	// alone is in range once the first position is burnt.
	v.Burn(t, m, m.Liquidity)
	if _, tick, liq := v.Slot0(t, p); tick < -1200 || tick >= -60 || liq.Cmp(m2.Liquidity) != 0 {
		t.Fatalf("after burning the first position: tick %d liquidity %v, want %v", tick, liq, m2.Liquidity)
	}
}
