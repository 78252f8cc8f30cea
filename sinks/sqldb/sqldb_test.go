package sqldb

import "testing"

func TestRebinder(t *testing.T) {
	f := func(dialect, in, want string) {
		t.Helper()
		r := NewRebinder(dialect)
		for range 2 { // the second answer comes from the cache
			if got := r.Q(in); got != want {
				t.Fatalf("%s %q: %q, want %q", dialect, in, got, want)
			}
		}
	}
	f(DialectPostgres, "SELECT a FROM t WHERE b = ? AND c IN (?, ?)", "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)")
	f(DialectPostgres, "SELECT 1", "SELECT 1")
	f(DialectSQLite, "SELECT a FROM t WHERE b = ?", "SELECT a FROM t WHERE b = ?")
}
