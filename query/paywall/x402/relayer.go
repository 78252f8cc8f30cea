package x402

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// ChainBackend is what the relayer needs of an EVM node; ethclient.Client
// and the simulated backend's client are ones.
type ChainBackend interface {
	ethereum.ContractCaller
	ethereum.GasEstimator
	ethereum.GasPricer1559
	ethereum.TransactionSender
	ethereum.TransactionReader
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
}

// eip3009ABI is the part of an EIP-3009 token the relayer calls.
const eip3009ABI = `[
{"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","outputs":[],"inputs":[
 {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
 {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
 {"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}]},
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"name":"","type":"bool"}]}
]`

var tokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(eip3009ABI))
	if err != nil {
		panic("BUG: EIP-3009 ABI: " + err.Error())
	}
	return a
}()

// Relayer settles exact EIP-3009 payments itself: it sends
// transferWithAuthorization from its own funded account and waits for the
// receipt. Safe for concurrent use; transactions of one chain are numbered
// by a local nonce counter.
type Relayer struct {
	key    *ecdsa.PrivateKey
	from   common.Address
	chains map[string]ChainBackend
	// Now is the clock for re-verification; nil means time.Now.
	Now func() time.Time
	// PollInterval is how often a receipt is polled; 0 means 1 second.
	PollInterval time.Duration
	// Timeout bounds one settlement; 0 means 2 minutes.
	Timeout time.Duration

	mu     sync.Mutex
	nonces map[string]uint64 // next nonce per network, once known
}

// NewRelayer returns a relayer sending from key on each network of chains
// (CAIP-2 → node).
func NewRelayer(key *ecdsa.PrivateKey, chains map[string]ChainBackend) *Relayer {
	return &Relayer{key: key, from: crypto.PubkeyToAddress(key.PublicKey), chains: chains, nonces: map[string]uint64{}}
}

// Address is the relayer's sending account (it pays the gas).
func (r *Relayer) Address() common.Address { return r.from }

func (r *Relayer) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Relayer) prepare(p *PaymentPayload, req PaymentRequirements) (*Verified, ChainBackend, []byte, error) {
	c, ok := r.chains[req.Network]
	if !ok {
		return nil, nil, nil, fmt.Errorf("%w: the relayer has no node for %s", ErrInvalidNetwork, req.Network)
	}
	v, err := VerifyExactEVM(p, req, r.now())
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := tokenABI.Pack("transferWithAuthorization", v.Payer, v.To, v.Value, v.ValidAfter, v.ValidBefore,
		[32]byte(v.Nonce), v.V, [32]byte(v.R), [32]byte(v.S))
	if err != nil {
		panic("BUG: cannot pack transferWithAuthorization: " + err.Error())
	}
	return v, c, data, nil
}

// Verify checks the payment offline, then on chain: the payer's balance
// covers the value, the nonce is unused, and the transfer simulates.
func (r *Relayer) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (string, error) {
	v, c, data, err := r.prepare(p, req)
	if err != nil {
		return "", err
	}
	payer := v.Payer.Hex()
	bal, err := r.call(ctx, c, v.Asset, "balanceOf", v.Payer)
	if err != nil {
		return payer, err
	}
	if b := bal[0].(*big.Int); b.Cmp(v.Value) < 0 {
		return payer, ErrInsufficientFunds
	}
	used, err := r.call(ctx, c, v.Asset, "authorizationState", v.Payer, [32]byte(v.Nonce))
	if err != nil {
		return payer, err
	}
	if used[0].(bool) {
		return payer, ErrNonceUsed
	}
	if _, err := c.EstimateGas(ctx, ethereum.CallMsg{From: r.from, To: &v.Asset, Data: data}); err != nil {
		return payer, &reasonError{sentinel: ErrVerifyFailed, reason: "invalid_exact_evm_transaction_simulation_failed"}
	}
	return payer, nil
}

func (r *Relayer) call(ctx context.Context, c ChainBackend, token common.Address, method string, args ...any) ([]any, error) {
	in, err := tokenABI.Pack(method, args...)
	if err != nil {
		panic("BUG: cannot pack " + method + ": " + err.Error())
	}
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: in}, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot call %s: %v", ErrVerifyFailed, method, err)
	}
	res, err := tokenABI.Unpack(method, out)
	if err != nil || len(res) != 1 {
		return nil, fmt.Errorf("%w: %s answered %d bytes", ErrVerifyFailed, method, len(out))
	}
	return res, nil
}

