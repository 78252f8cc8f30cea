package token_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// env is the suite on a simulated chain served as "base".
type env struct {
	ch    *chaintest.Chain
	s     *tokentest.Suite
	set   *chain.Set
	venue []token.ChainVenues
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ch := chaintest.New(t)
	s := tokentest.Deploy(t, ch)
	return &env{ch: ch, s: s, venue: newEnvVenues(s)}
}

// newEnvVenues are the suite's venues as the "base" chain's.
func newEnvVenues(s *tokentest.Suite) []token.ChainVenues {
	return []token.ChainVenues{{
		Chain: "base", WETH: s.V2.WETH,
		Stables: []token.Stable{{Symbol: "USDC", Address: s.USDC, Decimals: 6}, {Symbol: "USDT", Address: s.USDT, Decimals: 6}},
		Venues:  []token.Venue{{Name: "uniswap_v2", Kind: token.KindV2, Factory: s.V2.Factory}},
	}}
}

// reader returns a fresh reader (cold caches) on a fresh client.
func (e *env) reader(t testing.TB, timeout time.Duration) *token.Reader {
	t.Helper()
	cfg := e.ch.Config("base")
	cfg.Limit = &sources.Limit{}
	cfg.ChainID = chaintest.ChainID
	cfg.Timeout = sources.Duration(timeout)
	set, err := chain.Open([]sources.ChainConfig{cfg}, chain.Options{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return token.New(set, token.Options{Venues: e.venue})
}

func check(t *testing.T, r *assess.Report, name string) assess.Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%s: no check %s in %+v", r.Symbol, name, r.Checks)
	return assess.Check{}
}

// TestRiskSuite runs the report of every suite token and asserts each
// check the token is written to trip, and the verdicts.
func TestRiskSuite(t *testing.T) {
	e := newEnv(t)
	r := e.reader(t, 10*time.Second)
	ctx := context.Background()
	get := func(a common.Address) *assess.Report {
		t.Helper()
		rep, err := r.Risk(ctx, "base", a)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Disclaimer == "" || !strings.Contains(rep.Disclaimer, "not an audit") {
			t.Fatal("no disclaimer")
		}
		return rep
	}
	want := func(rep *assess.Report, name, result, detail string) {
		t.Helper()
		c := check(t, rep, name)
		if c.Result != result || !strings.Contains(c.Detail, detail) {
			t.Fatalf("%s %s = %s %q, want %s containing %q", rep.Symbol, name, c.Result, c.Detail, result, detail)
		}
	}

	plain := get(e.s.Plain)
	if plain.Verdict != assess.LowRisk || len(plain.FailedChecks) != 0 {
		t.Fatalf("plain: %s %d %v\n%+v", plain.Verdict, plain.SafetyScore, plain.FailedChecks, plain.Checks)
	}
	want(plain, "sell_simulation", assess.Pass, "the most recent buyer")
	want(plain, "buy_tax", assess.Pass, "0.00%")
	want(plain, "sell_tax", assess.Pass, "0.00%")
	want(plain, "ownership", assess.Pass, "no owner()")
	want(plain, "proxy", assess.Pass, "not a proxy")
	want(plain, "mint_function", assess.Pass, "no mint")
	want(plain, "liquidity", assess.Pass, "in 1 pool(s)")
	want(plain, "lp_burned_or_locked", assess.Warn, "0.0%") // only MINIMUM_LIQUIDITY at 0x0
	want(plain, "observed_buy_tax", assess.Pass, "0.00% over 3 recent buys")
	// The buyer is the last real buyer: the third trader.
	if plain.Simulation == nil || plain.Simulation.Buyer != e.s.Traders[2].Address.Hex() {
		t.Fatalf("plain simulation %+v", plain.Simulation)
	}

	hp := get(e.s.Honeypot)
	if hp.Verdict != assess.HighRisk || !contains(hp.FailedChecks, "sell_simulation") {
		t.Fatalf("honeypot: %s %v", hp.Verdict, hp.FailedChecks)
	}
	want(hp, "sell_simulation", assess.Fail, "execution reverted: Honeypot: sells are disabled")
	want(hp, "buy_simulation", assess.Pass, "succeeded")
	want(hp, "ownership", assess.Warn, e.s.Owner.Address.Hex())

	fee := get(e.s.Fee)
	if fee.Verdict == assess.LowRisk {
		t.Fatalf("fee token %s", fee.Verdict)
	}
	want(fee, "buy_tax", assess.Warn, "10.00%")
	want(fee, "sell_tax", assess.Warn, "10.00%")
	want(fee, "fee_setter", assess.Warn, "setFees(uint256,uint256)")
	want(fee, "observed_buy_tax", assess.Warn, "10.00% over 3 recent buys")
	if bt := *fee.Simulation.BuyTax; math.Abs(bt-0.1) > 1e-4 {
		t.Fatalf("fee buy tax %v", bt)
	}

	bl := get(e.s.Blacklist)
	if bl.Verdict == assess.LowRisk {
		t.Fatalf("blacklist token %s", bl.Verdict)
	}
	want(bl, "blacklist_function", assess.Warn, "setBlacklist(address,bool)")
	want(bl, "pause_function", assess.Warn, "pause()")
	want(bl, "mint_function", assess.Warn, "mint(address,uint256)")
	want(bl, "sell_simulation", assess.Pass, "")

	sw := get(e.s.TradingSwitch)
	if sw.Verdict == assess.LowRisk {
		t.Fatalf("switch token %s", sw.Verdict)
	}
	want(sw, "trading_switch", assess.Warn, "openTrading()")
	want(sw, "limit_function", assess.Warn, "setMaxTxAmount(uint256)")

	px := get(e.s.Proxied)
	if px.Verdict == assess.LowRisk || px.Proxy == nil || px.Proxy.Kind != "eip1967" || px.Proxy.Admin != e.s.Owner.Address.Hex() {
		t.Fatalf("proxied token %s %+v", px.Verdict, px.Proxy)
	}
	want(px, "proxy", assess.Warn, "upgradeable eip1967 proxy")
	want(px, "mint_function", assess.Warn, "mint(address,uint256)") // found in the implementation

	// Cached: a second read makes no request.
	e.ch.ResetCounts()
	if again := get(e.s.Plain); again != plain || e.ch.Requests() != 0 {
		t.Fatalf("cached report re-read: %d requests", e.ch.Requests())
	}
}

// TestBadInput: addresses that hold no token, and an unknown chain.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	r := e.reader(t, 10*time.Second)
	ctx := context.Background()
	f := func(chainName string, a common.Address, want error, msg string) {
		t.Helper()
		for _, read := range []func() error{
			func() error { _, err := r.Flow(ctx, chainName, a); return err },
			func() error { _, err := r.Risk(ctx, chainName, a); return err },
		} {
			err := read()
			if !errors.Is(err, want) || !token.IsBadInput(err) || !strings.Contains(err.Error(), msg) {
				t.Fatalf("%s %s: %v, want %v", chainName, a.Hex(), err, want)
			}
		}
	}
	f("base", e.s.Traders[1].Address, token.ErrNotContract, "externally owned")
	f("base", common.HexToAddress("0x1234567890123456789012345678901234567890"), token.ErrNotContract, "unused")
	f("base", e.s.Gone, token.ErrSelfDestructed, "self-destructed")
	f("base", e.s.NotToken, token.ErrNotERC20, "not an ERC-20")
	f("solana", e.s.Plain, token.ErrNoVenues, `"solana"; supported chains: base`)
}

