package uniswaptest_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// TestV2PairInitCodeHash: the npm pair bytecode is the one Router02's
// pairFor expects, so the router and the factory agree on pair addresses.
func TestV2PairInitCodeHash(t *testing.T) {
	if h := crypto.Keccak256Hash(uniswaptest.V2Pair.Bin); h != uniswaptest.V2InitCodeHash {
		t.Fatalf("pair init code hash %s", h.Hex())
	}
}

// TestV2RouterTrades adds liquidity and trades through the router both
// ways, checking the constant-product amounts.
func TestV2RouterTrades(t *testing.T) {
	c := chaintest.New(t)
	o := c.Accounts[0]
	v := uniswaptest.DeployV2(t, c, o)
	e18 := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	tok := c.Deploy(t, o, chaintest.ERC20, "T", "T", uint8(18), new(big.Int).Mul(big.NewInt(1_000_000), e18))
	v.AddLiquidityETH(t, o, tok, new(big.Int).Mul(big.NewInt(1000), e18), new(big.Int).Mul(big.NewInt(10), e18))
	pair := v.Pair(t, tok, v.WETH)
	if pair == [20]byte{} {
		t.Fatal("no pair")
	}
	buyer := c.Accounts[1]
	r := v.BuyWithETH(t, buyer, tok, e18) // 1 ETH into 10 ETH / 1000 T
	if r.Status != 1 {
		t.Fatal("buy reverted")
	}
	out, err := c.CallContract(chaintest.ERC20.ABI, tok, "balanceOf", buyer.Address)
	if err != nil {
		t.Fatal(err)
	}
	// getAmountOut(1e18, 10e18, 1000e18) = 997e15*1000e18/(10e18*1000+997e15)
	in := new(big.Int).Mul(e18, big.NewInt(997))
	want := new(big.Int).Div(new(big.Int).Mul(in, new(big.Int).Mul(big.NewInt(1000), e18)), new(big.Int).Add(new(big.Int).Mul(new(big.Int).Mul(big.NewInt(10), e18), big.NewInt(1000)), in))
	if got := out[0].(*big.Int); got.Cmp(want) != 0 {
		t.Fatalf("bought %s, want %s", got, want)
	}
	if r := v.SellForETH(t, buyer, tok, want); r.Status != 1 {
		t.Fatal("sell reverted")
	}
}
