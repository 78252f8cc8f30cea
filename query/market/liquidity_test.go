package market

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/sinks/views"
)

// dayLiquidity feeds a liquidity view with the recorded day of both
// USDC/WETH pools, decoded as the connector decodes them.
func dayLiquidity(t *testing.T) *views.Liquidity {
	t.Helper()
	lv := views.NewLiquidity()
	for _, c := range []struct {
		file string
		meta *operators.PoolMeta
	}{
		{"defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json", &operators.PoolMeta{Chain: "ethereum", Address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", Name: "USDC/WETH 0.05%", Fee: 500, TickSpacing: 10, Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}},
		{"defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_eth_getLogs_2024-01-05.DERIVED.json", &operators.PoolMeta{Chain: "ethereum", Address: "0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8", Name: "USDC/WETH 0.3%", Fee: 3000, TickSpacing: 60, Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}},
	} {
		b, err := os.ReadFile(fixtures.Path(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Result []types.Log `json:"result"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for i := range doc.Result {
			l := &doc.Result[i]
			ev := operators.PoolEvent{Meta: c.meta, Block: l.BlockNumber, LogIndex: uint32(l.Index), TimeNs: int64(l.BlockTimestamp) * 1e9}
			switch l.Topics[0] {
			case uniswap.TopicSwap:
				sw, err := uniswap.DecodeSwap(l)
				if err != nil {
					t.Fatal(err)
				}
				ev.Kind, ev.SqrtPriceX96, ev.Liquidity, ev.Tick = operators.PoolSwap, sw.SqrtPriceX96, sw.Liquidity, sw.Tick
			case uniswap.TopicMint, uniswap.TopicBurn:
				p, err := uniswap.DecodePosition(l)
				if err != nil {
					t.Fatal(err)
				}
				ev.Kind = operators.PoolBurn
				if p.Mint {
					ev.Kind = operators.PoolMint
				}
				ev.TickLower, ev.TickUpper, ev.Amount = p.TickLower, p.TickUpper, p.Amount
			default:
				continue
			}
			lv.Apply(ev)
		}
	}
	return lv
}

// TestSymbolDetailLiquidity serves /api/v1/intelligence/ETHUSD with the
// liquidity view of the recorded day and validates it against openapi.json.
func TestSymbolDetailLiquidity(t *testing.T) {
	f := newOpenAPIFixture(t)
	eth := fullDoc()
	eth.Id, eth.Symbol = "ETHUSD|5m|1", "ETHUSD"
	v := views.New()
	v.Apply(eth)
	s := newServer(Config{Views: v, Now: func() time.Time { return testNow }, Liquidity: dayLiquidity(t)})
	f.app = s.App()
	req, resp, body := f.send(t, http.MethodGet, "/api/v1/intelligence/ETHUSD")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("%s:%s", body, describeErrors(errs))
	}
	var got struct {
		Liquidity struct {
			Method    string                         `json:"method"`
			AsOf      *string                        `json:"as_of"`
			Score     *int                           `json:"liquidity_score"`
			Slippage  map[string]map[string]*float64 `json:"slippage_bps"`
			Estimates []map[string]any               `json:"estimates"`
			Pools     []map[string]any               `json:"pools"`
		} `json:"liquidity"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	l := got.Liquidity
	if l.Method != operators.LiquidityMethod || l.AsOf == nil || !strings.HasPrefix(*l.AsOf, "2024-01-05T23:59") {
		t.Fatalf("method %q as_of %v", l.Method, l.AsOf)
	}
	b10, s10 := l.Slippage["buy"]["10000"], l.Slippage["sell"]["10000"]
	if b10 == nil || s10 == nil || *b10 < 5 || *b10 > 10 || *s10 < 5 || *s10 > 10 {
		t.Fatalf("slippage %v", l.Slippage)
	}
	if l.Score == nil || *l.Score < 80 || *l.Score > 91 || len(l.Estimates) != 6 || len(l.Pools) != 2 {
		t.Fatalf("score %v, %d estimates, %d pools", l.Score, len(l.Estimates), len(l.Pools))
	}
	if l.Estimates[1]["pool"] != "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640" {
		t.Fatalf("best pool of the $10k buy: %v", l.Estimates[1])
	}

	// A null estimate with its reason also matches the document.
	c := 12.5
	rep := &operators.LiquidityReport{Symbol: "ETHUSD", AsOfNs: testNow.UnixNano(),
		Estimates: []operators.Estimate{{Side: "buy", SizeUSD: 1000, CostBps: &c, Chain: "base", Pool: "0xd0b53d9277642d899df5c87a3966a349a798f224", FeeBps: 5}, {Side: "sell", SizeUSD: 50000, Reason: operators.ErrPriceMove.Error()}},
		Pools:     []operators.PoolSummary{{Chain: "base", Address: "0xd0b53d9277642d899df5c87a3966a349a798f224", Name: "WETH/USDC 0.05%", FeeBps: 5, PriceUSD: 3000, SqrtPriceX96: big.NewInt(1).String(), Liquidity: "1", UpdatedNs: testNow.UnixNano()}}}
	raw := appendSymbolDetailLiquidity(nil, eth, testNow, rep)
	r2 := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(string(raw))), Request: httptest.NewRequest(http.MethodGet, "/api/v1/intelligence/ETHUSD", nil)}
	if ok, errs := f.v.ValidateHttpResponse(r2.Request, r2); !ok {
		t.Fatalf("%s:%s", raw, describeErrors(errs))
	}
	if !strings.Contains(string(raw), `"sell":{"1000":null,"10000":null,"50000":null}`) || !strings.Contains(string(raw), `"reason":"price would move more than 1%"`) || !strings.Contains(string(raw), `"liquidity_score":null`) {
		t.Fatalf("null estimate rendering: %s", raw)
	}
}
