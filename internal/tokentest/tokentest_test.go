package tokentest_test

import (
	"math/big"
	"testing"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// TestSuiteBehaviours deploys the suite and checks each token does what it
// is written to do, through the real router.
func TestSuiteBehaviours(t *testing.T) {
	c := chaintest.New(t)
	s := tokentest.Deploy(t, c)
	tr := s.Traders[1]
	// Fee token: 10 % of a buy goes to the owner.
	bal := s.BalanceOf(t, s.Fee, tr.Address)
	plain := s.BalanceOf(t, s.Plain, tr.Address)
	if bal.Sign() <= 0 || plain.Sign() <= 0 {
		t.Fatal("no tokens bought")
	}
	// Same pool sizes and same ETH in: the fee buyer got 90 % of the
	// plain buyer's amount (pool states differ slightly per trade order,
	// so compare within 1 %).
	ratio, _ := new(big.Rat).SetFrac(bal, plain).Float64()
	if ratio < 0.89 || ratio > 0.91 {
		t.Fatalf("fee buy ratio %.4f", ratio)
	}
	// Honeypot: a trader's sell reverts, the owner's passes.
	if r := s.V2.SellForETH(t, tr, s.Honeypot, tokentest.Units(1000)); r.Status != 0 {
		t.Fatal("honeypot sell passed")
	}
	if r := s.V2.SellForETH(t, s.Owner, s.Honeypot, tokentest.Units(1000)); r.Status != 1 {
		t.Fatal("owner's honeypot sell reverted")
	}
	// Plain token sells.
	if r := s.V2.SellForETH(t, tr, s.Plain, tokentest.Units(1000)); r.Status != 1 {
		t.Fatal("plain sell reverted")
	}
	// Blacklist: a blacklisted trader cannot sell.
	c.Send(t, s.Owner, s.Blacklist, tokentest.Blacklist.ABI, "setBlacklist", tr.Address, true)
	if r := s.V2.SellForETH(t, tr, s.Blacklist, tokentest.Units(1000)); r.Status != 0 {
		t.Fatal("blacklisted sell passed")
	}
	// The proxy answers as the token.
	if s.BalanceOf(t, s.Proxied, tr.Address).Sign() <= 0 {
		t.Fatal("no proxied tokens bought")
	}
	// The self-destructed token has no code.
	code, err := c.Backend.Client().CodeAt(t.Context(), s.Gone, nil)
	if err != nil || len(code) != 0 {
		t.Fatalf("gone token code %d bytes, %v", len(code), err)
	}
}
