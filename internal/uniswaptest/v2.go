// Package uniswaptest deploys real Uniswap contracts on chaintest's
// simulated chain for the tests of the token readers: Uniswap v2 (factory,
// pairs, Router02 and WETH9, from the npm packages' compiled artifacts in
// v2/, see v2/V2.md) with helpers to add liquidity and trade through the
// router as a wallet would.
package uniswaptest

import (
	_ "embed"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

var (
	//go:embed v2/UniswapV2Factory.abi
	v2FactoryABI string
	//go:embed v2/UniswapV2Factory.bin
	v2FactoryBin string
	//go:embed v2/UniswapV2Pair.abi
	v2PairABI string
	//go:embed v2/UniswapV2Pair.bin
	v2PairBin string
	//go:embed v2/UniswapV2Router02.abi
	v2RouterABI string
	//go:embed v2/UniswapV2Router02.bin
	v2RouterBin string
	//go:embed v2/WETH9.abi
	weth9ABI string
	//go:embed v2/WETH9.bin
	weth9Bin string
)

// The Uniswap v2 artifacts.
var (
	V2Factory = mustArtifact("UniswapV2Factory", v2FactoryABI, v2FactoryBin)
	V2Pair    = mustArtifact("UniswapV2Pair", v2PairABI, v2PairBin)
	V2Router  = mustArtifact("UniswapV2Router02", v2RouterABI, v2RouterBin)
	WETH9     = mustArtifact("WETH9", weth9ABI, weth9Bin)
)

// V2InitCodeHash is the pair init code hash Router02 has built in.
var V2InitCodeHash = common.HexToHash("0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f")

func mustArtifact(name, abiJSON, bin string) chaintest.Artifact {
	a, err := chaintest.LoadArtifact(name, abiJSON, bin)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return a
}

// V2 is a Uniswap v2 deployment on a simulated chain.
type V2 struct {
	Chain                 *chaintest.Chain
	WETH, Factory, Router common.Address
	Deployer              chaintest.Account
}

// DeployV2 deploys WETH9, the factory (fee setter: from) and Router02.
func DeployV2(t chaintest.TB, c *chaintest.Chain, from chaintest.Account) *V2 {
	t.Helper()
	v := &V2{Chain: c, Deployer: from}
	v.WETH = c.Deploy(t, from, WETH9)
	v.Factory = c.Deploy(t, from, V2Factory, from.Address)
	v.Router = c.Deploy(t, from, V2Router, v.Factory, v.WETH)
	return v
}

// Pair returns the pair of a and b (the zero address when there is none).
func (v *V2) Pair(t chaintest.TB, a, b common.Address) common.Address {
	t.Helper()
	out := v.call(t, V2Factory, v.Factory, "getPair", a, b)
	return out[0].(common.Address)
}

// Deadline is far in the future of any simulated block.
var Deadline = big.NewInt(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix())

// AddLiquidityETH approves the router and adds tokenAmount of token with
// ethAmount wei as liquidity from `from` (LP tokens to `from`), creating
// the pair if needed.
func (v *V2) AddLiquidityETH(t chaintest.TB, from chaintest.Account, token common.Address, tokenAmount, ethAmount *big.Int) *types.Receipt {
	t.Helper()
	v.Chain.Send(t, from, token, V2Pair.ABI, "approve", v.Router, tokenAmount)
	data, err := V2Router.ABI.Pack("addLiquidityETH", token, tokenAmount, big.NewInt(0), big.NewInt(0), from.Address, Deadline)
	if err != nil {
		t.Fatal(err)
	}
	return v.Chain.TransactValue(t, from, &v.Router, ethAmount, data)
}

// AddLiquidity approves the router for both tokens and adds amountA of a
// and amountB of b from `from`.
func (v *V2) AddLiquidity(t chaintest.TB, from chaintest.Account, a, b common.Address, amountA, amountB *big.Int) *types.Receipt {
	t.Helper()
	v.Chain.Send(t, from, a, V2Pair.ABI, "approve", v.Router, amountA)
	v.Chain.Send(t, from, b, V2Pair.ABI, "approve", v.Router, amountB)
	return v.Chain.Send(t, from, v.Router, V2Router.ABI, "addLiquidity", a, b, amountA, amountB, big.NewInt(0), big.NewInt(0), from.Address, Deadline)
}

// BuyWithETH swaps ethIn wei for token through WETH, as a wallet does
// (swapExactETHForTokensSupportingFeeOnTransferTokens), and returns the
// receipt whatever its status.
func (v *V2) BuyWithETH(t chaintest.TB, from chaintest.Account, token common.Address, ethIn *big.Int) *types.Receipt {
	t.Helper()
	data, err := V2Router.ABI.Pack("swapExactETHForTokensSupportingFeeOnTransferTokens", big.NewInt(0), []common.Address{v.WETH, token}, from.Address, Deadline)
	if err != nil {
		t.Fatal(err)
	}
	return v.Chain.TransactValueStatus(t, from, &v.Router, ethIn, data)
}

// SellForETH approves the router and swaps amount of token for ETH
// (swapExactTokensForETHSupportingFeeOnTransferTokens), returning the
// receipt whatever its status.
func (v *V2) SellForETH(t chaintest.TB, from chaintest.Account, token common.Address, amount *big.Int) *types.Receipt {
	t.Helper()
	v.Chain.Send(t, from, token, V2Pair.ABI, "approve", v.Router, amount)
	data, err := V2Router.ABI.Pack("swapExactTokensForETHSupportingFeeOnTransferTokens", amount, big.NewInt(0), []common.Address{token, v.WETH}, from.Address, Deadline)
	if err != nil {
		t.Fatal(err)
	}
	return v.Chain.TransactStatus(t, from, &v.Router, data)
}

// Swap swaps amountIn of path[0] along path through the router
// (swapExactTokensForTokensSupportingFeeOnTransferTokens) from `from`,
// returning the receipt whatever its status.
func (v *V2) Swap(t chaintest.TB, from chaintest.Account, amountIn *big.Int, path ...common.Address) *types.Receipt {
	t.Helper()
	v.Chain.Send(t, from, path[0], V2Pair.ABI, "approve", v.Router, amountIn)
	data, err := V2Router.ABI.Pack("swapExactTokensForTokensSupportingFeeOnTransferTokens", amountIn, big.NewInt(0), path, from.Address, Deadline)
	if err != nil {
		t.Fatal(err)
	}
	return v.Chain.TransactStatus(t, from, &v.Router, data)
}

func (v *V2) call(t chaintest.TB, art chaintest.Artifact, to common.Address, method string, args ...any) []any {
	t.Helper()
	out, err := v.Chain.CallContract(art.ABI, to, method, args...)
	if err != nil {
		t.Fatalf("%s.%s: %v", art.Name, method, err)
	}
	return out
}
