package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The operations that go through the committer (commit.go): debits and
// refunds of keys and wallets, and key top-ups. Each is written so that a
// refusal changes nothing: the entry is appended first, conditionally and
// with ON CONFLICT DO NOTHING, and the balance changes only when it was. On
// SQLite that is two prepared statements (plus read-only look-ups that tell
// why when nothing was appended); on PostgreSQL one (postgres.go).

// credKind is how a credential names its account: an API key by the hash
// in api_keys, a wallet by its address in wallets; entryColumn is the
// entries column that records it.
type credKind struct {
	table, column, entryColumn string
	// missing is the refusal of a debit when the credential has no account.
	missing error
	// noun names the credential in errors.
	noun string
}

var (
	keyCred    = credKind{table: "api_keys", column: "key_hash", entryColumn: "key_hash", missing: ErrUnknownKey, noun: "key"}
	walletCred = credKind{table: "wallets", column: "address", entryColumn: "wallet", missing: ErrInsufficientCredit, noun: "wallet"}
)

// sqliteOps are the SQLite statements of one credential kind.
type sqliteOps struct {
	// debit, refund and grant are conditional entry inserts, RETURNING
	// account_id.
	debit, refund, grant string
	// balance reads the balance of the credential's account.
	balance string
	// debitOf counts the debits of the credential with a request id and
	// amount.
	debitOf string
}

func newSQLiteOps(cr credKind) sqliteOps {
	const cols = `INSERT INTO entries (account_id, %[3]s, kind, route, amount, request_id, reason, created_at) `
	return sqliteOps{
		debit: fmt.Sprintf(cols+`SELECT a.id, ?, 'debit', ?, ?, ?, '', ? FROM %[1]s c JOIN accounts a ON a.id = c.account_id
			WHERE c.%[2]s = ? AND a.balance >= ? ON CONFLICT DO NOTHING RETURNING account_id`, cr.table, cr.column, cr.entryColumn),
		refund: fmt.Sprintf(cols+`SELECT c.account_id, ?, 'refund', ?, ?, ?, '', ? FROM %[1]s c
			WHERE c.%[2]s = ? AND EXISTS (SELECT 1 FROM entries d WHERE d.kind = 'debit' AND d.request_id = ?
				AND d.request_id <> '' AND d.%[3]s = ? AND d.amount = ?)
			ON CONFLICT DO NOTHING RETURNING account_id`, cr.table, cr.column, cr.entryColumn),
		grant: fmt.Sprintf(cols+`SELECT c.account_id, ?, 'grant', '', ?, ?, ?, ? FROM %[1]s c
			WHERE c.%[2]s = ? ON CONFLICT DO NOTHING RETURNING account_id`, cr.table, cr.column, cr.entryColumn),
		balance: fmt.Sprintf(`SELECT a.balance FROM %[1]s c JOIN accounts a ON a.id = c.account_id WHERE c.%[2]s = ?`,
			cr.table, cr.column),
		debitOf: fmt.Sprintf(`SELECT COUNT(*) FROM entries WHERE kind = 'debit' AND request_id = ? AND request_id <> ''
			AND %[1]s = ? AND amount = ?`, cr.entryColumn),
	}
}

var (
	sqliteKeyOps    = newSQLiteOps(keyCred)
	sqliteWalletOps = newSQLiteOps(walletCred)
)

const sqliteAddBalance = `UPDATE accounts SET balance = balance + ? WHERE id = ?`

// sqliteChange runs a conditional entry insert; when it appended the entry,
// the balance of its account changes by delta; otherwise why tells the
// refusal.
func (s *SQL) sqliteChange(what string, insert string, args []any, delta int64,
	why func(ctx context.Context, tx *sql.Tx) (error, error)) change {
	return change{apply: func(ctx context.Context, tx *sql.Tx) (error, error) {
		var acct int64
		err := s.queryRow(ctx, tx, insert, args...).Scan(&acct)
		if errors.Is(err, sql.ErrNoRows) {
			return why(ctx, tx)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot %s: %w", what, err)
		}
		if _, err := s.exec(ctx, tx, sqliteAddBalance, delta, acct); err != nil {
			return nil, fmt.Errorf("cannot %s: %w", what, err)
		}
		return nil, nil
	}}
}

