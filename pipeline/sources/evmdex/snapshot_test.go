package evmdex

import (
	"context"
	"errors"
	"io"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// poolChain is a real Uniswap v3 pool on the simulated chain with
// positions over many ticks, some opened before the connector starts and
// some after, and swaps on both sides of the start.
type poolChain struct {
	v3         *uniswaptest.V3
	pool       *uniswaptest.Pool
	start, end uint64 // the connector reads start..end
}

var e18 = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

func tokens(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), e18) }

func newPoolChain(t *testing.T) *poolChain {
	t.Helper()
	ch := chaintest.New(t)
	v := uniswaptest.DeployV3(t, ch)
	a, b := v.Token(t, "US Dollar (test)", "USDT"), v.Token(t, "Ether (test)", "ETHT")
	p := v.CreatePool(t, a, b, 500, uniswaptest.SqrtPriceX96(1))
	rnd := rand.New(rand.NewPCG(7, 13))
	mint := func(n int) {
		for range n {
			lo := int32(-1500 + 10*rnd.IntN(300))
			hi := lo + int32(10*(1+rnd.IntN(40)))
			v.Mint(t, p, lo, hi, tokens(int64(500+rnd.IntN(5_000))), tokens(int64(500+rnd.IntN(5_000))))
		}
	}
	mint(60)
	v.SwapExactIn(t, p, true, tokens(3_000))
	v.SwapExactIn(t, p, false, tokens(1_200))
	pc := &poolChain{v3: v, pool: p, start: v.Head(t) + 1}
	// After the start: more positions, a burn, swaps both ways.
	mint(10)
	m := v.Mint(t, p, -200, 400, tokens(8_000), tokens(8_000))
	v.SwapExactIn(t, p, false, tokens(2_000))
	v.Burn(t, m, new(big.Int).Div(m.Liquidity, big.NewInt(3)))
	v.SwapExactIn(t, p, true, tokens(900))
	pc.end = v.Head(t)
	return pc
}

// follow runs the connector over the pool chain's blocks and returns its
// pool events, in order.
func (pc *poolChain) follow(t *testing.T, cfg Config) ([]operators.PoolEvent, Stats) {
	t.Helper()
	cfg.ChainConfig = ChainConfig{Chain: "testchain", RPC: pc.v3.Chain.URL, PollInterval: Duration(5 * time.Millisecond), MaxRange: 7}
	cfg.Pools = []PoolConfig{{Chain: "testchain", Address: pc.pool.Address.Hex(), Name: "USDT/ETHT 0.05%"}}
	cfg.StartBlock, cfg.EndBlock = pc.start, pc.end
	cfg.MinBackoff, cfg.MaxBackoff = 5*time.Millisecond, 50*time.Millisecond
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var evs []operators.PoolEvent
	for {
		r, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.Stats())
		}
		switch {
		case r.Side != nil:
			evs = append(evs, poolEvent(t, r))
		case r.Trade == nil && !strings.HasPrefix(r.Reason, "unsupported pool"):
			// (The test tokens are not in the registry: no trades.)
			t.Fatalf("rejected: %s: %s", r.Reason, r.Raw)
		}
	}
	return evs, src.Stats()
}

func stateOf(evs []operators.PoolEvent) *operators.PoolState {
	m := *evs[0].Meta
	// The test tokens are not in the registry: name them as the view
	// would a USD stablecoin and ETH, so the estimates apply.
	m.Symbol0, m.Symbol1 = "USD", "ETHUSD"
	st := operators.NewPoolState(&m)
	for _, ev := range evs {
		st.Apply(ev)
	}
	return st
}

