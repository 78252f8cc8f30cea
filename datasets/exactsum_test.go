package datasets

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestExactSumsIgnoreOrder: the same values in every order give the same
// bits; a value of magnitude 1 or more comes back as stored; NaN and
// values of 2^75 and more count as NULL instead of failing the statement. A plain sum of the
// first set differs between two of the orders (so the test can fail).
func TestExactSumsIgnoreOrder(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum := func(expr string, vals []float64) float64 {
		t.Helper()
		rows := make([]string, len(vals))
		for i, v := range vals {
			rows[i] = fmt.Sprintf("(%d, '%v'::DOUBLE)", i, v)
		}
		// The VALUES list keeps its order; one thread sums it in that order.
		q := ExactSums("SELECT " + expr + " FROM (VALUES " + strings.Join(rows, ",") + ") t(i, x)")
		var got float64
		if err := db.QueryRow(q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return got
	}
	vals := []float64{2012.4564000000044 / 3, 0.1, 0.2, 0.3, 1e-9, 653.9604088129786, 1072.4345000000012, 940.0219000000022, 3e-7}
	r := rand.New(rand.NewPCG(1, 2))
	want := sum("xsum(x)", vals)
	plain := map[float64]bool{}
	for range 40 {
		r.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		if got := sum("xsum(x)", vals); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("order %v: %v, another order %v", vals, got, want)
		}
		plain[sum("sum(x)", vals)] = true
	}
	if len(plain) < 2 {
		t.Fatalf("the plain sum gave one result in every order: the values do not test order")
	}
	exact := new(big.Float).SetPrec(200)
	for _, v := range vals {
		exact.Add(exact, big.NewFloat(v))
	}
	if e, _ := exact.Float64(); math.Abs(want-e) > 1e-15*e {
		t.Fatalf("sum %v, exact %v", want, e)
	}
	if got := sum("xsum(x)", []float64{653.9604088129786}); got != 653.9604088129786 {
		t.Fatalf("one value %v", got)
	}
	if got := sum("xsum(x)", []float64{1, math.NaN(), 1e23}); got != 1 {
		t.Fatalf("with NaN and 1e23: %v, want 1 (both count as NULL)", got)
	}
	if got := sum("xsum(x)", []float64{3e20, 1e-3, 2.5}); got != 3e20+2.5 {
		t.Fatalf("3e20 + 0.001 + 2.5: %v", got)
	}
}
