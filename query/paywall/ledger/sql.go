package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/marketintel/mi/sinks/sqldb"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Dialects of the SQL backend, as Dialect returns them.
const (
	DialectSQLite   = sqldb.DialectSQLite
	DialectPostgres = sqldb.DialectPostgres
)

// DefaultFile is the name of the SQLite ledger inside the data directory.
const DefaultFile = "ledger.db"

// Sentinels of the SQL backend beyond the Store contract.
var (
	// ErrNoSuchDebit: a refund names no debit of that key or wallet with
	// that request id and amount.
	ErrNoSuchDebit = errors.New("no such debit to refund")
	// ErrAlreadyRefunded: the debit was refunded before.
	ErrAlreadyRefunded = errors.New("debit already refunded")
	// ErrDuplicateRequest: an entry of the same kind with the same request
	// id exists (a purchase, grant or debit is recorded at most once per
	// request id).
	ErrDuplicateRequest = errors.New("request already recorded")
	// ErrInvalidAmount: an amount is zero or negative.
	ErrInvalidAmount = errors.New("amount must be positive")
)

// Entry kinds, the kind column of the entries table.
const (
	KindGrant    = "grant"     // operator credit on a new or existing key
	KindPurchase = "purchase"  // a credit pack paid with x402
	KindCredit   = "credit"    // operator credit on a wallet
	KindDebit    = "debit"     // a paid call (negative amount)
	KindRefund   = "refund"    // a paid call answered >= 400 (positive amount)
	KindMergeOut = "merge_out" // balance moved out of a merged account
	KindMergeIn  = "merge_in"  // balance moved into the surviving account
	KindReversal = "reversal"  // a purchase whose payment did not settle
)

// SQL is the ledger on a SQL database: SQLite (one file, in the data
// directory by default) or PostgreSQL (shared by API replicas). It
// implements Store. Balances live on accounts; every change of a balance is
// one append-only row of the entries table written in the same transaction,
// so a balance always equals the sum of its account's entries (Verify checks
// it). An API key or a wallet is a credential of exactly one account.
type SQL struct {
	db      *sql.DB
	dialect string
	mu      sync.Mutex
	rebind  *sqldb.Rebinder
	stmts   map[string]*sql.Stmt // SQLite: prepared once, reused by every transaction
	commit  *committer           // applies debits, refunds and top-ups in batches
}

var _ Store = (*SQL)(nil)

// Open opens the ledger at url and applies pending migrations. url is
// "postgres://…" or "postgresql://…" for PostgreSQL (a pgx connection
// string), "sqlite:PATH" or a plain file path for SQLite; the SQLite file
// and its directory are created when missing.
func Open(ctx context.Context, url string) (*SQL, error) {
	var (
		db      *sql.DB
		dialect string
		err     error
	)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		dialect = DialectPostgres
		db, err = sql.Open("pgx", url)
		if err != nil {
			return nil, fmt.Errorf("cannot open PostgreSQL ledger: %w", err)
		}
		db.SetMaxOpenConns(16)
		db.SetMaxIdleConns(16)
	default:
		path := strings.TrimPrefix(url, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return nil, errors.New("cannot open SQLite ledger: empty path")
		}
		if i := strings.Index(path, "://"); i >= 0 {
			return nil, fmt.Errorf("cannot open ledger: unsupported URL scheme %q (accepted: postgres://, postgresql://, sqlite:PATH or a file path)", path[:i])
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("cannot create ledger directory: %w", err)
		}
		dialect = DialectSQLite
		dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
			"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
		db, err = sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("cannot open SQLite ledger: %w", err)
		}
		// One connection serialises writers of this process without
		// SQLITE_BUSY retries; other processes wait on the busy timeout and
		// every transaction starts with BEGIN IMMEDIATE.
		db.SetMaxOpenConns(1)
	}
	s := &SQL{db: db, dialect: dialect, rebind: sqldb.NewRebinder(dialect), stmts: map[string]*sql.Stmt{}}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach %s ledger: %w", dialect, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s.commit = newCommitter(s)
	return s, nil
}

// DefaultURL is the ledger URL of a data directory: its SQLite file.
func DefaultURL(dataDir string) string { return "sqlite:" + filepath.Join(dataDir, DefaultFile) }

// DB is the database handle, for other tables kept in the same database
// (the alert outbox). Callers must not touch the ledger's tables.
func (s *SQL) DB() *sql.DB { return s.db }

// Dialect is DialectSQLite or DialectPostgres.
func (s *SQL) Dialect() string { return s.dialect }

// Close answers the operations still queued with ErrClosed, after the batch
// being committed, and closes the database.
func (s *SQL) Close() error {
	if s.commit != nil {
		s.commit.close()
	}
	s.mu.Lock()
	for _, st := range s.stmts {
		if st != nil {
			st.Close()
		}
	}
	s.stmts = map[string]*sql.Stmt{}
	s.mu.Unlock()
	return s.db.Close()
}

// q rewrites a query written with ? placeholders for the dialect:
// PostgreSQL gets $1, $2, ….
func (s *SQL) q(query string) string {
	return s.rebind.Q(query)
}

// stmt returns query prepared for the dialect. On SQLite a statement is
// prepared once (compiling SQL costs more than running these statements) and
// reused by every transaction; it cannot be prepared inside a transaction,
// which holds the only connection, so a new query runs unprepared once and is
// prepared after that transaction ends (preparePending). On PostgreSQL pgx
// caches prepared statements per connection itself, so nil.
func (s *SQL) stmt(query string) (*sql.Stmt, string) {
	if s.dialect != DialectSQLite {
		return nil, s.q(query)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.stmts[query]
	if !ok {
		s.stmts[query] = nil // pending
	}
	return st, query
}

// preparePending prepares the statements first seen in a transaction; it
// runs outside any transaction.
func (s *SQL) preparePending(ctx context.Context) {
	if s.dialect != DialectSQLite {
		return
	}
	s.mu.Lock()
	var pending []string
	for q, st := range s.stmts {
		if st == nil {
			pending = append(pending, q)
		}
	}
	s.mu.Unlock()
	for _, q := range pending {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			continue // runs unprepared; the error shows when it runs
		}
		s.mu.Lock()
		if s.stmts[q] == nil {
			s.stmts[q] = st
			st = nil
		}
		s.mu.Unlock()
		if st != nil {
			st.Close()
		}
	}
}

// exec runs query (with ? placeholders) in tx.
func (s *SQL) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, q := s.stmt(query)
	if st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, q, args...)
}

// queryRow runs query (with ? placeholders) in tx.
func (s *SQL) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	st, q := s.stmt(query)
	if st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}

// tx runs fn in a transaction (BEGIN IMMEDIATE on SQLite, READ COMMITTED on
// PostgreSQL) and commits it when fn returns nil.
func (s *SQL) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cannot begin ledger transaction: %w", err)
	}
	err = fn(tx)
	if err != nil {
		tx.Rollback()
	} else if err = tx.Commit(); err != nil {
		err = fmt.Errorf("cannot commit ledger transaction: %w", err)
	}
	s.preparePending(ctx)
	return err
}

// micros is t in Unix microseconds; the zero time is now.
func micros(t time.Time) int64 {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UnixMicro()
}
