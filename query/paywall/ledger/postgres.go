package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The batched operations (ops.go) on PostgreSQL: each is one statement, and
// a whole batch is one pipeline, so one round trip (pgx prepares and caches
// the statements per connection). Data-modifying CTEs lock the account (debits), append the
// entry with ON CONFLICT DO NOTHING (a duplicate request id, also one of a
// concurrent transaction of another replica, is no error: the insert waits
// for it and inserts nothing) and change the balance only when the entry was
// appended. The statement answers three flags, from which the operation's
// result follows without a second round trip: the credential exists, the
// condition held (balance covers the debit, the debit to refund exists), the
// change was applied.
//
// A debit's SELECT … FOR UPDATE re-checks balance >= amount on the newest
// version of the account row under READ COMMITTED and holds the row until
// the batch commits, so the UPDATE that follows in the same statement never
// overdraws (the CHECK (balance >= 0) of the table backs this up).

// pgOps are the statements of one credential kind.
type pgOps struct{ debit, refund, grant string }

func newPGOps(cr credKind) pgOps {
	return pgOps{
		debit: fmt.Sprintf(`WITH c AS (SELECT account_id FROM %[1]s WHERE %[2]s = $1),
a AS (SELECT id FROM accounts WHERE id = (SELECT account_id FROM c) AND balance >= $2 FOR UPDATE),
i AS (INSERT INTO entries (account_id, %[3]s, kind, route, amount, request_id, reason, created_at)
	SELECT id, $1, 'debit', $3, -$2::BIGINT, $4, '', $5 FROM a ON CONFLICT DO NOTHING RETURNING account_id),
u AS (UPDATE accounts SET balance = balance - $2 WHERE id = (SELECT account_id FROM i) RETURNING id)
SELECT EXISTS (SELECT 1 FROM c), EXISTS (SELECT 1 FROM a), EXISTS (SELECT 1 FROM u)`, cr.table, cr.column, cr.entryColumn),
		refund: fmt.Sprintf(`WITH c AS (SELECT account_id FROM %[1]s WHERE %[2]s = $1),
d AS (SELECT 1 FROM entries WHERE kind = 'debit' AND request_id = $4 AND request_id <> '' AND %[3]s = $1 AND amount = -$2::BIGINT),
i AS (INSERT INTO entries (account_id, %[3]s, kind, route, amount, request_id, reason, created_at)
	SELECT account_id, $1, 'refund', $3, $2, $4, '', $5 FROM c WHERE EXISTS (SELECT 1 FROM d) ON CONFLICT DO NOTHING RETURNING account_id),
u AS (UPDATE accounts SET balance = balance + $2 WHERE id = (SELECT account_id FROM i) RETURNING id)
SELECT EXISTS (SELECT 1 FROM c), EXISTS (SELECT 1 FROM d), EXISTS (SELECT 1 FROM u)`, cr.table, cr.column, cr.entryColumn),
		grant: fmt.Sprintf(`WITH c AS (SELECT account_id FROM %[1]s WHERE %[2]s = $1),
i AS (INSERT INTO entries (account_id, %[3]s, kind, route, amount, request_id, reason, created_at)
	SELECT account_id, $1, 'grant', '', $2, $3, $4, $5 FROM c ON CONFLICT DO NOTHING RETURNING account_id),
u AS (UPDATE accounts SET balance = balance + $2 WHERE id = (SELECT account_id FROM i) RETURNING id)
SELECT EXISTS (SELECT 1 FROM c), TRUE, EXISTS (SELECT 1 FROM u)`, cr.table, cr.column, cr.entryColumn),
	}
}

var (
	pgKeyOps    = newPGOps(keyCred)
	pgWalletOps = newPGOps(walletCred)
)

// pgStmt is one batched operation on PostgreSQL: its statement, answering
// three flags, and the refusals the flags map to: missing when the
// credential does not exist, unmet when the condition did not hold, dup when
// the entry existed already.
type pgStmt struct {
	query               string
	args                []any
	what                string // names the operation in errors
	missing, unmet, dup error
}

// result maps the statement's flags to the operation's result.
func (p *pgStmt) result(found, met, applied bool) error {
	switch {
	case applied:
		return nil
	case !found:
		return p.missing
	case !met:
		return p.unmet
	}
	return p.dup
}

// attemptPG sends the batch as one pipeline (pgx.Batch): every statement and
// one Sync, in one round trip. Without BEGIN the statements before the Sync
// run in one implicit transaction, committed when the server processes the
// Sync; the answers are trusted only after its ReadyForQuery (Close), so an
// operation is answered after the commit. A failing statement aborts the
// rest, which then fail too; failed is the first.
func (c *committer) attemptPG(ctx context.Context, batch []*op) (outcomes []error, failed int, err error) {
	conn, err := c.s.db.Conn(ctx)
	if err != nil {
		return nil, -1, fmt.Errorf("cannot begin ledger transaction: %w", err)
	}
	defer conn.Close()
	outcomes = make([]error, len(batch))
	failed = -1
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			panic(fmt.Sprintf("BUG: PostgreSQL ledger connection is %T, not pgx", dc))
		}
		var b pgx.Batch
		for _, o := range batch {
			b.Queue(o.pg.query, o.pg.args...)
		}
		if c.commitHook != "" {
			b.Queue(c.commitHook)
		}
		br := sc.Conn().SendBatch(ctx, &b)
		for i, o := range batch {
			var found, met, applied bool
			if err := br.QueryRow().Scan(&found, &met, &applied); err != nil {
				br.Close()
				failed = i
				return fmt.Errorf("cannot %s: %w", o.pg.what, err)
			}
			outcomes[i] = o.pg.result(found, met, applied)
		}
		if c.commitHook != "" {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("cannot commit ledger transaction: %w", err)
			}
		}
		if err := br.Close(); err != nil {
			return fmt.Errorf("cannot commit ledger transaction: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, failed, err
	}
	return outcomes, -1, nil
}
