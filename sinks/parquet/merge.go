package parquet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"
)

// mergeBatch is the rows read from each input, and written, at a time.
const mergeBatch = 8192

// cursor reads one sorted input file in batches.
type cursor[T any] struct {
	f    *os.File
	r    rowReader[T]
	buf  []T
	i    int
	ord  int // input order: ties keep the earlier input's row
	done bool
}

// next advances to the next row; it reports false at the end of the input.
func (c *cursor[T]) next() (bool, error) {
	c.i++
	if c.i < len(c.buf) {
		return true, nil
	}
	if c.done {
		return false, nil
	}
	c.buf = c.buf[:cap(c.buf)]
	n, err := c.r.Read(c.buf)
	c.buf, c.i = c.buf[:n], 0
	if errors.Is(err, io.EOF) {
		c.done, err = true, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", c.f.Name(), err)
	}
	return n > 0, nil
}

func (c *cursor[T]) close() {
	c.r.Close()
	c.f.Close()
}

// cursorHeap is a binary min-heap of cursors by their current row, ties
// by input order. It is container/heap specialized: no interface calls
// per comparison.
type cursorHeap[T any] struct {
	cs  []*cursor[T]
	cmp func(a, b *T) int
}

func (h *cursorHeap[T]) less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	if c := h.cmp(&a.buf[a.i], &b.buf[b.i]); c != 0 {
		return c < 0
	}
	return a.ord < b.ord
}

// down restores the heap order below i.
func (h *cursorHeap[T]) down(i int) {
	n := len(h.cs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.cs[i], h.cs[m] = h.cs[m], h.cs[i]
		i = m
	}
}

func (h *cursorHeap[T]) init() {
	for i := len(h.cs)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// popTop removes the top cursor.
func (h *cursorHeap[T]) popTop() {
	n := len(h.cs) - 1
	h.cs[0] = h.cs[n]
	h.cs[n] = nil
	h.cs = h.cs[:n]
	h.down(0)
}

// mergeFiles merges input files, each sorted by cmp, into one file at out
// (written atomically), keeping the first row of each run of equal keys in
// input order. Memory is a batch per input, whatever the sizes. An input
// that is not sorted is an error.
func mergeFiles[T any](inputs []string, out string, cmp func(a, b *T) int) (int, error) {
	h := &cursorHeap[T]{cmp: cmp}
	defer func() {
		for _, c := range h.cs {
			c.close()
		}
	}()
	var inRows int64
	for i, p := range inputs {
		f, err := os.Open(p)
		if err != nil {
			return 0, fmt.Errorf("cannot open %s: %w", p, err)
		}
		r, n, err := openRows[T](f)
		if err != nil {
			f.Close()
			return 0, err
		}
		inRows += n
		c := &cursor[T]{f: f, r: r, buf: make([]T, 0, max(1, min(mergeBatch, int(n)))), ord: i, i: -1}
		ok, err := c.next()
		if err != nil || !ok {
			c.close()
			if err != nil {
				return 0, err
			}
			continue
		}
		h.cs = append(h.cs, c)
	}
	h.init()

	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return 0, fmt.Errorf("cannot create %s: %w", filepath.Dir(out), err)
	}
	tmp := out + tmpSuffix
	f, err := os.Create(tmp)
	if err != nil {
		return 0, fmt.Errorf("cannot create %s: %w", tmp, err)
	}
	fail := func(err error) (int, error) {
		f.Close()
		os.Remove(tmp)
		return 0, err
	}
	w := pq.NewGenericWriter[T](f, writeOptions()...)
	batch := make([]T, 0, max(1, min(mergeBatch, int(inRows))))
	total := 0
	var prev *T // the last row kept: in batch, or &last once written
	var last T
	for len(h.cs) > 0 {
		c := h.cs[0]
		row := &c.buf[c.i]
		d := -1
		if prev != nil {
			d = cmp(prev, row)
		}
		if d > 0 {
			return fail(fmt.Errorf("cannot merge: %s is not sorted", c.f.Name()))
		}
		if d < 0 {
			batch = append(batch, *row)
			prev = &batch[len(batch)-1]
			if len(batch) == cap(batch) {
				if _, err := w.Write(batch); err != nil {
					return fail(fmt.Errorf("cannot write %s: %w", tmp, err))
				}
				total += len(batch)
				last, prev = batch[len(batch)-1], &last
				batch = batch[:0]
			}
		}
		ok, err := c.next()
		if err != nil {
			return fail(err)
		}
		if ok {
			h.down(0)
		} else {
			h.popTop()
			c.close()
		}
	}
	if len(batch) > 0 {
		if _, err := w.Write(batch); err != nil {
			return fail(fmt.Errorf("cannot write %s: %w", tmp, err))
		}
		total += len(batch)
	}
	if err := w.Close(); err != nil {
		return fail(fmt.Errorf("cannot write %s: %w", tmp, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("cannot sync %s: %w", tmp, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("cannot close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("cannot rename %s: %w", tmp, err)
	}
	return total, syncDir(filepath.Dir(out))
}
