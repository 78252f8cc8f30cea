package market

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/operators/decision"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// thinLiquidity is a liquidity view holding one USDC/WETH pool whose
// liquidity is so thin that a $10k order would move the price more than 1%
// (the pool state of operators.TestEstimatePriceMove).
func thinLiquidity() *views.Liquidity {
	lv := views.NewLiquidity()
	m := &operators.PoolMeta{Chain: "ethereum", Address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", Name: "USDC/WETH 0.05%", Fee: 500,
		TickSpacing: 10, Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	sqrtP, _ := new(big.Int).SetString("1662995104975155420368771254341874", 10)
	lv.Apply(operators.PoolEvent{Meta: m, Kind: operators.PoolSwap, SqrtPriceX96: sqrtP, Liquidity: big.NewInt(1e16), Tick: 199045,
		Block: 1, TimeNs: testNow.Add(-time.Minute).UnixNano()})
	return lv
}

// buyingDoc is a fresh 5m document of symbol under steady buying.
func buyingDoc(symbol string) *schemas.IntelligenceDocument {
	d := equityDoc(symbol, 60, 68, 0.4, signalBullish, testNow.Add(-30*time.Second))
	d.MomentumScore = 66
	return d
}

type news struct{ n decision.News }

func (s news) News24h(string, time.Time) (decision.News, bool) { return s.n, true }

type closes []float64

func (c closes) Closes(string, int, int) ([]float64, bool) { return c, true }

// preTrade sends GET target to routes over c and validates the answer
// against the OpenAPI document.
func preTrade(t *testing.T, c Config, target string) (int, PreTradeAnswer, string) {
	t.Helper()
	f := newOpenAPIFixture(t)
	if c.Now == nil {
		c.Now = func() time.Time { return testNow }
	}
	s := newServer(c)
	f.app = s.App()
	req, resp, body := f.send(t, http.MethodGet, target)
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("%s: %s:%s", target, body, describeErrors(errs))
	}
	var a PreTradeAnswer
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, a, string(body)
}

func check(a PreTradeAnswer, name string) decision.Check {
	for _, c := range a.Checks {
		if c.Name == name {
			return c
		}
	}
	panic("no check " + name)
}

// A thin pool: whatever the flow says, the $10k order moves the price
// more than 1%, the slippage check fails and the verdict is UNFAVORABLE.
func TestPreTradeThinPool(t *testing.T) {
	v := views.New()
	v.Apply(buyingDoc("ETHUSD"))
	code, a, body := preTrade(t, Config{Views: v, Liquidity: thinLiquidity(), Candles: closes{100, 100.1, 100.05, 100.1, 100.12, 100.15}},
		"/api/v1/intelligence/pre-trade?symbol=ethusd&side=buy")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if a.Verdict != decision.Unfavorable || check(a, decision.CheckSlippage).Result != decision.Fail {
		t.Fatalf("thin pool: %s", body)
	}
	if a.Symbol != "ETHUSD" || a.Window != "5m" || a.FlowWindow != "5m" || a.Slippage.Side["10000"] != nil ||
		a.Slippage.Side["1000"] == nil || a.Slippage.LiquidityScore != nil || a.Slippage.Method != operators.LiquidityMethod {
		t.Fatalf("slippage block: %s", body)
	}
	if check(a, decision.CheckOrderFlow).Result != decision.Pass || check(a, decision.CheckMomentum).Result != decision.Pass {
		t.Fatalf("flow checks: %s", body)
	}
	// News has no source here: UNKNOWN, named, and not a failure.
	if check(a, decision.CheckNews).Result != decision.Unknown || a.DataQuality.UnknownChecks[0] != decision.CheckNews ||
		a.DataQuality.KnownWeight != 90 {
		t.Fatalf("data quality: %s", body)
	}
	// ETHUSD is not an equity: no session, no price notice.
	if a.PriceNotice != nil || a.Session != nil {
		t.Fatalf("session of a crypto symbol: %s", body)
	}
}

