package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// KeyPrefix starts every API key. The rest is 64 lower-case hex digits: 256
// random bits.
const KeyPrefix = "mi_live_"

// keyRandomBytes is the entropy of a key.
const keyRandomBytes = 32

// NewKey returns a fresh random API key.
func NewKey() (string, error) {
	var b [keyRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cannot read randomness for an API key: %w", err)
	}
	return KeyPrefix + hex.EncodeToString(b[:]), nil
}

// WellFormedKey reports whether k has the shape of an API key (prefix and 64
// lower-case hex digits); it says nothing about whether the key exists.
func WellFormedKey(k string) bool {
	rest, ok := strings.CutPrefix(k, KeyPrefix)
	if !ok || len(rest) != 2*keyRandomBytes {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// HashKey is what the ledger stores of a key: the hex SHA-256 of the plain
// key. Keys carry 256 random bits, so an unsalted fast hash is enough.
func HashKey(k string) string {
	h := sha256.Sum256([]byte(k))
	return hex.EncodeToString(h[:])
}

// entry is one row of the entries table.
type entry struct {
	account   int64
	keyHash   string // "" stores NULL
	wallet    string // "" stores NULL
	kind      string
	route     string
	amount    int64
	requestID string
	reason    string
	at        int64
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// addEntry appends e; ErrDuplicateRequest when an entry of the same kind has
// the same non-empty request id.
func (s *SQL) addEntry(ctx context.Context, tx *sql.Tx, e entry) error {
	res, err := s.exec(ctx, tx, `INSERT INTO entries
		(account_id, key_hash, wallet, kind, route, amount, request_id, reason, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		e.account, nullable(e.keyHash), nullable(e.wallet), e.kind, e.route, e.amount, e.requestID, e.reason, e.at)
	if err != nil {
		return fmt.Errorf("cannot append ledger entry: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("cannot append ledger entry: %w", err)
	}
	if n == 0 {
		return ErrDuplicateRequest
	}
	return nil
}

// credit adds amount (> 0) to an account and appends e.
func (s *SQL) credit(ctx context.Context, tx *sql.Tx, e entry) error {
	if _, err := s.exec(ctx, tx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, e.amount, e.account); err != nil {
		return fmt.Errorf("cannot credit account: %w", err)
	}
	return s.addEntry(ctx, tx, e)
}

// debit takes -e.amount from an account if its balance covers it and appends
// e; ErrInsufficientCredit otherwise.
func (s *SQL) debit(ctx context.Context, tx *sql.Tx, e entry) error {
	res, err := s.exec(ctx, tx, `UPDATE accounts SET balance = balance - ? WHERE id = ? AND balance >= ?`,
		-e.amount, e.account, -e.amount)
	if err != nil {
		return fmt.Errorf("cannot debit account: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("cannot debit account: %w", err)
	}
	if n == 0 {
		return ErrInsufficientCredit
	}
	return s.addEntry(ctx, tx, e)
}

func (s *SQL) newAccount(ctx context.Context, tx *sql.Tx, at int64) (int64, error) {
	var id int64
	if err := s.queryRow(ctx, tx, `INSERT INTO accounts (balance, created_at) VALUES (0, ?) RETURNING id`, at).Scan(&id); err != nil {
		return 0, fmt.Errorf("cannot create account: %w", err)
	}
	return id, nil
}

func (s *SQL) keyAccount(ctx context.Context, tx *sql.Tx, keyHash string) (int64, error) {
	var id int64
	err := s.queryRow(ctx, tx, `SELECT account_id FROM api_keys WHERE key_hash = ?`, keyHash).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrUnknownKey
	}
	if err != nil {
		return 0, fmt.Errorf("cannot look up API key: %w", err)
	}
	return id, nil
}

// walletAccount is the account of a wallet, 0 when the wallet has none.
func (s *SQL) walletAccount(ctx context.Context, tx *sql.Tx, wallet string) (int64, error) {
	var id int64
	err := s.queryRow(ctx, tx, `SELECT account_id FROM wallets WHERE address = ?`, wallet).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot look up wallet: %w", err)
	}
	return id, nil
}

// newKey stores a fresh key for an account and returns the plain key.
func (s *SQL) newKey(ctx context.Context, tx *sql.Tx, account, at int64) (string, string, error) {
	k, err := NewKey()
	if err != nil {
		return "", "", err
	}
	h := HashKey(k)
	if _, err := s.exec(ctx, tx, `INSERT INTO api_keys (key_hash, account_id, created_at) VALUES (?, ?, ?)`, h, account, at); err != nil {
		return "", "", fmt.Errorf("cannot store API key: %w", err)
	}
	return k, h, nil
}

// linkWallet makes wallet a credential of account. A wallet without an
// account joins it; a wallet of another account has that account merged
// into this one (its balance moves over with a merge_out and a merge_in
// entry, and its keys and wallets are repointed), so a wallet always holds
// exactly one balance.
func (s *SQL) linkWallet(ctx context.Context, tx *sql.Tx, wallet string, account int64, requestID string, at int64) error {
	if _, err := s.exec(ctx, tx, `INSERT INTO wallets (address, account_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		wallet, account, at); err != nil {
		return fmt.Errorf("cannot link wallet: %w", err)
	}
	other, err := s.walletAccount(ctx, tx, wallet)
	if err != nil {
		return err
	}
	if other == account {
		return nil
	}
	if s.dialect == DialectPostgres {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM accounts WHERE id IN ($1, $2) ORDER BY id FOR UPDATE`, other, account)
		if err != nil {
			return fmt.Errorf("cannot lock accounts to merge: %w", err)
		}
		rows.Close()
	}
	var bal int64
	if err := s.queryRow(ctx, tx, `SELECT balance FROM accounts WHERE id = ?`, other).Scan(&bal); err != nil {
		return fmt.Errorf("cannot read account to merge: %w", err)
	}
	if bal > 0 {
		reason := fmt.Sprintf("wallet paid into account %d: account %d merged into it", account, other)
		if err := s.debit(ctx, tx, entry{account: other, wallet: wallet, kind: KindMergeOut, amount: -bal, requestID: requestID, reason: reason, at: at}); err != nil {
			return fmt.Errorf("cannot merge accounts: %w", err)
		}
		if err := s.credit(ctx, tx, entry{account: account, wallet: wallet, kind: KindMergeIn, amount: bal, requestID: requestID, reason: reason, at: at}); err != nil {
			return fmt.Errorf("cannot merge accounts: %w", err)
		}
	}
	for _, st := range []string{
		`UPDATE api_keys SET account_id = ? WHERE account_id = ?`,
		`UPDATE wallets SET account_id = ? WHERE account_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, s.q(st), account, other); err != nil {
			return fmt.Errorf("cannot merge accounts: %w", err)
		}
	}
	return nil
}

// ReserveNonce implements Store.
func (s *SQL) ReserveNonce(ctx context.Context, network, payer, nonce string, expires time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO used_nonces (network, payer, nonce, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
		network, normalizePayer(payer), strings.ToLower(nonce), expires.UnixMicro(), time.Now().UnixMicro())
	if err != nil {
		return fmt.Errorf("cannot reserve payment nonce: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("cannot reserve payment nonce: %w", err)
	} else if n == 0 {
		return ErrNonceUsed
	}
	return nil
}

// ReserveProof implements Store.
func (s *SQL) ReserveProof(ctx context.Context, proofID string, expires time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO used_proofs (proof_id, expires_at, created_at)
		VALUES (?, ?, ?) ON CONFLICT DO NOTHING`), proofID, expires.UnixMicro(), time.Now().UnixMicro())
	if err != nil {
		return fmt.Errorf("cannot reserve sign-in proof: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("cannot reserve sign-in proof: %w", err)
	} else if n == 0 {
		return ErrProofUsed
	}
	return nil
}

// DebitKey implements Store. A duplicate request id (the same call debited
// twice) is ErrDuplicateRequest and changes nothing. The debit is applied by
// the committer, possibly in one transaction with other operations, and
// DebitKey returns after that transaction committed.
func (s *SQL) DebitKey(ctx context.Context, apiKey string, c Charge) error {
	if c.AmountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	if !WellFormedKey(apiKey) {
		return ErrUnknownKey
	}
	return s.commit.submit(ctx, s.debitOp(keyCred, HashKey(apiKey), c))
}

// RefundKey implements Store: c must match a debit of that key (request id
// and amount), else ErrNoSuchDebit; a second refund is ErrAlreadyRefunded.
// It is applied like DebitKey.
func (s *SQL) RefundKey(ctx context.Context, apiKey string, c Charge) error {
	if !WellFormedKey(apiKey) {
		return ErrUnknownKey
	}
	if err := refundable(c); err != nil {
		return err
	}
	return s.commit.submit(ctx, s.refundOp(keyCred, HashKey(apiKey), c))
}

// refundable checks the charge of a refund.
func refundable(c Charge) error {
	if c.AmountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	if c.RequestID == "" {
		return fmt.Errorf("cannot refund a charge without request id: %w", ErrNoSuchDebit)
	}
	return nil
}

// DebitWallet implements Store; a wallet without an account has no credit.
// It is applied like DebitKey.
func (s *SQL) DebitWallet(ctx context.Context, wallet string, c Charge) error {
	if c.AmountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	w, err := ParseWalletID(wallet)
	if err != nil {
		return err
	}
	return s.commit.submit(ctx, s.debitOp(walletCred, w, c))
}

// RefundWallet implements Store, with the rules of RefundKey.
func (s *SQL) RefundWallet(ctx context.Context, wallet string, c Charge) error {
	if err := refundable(c); err != nil {
		return err
	}
	w, err := ParseWalletID(wallet)
	if err != nil {
		return err
	}
	return s.commit.submit(ctx, s.refundOp(walletCred, w, c))
}

// WalletBalance implements Store.
func (s *SQL) WalletBalance(ctx context.Context, wallet string) (int64, error) {
	w, err := ParseWalletID(wallet)
	if err != nil {
		return 0, err
	}
	var bal int64
	err = s.db.QueryRowContext(ctx, s.q(`SELECT a.balance FROM wallets w JOIN accounts a ON a.id = w.account_id WHERE w.address = ?`),
		w).Scan(&bal)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot read wallet balance: %w", err)
	}
	return bal, nil
}

// CreateKey creates a new account holding creditMicroUSD (>= 0; a grant
// entry when > 0) and returns its new API key. Only the key's hash is
// stored: the plain key exists only in the return value.
func (s *SQL) CreateKey(ctx context.Context, creditMicroUSD int64, reason, requestID string) (string, error) {
	if creditMicroUSD < 0 {
		return "", ErrInvalidAmount
	}
	var key string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := time.Now().UnixMicro()
		acct, err := s.newAccount(ctx, tx, now)
		if err != nil {
			return err
		}
		k, h, err := s.newKey(ctx, tx, acct, now)
		if err != nil {
			return err
		}
		if creditMicroUSD > 0 {
			if err := s.credit(ctx, tx, entry{account: acct, keyHash: h, kind: KindGrant, amount: creditMicroUSD,
				requestID: requestID, reason: reason, at: now}); err != nil {
				return err
			}
		}
		key = k
		return nil
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// TopUpKey adds amount (> 0) to the balance of the key's account as a grant
// entry; ErrDuplicateRequest when a grant with requestID exists. It is
// applied like DebitKey.
func (s *SQL) TopUpKey(ctx context.Context, apiKey string, amountMicroUSD int64, reason, requestID string) error {
	if amountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	if !WellFormedKey(apiKey) {
		return ErrUnknownKey
	}
	return s.commit.submit(ctx, s.grantOp(HashKey(apiKey), amountMicroUSD, reason, requestID, time.Time{}))
}

// KeyBalance is the balance of the key's account; ErrUnknownKey when the
// key does not exist.
func (s *SQL) KeyBalance(ctx context.Context, apiKey string) (int64, error) {
	a, err := s.KeyAccount(ctx, apiKey)
	return a.BalanceMicroUSD, err
}

// Account is the account an API key spends from.
type Account struct {
	// ID is the account number.
	ID int64
	// BalanceMicroUSD is the account's balance.
	BalanceMicroUSD int64
	// Wallets are the ids (WalletID) of the wallets whose sign-in spends
	// the same balance, sorted.
	Wallets []string
	// Keys is the number of API keys of the account.
	Keys int
}

// KeyAccount is the account of a key; ErrUnknownKey when it does not exist.
func (s *SQL) KeyAccount(ctx context.Context, apiKey string) (Account, error) {
	if !WellFormedKey(apiKey) {
		return Account{}, ErrUnknownKey
	}
	var a Account
	err := s.db.QueryRowContext(ctx, s.q(`SELECT a.id, a.balance FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`),
		HashKey(apiKey)).Scan(&a.ID, &a.BalanceMicroUSD)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrUnknownKey
	}
	if err != nil {
		return Account{}, fmt.Errorf("cannot read key balance: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT address FROM wallets WHERE account_id = ? ORDER BY address`), a.ID)
	if err != nil {
		return Account{}, fmt.Errorf("cannot read account wallets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return Account{}, fmt.Errorf("cannot read account wallets: %w", err)
		}
		a.Wallets = append(a.Wallets, w)
	}
	if err := rows.Err(); err != nil {
		return Account{}, fmt.Errorf("cannot read account wallets: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM api_keys WHERE account_id = ?`), a.ID).Scan(&a.Keys); err != nil {
		return Account{}, fmt.Errorf("cannot count account keys: %w", err)
	}
	return a, nil
}

// CreditWallet adds amount (> 0) to the wallet's balance as a credit entry,
// creating an account for a wallet that has none.
func (s *SQL) CreditWallet(ctx context.Context, wallet string, amountMicroUSD int64, reason, requestID string) error {
	if amountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	w, err := ParseWalletID(wallet)
	if err != nil {
		return fmt.Errorf("cannot credit a wallet: %w", err)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := time.Now().UnixMicro()
		acct, err := s.walletAccount(ctx, tx, w)
		if err != nil {
			return err
		}
		if acct == 0 {
			if acct, err = s.newAccount(ctx, tx, now); err != nil {
				return err
			}
			if err := s.linkWallet(ctx, tx, w, acct, requestID, now); err != nil {
				return err
			}
			if acct, err = s.walletAccount(ctx, tx, w); err != nil {
				return err
			}
		}
		return s.credit(ctx, tx, entry{account: acct, wallet: w, kind: KindCredit, amount: amountMicroUSD,
			requestID: requestID, reason: reason, at: now})
	})
}

// Purchase is a credit pack paid with x402.
type Purchase struct {
	// APIKey is the key to top up; "" buys a new key.
	APIKey string
	// Wallet is the id (WalletID) of the paying wallet; "" when unknown (no
	// wallet is linked).
	Wallet string
	// CreditMicroUSD is the pack's credit; > 0.
	CreditMicroUSD int64
	// Route and Reason describe the purchase in its entry.
	Route, Reason string
	// RequestID identifies the paid call; a purchase is recorded once per
	// request id (ErrDuplicateRequest).
	RequestID string
	// At is when the call happened; zero means now.
	At time.Time
}

// PurchaseResult is what a purchase did.
type PurchaseResult struct {
	// APIKey is the new plain key; "" when an existing key was topped up.
	APIKey string
	// BalanceMicroUSD is the account's balance after the purchase.
	BalanceMicroUSD int64
}

// Buy records a purchase in one transaction. The pack's credit goes to one
// account: the account of p.APIKey when given (ErrUnknownKey if it does not
// exist), else the account of the paying wallet when it has one (the new key
// joins it), else a new account. The paying wallet is then linked to that
// account, so signing in with it spends the same balance as the key; a
// wallet that belonged to another account brings that account's balance,
// keys and wallets along (a merge). Credit is thus granted once, to one
// balance that the key and the wallet share.
func (s *SQL) Buy(ctx context.Context, p Purchase) (PurchaseResult, error) {
	if p.CreditMicroUSD <= 0 {
		return PurchaseResult{}, ErrInvalidAmount
	}
	if p.APIKey != "" && !WellFormedKey(p.APIKey) {
		return PurchaseResult{}, ErrUnknownKey
	}
	var w string
	if p.Wallet != "" {
		var err error
		if w, err = ParseWalletID(p.Wallet); err != nil {
			return PurchaseResult{}, err
		}
	}
	var out PurchaseResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = PurchaseResult{}
		at := micros(p.At)
		var (
			acct    int64
			keyHash string
			err     error
		)
		switch {
		case p.APIKey != "":
			keyHash = HashKey(p.APIKey)
			if acct, err = s.keyAccount(ctx, tx, keyHash); err != nil {
				return err
			}
		case w != "":
			if acct, err = s.walletAccount(ctx, tx, w); err != nil {
				return err
			}
		}
		if acct == 0 {
			if acct, err = s.newAccount(ctx, tx, at); err != nil {
				return err
			}
		}
		if p.APIKey == "" {
			if out.APIKey, keyHash, err = s.newKey(ctx, tx, acct, at); err != nil {
				return err
			}
		}
		// Link (and merge) first: the merge locks both accounts in id
		// order before this transaction updates either.
		if w != "" {
			if err := s.linkWallet(ctx, tx, w, acct, p.RequestID, at); err != nil {
				return err
			}
		}
		if err := s.credit(ctx, tx, entry{account: acct, keyHash: keyHash, wallet: w, kind: KindPurchase, route: p.Route,
			amount: p.CreditMicroUSD, requestID: p.RequestID, reason: p.Reason, at: at}); err != nil {
			return err
		}
		return s.queryRow(ctx, tx, `SELECT balance FROM accounts WHERE id = ?`, acct).Scan(&out.BalanceMicroUSD)
	})
	if err != nil {
		return PurchaseResult{}, err
	}
	return out, nil
}

