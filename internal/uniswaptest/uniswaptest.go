// Package uniswaptest deploys a real Uniswap v3 on go-ethereum's simulated
// backend, behind the JSON-RPC server of chaintest, for the tests of pool
// readers and liquidity estimates: the factory, pools, the
// NonfungiblePositionManager, the SwapRouter, QuoterV2 and TickLens, from
// the compiled artifacts of the npm packages @uniswap/v3-core 1.0.1 and
// @uniswap/v3-periphery 1.4.4 (installed into node_modules beside this
// file by scripts/install.d/uniswap.sh; only their JSON is read, at test
// time). The pool bytecode is the one Uniswap deployed: its keccak256 is
// the periphery's POOL_INIT_CODE_HASH, which DeployV3 checks.
//
//	ch := chaintest.New(t)
//	v3 := uniswaptest.DeployV3(t, ch)
//	a, b := v3.Token(t, "USD Coin", "USDC"), v3.Token(t, "Wrapped Ether", "WETH")
//	pool := v3.CreatePool(t, a, b, 3000, uniswaptest.SqrtPriceX96(2000))
//	v3.Mint(t, pool, -600, 600, amount0, amount1)
//	got := v3.SwapExactIn(t, pool, true, amountIn) // what the chain executed
//
// Uniswap v2 (factory, pairs, router) is the next deployment this package
// will hold, beside V3.
package uniswaptest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// PoolInitCodeHash is the periphery's POOL_INIT_CODE_HASH: the keccak256 of
// the UniswapV3Pool creation code, from which the periphery computes pool
// addresses.
const PoolInitCodeHash = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"

// V3 is a deployment of Uniswap v3 on a chaintest chain.
type V3 struct {
	Chain *chaintest.Chain
	// Owner deployed every contract and holds the tokens Token makes.
	Owner chaintest.Account
	// The contracts.
	Factory, PositionManager, Router, Quoter, TickLens common.Address
	// The ABIs of the contracts and of a pool.
	FactoryABI, PositionManagerABI, RouterABI, QuoterABI, TickLensABI, PoolABI abi.ABI
}

// Pool is a pool of a V3 deployment.
type Pool struct {
	Address        common.Address
	Token0, Token1 common.Address
	Fee            uint32
	TickSpacing    int32
}

