package x402_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/core/types"
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

// laggingHead is the simulated node as go-ethereum lets a node look for a
// moment (and a load-balanced RPC endpoint for longer): a new receipt is
// findable while "latest" still names the block before it. Here "latest"
// moves to the real head only on the third question about the head after
// the head moved; calls at "latest" read the block it names.
type laggingHead struct {
	x402.ChainBackend
	mu      sync.Mutex
	visible *big.Int
	asked   int
}

func (l *laggingHead) latest(ctx context.Context, advance bool) (*big.Int, error) {
	real, err := l.ChainBackend.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.visible == nil {
		l.visible = real.Number
	}
	if advance && real.Number.Cmp(l.visible) > 0 {
		if l.asked++; l.asked >= 3 {
			l.visible, l.asked = real.Number, 0
		}
	}
	return new(big.Int).Set(l.visible), nil
}

func (l *laggingHead) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	if n == nil {
		v, err := l.latest(ctx, true)
		if err != nil {
			return nil, err
		}
		n = v
	}
	return l.ChainBackend.HeaderByNumber(ctx, n)
}

func (l *laggingHead) CallContract(ctx context.Context, msg ethereum.CallMsg, n *big.Int) ([]byte, error) {
	if n == nil {
		v, err := l.latest(ctx, false)
		if err != nil {
			return nil, err
		}
		n = v
	}
	return l.ChainBackend.CallContract(ctx, msg, n)
}

// TestSettledIsVisibleWhenSettleReturns: when Settle returns, reads of the
// latest state on the node see the transfer, even on a node whose head
// trails its receipts (laggingHead). Waiting for the receipt alone returned
// while "latest" still showed the balances before: the flake of
// TestPaywallX402Only under load (insufficient_funds right after a mint).
func TestSettledIsVisibleWhenSettleReturns(t *testing.T) {
	chain := x402test.NewChain(t)
	node := &laggingHead{ChainBackend: chain.Client}
	relayer := x402.NewRelayer(chain.Relayer, map[string]x402.ChainBackend{x402test.Network: node})
	relayer.PollInterval = 5 * time.Millisecond
	payer, _ := crypto.GenerateKey()
	payeeKey, _ := crypto.GenerateKey()
	payee := crypto.PubkeyToAddress(payeeKey.PublicKey)
	chain.Mint(t, crypto.PubkeyToAddress(payer.PublicKey), 1_000_000)
	req := x402.Offer{Network: x402test.Network, Asset: chain.Asset(), PayTo: payee.Hex()}.Requirements(10_000)
	balance := func() int64 {
		data, _ := tokenABI.Pack("balanceOf", payee)
		out, err := node.CallContract(t.Context(), ethereum.CallMsg{To: &chain.Token, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(out).Int64()
	}
	for i := range 3 {
		p := x402test.Pay(t, payer, req, time.Now(), time.Minute)
		if _, err := relayer.Verify(t.Context(), p, req); err != nil {
			t.Fatalf("payment %d: verify: %v", i, err)
		}
		if resp, err := relayer.Settle(t.Context(), p, req); err != nil || !resp.Success {
			t.Fatalf("payment %d: settle: %+v %v", i, resp, err)
		}
		if got, want := balance(), int64(10_000*(i+1)); got != want {
			t.Fatalf("payment %d: the node's latest state shows the payee at %d after Settle returned, want %d", i, got, want)
		}
	}
}

var tokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()
