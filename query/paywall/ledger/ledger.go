// Package ledger is the durable money state of the query tier: API keys
// (stored only as hashes), key and wallet credit balances as append-only
// entries, used x402 authorization nonces and used sign-in proofs. It is SQL
// behind one interface with two backends, SQLite in the data directory and
// PostgreSQL. Amounts are integer micro-USD (USDC atomic units).
//
// This file holds the contract the paywall codes against; the backends live
// beside it.
package ledger

import (
	"context"
	"errors"
	"time"
)

// Sentinels for the expected outcomes of Store calls.
var (
	// ErrNonceUsed: the payment authorization nonce was reserved before.
	ErrNonceUsed = errors.New("payment authorization already used")
	// ErrProofUsed: the sign-in proof was used before.
	ErrProofUsed = errors.New("sign-in proof already used")
	// ErrUnknownKey: no API key with that value exists.
	ErrUnknownKey = errors.New("unknown API key")
	// ErrInsufficientCredit: the balance does not cover the charge; nothing
	// was debited.
	ErrInsufficientCredit = errors.New("insufficient credit")
)

// Charge is one debit or refund of a paid call.
type Charge struct {
	// Route is the route key, e.g. "GET /api/v1/intelligence/:symbol".
	Route string
	// AmountMicroUSD is the route's price; always > 0.
	AmountMicroUSD int64
	// RequestID identifies the call; a refund carries the id of its debit.
	RequestID string
	// At is when the call happened.
	At time.Time
}

// Store is what the paywall needs from the ledger. Every method is atomic
// and safe for concurrent use by many API replicas sharing one database.
type Store interface {
	// ReserveNonce records that the authorization (network, payer, nonce)
	// is used; ErrNonceUsed if it was recorded before, ever. Rows may be
	// pruned after expires has passed.
	ReserveNonce(ctx context.Context, network, payer, nonce string, expires time.Time) error
	// ReserveProof records a sign-in proof id as used; ErrProofUsed if it
	// was recorded before.
	ReserveProof(ctx context.Context, proofID string, expires time.Time) error
	// DebitKey takes c from the balance of apiKey (the plain key as sent);
	// ErrUnknownKey or ErrInsufficientCredit leave the balance unchanged.
	DebitKey(ctx context.Context, apiKey string, c Charge) error
	// RefundKey gives back a debit made by DebitKey.
	RefundKey(ctx context.Context, apiKey string, c Charge) error
	// DebitWallet takes c from the credit of a wallet, named by its id
	// (WalletID: "eip155:0x…" or "solana:…"); ErrInsufficientCredit leaves
	// it unchanged, ErrInvalidWallet refuses an id without a known
	// namespace.
	DebitWallet(ctx context.Context, wallet string, c Charge) error
	// RefundWallet gives back a debit made by DebitWallet.
	RefundWallet(ctx context.Context, wallet string, c Charge) error
	// WalletBalance is the credit of the wallet with that id in micro-USD
	// (0 when unknown).
	WalletBalance(ctx context.Context, wallet string) (int64, error)
}
