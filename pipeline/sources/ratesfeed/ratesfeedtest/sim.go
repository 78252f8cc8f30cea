package ratesfeedtest

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// Sim is go-ethereum's simulated backend with one funded account, for the
// on-chain rates sources' tests. (The chain foundation's chaintest, with a
// JSON-RPC server in front and fault injection, replaces it once it is on
// main.)
type Sim struct {
	Backend *simulated.Backend
	Client  simulated.Client
	key     *ecdsa.PrivateKey
	from    common.Address
}

// NewSim starts a chain; it stops at the end of the test.
func NewSim(t testing.TB) *Sim {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(k.PublicKey)
	be := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)}})
	t.Cleanup(func() { _ = be.Close() })
	return &Sim{Backend: be, Client: be.Client(), key: k, from: from}
}

// Send sends data from the funded account to `to` (nil deploys), mines a
// block and returns the receipt; a revert fails the test.
func (s *Sim) Send(t testing.TB, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	nonce, err := s.Client.PendingNonceAt(ctx, s.from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	chainID, err := s.Client.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: new(big.Int).Add(big.NewInt(1e9), new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas:       5_000_000, To: to, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	s.Backend.Commit()
	r, err := s.Client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}
