package datasets

import "regexp"

// xsumCall is xsum(expr) with an expression without parentheses.
var xsumCall = regexp.MustCompile(`xsum\(([^()]*)\)`)

// ExactSums rewrites every xsum(x) of a DuckDB statement (x without
// parentheses) into a sum of the DOUBLE x whose result does not depend on
// the order the rows arrive in. DuckDB scans files and row groups on
// several threads, and a floating-point sum — plain, or compensated
// (fsum) — taken in arrival order can differ in its last bit between two
// runs over the same files (the cluster suite saw both); sorting the
// values first (an ORDER BY or a sorted list inside the aggregate)
// buffers every row and runs out of memory on a week of 20 symbols.
//
// So each value is scaled by 2^52 (exact: a power of two), rounded to a
// HUGEINT, summed exactly in integer arithmetic and scaled back to a
// DOUBLE. A value of magnitude 1 or more is kept exactly (its last bit is
// worth at least 2^-52); a smaller one is rounded to a multiple of 2^-52
// (about 2.2e-16). A group of one or two rows takes the plain sum instead,
// exact for one value and the same in either order for two (addition
// commutes), so a single venue's stored row comes back bit for bit however
// small; the row count is one count(*) per group, shared by every xsum.
// Values that are not finite or reach 2^75 (about 3.8e22, where the scaled
// value leaves the HUGEINT range) count as NULL (TRY_CAST): candle values
// are finite by validation at ingest and far below. A sum that leaves the
// HUGEINT range fails the statement with DuckDB's overflow error. A
// roll-up costs 1.2–1.4× the plain sum (BenchmarkCandles20x7d5m,
// BENCHMARKS.md).
func ExactSums(sql string) string {
	return xsumCall.ReplaceAllString(sql, `(CASE WHEN count(*) <= 2 THEN sum(($1)::DOUBLE) `+
		`ELSE sum(TRY_CAST(($1)::DOUBLE * 4503599627370496.0 AS HUGEINT))::DOUBLE / 4503599627370496.0 END)`)
}

// PlainSums rewrites every xsum(x) of a statement into DuckDB's sum(x):
// for statements whose groups hold at most two rows, where the plain sum
// is the same in any order.
func PlainSums(sql string) string {
	return xsumCall.ReplaceAllString(sql, `sum($1)`)
}
