package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/pgtest"
)

// testPG is this test process's own database on the local PostgreSQL
// (internal/pgtest; MI_TEST_PG names another server), dropped by TestMain.
// Tests fail, never skip, when it cannot be reached: install and start it
// with scripts/install.d/postgres.sh.
var testPG = pgtest.New("mi_ledger_test")

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, testPG)) }

// pgTestURL returns the URL of the process's test database.
func pgTestURL(t testing.TB) string { return testPG.URL(t) }

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
