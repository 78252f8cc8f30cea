package uniswaptest

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// Bridged is a deployment standing in for a pool of a chain the replay
// does not know: PTT (18 decimals) against USDC.e (6 decimals, a bridged
// stablecoin the symbol registry does not list), fee 0.3%, at 2 USDC.e
// per PTT, with full-range liquidity, a sell of 10 PTT and then a buy
// with 50 USDC.e.
type Bridged struct {
	Chain *chaintest.Chain
	V3    *V3
	Pool  *Pool
	// PTTIs0 is true when PTT is the pool's token0.
	PTTIs0 bool
	// Swaps are the sell and the buy, in that order.
	Swaps [2]Swapped
	// LogsPath is the pool's eth_getLogs answer (every block), recorded to
	// a file of the test's temporary directory named like a capture.
	LogsPath string
	// Day is the UTC day (YYYY-MM-DD) of the swaps' blocks.
	Day string
}

// DeployBridged deploys the Bridged scenario on a new simulated chain.
func DeployBridged(t *testing.T) *Bridged {
	t.Helper()
	ch := chaintest.New(t)
	v3 := DeployV3(t, ch)
	usdc := v3.TokenDecimals(t, "USD Coin (PoS)", "USDC.e", 6)
	ptt := v3.Token(t, "Polygon Test Token", "PTT")
	b := &Bridged{Chain: ch, V3: v3, PTTIs0: ptt.Cmp(usdc) < 0}
	price := 2e6 / 1e18 // token1 per token0, atomic units
	if !b.PTTIs0 {
		price = 1e18 / 2e6
	}
	b.Pool = v3.CreatePool(t, ptt, usdc, 3000, SqrtPriceX96(price))
	e := func(x, d int64) *big.Int {
		return new(big.Int).Mul(big.NewInt(x), new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil))
	}
	a0, a1 := e(1_000_000, 18), e(2_000_000, 6)
	if !b.PTTIs0 {
		a0, a1 = a1, a0
	}
	v3.Mint(t, b.Pool, -887220, 887220, a0, a1)
	b.Swaps[0] = v3.SwapExactIn(t, b.Pool, b.PTTIs0, e(10, 18)) // PTT in: a sell
	b.Swaps[1] = v3.SwapExactIn(t, b.Pool, !b.PTTIs0, e(50, 6)) // USDC.e in: a buy
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x0","toBlock":"latest","address":"` + strings.ToLower(b.Pool.Address.Hex()) + `"}]}`
	resp, err := http.Post(ch.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	var doc struct {
		Result []struct {
			BlockTimestamp string `json:"blockTimestamp"`
		} `json:"result"`
	}
	if err != nil || json.Unmarshal(raw, &doc) != nil || len(doc.Result) != 4 {
		t.Fatalf("eth_getLogs: %v %.300s", err, raw)
	}
	sec, err := strconv.ParseUint(strings.TrimPrefix(doc.Result[3].BlockTimestamp, "0x"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	b.Day = time.Unix(int64(sec), 0).UTC().Format("2006-01-02")
	b.LogsPath = filepath.Join(t.TempDir(), "uniswapv3_polygon_eth_getLogs.json")
	if err := os.WriteFile(b.LogsPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}
