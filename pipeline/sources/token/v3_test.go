package token_test

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// TestFlowUniswapV3 reads a token's flow from a real Uniswap v3 deployment
// (internal/uniswaptest: the npm packages' factory, pools, position
// manager and router) on go-ethereum's simulated backend: the factory's
// getPool over the fee tiers finds the token's two WETH pools (0.05 % and
// 0.3 %) and no other, the WETH/USD pool prices WETH, and the Swap logs of
// four router swaps are read back — sides, USD legs, the largest trade with
// its transaction and block, liquidity and price.
func TestFlowUniswapV3(t *testing.T) {
	ch := chaintest.New(t)
	v3 := uniswaptest.DeployV3(t, ch)
	tok := v3.Token(t, "Flow Token", "FLOW")
	weth := v3.Token(t, "Wrapped Ether (v3 test)", "WETH")
	usd := v3.Token(t, "USD (v3 test, 18 decimals)", "USDX")
	units := func(n float64) *big.Int {
		f := new(big.Float).Mul(big.NewFloat(n), big.NewFloat(1e18))
		x, _ := f.Int(nil)
		return x
	}
	// pool creates the pool of a and b at aPerB units of b per a, with
	// full-range liquidity of amountA and amountB.
	pool := func(a, b common.Address, fee uint32, bPerA, amountA, amountB float64) *uniswaptest.Pool {
		t.Helper()
		price := bPerA // token1 per token0
		if a.Cmp(b) > 0 {
			price = 1 / bPerA
		}
		p := v3.CreatePool(t, a, b, fee, uniswaptest.SqrtPriceX96(price))
		lo, hi := -887272/p.TickSpacing*p.TickSpacing, 887272/p.TickSpacing*p.TickSpacing
		a0, a1 := units(amountA), units(amountB)
		if a.Cmp(b) > 0 {
			a0, a1 = a1, a0
		}
		v3.Mint(t, p, lo, hi, a0, a1)
		return p
	}
	// 1 FLOW = 0.001 WETH = $3.
	deep := pool(tok, weth, 3000, 0.001, 1_000_000, 1_000)
	thin := pool(tok, weth, 500, 0.001, 100_000, 100)
	pool(weth, usd, 3000, 3000, 1_000, 3_000_000)
	// buy spends WETH on FLOW (WETH in), sell FLOW for WETH.
	buy := func(p *uniswaptest.Pool, w float64) uniswaptest.Swapped {
		return v3.SwapExactIn(t, p, p.Token0 == weth, units(w))
	}
	sell := func(p *uniswaptest.Pool, f float64) uniswaptest.Swapped {
		return v3.SwapExactIn(t, p, p.Token0 == tok, units(f))
	}
	buy(deep, 1)
	biggest := buy(deep, 2)
	sell(deep, 500)
	buy(thin, 0.5)

	cfg := ch.Config("base")
	cfg.Limit = &sources.Limit{}
	cfg.ChainID = chaintest.ChainID
	cfg.Timeout = sources.Duration(10 * time.Second)
	set, err := chain.Open([]sources.ChainConfig{cfg}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	r := token.New(set, token.Options{Venues: []token.ChainVenues{{Chain: "base", WETH: weth,
		Stables: []token.Stable{{Symbol: "USDX", Address: usd, Decimals: 18}},
		Venues:  []token.Venue{{Name: "uniswap_v3", Kind: token.KindV3, Factory: v3.Factory, FeeTiers: []uint32{100, 500, 3000, 10000}}}}}})
	f, err := r.Flow(context.Background(), "base", tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Pools) != 2 {
		t.Fatalf("pools %+v", f.Pools)
	}
	tiers := map[uint32]assess.Pool{}
	for _, p := range f.Pools {
		tiers[p.FeeTier] = p
		if p.Kind != token.KindV3 || p.Venue != "uniswap_v3" || p.Quote != "WETH" {
			t.Fatalf("pool %+v", p)
		}
	}
	if !strings.EqualFold(tiers[3000].Address, deep.Address.Hex()) || !strings.EqualFold(tiers[500].Address, thin.Address.Hex()) {
		t.Fatalf("pools %+v, want %s (3000) and %s (500)", f.Pools, deep.Address.Hex(), thin.Address.Hex())
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("%s = %v, want %v ± %.0f%%", what, got, want, 100*tol)
		}
	}
	if f.Swaps != 4 || f.Buys != 3 || f.Sells != 1 {
		t.Fatalf("swaps %d, buys %d, sells %d; want 4, 3, 1", f.Swaps, f.Buys, f.Sells)
	}
	// The quote leg of each swap in USD: 3.5 WETH bought with, about 0.5
	// WETH received for 500 FLOW, at $3,000 a WETH.
	near("buy volume", f.BuyVolumeUSD, 3.5*3000, 0.005)
	near("sell volume", f.SellVolumeUSD, 0.5*3000, 0.02)
	near("price", f.PriceUSD, 3, 0.02)
	near("liquidity", f.LiquidityUSD, 2*(1_000+100)*3000, 0.02)
	if f.PriceChangePercent <= 0 {
		t.Errorf("price change %v%%: the buys moved the deep pool up", f.PriceChangePercent)
	}
	lt := f.LargestTrade
	if lt == nil || lt.Side != "BUY" || lt.Block != biggest.Block || !strings.EqualFold(lt.Trader, v3.Owner.Address.Hex()) {
		t.Fatalf("largest trade %+v, want the 2-WETH buy of block %d", lt, biggest.Block)
	}
	near("largest trade", lt.USD, 2*3000, 0.005)
	if f.Concentration.Traders != 1 {
		t.Errorf("traders %d, want 1 (every swap sent by the owner)", f.Concentration.Traders)
	}
}
