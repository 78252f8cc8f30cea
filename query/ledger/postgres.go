package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// The PostgreSQL hot paths: a debit and a refund of a key are each one
// statement (data-modifying CTEs), so one round trip and one commit. A
// statement is atomic: a unique violation on the entry rolls back the balance
// change with it. The UPDATE's WHERE balance >= amount is re-checked on the
// latest row version under concurrent updates, so no debit overdraws.

const pgDebitKey = `WITH k AS (SELECT account_id FROM api_keys WHERE key_hash = $1),
u AS (UPDATE accounts SET balance = balance - $2 WHERE id = (SELECT account_id FROM k) AND balance >= $2 RETURNING id)
INSERT INTO entries (account_id, key_hash, kind, route, amount, request_id, reason, created_at)
SELECT id, $1, 'debit', $3, -$2::BIGINT, $4, '', $5 FROM u RETURNING account_id`

const pgRefundKey = `WITH k AS (SELECT account_id FROM api_keys WHERE key_hash = $1),
d AS (SELECT 1 FROM entries WHERE kind = 'debit' AND request_id = $4 AND request_id <> '' AND key_hash = $1 AND amount = -$2::BIGINT),
i AS (INSERT INTO entries (account_id, key_hash, kind, route, amount, request_id, reason, created_at)
	SELECT account_id, $1, 'refund', $3, $2, $4, '', $5 FROM k WHERE EXISTS (SELECT 1 FROM d) RETURNING account_id)
UPDATE accounts SET balance = balance + $2 WHERE id = (SELECT account_id FROM i) RETURNING id`

// isUniqueViolation reports a PostgreSQL unique_violation (23505).
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

func (s *SQL) pgDebitKey(ctx context.Context, keyHash string, c Charge) error {
	var acct int64
	err := s.db.QueryRowContext(ctx, pgDebitKey, keyHash, c.AmountMicroUSD, c.Route, c.RequestID, micros(c.At)).Scan(&acct)
	switch {
	case err == nil:
		return nil
	case isUniqueViolation(err):
		return ErrDuplicateRequest
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("cannot debit key: %w", err)
	}
	return s.pgWhyNot(ctx, keyHash, ErrInsufficientCredit)
}

func (s *SQL) pgRefundKey(ctx context.Context, keyHash string, c Charge) error {
	if c.AmountMicroUSD <= 0 {
		return ErrInvalidAmount
	}
	if c.RequestID == "" {
		return fmt.Errorf("cannot refund a charge without request id: %w", ErrNoSuchDebit)
	}
	var acct int64
	err := s.db.QueryRowContext(ctx, pgRefundKey, keyHash, c.AmountMicroUSD, c.Route, c.RequestID, micros(c.At)).Scan(&acct)
	switch {
	case err == nil:
		return nil
	case isUniqueViolation(err):
		return ErrAlreadyRefunded
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("cannot refund key: %w", err)
	}
	return s.pgWhyNot(ctx, keyHash, ErrNoSuchDebit)
}

// pgWhyNot tells why a hot-path statement changed nothing: ErrUnknownKey
// when the key does not exist, otherwise cause.
func (s *SQL) pgWhyNot(ctx context.Context, keyHash string, cause error) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE key_hash = $1`, keyHash).Scan(&n); err != nil {
		return fmt.Errorf("cannot look up API key: %w", err)
	}
	if n == 0 {
		return ErrUnknownKey
	}
	return cause
}
