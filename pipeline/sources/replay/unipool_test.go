package replay

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/schemas"
)

// polygonPool deploys Uniswap v3 on a simulated chain standing in for
// Polygon, a new pool of two fresh tokens — PTT (18 decimals) and USDC.e
// (6 decimals, a bridged stablecoin the symbol registry does not list) —
// at 2 USDC.e per PTT, mints liquidity and makes a sell and a buy of PTT.
// It writes the pool's eth_getLogs answer to a file and returns its path,
// the chain, the pool and the two swaps (sell first).
func polygonPool(t *testing.T) (string, *chaintest.Chain, *uniswaptest.Pool, [2]uniswaptest.Swapped, bool) {
	ch := chaintest.New(t)
	v3 := uniswaptest.DeployV3(t, ch)
	usdc := v3.TokenDecimals(t, "USD Coin (PoS)", "USDC.e", 6)
	ptt := v3.Token(t, "Polygon Test Token", "PTT")
	pttIs0 := ptt.Cmp(usdc) < 0
	price := 2e6 / 1e18 // token1 per token0, atomic
	if !pttIs0 {
		price = 1e18 / 2e6
	}
	pool := v3.CreatePool(t, ptt, usdc, 3000, uniswaptest.SqrtPriceX96(price))
	e := func(x int64, d int64) *big.Int {
		return new(big.Int).Mul(big.NewInt(x), new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil))
	}
	a0, a1 := e(1_000_000, 18), e(2_000_000, 6)
	if !pttIs0 {
		a0, a1 = a1, a0
	}
	v3.Mint(t, pool, -887220, 887220, a0, a1)
	var sw [2]uniswaptest.Swapped
	sw[0] = v3.SwapExactIn(t, pool, pttIs0, e(10, 18)) // PTT in: a sell
	sw[1] = v3.SwapExactIn(t, pool, !pttIs0, e(50, 6)) // USDC.e in: a buy
	// The pool's logs as the node answers eth_getLogs.
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x0","toBlock":"latest","address":"` + strings.ToLower(pool.Address.Hex()) + `"}]}`
	resp, err := http.Post(ch.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || !json.Valid(b) {
		t.Fatalf("eth_getLogs: %v %.200s", err, b)
	}
	path := filepath.Join(t.TempDir(), "uniswapv3_polygon_eth_getLogs.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ch, pool, sw, pttIs0
}

func TestUniswapResolvedPool(t *testing.T) {
	path, ch, pool, sw, pttIs0 := polygonPool(t)
	paddr := strings.ToLower(pool.Address.Hex())

	// Without a chain configured, the pool is unknown (as before).
	old := readAll(t, path)
	// Initialize, Mint and two Swaps: each rejected.
	if len(old.trades) != 0 || len(old.rejects) != 4 || !strings.HasPrefix(old.rejects[3].Reason, "unknown pool: "+paddr) {
		t.Fatalf("without a registry: %d trades, %d rejects", len(old.trades), len(old.rejects))
	}

	c, err := chain.New(ch.Config("polygon"), chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	calls := 0
	reg := uniswap.NewRegistry("polygon", func(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
		calls++
		return c.Call(ctx, ethereum.CallMsg{To: &to, Data: data}, nil, nil)
	})
	SetPoolRegistry("polygon", reg)
	defer SetPoolRegistry("polygon", nil)
	if _, err := Open(path + "#chain=base"); err == nil || !strings.Contains(err.Error(), `chain "base" has no RPC endpoint`) {
		t.Fatalf("Open with an unconfigured chain = %v", err)
	}
	r := readAll(t, path+"#chain=polygon")
	if len(r.rejects) != 0 || len(r.trades) != 2 || len(r.events) != 3 { // Mint + 2 swaps
		t.Fatalf("with a registry: %d trades, %d events, %d rejects", len(r.trades), len(r.events), len(r.rejects))
	}
	if calls != 8 { // token0, token1, fee, tickSpacing, 2 × (decimals, symbol): once
		t.Fatalf("%d eth_calls, want 8 (one read per pool and token)", calls)
	}
	again := readAll(t, path) // the only registry: no suffix needed; cached
	if len(again.trades) != 2 || calls != 8 {
		t.Fatalf("second replay: %d trades, %d calls", len(again.trades), calls)
	}
	amounts := func(s uniswaptest.Swapped) (base, quote *big.Int) {
		if pttIs0 {
			return s.Amount0, s.Amount1
		}
		return s.Amount1, s.Amount0
	}
	f := func(i int, side schemas.Side) {
		t.Helper()
		tr := r.trades[i]
		b, q := amounts(sw[i])
		size, _ := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Abs(b)), big.NewFloat(1e18)).Float64()
		notional, _ := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Abs(q)), big.NewFloat(1e6)).Float64()
		if tr.Symbol != "PTTUSD" || tr.VenueSymbol != "PTT/USDC.e" || tr.Chain != "polygon" || tr.Market != paddr || tr.Side != side ||
			!near(tr.Size, size, 1e-12) || !near(tr.NotionalUsd, notional, 1e-12) || !near(tr.Price, notional/size, 1e-12) || !near(tr.Price, 2, 0.01) {
			t.Fatalf("trade %d = %v; want %s size %v notional %v", i, tr, side, size, notional)
		}
	}
	f(0, schemas.Side_SIDE_SELL)
	f(1, schemas.Side_SIDE_BUY)
	if r.trades[0].Price >= r.trades[1].Price { // a sell pays the fee below, a buy above
		t.Fatalf("sell price %v not below buy price %v", r.trades[0].Price, r.trades[1].Price)
	}
}