// The same flow over the recorded deep USDC/WETH pools passes the
// slippage check; a sell into that buying is judged against it.
func TestPreTradeDeepPool(t *testing.T) {
	v := views.New()
	v.Apply(buyingDoc("ETHUSD"))
	d15 := buyingDoc("ETHUSD")
	d15.Window = "15m"
	v.Apply(d15)
	c := Config{Views: v, Liquidity: dayLiquidity(t), Candles: closes{100, 100.1, 100.05, 100.1, 100.12, 100.15}, News: news{}}
	code, a, body := preTrade(t, c, "/api/v1/intelligence/pre-trade?symbol=ETHUSD")
	if code != 200 || a.Verdict != decision.Favorable || a.Score != 100 || check(a, decision.CheckSlippage).Result != decision.Pass ||
		a.Slippage.LiquidityScore == nil || len(a.DataQuality.UnknownChecks) != 0 {
		t.Fatalf("%d %s", code, body)
	}
	code, a, body = preTrade(t, c, "/api/v1/intelligence/pre-trade?symbol=ETHUSD&side=sell&window=24h")
	if code != 200 || a.Verdict == decision.Favorable || check(a, decision.CheckOrderFlow).Result != decision.Fail ||
		a.FlowWindow != "15m" || a.Side != decision.Sell {
		t.Fatalf("sell: %d %s", code, body)
	}
}

// An equity answers the session and the price notice; with no pool and no
// candles those checks are UNKNOWN, never failures.
func TestPreTradeEquityMissingSources(t *testing.T) {
	v := views.New()
	d := buyingDoc("TSLA")
	d.Window = "15m"
	v.Apply(d)
	code, a, body := preTrade(t, Config{Views: v}, "/api/v1/intelligence/pre-trade?symbol=TSLA&window=1h")
	if code != 200 || a.PriceNotice == nil {
		t.Fatalf("%d %s", code, body)
	}
	for _, name := range []string{decision.CheckVolatility, decision.CheckNews, decision.CheckSlippage} {
		if check(a, name).Result != decision.Unknown {
			t.Fatalf("%s: %s", name, body)
		}
	}
	if !strings.Contains(body, `"label":"PRE_MARKET"`) || a.DataQuality.KnownWeight != 60 || a.Verdict != decision.Favorable {
		t.Fatalf("%s", body)
	}
}

func TestPreTradeBadInput(t *testing.T) {
	v := views.New()
	v.Apply(buyingDoc("ETHUSD"))
	s := newServer(Config{Views: v, Now: func() time.Time { return testNow }})
	f := func(target string, code int, want ...string) {
		t.Helper()
		got, _, body := do(t, s.App(), http.MethodGet, target)
		if got != code {
			t.Fatalf("%s: %d %s", target, got, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Fatalf("%s: %s lacks %q", target, body, w)
			}
		}
	}
	f("/api/v1/intelligence/pre-trade", 400, `"symbol"`)
	f("/api/v1/intelligence/pre-trade?symbol=ETHUSD&side=hold", 400, `"side"`, "buy", "sell")
	f("/api/v1/intelligence/pre-trade?symbol=ETHUSD&window=2h", 400, `"window"`, "4h", "24h")
	f("/api/v1/intelligence/pre-trade?symbol=NOPEUSD", 404, "no_data", `"charged":false`)
	f("/api/v1/intelligence/pre-trade?symbol=ETHUSD&side=sell&window=1m", 200, `"verdict"`)
}

func BenchmarkPreTrade(b *testing.B) {
	v := views.New()
	for i := range 1000 {
		v.Apply(equityDoc(fmt.Sprintf("S%04dUSD", i), int64(10+i), 50, 0.1, signalNeutral, testNow.Add(-time.Minute)))
	}
	v.Apply(buyingDoc("ETHUSD"))
	rt := New(Config{Views: v, Liquidity: thinLiquidity(), Now: func() time.Time { return testNow },
		Candles: closes{100, 100.1, 100.05, 100.1, 100.12, 100.15, 100.2, 100.1, 100.3, 100.25, 100.2, 100.22, 100.3, 100.35, 100.4}})
	rt.PreTrade("ETHUSD", decision.Buy, "5m") // builds the market step once, as the first request after a change does
	for b.Loop() {
		if a, ok := rt.PreTrade("ETHUSD", decision.Buy, "5m"); !ok || a.Verdict != decision.Unfavorable {
			b.Fatal(a)
		}
	}
}
