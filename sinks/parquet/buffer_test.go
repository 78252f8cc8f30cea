package parquet

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBufferSortedIsStableAndDeduped checks the flush order against
// sortDedupe over rows spanning many chunks, in arrival order (sorted
// already) and shuffled, with keys delivered several times and differing
// in a column outside the key: the first delivery must win.
func TestBufferSortedIsStableAndDeduped(t *testing.T) {
	for _, shuffle := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		var rows []TradeRow
		for i := range 30_000 {
			rows = append(rows, TradeRow{EventTime: int64(i / 10), TradeID: string(rune('a' + i%5)), Wallet: "w" + string(rune('0'+i%7))})
		}
		if shuffle {
			r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		}
		var b buffer[TradeRow]
		for _, row := range rows {
			b.add(row)
		}
		if len(b.chunks) < 3 {
			t.Fatalf("%d chunks, want several", len(b.chunks))
		}
		want := sortDedupe(append([]TradeRow(nil), rows...), cmpTrade)
		got := b.sorted(cmpTrade)
		if len(want) != len(rows)/2 {
			panic("BUG: each key is delivered twice")
		}
		if len(got) != len(want) {
			t.Fatalf("shuffle=%v: %d rows, want %d", shuffle, len(got), len(want))
		}
		for i := range want {
			if *got[i] != want[i] {
				t.Fatalf("shuffle=%v: row %d = %+v, want %+v", shuffle, i, *got[i], want[i])
			}
		}
	}
}

// sortDedupe is the reference the sink's chunked buffer is held to (and
// the old flush path the benchmarks compare with): it sorts rows by cmp,
// stably, and keeps the first of each run of equal keys.
func sortDedupe[T any](rows []T, cmp func(a, b *T) int) []T {
	slices.SortStableFunc(rows, func(a, b T) int { return cmp(&a, &b) })
	out := rows[:0]
	for i := range rows {
		if len(out) > 0 && cmp(&out[len(out)-1], &rows[i]) == 0 {
			continue
		}
		out = append(out, rows[i])
	}
	return out
}
