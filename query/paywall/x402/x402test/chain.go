// Package x402test runs a real EVM chain for payment tests: go-ethereum's
// simulated backend with EIP3009Token (EIP3009Token.sol beside this file,
// compiled as EIP3009Token.md says) deployed on it, a relayer account with
// gas, and a block producer that mines whenever a transaction is pending.
package x402test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/marketintel/mi/query/paywall/x402"
)

//go:embed EIP3009Token.bin
var tokenBin string

//go:embed EIP3009Token.abi
var tokenABIJSON string

// Network is the CAIP-2 id of the simulated chain (chain id 1337).
const Network = x402.NetworkSimulatedEVM

// Token domain of the deployed contract, as USDC on Base mainnet.
const (
	TokenName    = "USD Coin"
	TokenVersion = "2"
)

// Chain is a simulated chain with a deployed EIP3009Token.
type Chain struct {
	Backend *simulated.Backend
	Client  simulated.Client
	// Token is the EIP3009Token contract.
	Token common.Address
	// Relayer is funded with gas; the token's owner (minter) is a separate
	// account.
	Relayer *ecdsa.PrivateKey
	owner   *ecdsa.PrivateKey
	abi     abi.ABI
}

// NewChain starts the chain and deploys the token; it stops at the end of
// the test.
func NewChain(t testing.TB) *Chain {
	t.Helper()
	owner, _ := crypto.GenerateKey()
	relayer, _ := crypto.GenerateKey()
	eth := new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil) // 1000 ETH
	be := simulated.NewBackend(types.GenesisAlloc{
		crypto.PubkeyToAddress(owner.PublicKey):   {Balance: eth},
		crypto.PubkeyToAddress(relayer.PublicKey): {Balance: eth},
	})
	c := &Chain{Backend: be, Client: be.Client(), Relayer: relayer, owner: owner}
	var err error
	if c.abi, err = abi.JSON(strings.NewReader(tokenABIJSON)); err != nil {
		t.Fatal(err)
	}
	args, err := c.abi.Pack("", TokenName, TokenVersion, "USDC")
	if err != nil {
		t.Fatal(err)
	}
	code, err := hex.DecodeString(strings.TrimSpace(tokenBin))
	if err != nil {
		t.Fatal(err)
	}
	receipt := c.transact(t, nil, append(code, args...))
	c.Token = receipt.ContractAddress
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go c.produce(ctx, done)
	t.Cleanup(func() {
		cancel()
		<-done
		_ = be.Close()
	})
	return c
}

// produce mines a block whenever a transaction is pending, so block times
// follow the wall clock.
func (c *Chain) produce(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := c.Client.PendingTransactionCount(ctx); err == nil && n > 0 {
				c.Backend.Commit()
			}
		}
	}
}

// transact sends data from the owner to `to` (nil deploys), waits until it
// is mined and visible to reads of the latest state (x402.WaitMined) and
// returns the successful receipt.
func (c *Chain) transact(t testing.TB, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(c.owner.PublicKey)
	nonce, err := c.Client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(c.owner, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: new(big.Int).Add(big.NewInt(1e9), new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas:       3_000_000, To: to, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if to == nil { // before the block producer runs
		c.Backend.Commit()
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	r, err := x402.WaitMined(wctx, c.Client, tx.Hash(), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}

// Mint gives amount atomic units of the token to addr.
func (c *Chain) Mint(t testing.TB, addr common.Address, amount int64) {
	t.Helper()
	data, err := c.abi.Pack("mint", addr, big.NewInt(amount))
	if err != nil {
		t.Fatal(err)
	}
	c.transact(t, &c.Token, data)
}

// Balance is addr's token balance in atomic units.
func (c *Chain) Balance(t testing.TB, addr common.Address) int64 {
	t.Helper()
	data, _ := c.abi.Pack("balanceOf", addr)
	out, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{To: &c.Token, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.abi.Unpack("balanceOf", out)
	if err != nil {
		t.Fatal(err)
	}
	return res[0].(*big.Int).Int64()
}

// Asset is the token as an x402 asset.
func (c *Chain) Asset() x402.Asset {
	return x402.Asset{Symbol: "USDC", Address: c.Token.Hex(), Name: TokenName, Version: TokenVersion, Decimals: 6}
}

// NewRelayer returns a relayer for this chain that polls quickly.
func (c *Chain) NewRelayer() *x402.Relayer {
	r := x402.NewRelayer(c.Relayer, map[string]x402.ChainBackend{Network: c.Client})
	r.PollInterval = 20 * time.Millisecond
	return r
}

// Pay signs an exact payment of amount from key to req's payTo, valid from
// now-600s to now+validFor, with a random nonce, as the x402 clients do.
func Pay(t testing.TB, key *ecdsa.PrivateKey, req x402.PaymentRequirements, now time.Time, validFor time.Duration) *x402.PaymentPayload {
	t.Helper()
	a := Authorization(key, req, now, validFor)
	return Signed(t, key, req, a)
}

// Authorization is the unsigned authorization Pay signs.
func Authorization(key *ecdsa.PrivateKey, req x402.PaymentRequirements, now time.Time, validFor time.Duration) x402.Authorization {
	var n [32]byte
	if _, err := rand.Read(n[:]); err != nil {
		panic("BUG: crypto/rand failed: " + err.Error())
	}
	return x402.Authorization{
		From: crypto.PubkeyToAddress(key.PublicKey).Hex(), To: req.PayTo, Value: req.Amount,
		ValidAfter: big.NewInt(now.Unix() - 600).String(), ValidBefore: big.NewInt(now.Add(validFor).Unix()).String(),
		Nonce: "0x" + hex.EncodeToString(n[:]),
	}
}

// Signed signs a for req's domain and wraps it in a v2 payload.
func Signed(t testing.TB, key *ecdsa.PrivateKey, req x402.PaymentRequirements, a x402.Authorization) *x402.PaymentPayload {
	t.Helper()
	d, err := x402.DomainFor(req)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := x402.SignAuthorization(d, a, key)
	if err != nil {
		t.Fatal(err)
	}
	return Payload(t, req, a, sig)
}

// Payload wraps a signed authorization in a v2 payload for req.
func Payload(t testing.TB, req x402.PaymentRequirements, a x402.Authorization, sig string) *x402.PaymentPayload {
	t.Helper()
	p := &x402.PaymentPayload{X402Version: x402.Version, Accepted: req}
	var err error
	p.Payload, err = json.Marshal(x402.ExactEVMPayload{Signature: sig, Authorization: a})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
