package x402_test

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/query/paywall/x402"
	"github.com/marketintel/mi/query/paywall/x402/x402test"
)

// TestSettlementBackends settles on the simulated chain through the relayer
// directly and through the facilitator client talking to a facilitator
// server over HTTP: each payment moves the money once; a replay, an unfunded
// payer and a payment to another payee move nothing.
func TestSettlementBackends(t *testing.T) {
	chain := x402test.NewChain(t)
	relayer := chain.NewRelayer()
	fac := httptest.NewServer(x402.FacilitatorHandler(relayer))
	t.Cleanup(fac.Close)
	backends := []struct {
		name string
		s    x402.Settler
	}{
		{"relayer", relayer},
		{"facilitator", &x402.Facilitator{URL: fac.URL}},
	}
	payer, _ := crypto.GenerateKey()
	payerAddr := crypto.PubkeyToAddress(payer.PublicKey)
	payee, _ := crypto.GenerateKey()
	payeeAddr := crypto.PubkeyToAddress(payee.PublicKey)
	chain.Mint(t, payerAddr, 1_000_000)
	req := x402.Offer{Network: x402test.Network, Asset: chain.Asset(), PayTo: payeeAddr.Hex()}.Requirements(10_000)
	want := int64(0)
	for _, b := range backends {
		ctx := t.Context()
		p := x402test.Pay(t, payer, req, time.Now(), time.Minute)
		got, err := b.s.Verify(ctx, p, req)
		if err != nil || got != payerAddr.Hex() {
			t.Fatalf("%s: verify: %q %v", b.name, got, err)
		}
		resp, err := b.s.Settle(ctx, p, req)
		if err != nil || !resp.Success || resp.Transaction == "" || resp.Network != x402test.Network {
			t.Fatalf("%s: settle: %+v %v", b.name, resp, err)
		}
		want += 10_000
		if bal := chain.Balance(t, payeeAddr); bal != want {
			t.Fatalf("%s: payee balance %d, want %d", b.name, bal, want)
		}
		// The same authorization again: refused before and at settlement.
		if _, err := b.s.Verify(ctx, p, req); !errors.Is(err, x402.ErrNonceUsed) {
			t.Fatalf("%s: replay verify: %v", b.name, err)
		}
		if resp, err := b.s.Settle(ctx, p, req); err == nil || resp.Success {
			t.Fatalf("%s: replay settled: %+v", b.name, resp)
		}
		// An unfunded payer.
		poor, _ := crypto.GenerateKey()
		if _, err := b.s.Verify(ctx, x402test.Pay(t, poor, req, time.Now(), time.Minute), req); !errors.Is(err, x402.ErrInsufficientFunds) {
			t.Fatalf("%s: unfunded verify: %v", b.name, err)
		}
		if resp, err := b.s.Settle(ctx, x402test.Pay(t, poor, req, time.Now(), time.Minute), req); err == nil || resp.Success {
			t.Fatalf("%s: unfunded settled: %+v", b.name, resp)
		}
		if bal := chain.Balance(t, payeeAddr); bal != want {
			t.Fatalf("%s: payee balance %d after refusals, want %d", b.name, bal, want)
		}
	}
	if bal := chain.Balance(t, payerAddr); bal != 1_000_000-want {
		t.Fatalf("payer balance %d", bal)
	}
}
