// Package tokentest deploys the token-analysis suite on chaintest's
// simulated chain: the test tokens of SuiteTokens.sol (built as
// SuiteTokens.md says), each paired with WETH in a Uniswap v2 pool of
// internal/uniswaptest, and real trades through the router by several
// wallets, so that the token readers see what they would see on a real
// chain: pools found through the factory, Swap logs, recent real buyers.
package tokentest

import (
	_ "embed"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

var (
	//go:embed PlainToken.abi
	plainABI string
	//go:embed PlainToken.bin
	plainBin string
	//go:embed HoneypotToken.abi
	honeypotABI string
	//go:embed HoneypotToken.bin
	honeypotBin string
	//go:embed FeeToken.abi
	feeABI string
	//go:embed FeeToken.bin
	feeBin string
	//go:embed BlacklistToken.abi
	blacklistABI string
	//go:embed BlacklistToken.bin
	blacklistBin string
	//go:embed TradingSwitchToken.abi
	switchABI string
	//go:embed TradingSwitchToken.bin
	switchBin string
	//go:embed ProxiedTokenImpl.abi
	implABI string
	//go:embed ProxiedTokenImpl.bin
	implBin string
	//go:embed SuiteProxy.abi
	proxyABI string
	//go:embed SuiteProxy.bin
	proxyBin string
	//go:embed SelfDestructToken.abi
	goneABI string
	//go:embed SelfDestructToken.bin
	goneBin string
	//go:embed TestAggregator.abi
	aggABI string
	//go:embed TestAggregator.bin
	aggBin string
)

// The suite's artifacts.
var (
	Plain         = must("PlainToken", plainABI, plainBin)
	Honeypot      = must("HoneypotToken", honeypotABI, honeypotBin)
	Fee           = must("FeeToken", feeABI, feeBin)
	Blacklist     = must("BlacklistToken", blacklistABI, blacklistBin)
	TradingSwitch = must("TradingSwitchToken", switchABI, switchBin)
	ProxiedImpl   = must("ProxiedTokenImpl", implABI, implBin)
	Proxy         = must("SuiteProxy", proxyABI, proxyBin)
	SelfDestruct  = must("SelfDestructToken", goneABI, goneBin)
	Aggregator    = must("TestAggregator", aggABI, aggBin)
)

func must(name, a, b string) chaintest.Artifact {
	art, err := chaintest.LoadArtifact(name, a, b)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return art
}

// BalanceSlot is the storage slot of the suite tokens' balance mapping.
const BalanceSlot = 0

// Units returns n whole tokens of 18 decimals.
func Units(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
}

// Milli returns n thousandths of a whole 18-decimal unit (ETH: n finney).
func Milli(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(15), nil))
}

// Suite is the deployed suite.
type Suite struct {
	Chain *chaintest.Chain
	V2    *uniswaptest.V2
	// Owner deployed everything and holds the supplies.
	Owner chaintest.Account
	// Traders bought (and some sold) each tradable token.
	Traders []chaintest.Account

	// USDC is a 6-decimal plain token standing in for a USD stablecoin,
	// paired with WETH so that WETH has a USD price (3000 USDC per WETH).
	USDC common.Address
	// USDT is a second 6-decimal stablecoin in a USDC/USDT pair of
	// 1,000,000 each; USDTFeed a Chainlink-style USDT/USD feed at 1.00
	// (8 decimals).
	USDT, USDTFeed common.Address
	// The tokens, each in a WETH pair holding 100 WETH against 1,000,000
	// tokens (Gone and NoToken have no pair).
	Plain, Honeypot, Fee, Blacklist, TradingSwitch, Proxied common.Address
	// Gone is the address of a token that self-destructed in its creation.
	Gone common.Address
	// NotToken is a contract that is not an ERC-20 (the v2 factory).
	NotToken common.Address
}

// Supply of every suite token: 1,000,000,000 whole tokens.
var Supply = Units(1_000_000_000)

// Deploy deploys the suite on c with Accounts[0] as owner and three new
// trader wallets; each tradable token gets its WETH pool and trades: every
// trader buys 1 ETH worth, the first trader sells half of it back (the
// honeypot's sell reverts and is mined as a failed transaction).
func Deploy(t chaintest.TB, c *chaintest.Chain) *Suite {
	t.Helper()
	s := &Suite{Chain: c, Owner: c.Accounts[0]}
	s.V2 = uniswaptest.DeployV2(t, c, s.Owner)
	o := s.Owner
	for range 3 {
		s.Traders = append(s.Traders, c.NewAccount(t, Units(50)))
	}
	// USDC: a plain token with 6 decimals is enough for a USD quote.
	s.USDC = c.Deploy(t, o, Plain, "USD Coin (suite)", "USDC", new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(1e6)))
	s.Plain = c.Deploy(t, o, Plain, "Plain Token", "PLAIN", Supply)
	s.Honeypot = c.Deploy(t, o, Honeypot, "Honey Pot", "HONEY", Supply, s.V2.Factory, s.V2.WETH)
	s.Fee = c.Deploy(t, o, Fee, "Fee Token", "FEE", Supply, s.V2.Factory, s.V2.WETH)
	s.Blacklist = c.Deploy(t, o, Blacklist, "Blacklist Token", "BLOCK", Supply)
	s.TradingSwitch = c.Deploy(t, o, TradingSwitch, "Switch Token", "SWITCH", Supply, s.V2.Factory, s.V2.WETH)
	impl := c.Deploy(t, o, ProxiedImpl)
	init, err := ProxiedImpl.ABI.Pack("initialize", "Proxied Token", "PROXY", Supply, o.Address)
	if err != nil {
		t.Fatal(err)
	}
	s.Proxied = c.Deploy(t, o, Proxy, impl, init)
	s.Gone = c.Deploy(t, o, SelfDestruct, Supply)
	s.NotToken = s.V2.Factory

	s.USDT = c.Deploy(t, o, Plain, "Tether USD (suite)", "USDT", new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(1e6)))
	s.USDTFeed = c.Deploy(t, o, Aggregator, uint8(8), "USDT / USD", big.NewInt(100_000_000))
	s.V2.AddLiquidity(t, o, s.USDC, s.USDT, new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e6)), new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e6)))
	// WETH/USDC at 3000 USDC per WETH: 100 WETH and 300,000 USDC.
	s.V2.AddLiquidityETH(t, o, s.USDC, new(big.Int).Mul(big.NewInt(300_000), big.NewInt(1e6)), Units(100))
	c.Send(t, o, s.TradingSwitch, TradingSwitch.ABI, "openTrading")
	for _, tok := range s.Tradable() {
		s.V2.AddLiquidityETH(t, o, tok, Units(1_000_000), Units(100))
	}
	for _, tok := range s.Tradable() {
		for _, tr := range s.Traders {
			s.V2.BuyWithETH(t, tr, tok, Units(1))
		}
		bal := s.BalanceOf(t, tok, s.Traders[0].Address)
		s.V2.SellForETH(t, s.Traders[0], tok, new(big.Int).Div(bal, big.NewInt(2)))
	}
	return s
}

// Tradable are the tokens with a WETH pool.
func (s *Suite) Tradable() []common.Address {
	return []common.Address{s.Plain, s.Honeypot, s.Fee, s.Blacklist, s.TradingSwitch, s.Proxied}
}

// BalanceOf reads token.balanceOf(holder).
func (s *Suite) BalanceOf(t chaintest.TB, token, holder common.Address) *big.Int {
	t.Helper()
	out, err := s.Chain.CallContract(Plain.ABI, token, "balanceOf", holder)
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(*big.Int)
}
