package pgtest

import (
	"database/sql"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const childEnv = "MI_PGTEST_CHILD"

// TestMain lets the test binary act as another test process (a child that
// creates its database, prints its URL, and then exits normally or waits
// to be killed).
func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		d := New("mi_pgtest_test")
		d.once.Do(d.create)
		if d.err != nil {
			os.Stderr.WriteString(d.err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(d.url + "\n")
		if mode == "hang" {
			time.Sleep(time.Hour)
		}
		if err := d.Drop(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func exists(t *testing.T, name string) bool {
	t.Helper()
	admin, err := sql.Open("pgx", Server())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRow(`SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatalf("PostgreSQL at %s is required (run scripts/install.d/postgres.sh): %v", Server(), err)
	}
	return n == 1
}

func dbName(u string) string { return u[strings.LastIndex(u, "/")+1 : strings.Index(u, "?")] }

// TestDatabasePerProcess: two test processes get different databases, each
// dropped when its tests end; the database of a process killed with
// SIGKILL is dropped by the next process that starts.
func TestDatabasePerProcess(t *testing.T) {
	d := New("mi_pgtest_test")
	mine := dbName(d.URL(t))
	if !exists(t, mine) {
		t.Fatalf("%s was not created", mine)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=exit")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	child := dbName(strings.TrimSpace(string(out)))
	if child == mine || !strings.HasPrefix(child, "mi_pgtest_test_") {
		t.Fatalf("child database %q, mine %q: want another one", child, mine)
	}
	if exists(t, child) {
		t.Fatalf("%s survived its process", child)
	}

	// A killed process leaves its database; the next one drops it.
	hang := exec.Command(os.Args[0])
	hang.Env = append(os.Environ(), childEnv+"=hang")
	stdout, _ := hang.StdoutPipe()
	if err := hang.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _ := stdout.Read(buf)
	killed := dbName(strings.TrimSpace(string(buf[:n])))
	_ = hang.Process.Signal(syscall.SIGKILL)
	_ = hang.Wait()
	if !exists(t, killed) {
		t.Fatalf("%s is gone before the next run", killed)
	}
	next := New("mi_pgtest_test")
	_ = next.URL(t)
	defer next.Drop()
	if exists(t, killed) {
		t.Fatalf("%s of a killed process was not dropped", killed)
	}
	if !exists(t, mine) {
		t.Fatalf("the next process dropped %s, which is alive", mine)
	}
	if err := d.Drop(); err != nil || exists(t, mine) {
		t.Fatalf("Drop: %v", err)
	}
}