// TestFlow checks the plain token's hour against the suite's trades: three
// buys of 1 WETH and one sell of half the first buy, WETH at 3000 USDC.
func TestFlow(t *testing.T) {
	e := newEnv(t)
	r := e.reader(t, 10*time.Second)
	f, err := r.Flow(context.Background(), "base", e.s.Plain)
	if err != nil {
		t.Fatal(err)
	}
	if f.Swaps != 4 || f.Buys != 3 || f.Sells != 1 || len(f.Pools) != 1 {
		t.Fatalf("flow %+v", f)
	}
	if math.Abs(f.BuyVolumeUSD-9000) > 1e-6 {
		t.Fatalf("buy volume %v", f.BuyVolumeUSD)
	}
	if f.SellVolumeUSD <= 0 || f.SellVolumeUSD >= 3000 || f.BuyPressure <= 60 {
		t.Fatalf("sell volume %v, pressure %v", f.SellVolumeUSD, f.BuyPressure)
	}
	if f.Verdict != assess.Illiquid || !strings.Contains(f.VerdictReason, "fewer than 5 swaps") {
		t.Fatalf("verdict %s (%s)", f.Verdict, f.VerdictReason)
	}
	if f.Concentration.Traders != 3 || math.Abs(f.Concentration.TopSharePercent-100) > 1e-9 {
		t.Fatalf("concentration %+v", f.Concentration)
	}
	if f.LargestTrade == nil || f.LargestTrade.Side != "BUY" || math.Abs(f.LargestTrade.USD-3000) > 1e-6 {
		t.Fatalf("largest %+v", f.LargestTrade)
	}
	// Buys push the price up: the change is positive.
	if f.PriceChangePercent <= 0 || f.PriceUSD <= 0 {
		t.Fatalf("price %v change %v", f.PriceUSD, f.PriceChangePercent)
	}
	// Two more hours pass: the window is empty.
	if err := e.ch.Backend.AdjustTime(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	f2, err := e.reader(t, 10*time.Second).Flow(context.Background(), "base", e.s.Plain)
	if err != nil {
		t.Fatal(err)
	}
	if f2.Swaps != 0 || f2.Verdict != assess.Illiquid {
		t.Fatalf("after two hours: %d swaps, %s", f2.Swaps, f2.Verdict)
	}
}

// TestFlowSharedRead: 100 concurrent requests for one token make the
// requests of one read, counted at the server.
func TestFlowSharedRead(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.ch.ResetCounts()
	if _, err := e.reader(t, 10*time.Second).Flow(ctx, "base", e.s.Fee); err != nil {
		t.Fatal(err)
	}
	one := e.ch.Requests()
	r := e.reader(t, 10*time.Second)
	e.ch.ResetCounts()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Flow(ctx, "base", e.s.Fee)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := e.ch.Requests(); got != one || one == 0 {
		t.Fatalf("100 concurrent reads made %d requests, one read %d", got, one)
	}
	if st := r.FlowStats(); st.Loads != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestRiskTimeout: with the node not answering eth_call after the flow was
// read, the simulation and the other read checks are UNKNOWN, never PASS,
// and the partial report is not cached.
func TestRiskTimeout(t *testing.T) {
	e := newEnv(t)
	r := e.reader(t, 300*time.Millisecond)
	ctx := context.Background()
	if _, err := r.Flow(ctx, "base", e.s.Plain); err != nil {
		t.Fatal(err)
	}
	e.ch.Inject(chaintest.Fault{Method: "eth_call", Hang: true})
	rep, err := r.Risk(ctx, "base", e.s.Plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sell_simulation", "buy_simulation", "ownership"} {
		if c := check(t, rep, name); c.Result != assess.Unknown {
			t.Fatalf("%s = %s %q", name, c.Result, c.Detail)
		}
	}
	if rep.Verdict == assess.LowRisk {
		t.Fatalf("verdict %s with unknown simulations", rep.Verdict)
	}
	e.ch.ClearFaults()
	time.Sleep(5 * time.Millisecond) // past the backoff
	rep2, err := r.Risk(ctx, "base", e.s.Plain)
	if err != nil {
		t.Fatal(err)
	}
	if c := check(t, rep2, "sell_simulation"); c.Result != assess.Pass || rep2.Verdict != assess.LowRisk {
		t.Fatalf("after recovery: %s %s", c.Result, rep2.Verdict)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestWatchFiresOnSellChange: the scheduled check of the blacklist token
// is the detector's baseline; once the owner blacklists the recent buyer,
// the next check's sell simulation fails and token_risk_change fires. A
// Solana token is unsupported and fires nothing.
func TestWatchFiresOnSellChange(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	det := operators.NewTokenRiskChangeDetector()
	var evs []operators.AlertEvent
	o := e.reader(t, 10*time.Second).Observe(ctx, "base", e.s.Blacklist.Hex())
	if o.SellSimulation != assess.Pass || o.Verdict == "" || o.Verdict == "ERROR" {
		t.Fatalf("first check %+v", o)
	}
	evs = det.Push(o, evs)
	e.ch.Send(t, e.s.Owner, e.s.Blacklist, tokentest.Blacklist.ABI, "setBlacklist", e.s.Traders[2].Address, true)
	o2 := e.reader(t, 10*time.Second).Observe(ctx, "base", e.s.Blacklist.Hex())
	if o2.SellSimulation != assess.Fail || !strings.Contains(o2.SellDetail, "Blacklist: address is blacklisted") || o2.Verdict != assess.HighRisk {
		t.Fatalf("second check %+v", o2)
	}
	evs = det.Push(o2, evs)
	if len(evs) != 1 || evs[0].Event != operators.AlertTokenRiskChange {
		t.Fatalf("events %+v", evs)
	}
	sol := e.reader(t, time.Second).Observe(ctx, "solana", "So11111111111111111111111111111111111111112")
	if sol.Verdict != operators.TokenRiskUnsupported || len(det.Push(sol, nil)) != 0 {
		t.Fatalf("solana %+v", sol)
	}
}

// TestRiskUnderFaults: a node answering 429 or 503 while the report is
// read makes the checks that needed it UNKNOWN (never PASS, never a
// crash); a node failing before the token is identified, or refusing the
// logs with a JSON-RPC error, is an error that is not bad input.
func TestRiskUnderFaults(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, status := range []int{429, 503} {
		r := e.reader(t, 2*time.Second)
		if _, err := r.Flow(ctx, "base", e.s.Fee); err != nil {
			t.Fatal(err)
		}
		e.ch.Inject(chaintest.Fault{Method: "eth_call", Status: status})
		rep, err := r.Risk(ctx, "base", e.s.Fee)
		e.ch.ClearFaults()
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		for _, c := range rep.Checks {
			if c.Name == "sell_simulation" && c.Result != assess.Unknown {
				t.Fatalf("%d: sell %s %q", status, c.Result, c.Detail)
			}
		}
		if rep.Verdict == assess.LowRisk {
			t.Fatalf("%d: LOW_RISK with unknown checks", status)
		}
		time.Sleep(5 * time.Millisecond) // past the backoff
	}
	e.ch.Inject(chaintest.Fault{Status: 503})
	_, err := e.reader(t, 2*time.Second).Risk(ctx, "base", e.s.Plain)
	e.ch.ClearFaults()
	if err == nil || token.IsBadInput(err) {
		t.Fatalf("node down: %v", err)
	}
	e.ch.Inject(chaintest.Fault{Method: "eth_getLogs", Code: -32603, Message: "internal error"})
	_, err = e.reader(t, 2*time.Second).Flow(ctx, "base", e.s.Plain)
	e.ch.ClearFaults()
	if err == nil || token.IsBadInput(err) || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("logs refused: %v", err)
	}
}

// TestOwnerIsNoBuyer: when the honeypot's owner made the last buy, the
// simulation does not run as the owner (whom the honeypot lets sell) but
// as a fresh address, and the sell fails.
func TestOwnerIsNoBuyer(t *testing.T) {
	e := newEnv(t)
	if r := e.s.V2.BuyWithETH(t, e.s.Owner, e.s.Honeypot, tokentest.Milli(100)); r.Status != 1 {
		t.Fatal("owner's buy reverted")
	}
	rep, err := e.reader(t, 10*time.Second).Risk(context.Background(), "base", e.s.Honeypot)
	if err != nil {
		t.Fatal(err)
	}
	c := check(t, rep, "sell_simulation")
	if c.Result != assess.Fail || rep.Verdict != assess.HighRisk {
		t.Fatalf("sell %s %q, verdict %s", c.Result, c.Detail, rep.Verdict)
	}
	// The owner is skipped: the earlier buyer (the third trader) runs, then
	// the fresh address; both fail, the first is shown.
	if rep.Simulation.Buyer == e.s.Owner.Address.Hex() || !strings.Contains(rep.Simulation.BuyerSource, "also simulated as") {
		t.Fatalf("simulated as %s (%s)", rep.Simulation.Buyer, rep.Simulation.BuyerSource)
	}
}

// TestRenounced: once the fee token's owner renounces ownership, the
// ownership check passes and its fee setter is INFO (it can no longer be
// called). But FeeToken pays its fees to owner(), now the zero address,
// which its own transfer refuses: every buy and sell now reverts, and the
// simulation says so — the report is HIGH_RISK with the token's reason.
func TestRenounced(t *testing.T) {
	e := newEnv(t)
	e.ch.Send(t, e.s.Owner, e.s.Fee, tokentest.Fee.ABI, "renounceOwnership")
	rep, err := e.reader(t, 10*time.Second).Risk(context.Background(), "base", e.s.Fee)
	if err != nil {
		t.Fatal(err)
	}
	if c := check(t, rep, "ownership"); c.Result != assess.Pass || !strings.Contains(c.Detail, "renounced") {
		t.Fatalf("ownership %s %q", c.Result, c.Detail)
	}
	if c := check(t, rep, "fee_setter"); c.Result != assess.Info {
		t.Fatalf("fee_setter %s %q", c.Result, c.Detail)
	}
	if c := check(t, rep, "sell_simulation"); c.Result != assess.Fail || !strings.Contains(c.Detail, "ERC20: transfer to the zero address") {
		t.Fatalf("sell_simulation %s %q", c.Result, c.Detail)
	}
	if rep.Verdict != assess.HighRisk {
		t.Fatalf("verdict %s", rep.Verdict)
	}
}
