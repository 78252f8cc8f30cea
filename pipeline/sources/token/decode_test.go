package token

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// The real USDC/WETH 0.05 % pool's day of logs (SOURCES.md: token0 USDC 6
// dp, token1 WETH 18 dp; the first swap's price is 2,269.75 USDC per WETH;
// 6,046 Swap logs among 6,234).
const poolLogs = "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json"

var realPool = common.HexToAddress("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640")

func loadPoolLogs(tb testing.TB) []types.Log {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, poolLogs))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Result []types.Log `json:"result"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	return doc.Result
}

// wethPool reads the real pool as the flow of WETH quoted in USDC.
func wethPool() map[common.Address]*pool {
	return map[common.Address]*pool{realPool: {Pool: assess.Pool{Address: realPool.Hex()}, addr: realPool, kind: KindV3,
		quote: quote{Symbol: "USDC", Decimals: 6, USD: 1}, tokenIs0: false}}
}

// TestDecodeRealV3Swaps decodes the recorded day as WETH's flow: every
// Swap is a trade, Mint/Burn/Collect are skipped, the first price is the
// one SOURCES.md states, and buys are the swaps where WETH left the pool.
func TestDecodeRealV3Swaps(t *testing.T) {
	logs := loadPoolLogs(t)
	trades, buys := decodeTrades(logs, wethPool(), 18)
	if len(trades) != 6046 {
		t.Fatalf("%d trades", len(trades))
	}
	if p := trades[0].PriceUSD; math.Abs(p-2269.75) > 0.01 {
		t.Fatalf("first price %.4f", p)
	}
	nb := 0
	for _, tr := range trades {
		if tr.Buy {
			nb++
		}
		if tr.USD <= 0 || tr.Tokens <= 0 || tr.PriceUSD < 2000 || tr.PriceUSD > 2500 {
			t.Fatalf("trade %+v", tr)
		}
	}
	if nb != len(buys) || nb == 0 || nb == len(trades) {
		t.Fatalf("%d buys, %d buy observations of %d", nb, len(buys), len(trades))
	}
	// The first swap by hand: amount0 (USDC into the pool) and amount1
	// (WETH out, negative) of the first Swap log.
	var first *types.Log
	for i := range logs {
		if logs[i].Topics[0] == topicSwapV3 {
			first = &logs[i]
			break
		}
	}
	a0 := new(big.Int).SetBytes(first.Data[:32])
	if first.Data[0]&0x80 != 0 {
		a0.Sub(a0, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	if usd := math.Abs(units(a0, 6)); math.Abs(trades[0].USD-usd) > 1e-9 {
		t.Fatalf("first trade USD %v, want %v", trades[0].USD, usd)
	}
}

// FuzzDecodeTrades: any log data under the pool's address decodes without
// panicking into trades with non-negative amounts; seeded from the real
// logs.
func FuzzDecodeTrades(f *testing.F) {
	for _, l := range loadPoolLogs(f)[:20] {
		f.Add(uint8(2), []byte(l.Data))
	}
	f.Add(uint8(0), make([]byte, 128))
	f.Add(uint8(1), make([]byte, 64))
	topics := []common.Hash{topicSwapV2, topicSyncV2, topicSwapV3}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		for _, kind := range []string{KindV2, KindV3} {
			pools := wethPool()
			pools[realPool].kind = kind
			l := types.Log{Address: realPool, Topics: []common.Hash{topics[int(which)%3], {}, {}}, Data: data}
			trades, _ := decodeTrades([]types.Log{l, l}, pools, 18)
			for _, tr := range trades {
				if tr.USD < 0 || tr.Tokens < 0 || math.IsNaN(tr.USD) {
					t.Fatalf("trade %+v", tr)
				}
			}
		}
	})
}