// TestSnapshotEstimateEqualsChain: the connector reads the pool's state at
// the block before it starts (every tick minted before it, through the tick
// bitmap) and follows its events; the state it builds holds every
// initialized tick TickLens sees and slot0, and a simulated swap of any
// size, however many ticks it crosses, gives exactly what the pool pays
// for it — as QuoterV2 computes it and as a swap executed through the
// router pays out — fee included. Without the snapshot the same state from
// the events alone misses the ticks minted before the start and its
// estimates are wrong.
func TestSnapshotEstimateEqualsChain(t *testing.T) {
	pc := newPoolChain(t)
	v, p := pc.v3, pc.pool
	evs, stats := pc.follow(t, Config{})
	if stats.Snapshots != 1 || evs[0].Kind != operators.PoolSnapshot || evs[0].Block != pc.start-1 {
		t.Fatalf("first pool event %+v, stats %+v", evs[0], stats)
	}
	st := stateOf(evs)
	sqrtP, tick, liq := v.Slot0(t, p)
	if st.SqrtPriceX96.Cmp(sqrtP) != 0 || st.Tick != tick || st.Liquidity.Cmp(liq) != 0 || !st.Complete {
		t.Fatalf("state %v %d %v (complete %v), chain %v %d %v", st.SqrtPriceX96, st.Tick, st.Liquidity, st.Complete, sqrtP, tick, liq)
	}
	ticks := v.PopulatedTicks(t, p)
	if len(ticks) != len(st.Net) || len(ticks) < 60 {
		t.Fatalf("%d ticks in the state, TickLens lists %d", len(st.Net), len(ticks))
	}
	for _, tn := range ticks {
		if n := st.Net[tn.Tick]; n == nil || n.Cmp(tn.Net) != 0 {
			t.Fatalf("tick %d: state %v, chain %v", tn.Tick, n, tn.Net)
		}
	}

	// Quotes of sizes from a fraction of a tick's liquidity to swaps that
	// cross most of the positions, both ways.
	crossed := uint32(0)
	for _, zeroForOne := range []bool{true, false} {
		for _, n := range []int64{1, 50, 2_000, 10_000, 30_000, 60_000} {
			in := tokens(n)
			got, err := st.SwapExactIn(in, zeroForOne, 0.99)
			q := v.QuoteExactIn(t, p, zeroForOne, in)
			if err != nil || got.AmountIn.Cmp(in) != 0 || got.AmountOut.Cmp(q.AmountOut) != 0 || got.SqrtPriceX96.Cmp(q.SqrtPriceX96After) != 0 {
				t.Fatalf("zeroForOne %v, %d tokens in: estimate in %v out %v price %v (%v); quoter out %v price %v", zeroForOne, n, got.AmountIn, got.AmountOut, got.SqrtPriceX96, err, q.AmountOut, q.SqrtPriceX96After)
			}
			t.Logf("zeroForOne %v, %d tokens in: %d initialized ticks crossed", zeroForOne, n, q.TicksCrossed)
			crossed = max(crossed, q.TicksCrossed)
		}
	}
	if crossed < 20 {
		t.Fatalf("the largest swap crossed %d initialized ticks; the test wants many", crossed)
	}

	// The liquidity block's cost of a $10k sell (base, token1, in; quote
	// out) equals the cost of the swap the chain executes for that size.
	r := operators.EstimateLiquidity("ETHUSD", []*operators.PoolState{st}, 0)
	e, ok := r.Cost("sell", 10_000)
	if !ok || e.CostBps == nil || e.TicksCrossed == 0 {
		t.Fatalf("no $10k sell estimate across ticks: %+v", r)
	}
	mid := st.MidPrice()
	// The base the size is worth at the mid price, in atomic units, as
	// the estimate converts it.
	f := new(big.Float).SetPrec(256).SetFloat64(10_000 / mid)
	in, _ := f.Mul(f, new(big.Float).SetPrec(256).SetInt(e18)).Int(nil)
	done := v.SwapExactIn(t, p, false, in)
	exec := bigTokens(done.AmountOut()) / bigTokens(done.AmountIn())
	if cost := (1 - exec/mid) * 1e4; done.AmountIn().Cmp(in) != 0 || cost != *e.CostBps || cost < 5 {
		t.Fatalf("estimated cost %v bps; the swap executed for %v base in cost %v bps", *e.CostBps, done.AmountIn(), cost)
	}

	// From the events alone the state lacks the ticks minted before the
	// start, and a swap through them is estimated wrong.
	// (Both states are those of the block the connector stopped at.)
	evOnly := stateOf(evs[1:])
	alone, _ := evOnly.SwapExactIn(tokens(30_000), true, 0.99)
	withSnap, _ := st.SwapExactIn(tokens(30_000), true, 0.99)
	if evOnly.Complete || len(evOnly.Net) >= len(st.Net) || alone.AmountOut == nil || alone.AmountOut.Cmp(withSnap.AmountOut) == 0 {
		t.Fatalf("events alone: %d ticks, out %v; with the snapshot %d ticks, out %v", len(evOnly.Net), alone.AmountOut, len(st.Net), withSnap.AmountOut)
	}
}

// bigTokens converts 18-decimal atomic units to tokens.
func bigTokens(x *big.Int) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(x), new(big.Float).SetInt(e18)).Float64()
	return f
}

// TestReadPoolStateMatchesTickLens reads the state at the latest block
// through the snapshot reader and compares it with TickLens and slot0.
func TestReadPoolStateMatchesTickLens(t *testing.T) {
	pc := newPoolChain(t)
	cfg := Config{ChainConfig: ChainConfig{Chain: "testchain", RPC: pc.v3.Chain.URL}}
	b, err := newSnapshotReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadPoolState(context.Background(), b, pc.pool.Address, pc.pool.TickSpacing, pc.end)
	if err != nil {
		t.Fatal(err)
	}
	sqrtP, tick, liq := pc.v3.Slot0(t, pc.pool)
	ticks := pc.v3.PopulatedTicks(t, pc.pool)
	if st.SqrtPriceX96.Cmp(sqrtP) != 0 || st.Tick != tick || st.Liquidity.Cmp(liq) != 0 || len(st.Ticks) != len(ticks) {
		t.Fatalf("read %v %d %v %d ticks; chain %v %d %v %d ticks", st.SqrtPriceX96, st.Tick, st.Liquidity, len(st.Ticks), sqrtP, tick, liq, len(ticks))
	}
	for i := range ticks {
		if st.Ticks[i].Tick != ticks[i].Tick || st.Ticks[i].Net.Cmp(ticks[i].Net) != 0 {
			t.Fatalf("tick %d: read %+v, TickLens %+v", i, st.Ticks[i], ticks[i])
		}
	}
	// A block before the pool existed has no pool state.
	if _, err := ReadPoolState(context.Background(), b, pc.pool.Address, pc.pool.TickSpacing, 1); err == nil {
		t.Fatal("read a pool state before the pool existed")
	}
}
