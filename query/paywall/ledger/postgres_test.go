package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// pgDatabase is this package's test database on the local PostgreSQL.
const pgDatabase = "mi_ledger_test"

// pgServerURL is the local server (trust auth); MI_LEDGER_TEST_PG overrides
// it. Tests fail, never skip, when it cannot be reached: install and start it
// with scripts/install.d/postgres.sh.
func pgServerURL() string {
	if u := os.Getenv("MI_LEDGER_TEST_PG"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var pgCreateOnce sync.Once
var pgCreateErr error

// pgTestURL creates the test database when missing and returns its URL.
func pgTestURL(t testing.TB) string {
	t.Helper()
	pgCreateOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", pgServerURL())
		if err != nil {
			pgCreateErr = err
			return
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, pgDatabase).Scan(&n); err != nil {
			pgCreateErr = err
			return
		}
		if n == 0 {
			if _, err := db.ExecContext(ctx, `CREATE DATABASE `+pgDatabase); err != nil && !strings.Contains(err.Error(), "already exists") {
				pgCreateErr = err
			}
		}
	})
	if pgCreateErr != nil {
		t.Fatalf("PostgreSQL at %s is unreachable (run scripts/install.d/postgres.sh): %v", pgServerURL(), pgCreateErr)
	}
	u, err := url.Parse(pgServerURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + pgDatabase
	return u.String()
}

// TestPostgresConcurrentMigration: replicas starting together on an empty
// database migrate it once, all of them open.
func TestPostgresConcurrentMigration(t *testing.T) {
	base := pgTestURL(t)
	schema := fmt.Sprintf("m_%d", time.Now().UnixNano())
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), u.String())
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			if v, err := s.SchemaVersion(context.Background()); err != nil || v != len(migrations) {
				errs <- fmt.Errorf("schema version %d, %v", v, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := admin.QueryRow(`SELECT COUNT(*) FROM ` + schema + `.schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Fatalf("%d migrations recorded, %v; want %d", n, err, len(migrations))
	}
}

// postgresBackend gives each test its own schema in the test database,
// dropped when the test ends.
func postgresBackend(t testing.TB) (*SQL, func() *SQL) {
	base := pgTestURL(t)
	schema := fmt.Sprintf("t_%d", time.Now().UnixNano())
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
		admin.Close()
	})
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("cannot create test schema: %v", err)
	}
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	open := func() *SQL {
		s, err := Open(context.Background(), u.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open
}