// Settle re-verifies, sends transferWithAuthorization and waits for its
// receipt; success means status 1.
func (r *Relayer) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error) {
	resp := SettlementResponse{Network: req.Network, Amount: req.Amount}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, c, data, err := r.prepare(p, req)
	if err != nil {
		return resp, err
	}
	resp.Payer = v.Payer.Hex()
	tx, err := r.send(ctx, req.Network, c, v.Asset, data)
	if err != nil {
		return resp, err
	}
	receipt, err := r.wait(ctx, c, tx.Hash())
	if err != nil {
		return resp, err
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		return resp, &reasonError{sentinel: ErrSettleFailed, reason: "invalid_transaction_state"}
	}
	resp.Success = true
	resp.Transaction = tx.Hash().Hex()
	return resp, nil
}

// send signs and sends one transaction, numbering it with the local nonce
// counter of network.
func (r *Relayer) send(ctx context.Context, network string, c ChainBackend, to common.Address, data []byte) (*types.Transaction, error) {
	chainID, err := ChainID(network)
	if err != nil {
		return nil, err
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: r.from, To: &to, Data: data})
	if err != nil {
		return nil, &reasonError{sentinel: ErrSettleFailed, reason: "invalid_exact_evm_transaction_simulation_failed"}
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot get a gas tip: %v", ErrSettleFailed, err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read the head block: %v", ErrSettleFailed, err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	r.mu.Lock()
	defer r.mu.Unlock()
	nonce, ok := r.nonces[network]
	if !ok {
		if nonce, err = c.PendingNonceAt(ctx, r.from); err != nil {
			return nil, fmt.Errorf("%w: cannot read the relayer nonce: %v", ErrSettleFailed, err)
		}
	}
	tx, err := types.SignNewTx(r.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas + gas/5, To: &to, Data: data,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: cannot sign: %v", ErrSettleFailed, err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		delete(r.nonces, network) // re-read from the node next time
		return nil, fmt.Errorf("%w: cannot send: %v", ErrSettleFailed, err)
	}
	r.nonces[network] = nonce + 1
	return tx, nil
}

// wait waits for the transaction h to be mined and visible (WaitMined).
func (r *Relayer) wait(ctx context.Context, c ChainBackend, h common.Hash) (*types.Receipt, error) {
	every := r.PollInterval
	if every == 0 {
		every = time.Second
	}
	receipt, err := WaitMined(ctx, c, h, every)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSettleFailed, err)
	}
	return receipt, nil
}

// MinedReader is what WaitMined reads of a node.
type MinedReader interface {
	TransactionReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// WaitMined polls every `every` until transaction h has a receipt and the
// node's latest block has reached the receipt's block, or ctx ends. The
// second condition matters: go-ethereum makes a receipt findable a moment
// before it moves its head (core.BlockChain.writeHeadBlock writes the
// lookup entries, then the head marker), and a node behind a load
// balancer may answer from a peer that is a block behind; a read of
// "latest" right after the receipt alone can still see the state before
// the transaction (a payer's balance before a mint, a payee's before a
// settlement). After WaitMined returns, reads of "latest" on that node see
// it.
func WaitMined(ctx context.Context, c MinedReader, h common.Hash, every time.Duration) (*types.Receipt, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	var receipt *types.Receipt
	for {
		if receipt == nil {
			r, err := c.TransactionReceipt(ctx, h)
			switch {
			case err == nil:
				receipt = r
			case !errors.Is(err, ethereum.NotFound):
				return nil, fmt.Errorf("cannot read the receipt of %s: %v", h.Hex(), err)
			}
		}
		if receipt != nil {
			head, err := c.HeaderByNumber(ctx, nil)
			if err != nil {
				return nil, fmt.Errorf("cannot read the head block: %v", err)
			}
			if head.Number.Cmp(receipt.BlockNumber) >= 0 {
				return receipt, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("transaction %s not mined and visible: %v", h.Hex(), ctx.Err())
		case <-t.C:
		}
	}
}
