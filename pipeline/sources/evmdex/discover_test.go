package evmdex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// TestPoolsFromTheFactory runs the connector on a chain with the real
// Uniswap v3 factory and pools created before and after it starts. Pools
// discovered from the factory's PoolCreated logs (both tokens listed) are
// followed — one created before the start, one created after it whose
// first mint lies in the very range that created it — and a pool named by
// its pair is found with getPool; a pool with an unlisted token is not
// followed, and a pair without a pool is logged once and skipped.
func TestPoolsFromTheFactory(t *testing.T) {
	ch := chaintest.New(t)
	v := uniswaptest.DeployV3(t, ch)
	a, b := v.Token(t, "Token A", "TKA"), v.Token(t, "Token B", "TKB")
	c, d := v.Token(t, "Token C", "TKC"), v.Token(t, "Token D", "TKD")
	from := v.Head(t) + 1
	ab := v.CreatePool(t, a, b, 500, uniswaptest.SqrtPriceX96(1))
	ad := v.CreatePool(t, a, d, 3000, uniswaptest.SqrtPriceX96(1)) // D is not listed: found only by its pair
	cd := v.CreatePool(t, c, d, 500, uniswaptest.SqrtPriceX96(1))  // never followed
	v.Mint(t, ab, -600, 600, tokens(1_000), tokens(1_000))         // before the start: in the snapshot
	start := v.Head(t) + 1
	bc := v.CreatePool(t, b, c, 500, uniswaptest.SqrtPriceX96(1)) // after the start
	v.Mint(t, bc, -600, 600, tokens(1_000), tokens(1_000))
	v.SwapExactIn(t, bc, true, tokens(10))
	v.Mint(t, ad, -600, 600, tokens(1_000), tokens(1_000))
	v.SwapExactIn(t, ad, false, tokens(10))
	v.SwapExactIn(t, ab, true, tokens(10))
	v.Mint(t, cd, -600, 600, tokens(1_000), tokens(1_000))
	v.SwapExactIn(t, cd, true, tokens(10))
	end := v.Head(t)

	var mu sync.Mutex
	var logged []string
	cfg := Config{
		ChainConfig: ChainConfig{Chain: "testchain", RPC: v.Chain.URL, PollInterval: Duration(5 * time.Millisecond), MaxRange: 1000,
			Factory: v.Factory.Hex(), Discover: &Discover{FromBlock: from, Tokens: []string{a.Hex(), b.Hex(), c.Hex()}}},
		Pools: []PoolConfig{{Chain: "testchain", Token0: d.Hex(), Token1: a.Hex(), Fee: 3000, Name: "A/D by pair"},
			{Chain: "testchain", Token0: b.Hex(), Token1: d.Hex(), Fee: 500}},
		StartBlock: start, EndBlock: end, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Logf: func(f string, args ...any) { mu.Lock(); logged = append(logged, fmt.Sprintf(f, args...)); mu.Unlock() },
	}
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kinds := map[common.Address][]operators.PoolEventKind{}
	names := map[common.Address]string{}
	for {
		r, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.Stats())
		}
		if r.Side == nil {
			continue // the test tokens are not in the registry: no trades
		}
		ev := poolEvent(t, r)
		pa := common.HexToAddress(ev.Meta.Address)
		kinds[pa] = append(kinds[pa], ev.Kind)
		names[pa] = ev.Meta.Name
	}
	want := map[common.Address]string{
		ab.Address: "[snapshot swap]",      // discovered before the start: its state, then its swap
		bc.Address: "[mint swap]",          // created after the start, first mint in the same range
		ad.Address: "[snapshot mint swap]", // by pair, through getPool
	}
	for pa, w := range want {
		if got := kindNames(kinds[pa]); got != w {
			t.Errorf("pool %s: events %s, want %s", pa.Hex(), got, w)
		}
	}
	if len(kinds[cd.Address]) != 0 {
		t.Errorf("pool C/D (token D not listed) was followed: %s", kindNames(kinds[cd.Address]))
	}
	if len(kinds) != len(want) {
		t.Errorf("followed %d pools, want %d", len(kinds), len(want))
	}
	if names[ad.Address] != "A/D by pair" || names[bc.Address] != "TKB/TKC 0.05%" && names[bc.Address] != "TKC/TKB 0.05%" {
		t.Errorf("pool names %q and %q", names[ad.Address], names[bc.Address])
	}
	mu.Lock()
	defer mu.Unlock()
	missing := 0
	for _, l := range logged {
		if strings.Contains(l, "has no pool of") && strings.Contains(l, "fee 500") {
			missing++
		}
	}
	if missing != 1 {
		t.Errorf("the pair without a pool was logged %d times, want once: %q", missing, logged)
	}
}

func kindNames(ks []operators.PoolEventKind) string {
	var out []string
	for _, k := range ks {
		out = append(out, map[operators.PoolEventKind]string{operators.PoolSwap: "swap", operators.PoolMint: "mint",
			operators.PoolBurn: "burn", operators.PoolSnapshot: "snapshot"}[k])
	}
	return fmt.Sprint(out)
}

// TestDiscoverConfig: the configuration errors name the field and what is
// accepted.
func TestDiscoverConfig(t *testing.T) {
	const tok = "0x1111111111111111111111111111111111111111"
	const tok2 = "0x2222222222222222222222222222222222222222"
	f := func(c ChainConfig, pools []PoolConfig, want string) {
		t.Helper()
		err := File{Chains: []ChainConfig{c}, Pools: pools}.Validate()
		if want == "" {
			if err != nil {
				t.Errorf("%+v %+v: %v", c, pools, err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v %+v: error %v, want one containing %q", c, pools, err, want)
		}
	}
	base := ChainConfig{Chain: "ethereum", RPC: "ws://x"}
	withFactory := base
	withFactory.Factory = tok
	f(withFactory, []PoolConfig{{Chain: "ethereum", Token0: tok, Token1: tok2, Fee: 500}}, "")
	f(base, []PoolConfig{{Chain: "ethereum", Token0: tok, Token1: tok2, Fee: 500}}, "needs the chain's factory")
	f(withFactory, []PoolConfig{{Chain: "ethereum", Token0: tok, Token1: tok, Fee: 500}}, "the same token")
	f(withFactory, []PoolConfig{{Chain: "ethereum", Token0: tok, Token1: tok2}}, "fee 0 out of range")
	f(withFactory, []PoolConfig{{Chain: "ethereum", Token0: tok, Token1: "0x12", Fee: 500}}, "20-byte hex")
	f(withFactory, []PoolConfig{{Chain: "ethereum", Address: tok, Token0: tok, Token1: tok2, Fee: 500}}, "not both")
	d := withFactory
	d.Discover = &Discover{Tokens: []string{tok}}
	f(d, nil, "a pool needs two")
	d.Discover = &Discover{Tokens: []string{tok, "nope"}}
	f(d, nil, `"nope" is not a 20-byte hex address`)
	d.Discover = &Discover{Tokens: []string{tok, tok2}}
	f(d, nil, "")
	nd := base
	nd.Discover = &Discover{Tokens: []string{tok, tok2}}
	f(nd, nil, "discover needs the chain's factory")
	bad := base
	bad.Factory = "0xzz"
	f(bad, nil, `factory "0xzz" is not`)
}
