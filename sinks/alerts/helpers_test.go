package alerts

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/internal/pgtest"
)

// testPG is this test process's own database on the local PostgreSQL
// (dropped by TestMain at the end).
var testPG = pgtest.New("mi_alerts_test")

// openSQLite opens a fresh SQLite database the way the ledger does.
func openSQLite(t testing.TB) *sql.DB {
	t.Helper()
	dsn := "file:" + filepath.Join(t.TempDir(), "ledger.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPostgres opens a fresh schema in this process's test database. An
// unreachable server fails the test.
func openPostgres(t testing.TB) *sql.DB {
	t.Helper()
	ctx := context.Background()
	base := testPG.URL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	setup, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = setup.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		setup.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// eachDialect runs f on SQLite and on PostgreSQL.
func eachDialect(t *testing.T, f func(t *testing.T, db *sql.DB, dialect string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, openSQLite(t), DialectSQLite) })
	t.Run("postgres", func(t *testing.T) { f(t, openPostgres(t), DialectPostgres) })
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

func openStore(t testing.TB, db *sql.DB, dialect string, c *clock) *Store {
	t.Helper()
	st, err := Open(context.Background(), db, dialect, Config{Key: testKey, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// received is one request a test receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is a loopback TLS webhook receiver whose answer the test sets.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	status int
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{status: http.StatusNoContent}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: b})
		st := r.status
		r.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setStatus(s int) { r.mu.Lock(); r.status = s; r.mu.Unlock() }

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// tlsFor trusts the certificate of srv.
func tlsFor(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

// testDispatcher admits the loopback receiver (test-only setting).
func testDispatcher(st *Store, srv *httptest.Server, cfg DispatcherConfig) *Dispatcher {
	cfg.Safety.AllowLoopback = true
	cfg.TLS = tlsFor(srv)
	return NewDispatcher(st, cfg)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
