package main

import (
	"fmt"
	"log/slog"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/token"
)

// DevChainSeed derives the demo chain's account keys: with the same seed
// and the same deployment order, every contract lands at the same address
// on every run (the README tour lists them).
const DevChainSeed = "mi-demo"

// devDeploy turns a failed deployment step into a panic the caller
// recovers as an error (chaintest.TB outside a test).
type devDeploy struct{}

type devFailure struct{ msg string }

func (devDeploy) Helper()                      {}
func (devDeploy) Fatal(args ...any)            { panic(devFailure{fmt.Sprint(args...)}) }
func (devDeploy) Fatalf(f string, args ...any) { panic(devFailure{fmt.Sprintf(f, args...)}) }

// startDevChain starts go-ethereum's simulated backend in process with a
// JSON-RPC server on addr, deploys the token-analysis suite on it
// (internal/tokentest: Uniswap v2, the test tokens and their pools, real
// trades through the router), and returns a token reader serving it as
// the chain "base" (docs/token.md, "The demo's chain"). stop ends it.
//
// coins are the suite's stablecoins on it (USDT with its feed, USDC), for
// the depeg watch: swapping USDT into the USDT/USDC pair through the
// router makes the watch fire stablecoin_depeg.
func startDevChain(addr string, reg *sources.Registry, log *slog.Logger) (r *token.Reader, coins []token.Stablecoin, stop func(), err error) {
	c, err := chaintest.Start(chaintest.StartOptions{Seed: DevChainSeed, Addr: addr})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot start the dev chain: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(devFailure)
			if !ok {
				panic(p)
			}
			c.Close()
			r, coins, stop, err = nil, nil, nil, fmt.Errorf("cannot deploy the token suite on the dev chain: %s", f.msg)
		}
	}()
	s := tokentest.Deploy(devDeploy{}, c)
	set, err := chain.Open([]sources.ChainConfig{{Chain: "base", RPC: c.URL, ChainID: chaintest.ChainID}}, chain.Options{Registry: reg})
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	log.Info("dev chain serving the token suite as chain base", "rpc", c.URL, "chainId", chaintest.ChainID,
		"plain", s.Plain.Hex(), "honeypot", s.Honeypot.Hex(), "fee", s.Fee.Hex(), "blacklist", s.Blacklist.Hex(),
		"tradingSwitch", s.TradingSwitch.Hex(), "proxied", s.Proxied.Hex(), "selfDestructed", s.Gone.Hex(),
		"notAToken", s.NotToken.Hex(), "usdc", s.USDC.Hex(), "usdt", s.USDT.Hex(), "weth", s.V2.WETH.Hex(),
		"factory", s.V2.Factory.Hex(), "router", s.V2.Router.Hex(), "trader", s.Traders[0].Address.Hex())
	r = token.New(set, token.Options{Venues: []token.ChainVenues{{Chain: "base", WETH: s.V2.WETH,
		Stables: []token.Stable{{Symbol: "USDC", Address: s.USDC, Decimals: 6}, {Symbol: "USDT", Address: s.USDT, Decimals: 6}},
		Venues:  []token.Venue{{Name: "uniswap_v2", Kind: token.KindV2, Factory: s.V2.Factory}}}}})
	coins = []token.Stablecoin{
		{Symbol: "USDT", Chain: "base", Address: s.USDT, Decimals: 6, Feed: s.USDTFeed},
		{Symbol: "USDC", Chain: "base", Address: s.USDC, Decimals: 6},
	}
	return r, coins, func() { set.Close(); c.Close() }, nil
}
