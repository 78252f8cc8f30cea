package parquet

import (
	"io"
	"slices"

	pq "github.com/parquet-go/parquet-go"
)

// buffer holds the rows of one partition directory until a flush. Rows are
// kept in chunks that are never moved: appending to one growing slice of
// 176-byte trade rows copied every row again at each growth (with a write
// barrier per string during a GC cycle), which was the sink's largest cost
// per trade (BENCHMARKS.md).
type buffer[T any] struct {
	day    string
	chunks [][]T
	n      int
}

// maxChunkRows bounds a chunk: about 1.4 MB of trade rows.
const maxChunkRows = 8192

// add appends row. A chunk holds as many rows as the buffer already has,
// between 64 and maxChunkRows, so small partitions stay small.
func (b *buffer[T]) add(row T) {
	k := len(b.chunks) - 1
	if k < 0 || len(b.chunks[k]) == cap(b.chunks[k]) {
		b.chunks = append(b.chunks, make([]T, 0, min(max(b.n, 64), maxChunkRows)))
		k++
	}
	b.chunks[k] = append(b.chunks[k], row)
	b.n++
}

// sorted returns the rows sorted by cmp, first of equal keys first, with
// only the first row of each key kept: pointers into the chunks, sorted
// by an index so that no row is moved.
func (b *buffer[T]) sorted(cmp func(a, b *T) int) []*T {
	ptrs := make([]*T, 0, b.n)
	for _, c := range b.chunks {
		for i := range c {
			ptrs = append(ptrs, &c[i])
		}
	}
	order := make([]int32, len(ptrs))
	inOrder := true
	for i := range order {
		order[i] = int32(i)
		if i > 0 && inOrder && cmp(ptrs[i-1], ptrs[i]) > 0 {
			inOrder = false
		}
	}
	if !inOrder {
		// pdqsort with the arrival position as the last key: stable.
		slices.SortFunc(order, func(i, j int32) int {
			if c := cmp(ptrs[i], ptrs[j]); c != 0 {
				return c
			}
			return int(i - j)
		})
	}
	out := make([]*T, 0, len(ptrs))
	for _, i := range order {
		p := ptrs[i]
		if len(out) > 0 && cmp(out[len(out)-1], p) == 0 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// encodePtrs writes the rows rows point to as one Parquet file to w,
// gathering them into a reused batch.
func encodePtrs[T any](w io.Writer, rows []*T) error {
	pw := pq.NewGenericWriter[T](w, writeOptions()...)
	batch := make([]T, 0, min(len(rows), 4096))
	for len(rows) > 0 {
		n := min(len(rows), cap(batch))
		batch = batch[:n]
		for i, p := range rows[:n] {
			batch[i] = *p
		}
		if _, err := pw.Write(batch); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return pw.Close()
}
