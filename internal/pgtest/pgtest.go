// Package pgtest gives each test process its own database on the local
// PostgreSQL server the conformance suites run on, so that concurrent test
// runs (two `make test`, other helpers, CI reruns) never share one: the
// database is created on first use, named after the package prefix, the
// process id and the start time, and dropped when the tests end. Databases
// left by processes that died are dropped by the next run.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx database/sql driver
)

// ServerEnv overrides the server URL (a database on it the tests may
// connect to for administration, usually postgres).
const ServerEnv = "MI_TEST_PG"

// DefaultServer is the local server scripts/install.d/postgres.sh sets up
// (trust authentication on 127.0.0.1).
const DefaultServer = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// StaleAfter is the age after which a test database is dropped even if a
// process with its pid exists (the pid was reused).
const StaleAfter = 6 * time.Hour

// Server returns the administration URL of the test server.
func Server() string {
	if u := os.Getenv(ServerEnv); u != "" {
		return u
	}
	return DefaultServer
}

// DB is one test process's database.
type DB struct {
	prefix string
	once   sync.Once
	name   string
	url    string
	err    error
}

// New returns the database of this process for a package; prefix (e.g.
// "mi_alerts_test") starts its name. Nothing happens until URL is called.
func New(prefix string) *DB {
	if !regexp.MustCompile(`^[a-z][a-z0-9_]{0,30}$`).MatchString(prefix) {
		panic("BUG: pgtest prefix " + prefix)
	}
	return &DB{prefix: prefix}
}

// URL returns the URL of the process's database, creating it (and dropping
// the databases of dead processes) on first use. An unreachable server
// fails the test: install and start it with scripts/install.d/postgres.sh.
func (d *DB) URL(t testing.TB) string {
	t.Helper()
	d.once.Do(d.create)
	if d.err != nil {
		t.Fatalf("PostgreSQL at %s is required (run scripts/install.d/postgres.sh): %v", Server(), d.err)
	}
	return d.url
}

func (d *DB) create() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", Server())
	if err != nil {
		d.err = err
		return
	}
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		d.err = err
		return
	}
	d.dropStale(ctx, admin)
	// The pid says whose it is, the second how old, and the sequence
	// tells apart two databases of one process made in one second.
	d.name = fmt.Sprintf("%s_%d_%d_%d", d.prefix, os.Getpid(), time.Now().Unix(), seq.Add(1))
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+d.name); err != nil {
		d.err = fmt.Errorf("cannot create database %s: %w", d.name, err)
		return
	}
	u, err := url.Parse(Server())
	if err != nil {
		d.err = err
		return
	}
	u.Path = "/" + d.name
	d.url = u.String()
}

// dropStale drops the databases of this prefix whose process is gone, or
// that are older than StaleAfter.
func (d *DB) dropStale(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE $1`, d.prefix+`\_%`)
	if err != nil {
		return
	}
	var stale []string
	re := regexp.MustCompile(`^` + d.prefix + `_(\d+)_(\d+)(?:_\d+)?$`)
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		m := re.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		sec, _ := strconv.ParseInt(m[2], 10, 64)
		if !alive(pid) || time.Since(time.Unix(sec, 0)) > StaleAfter {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		_, _ = admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	}
}

// seq numbers the databases this process creates.
var seq atomic.Int64

// alive reports whether a process with pid exists on this machine.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// Drop drops the process's database if it was created; TestMain calls it
// after m.Run.
func (d *DB) Drop() error {
	if d.name == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", Server())
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+d.name+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("cannot drop test database %s: %w", d.name, err)
	}
	return nil
}

// Main runs the tests of a package and drops its database at the end.
func Main(m *testing.M, d *DB) int {
	code := m.Run()
	if err := d.Drop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
