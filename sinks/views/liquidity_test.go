package views

import (
	"math/big"
	"testing"

	"github.com/marketintel/mi/operators"
)

var (
	ethPool = &operators.PoolMeta{Chain: "ethereum", Address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", Name: "USDC/WETH 0.05%", Fee: 500, TickSpacing: 10,
		Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	btcEthPool = &operators.PoolMeta{Chain: "ethereum", Address: "0x4585fe77225b41b697c938b018e2ac67ac5a20c0", Name: "WBTC/WETH 0.05%", Fee: 500, TickSpacing: 10,
		Ticker0: "WBTC", Ticker1: "WETH", Decimals0: 8, Decimals1: 18, Symbol0: "BTCUSD", Symbol1: "ETHUSD", Resolved: true}
)

func swapEvent(m *operators.PoolMeta, sqrtP, liq string, tick int32, ns int64) operators.PoolEvent {
	p, _ := new(big.Int).SetString(sqrtP, 10)
	l, _ := new(big.Int).SetString(liq, 10)
	return operators.PoolEvent{Meta: m, Kind: operators.PoolSwap, SqrtPriceX96: p, Liquidity: l, Tick: tick, TimeNs: ns}
}

// TestLiquidityView prices a WETH-quoted pool through the ETH/USDC pool and
// recomputes only after an event.
func TestLiquidityView(t *testing.T) {
	lv := NewLiquidity()
	if r := lv.Report("BTCUSD"); len(r.Pools) != 0 || len(r.Estimates) != 0 {
		t.Fatalf("empty view: %+v", r)
	}
	// ETH ≈ 2,270 USDC; BTC ≈ 19.4 ETH (tick 257,000 area: price1per0 = 1.0001^tick·1e8/1e18).
	lv.Apply(swapEvent(ethPool, "1662995104975155420368771254341874", "12453647101533358277", 199045, 1e18))
	r := lv.Report("BTCUSD")
	if len(r.Pools) != 0 {
		t.Fatalf("BTCUSD without a BTC pool: %+v", r)
	}
	lv.Apply(swapEvent(btcEthPool, "34934920475127138466614405935093893", "1000000000000000000", 257000, 2e18))
	r = lv.Report("BTCUSD")
	if len(r.Pools) != 1 || r.AsOfNs != 2e18 {
		t.Fatalf("report %+v", r)
	}
	if p := r.Pools[0].PriceUSD; p < 30000 || p > 60000 {
		t.Fatalf("BTC price through ETHUSD %v", p)
	}
	again := lv.Report("BTCUSD")
	if &again.Pools[0] != &r.Pools[0] {
		t.Fatal("report recomputed without an event")
	}
	if got := lv.Symbols(); len(got) != 2 || got[0] != "BTCUSD" || got[1] != "ETHUSD" {
		t.Fatalf("symbols %v", got)
	}
}

func BenchmarkLiquidityReport(b *testing.B) {
	lv := NewLiquidity()
	lv.Apply(swapEvent(ethPool, "1662995104975155420368771254341874", "12453647101533358277", 199045, 1e18))
	b.Run("cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lv.Report("ETHUSD")
		}
	})
	b.Run("recompute", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lv.version++
			lv.Report("ETHUSD")
		}
	})
}