// Artifact reads the compiled contract name from the npm package pkg
// (path under its artifacts/contracts, e.g. "lens/TickLens.sol"), failing
// the test, with the command that installs them, when they are missing.
func Artifact(t testing.TB, pkg, path, name string) chaintest.Artifact {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "node_modules", "@uniswap", pkg, "artifacts", "contracts", path, name+".json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("cannot read the Uniswap artifact %s (run scripts/install.d/uniswap.sh): %v", name, err)
	}
	var j struct {
		ABI            json.RawMessage `json:"abi"`
		Bytecode       string          `json:"bytecode"`
		LinkReferences map[string]any  `json:"linkReferences"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatalf("cannot decode %s: %v", p, err)
	}
	if len(j.LinkReferences) > 0 {
		t.Fatalf("%s needs libraries linked; not supported", name)
	}
	art, err := chaintest.LoadArtifact(name, string(j.ABI), j.Bytecode)
	if err != nil {
		t.Fatal(err)
	}
	return art
}

// maxUint is 2^256-1: approvals and deadlines without limit.
var maxUint = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// DeployV3 deploys the factory, the NonfungiblePositionManager, the
// SwapRouter, QuoterV2 and TickLens from the chain's first account. The
// periphery's WETH9 is a plain token (the tests pay no ether into pools).
// It raises the chain's gas per transaction to 15,000,000: the factory and
// the position manager are near the 24 KB code limit.
func DeployV3(t testing.TB, ch *chaintest.Chain) *V3 {
	t.Helper()
	ch.GasLimit = max(ch.GasLimit, 15_000_000)
	pool := Artifact(t, "v3-core", "UniswapV3Pool.sol", "UniswapV3Pool")
	if h := crypto.Keccak256Hash(pool.Bin).Hex(); h != PoolInitCodeHash {
		t.Fatalf("UniswapV3Pool creation code hashes to %s, the periphery expects %s", h, PoolInitCodeHash)
	}
	factory := Artifact(t, "v3-core", "UniswapV3Factory.sol", "UniswapV3Factory")
	npm := Artifact(t, "v3-periphery", "NonfungiblePositionManager.sol", "NonfungiblePositionManager")
	router := Artifact(t, "v3-periphery", "SwapRouter.sol", "SwapRouter")
	quoter := Artifact(t, "v3-periphery", "lens/QuoterV2.sol", "QuoterV2")
	lens := Artifact(t, "v3-periphery", "lens/TickLens.sol", "TickLens")
	v := &V3{Chain: ch, Owner: ch.Accounts[0], FactoryABI: factory.ABI, PositionManagerABI: npm.ABI, RouterABI: router.ABI,
		QuoterABI: quoter.ABI, TickLensABI: lens.ABI, PoolABI: pool.ABI}
	weth := ch.Deploy(t, v.Owner, chaintest.ERC20, "Wrapped Ether (test)", "WETH9", uint8(18), big.NewInt(0))
	v.Factory = ch.Deploy(t, v.Owner, factory)
	v.PositionManager = ch.Deploy(t, v.Owner, npm, v.Factory, weth, common.Address{})
	v.Router = ch.Deploy(t, v.Owner, router, v.Factory, weth)
	v.Quoter = ch.Deploy(t, v.Owner, quoter, v.Factory, weth)
	v.TickLens = ch.Deploy(t, v.Owner, lens)
	return v
}

// Token deploys an ERC-20 of 18 decimals (chaintest.ERC20) with a supply
// of 10^30 units held by Owner, approved without limit for the position
// manager and the router.
func (v *V3) Token(t testing.TB, name, symbol string) common.Address {
	t.Helper()
	return v.TokenDecimals(t, name, symbol, 18)
}

// TokenDecimals is Token with the given decimals: a 6-decimal stablecoin
// such as USDC.e. The supply is 10^30 atomic units.
func (v *V3) TokenDecimals(t testing.TB, name, symbol string, decimals uint8) common.Address {
	t.Helper()
	supply := new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)
	tok := v.Chain.Deploy(t, v.Owner, chaintest.ERC20, name, symbol, decimals, supply)
	for _, spender := range []common.Address{v.PositionManager, v.Router} {
		v.Chain.Send(t, v.Owner, tok, chaintest.ERC20.ABI, "approve", spender, maxUint)
	}
	return tok
}

// CreatePool creates the pool of tokens a and b with fee (hundredths of a
// bip: 500, 3000, 10000) and initializes it at sqrtPriceX96 (the square
// root of token1 per token0, Q64.96).
func (v *V3) CreatePool(t testing.TB, a, b common.Address, fee uint32, sqrtPriceX96 *big.Int) *Pool {
	t.Helper()
	v.Chain.Send(t, v.Owner, v.Factory, v.FactoryABI, "createPool", a, b, big.NewInt(int64(fee)))
	var addr common.Address
	v.call(t, v.Factory, v.FactoryABI, "getPool", []any{&addr}, a, b, big.NewInt(int64(fee)))
	if addr == (common.Address{}) {
		t.Fatalf("no pool for %s/%s fee %d", a.Hex(), b.Hex(), fee)
	}
	v.Chain.Send(t, v.Owner, addr, v.PoolABI, "initialize", sqrtPriceX96)
	p := &Pool{Address: addr, Token0: a, Token1: b, Fee: fee}
	if a.Cmp(b) > 0 {
		p.Token0, p.Token1 = b, a
	}
	var spacing *big.Int
	v.call(t, addr, v.PoolABI, "tickSpacing", []any{&spacing})
	p.TickSpacing = int32(spacing.Int64())
	return p
}

// SqrtPriceX96 is the Q64.96 square root of price (token1 per token0 in
// atomic units), rounded down: an initial price for CreatePool.
func SqrtPriceX96(price float64) *big.Int {
	f := new(big.Float).SetPrec(256).SetFloat64(math.Sqrt(price))
	f.Mul(f, new(big.Float).SetPrec(256).SetInt(new(big.Int).Lsh(big.NewInt(1), 96)))
	x, _ := f.Int(nil)
	return x
}

// Minted is a position the position manager minted.
type Minted struct {
	TokenID, Liquidity, Amount0, Amount1 *big.Int
}

// Mint opens a position of Owner over [tickLower, tickUpper) with up to
// amount0 and amount1 (the manager takes the liquidity they allow at the
// current price) and returns what it minted.
func (v *V3) Mint(t testing.TB, p *Pool, tickLower, tickUpper int32, amount0, amount1 *big.Int) Minted {
	t.Helper()
	params := struct {
		Token0         common.Address
		Token1         common.Address
		Fee            *big.Int
		TickLower      *big.Int
		TickUpper      *big.Int
		Amount0Desired *big.Int
		Amount1Desired *big.Int
		Amount0Min     *big.Int
		Amount1Min     *big.Int
		Recipient      common.Address
		Deadline       *big.Int
	}{p.Token0, p.Token1, big.NewInt(int64(p.Fee)), big.NewInt(int64(tickLower)), big.NewInt(int64(tickUpper)),
		amount0, amount1, big.NewInt(0), big.NewInt(0), v.Owner.Address, maxUint}
	r := v.Chain.Send(t, v.Owner, v.PositionManager, v.PositionManagerABI, "mint", params)
	var m Minted
	ev := v.PositionManagerABI.Events["IncreaseLiquidity"]
	for _, l := range r.Logs {
		if l.Address == v.PositionManager && len(l.Topics) == 2 && l.Topics[0] == ev.ID {
			vals, err := ev.Inputs.NonIndexed().Unpack(l.Data)
			if err != nil {
				t.Fatal(err)
			}
			m = Minted{TokenID: new(big.Int).SetBytes(l.Topics[1][:]), Liquidity: vals[0].(*big.Int), Amount0: vals[1].(*big.Int), Amount1: vals[2].(*big.Int)}
		}
	}
	if m.TokenID == nil {
		t.Fatal("mint emitted no IncreaseLiquidity")
	}
	return m
}

// Burn removes liquidity from a minted position (the pool emits Burn).
func (v *V3) Burn(t testing.TB, m Minted, liquidity *big.Int) {
	t.Helper()
	params := struct {
		TokenId    *big.Int
		Liquidity  *big.Int
		Amount0Min *big.Int
		Amount1Min *big.Int
		Deadline   *big.Int
	}{m.TokenID, liquidity, big.NewInt(0), big.NewInt(0), maxUint}
	v.Chain.Send(t, v.Owner, v.PositionManager, v.PositionManagerABI, "decreaseLiquidity", params)
}

// Swapped is a swap the pool executed: its Swap event.
type Swapped struct {
	// Amount0 and Amount1 are the pool's deltas: positive into the pool.
	Amount0, Amount1 *big.Int
	SqrtPriceX96     *big.Int
	Liquidity        *big.Int
	Tick             int32
	Block            uint64
}

// AmountIn and AmountOut are the swap's input (fee included) and output.
func (s Swapped) AmountIn() *big.Int {
	if s.Amount0.Sign() > 0 {
		return s.Amount0
	}
	return s.Amount1
}

// AmountOut is the amount the pool paid out.
func (s Swapped) AmountOut() *big.Int {
	if s.Amount0.Sign() < 0 {
		return new(big.Int).Neg(s.Amount0)
	}
	return new(big.Int).Neg(s.Amount1)
}

// SwapExactIn swaps amountIn of token0 (zeroForOne) or token1 through the
// router, from Owner, without a price limit, and returns what the pool
// executed.
func (v *V3) SwapExactIn(t testing.TB, p *Pool, zeroForOne bool, amountIn *big.Int) Swapped {
	t.Helper()
	in, out := p.Token0, p.Token1
	if !zeroForOne {
		in, out = out, in
	}
	params := struct {
		TokenIn           common.Address
		TokenOut          common.Address
		Fee               *big.Int
		Recipient         common.Address
		Deadline          *big.Int
		AmountIn          *big.Int
		AmountOutMinimum  *big.Int
		SqrtPriceLimitX96 *big.Int
	}{in, out, big.NewInt(int64(p.Fee)), v.Owner.Address, maxUint, amountIn, big.NewInt(0), big.NewInt(0)}
	r := v.Chain.Send(t, v.Owner, v.Router, v.RouterABI, "exactInputSingle", params)
	for _, l := range r.Logs {
		if l.Address == p.Address && len(l.Topics) > 0 && l.Topics[0] == uniswap.TopicSwap {
			sw, err := uniswap.DecodeSwap(l)
			if err != nil {
				t.Fatal(err)
			}
			return Swapped{Amount0: sw.Amount0, Amount1: sw.Amount1, SqrtPriceX96: sw.SqrtPriceX96, Liquidity: sw.Liquidity, Tick: sw.Tick, Block: r.BlockNumber.Uint64()}
		}
	}
	t.Fatal("the swap emitted no Swap event")
	return Swapped{}
}

// Quoted is QuoterV2's answer for an exact-input swap.
type Quoted struct {
	AmountOut, SqrtPriceX96After *big.Int
	TicksCrossed                 uint32
}

// QuoteExactIn asks QuoterV2 (with eth_call, at the latest block) what
// swapping amountIn of token0 (zeroForOne) or token1 would pay out.
func (v *V3) QuoteExactIn(t testing.TB, p *Pool, zeroForOne bool, amountIn *big.Int) Quoted {
	t.Helper()
	in, out := p.Token0, p.Token1
	if !zeroForOne {
		in, out = out, in
	}
	params := struct {
		TokenIn           common.Address
		TokenOut          common.Address
		AmountIn          *big.Int
		Fee               *big.Int
		SqrtPriceLimitX96 *big.Int
	}{in, out, amountIn, big.NewInt(int64(p.Fee)), big.NewInt(0)}
	var q Quoted
	var gas *big.Int
	v.call(t, v.Quoter, v.QuoterABI, "quoteExactInputSingle", []any{&q.AmountOut, &q.SqrtPriceX96After, &q.TicksCrossed, &gas}, params)
	return q
}

// Slot0 returns the pool's price and tick, and its in-range liquidity.
func (v *V3) Slot0(t testing.TB, p *Pool) (sqrtPriceX96 *big.Int, tick int32, liquidity *big.Int) {
	t.Helper()
	out, err := v.callValues(p.Address, v.PoolABI, "slot0")
	if err != nil {
		t.Fatal(err)
	}
	sqrtPriceX96, tick = out[0].(*big.Int), int32(out[1].(*big.Int).Int64())
	v.call(t, p.Address, v.PoolABI, "liquidity", []any{&liquidity})
	return sqrtPriceX96, tick, liquidity
}

// TickNet is an initialized tick and its liquidityNet.
type TickNet struct {
	Tick int32
	Net  *big.Int
}

// PopulatedTicks returns every initialized tick of the pool, ascending,
// read through TickLens over every word of the tick bitmap.
func (v *V3) PopulatedTicks(t testing.TB, p *Pool) []TickNet {
	t.Helper()
	var out []TickNet
	lo, hi := uniswap.BitmapWords(p.TickSpacing)
	for w := lo; w <= hi; w++ {
		vals, err := v.callValues(v.TickLens, v.TickLensABI, "getPopulatedTicksInWord", p.Address, w)
		if err != nil {
			t.Fatal(err)
		}
		type populated = []struct{ Tick, LiquidityNet, LiquidityGross *big.Int }
		ticks := *abi.ConvertType(vals[0], new(populated)).(*populated)
		// TickLens lists a word's ticks from the highest down.
		for i := len(ticks) - 1; i >= 0; i-- {
			out = append(out, TickNet{Tick: int32(ticks[i].Tick.Int64()), Net: ticks[i].LiquidityNet})
		}
	}
	return out
}

// Head is the number of the chain's latest block.
func (v *V3) Head(t testing.TB) uint64 {
	t.Helper()
	n, err := v.Chain.Backend.Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// call runs a view method with eth_call at the latest block and unpacks
// its results into out.
func (v *V3) call(t testing.TB, to common.Address, a abi.ABI, method string, out []any, args ...any) {
	t.Helper()
	vals, err := v.callValues(to, a, method, args...)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(out) {
		t.Fatalf("%s returned %d values, want %d", method, len(vals), len(out))
	}
	for i := range out {
		if err := assign(out[i], vals[i]); err != nil {
			t.Fatalf("%s result %d: %v", method, i, err)
		}
	}
}

func (v *V3) callValues(to common.Address, a abi.ABI, method string, args ...any) ([]any, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot pack %s: %w", method, err)
	}
	res, err := v.Chain.Backend.Client().CallContract(context.Background(), ethereum.CallMsg{From: v.Owner.Address, To: &to, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot call %s: %w", method, err)
	}
	return a.Unpack(method, res)
}

// assign stores an unpacked ABI value into *dst.
func assign(dst, val any) error {
	switch d := dst.(type) {
	case **big.Int:
		x, ok := val.(*big.Int)
		if !ok {
			return fmt.Errorf("%T is not an integer", val)
		}
		*d = x
	case *common.Address:
		x, ok := val.(common.Address)
		if !ok {
			return fmt.Errorf("%T is not an address", val)
		}
		*d = x
	case *uint32:
		x, ok := val.(uint32)
		if !ok {
			return fmt.Errorf("%T is not a uint32", val)
		}
		*d = x
	default:
		return fmt.Errorf("cannot assign to %T", dst)
	}
	return nil
}
