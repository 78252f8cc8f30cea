// Package sqldb is what the SQL stores sharing one database (the ledger in
// query/paywall/ledger, the alert outbox in sinks/alerts) need to run the same
// statements on SQLite and PostgreSQL: the dialect names and the rewriting
// of ? placeholders.
package sqldb

import (
	"strconv"
	"strings"
	"sync"
)

// Dialects of the database.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// Rebinder rewrites queries written with ? placeholders for its dialect:
// PostgreSQL gets $1, $2, …, SQLite the query as written. Rewritten queries
// are cached. It is safe for concurrent use.
type Rebinder struct {
	dialect string
	mu      sync.Mutex
	cache   map[string]string
}

// NewRebinder returns the Rebinder of dialect.
func NewRebinder(dialect string) *Rebinder {
	return &Rebinder{dialect: dialect, cache: map[string]string{}}
}

// Q returns query for the dialect. Placeholders are every ?, so queries
// must not hold a literal question mark.
func (r *Rebinder) Q(query string) string {
	if r.dialect != DialectPostgres {
		return query
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if q, ok := r.cache[query]; ok {
		return q
	}
	var b strings.Builder
	n := 0
	for _, ch := range query {
		if ch == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(ch)
	}
	q := b.String()
	r.cache[query] = q
	return q
}