// Verify checks the ledger's invariant: every account's balance equals the
// sum of its entries and is not negative. It returns an error naming the
// first account that breaks it.
func (s *SQL) Verify(ctx context.Context) error {
	var id, bal, sum int64
	err := s.db.QueryRowContext(ctx, `SELECT a.id, a.balance, COALESCE(SUM(e.amount), 0)
		FROM accounts a LEFT JOIN entries e ON e.account_id = a.id
		GROUP BY a.id, a.balance
		HAVING a.balance <> COALESCE(SUM(e.amount), 0) OR a.balance < 0
		ORDER BY a.id LIMIT 1`).Scan(&id, &bal, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot verify ledger: %w", err)
	}
	return fmt.Errorf("ledger broken: account %d has balance %d but its entries sum to %d", id, bal, sum)
}

// ReversePurchase takes back the credit of the purchase recorded with
// requestID, for a pack whose x402 payment did not settle after the handler
// had answered. It debits the purchase's account by the purchase amount, or
// by its whole balance when less is left, as one reversal entry, and returns
// the amount reversed. ErrNoSuchDebit when no purchase has that request id;
// ErrDuplicateRequest when it was reversed before.
func (s *SQL) ReversePurchase(ctx context.Context, requestID string) (int64, error) {
	if requestID == "" {
		return 0, ErrNoSuchDebit
	}
	var reversed int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var (
			amount  int64
			keyHash sql.NullString
			wallet  sql.NullString
		)
		err := s.queryRow(ctx, tx, `SELECT amount, key_hash, wallet FROM entries WHERE kind = 'purchase' AND request_id = ? AND request_id <> ''`,
			requestID).Scan(&amount, &keyHash, &wallet)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoSuchDebit
		}
		if err != nil {
			return fmt.Errorf("cannot find the purchase to reverse: %w", err)
		}
		// The key may have moved to another account by a merge since.
		acct, err := s.keyAccount(ctx, tx, keyHash.String)
		if err != nil {
			return err
		}
		if s.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, `SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, acct); err != nil {
				return fmt.Errorf("cannot lock account: %w", err)
			}
		}
		var bal int64
		if err := s.queryRow(ctx, tx, `SELECT balance FROM accounts WHERE id = ?`, acct).Scan(&bal); err != nil {
			return fmt.Errorf("cannot read account: %w", err)
		}
		reversed = min(amount, bal)
		e := entry{account: acct, keyHash: keyHash.String, wallet: wallet.String, kind: KindReversal,
			amount: -reversed, requestID: requestID, reason: "payment not settled", at: time.Now().UnixMicro()}
		if reversed == 0 {
			return s.addEntry(ctx, tx, e)
		}
		return s.debit(ctx, tx, e)
	})
	if err != nil {
		return 0, err
	}
	return reversed, nil
}

// PruneExpired deletes used nonces and proofs whose expiry is before
// before, and returns how many rows it deleted. Call it with a margin (e.g.
// now minus a day): an authorization or proof past its expiry is rejected by
// its own validity window, so its row no longer guards against a replay.
func (s *SQL) PruneExpired(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	for _, q := range []string{`DELETE FROM used_nonces WHERE expires_at < ?`, `DELETE FROM used_proofs WHERE expires_at < ?`} {
		res, err := s.db.ExecContext(ctx, s.q(q), before.UnixMicro())
		if err != nil {
			return n, fmt.Errorf("cannot prune used nonces and proofs: %w", err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return n, fmt.Errorf("cannot prune used nonces and proofs: %w", err)
		}
		n += k
	}
	return n, nil
}