// sqliteBalance is the balance of a credential's account; found is false
// when it has none.
func (s *SQL) sqliteBalance(ctx context.Context, tx *sql.Tx, ops sqliteOps, value string) (bal int64, found bool, err error) {
	err = s.queryRow(ctx, tx, ops.balance, value).Scan(&bal)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("cannot read balance: %w", err)
	}
	return bal, true, nil
}

// debitOp takes c from the account of a credential.
func (s *SQL) debitOp(cr credKind, value string, c Charge) change {
	at, amt := micros(c.At), c.AmountMicroUSD
	what := "debit " + cr.noun
	if s.dialect == DialectPostgres {
		ops := pgKeyOps
		if cr == walletCred {
			ops = pgWalletOps
		}
		return change{pg: &pgStmt{query: ops.debit, args: []any{value, amt, c.Route, c.RequestID, at}, what: what,
			missing: cr.missing, unmet: ErrInsufficientCredit, dup: ErrDuplicateRequest}}
	}
	ops := sqliteOpsOf(cr)
	return s.sqliteChange(what, ops.debit, []any{value, c.Route, -amt, c.RequestID, at, value, amt}, -amt,
		func(ctx context.Context, tx *sql.Tx) (error, error) {
			bal, found, err := s.sqliteBalance(ctx, tx, ops, value)
			switch {
			case err != nil:
				return nil, err
			case !found:
				return cr.missing, nil
			case bal < amt:
				return ErrInsufficientCredit, nil
			}
			return ErrDuplicateRequest, nil
		})
}

// refundOp gives back the debit of c to the account of a credential.
func (s *SQL) refundOp(cr credKind, value string, c Charge) change {
	at, amt := micros(c.At), c.AmountMicroUSD
	what := "refund " + cr.noun
	missing := cr.missing
	if cr == walletCred {
		missing = ErrNoSuchDebit
	}
	if s.dialect == DialectPostgres {
		ops := pgKeyOps
		if cr == walletCred {
			ops = pgWalletOps
		}
		return change{pg: &pgStmt{query: ops.refund, args: []any{value, amt, c.Route, c.RequestID, at}, what: what,
			missing: missing, unmet: ErrNoSuchDebit, dup: ErrAlreadyRefunded}}
	}
	ops := sqliteOpsOf(cr)
	return s.sqliteChange(what, ops.refund, []any{value, c.Route, amt, c.RequestID, at, value, c.RequestID, value, -amt}, amt,
		func(ctx context.Context, tx *sql.Tx) (error, error) {
			if _, found, err := s.sqliteBalance(ctx, tx, ops, value); err != nil {
				return nil, err
			} else if !found {
				return missing, nil
			}
			var n int
			if err := s.queryRow(ctx, tx, ops.debitOf, c.RequestID, value, -amt).Scan(&n); err != nil {
				return nil, fmt.Errorf("cannot find the debit to refund: %w", err)
			}
			if n == 0 {
				return ErrNoSuchDebit, nil
			}
			return ErrAlreadyRefunded, nil
		})
}

// grantOp adds amount to the account of a key as a grant entry.
func (s *SQL) grantOp(keyHash string, amount int64, reason, requestID string, at time.Time) change {
	t := micros(at)
	if s.dialect == DialectPostgres {
		return change{pg: &pgStmt{query: pgKeyOps.grant, args: []any{keyHash, amount, requestID, reason, t}, what: "top up key",
			missing: ErrUnknownKey, dup: ErrDuplicateRequest}}
	}
	return s.sqliteChange("top up key", sqliteKeyOps.grant, []any{keyHash, amount, requestID, reason, t, keyHash}, amount,
		func(ctx context.Context, tx *sql.Tx) (error, error) {
			if _, found, err := s.sqliteBalance(ctx, tx, sqliteKeyOps, keyHash); err != nil {
				return nil, err
			} else if !found {
				return ErrUnknownKey, nil
			}
			return ErrDuplicateRequest, nil
		})
}

func sqliteOpsOf(cr credKind) sqliteOps {
	if cr == walletCred {
		return sqliteWalletOps
	}
	return sqliteKeyOps
}
