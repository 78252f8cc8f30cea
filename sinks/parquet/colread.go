package parquet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
)

// rowReader reads the rows of one file in order. Read fills rows from the
// start of dst and returns io.EOF (possibly with n > 0) at the end.
type rowReader[T any] interface {
	Read(dst []T) (int, error)
	Close() error
}

// openRows opens the Parquet file f for reading rows of type T. A file whose
// columns are exactly the required int64, double, byte-array and boolean
// columns of T (every file this package writes) is decoded column by column
// (colReader); any other file goes through parquet-go's generic reader,
// which matches columns by name.
func openRows[T any](f *os.File) (rowReader[T], int64, error) {
	r, n, _, err := openRowsAs[T](f, genericReads)
	return r, n, err
}

// genericReads makes openRows use parquet-go's generic reader for every
// file: the benchmarks measure the column reader against it.
var genericReads = false

// openRowsAs is openRows; generic forces the generic reader, and columnar
// reports whether the column reader was used.
func openRowsAs[T any](f *os.File, generic bool) (r rowReader[T], rows int64, columnar bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, 0, false, fmt.Errorf("cannot stat %s: %w", f.Name(), err)
	}
	pf, err := pq.OpenFile(f, st.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		return nil, 0, false, fmt.Errorf("cannot open %s: %w", f.Name(), err)
	}
	if !generic {
		if r, ok := newColReader[T](pf); ok {
			return r, pf.NumRows(), true, nil
		}
	}
	g := pq.NewGenericReader[T](pf)
	return g, g.NumRows(), false, nil
}

// field is where a column's values go in a row struct.
type field struct {
	off  uintptr
	kind pq.Kind
}

// fieldsOf maps the parquet column names of the struct T to its fields;
// ok is false when T has a field the column reader does not decode (a
// pointer for an optional column, ...): such rows go through the generic
// reader.
func fieldsOf[T any]() (fields map[string]field, ok bool) {
	t := reflect.TypeFor[T]()
	out := map[string]field{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("parquet"), ",")
		var k pq.Kind
		switch sf.Type.Kind() {
		case reflect.Int64:
			k = pq.Int64
		case reflect.Float64:
			k = pq.Double
		case reflect.String:
			k = pq.ByteArray
		case reflect.Bool:
			k = pq.Boolean
		default:
			return nil, false
		}
		out[name] = field{off: sf.Offset, kind: k}
	}
	return out, true
}

// colReader decodes a file of rows of T column by column: each column reads
// its own pages and writes its values into the rows' fields, so there is no
// per-value dispatch or reflection, dictionary-encoded strings cost one Go
// string per dictionary entry, and plain strings one allocation per page.
type colReader[T any] struct {
	rgs  []pq.RowGroup
	rg   int   // next row group
	left int64 // rows of the current row group not yet read
	cols []*colState
}

// colState is one column: its field, its pages and the current page.
type colState struct {
	name  string
	field field
	pages pq.Pages
	page  pq.Page
	n     int // values in page
	pos   int // values of page already read

	i64   []int64
	f64   []float64
	bools []bool
	// A dictionary-encoded page: indexes into dictStr, the dictionary's
	// entries as strings (decoded once per column chunk).
	idx     []int32
	dict    pq.Dictionary
	dictStr []string
	// A plain byte-array page: its values, copied into one string, and
	// their offsets in it.
	str  string
	offs []uint32
}

// newColReader returns a colReader if the columns of f are exactly those
// of T, all required (no nulls, no repetition).
func newColReader[T any](f *pq.File) (*colReader[T], bool) {
	fields, ok := fieldsOf[T]()
	paths := f.Schema().Columns()
	if !ok || len(paths) != len(fields) {
		return nil, false
	}
	r := &colReader[T]{rgs: f.RowGroups()}
	for _, p := range paths {
		if len(p) != 1 {
			return nil, false
		}
		fl, ok := fields[p[0]]
		leaf, ok2 := f.Schema().Lookup(p...)
		if !ok || !ok2 || leaf.MaxDefinitionLevel != 0 || leaf.MaxRepetitionLevel != 0 || leaf.Node.Type().Kind() != fl.kind {
			return nil, false
		}
		r.cols = append(r.cols, &colState{name: p[0], field: fl})
	}
	return r, true
}

// Read implements rowReader.
func (r *colReader[T]) Read(dst []T) (int, error) {
	n := 0
	for n < len(dst) {
		if r.left == 0 {
			if r.rg == len(r.rgs) {
				return n, io.EOF
			}
			if err := r.nextRowGroup(); err != nil {
				return n, err
			}
			continue
		}
		k := int(min(int64(len(dst)-n), r.left))
		base := unsafe.Pointer(&dst[n])
		for _, c := range r.cols {
			if err := c.fill(base, unsafe.Sizeof(dst[0]), k); err != nil {
				return n, err
			}
		}
		n += k
		r.left -= int64(k)
	}
	return n, nil
}

func (r *colReader[T]) nextRowGroup() error {
	g := r.rgs[r.rg]
	r.rg++
	chunks := g.ColumnChunks()
	if len(chunks) != len(r.cols) {
		return fmt.Errorf("cannot read row group %d: %d columns, want %d", r.rg-1, len(chunks), len(r.cols))
	}
	for i, c := range r.cols {
		c.release()
		if c.pages != nil {
			c.pages.Close()
		}
		c.pages, c.dict, c.dictStr = chunks[i].Pages(), nil, nil
	}
	r.left = g.NumRows()
	return nil
}

// Close implements rowReader.
func (r *colReader[T]) Close() error {
	for _, c := range r.cols {
		c.release()
		if c.pages != nil {
			c.pages.Close()
			c.pages = nil
		}
	}
	return nil
}

func (c *colState) release() {
	if c.page != nil {
		pq.Release(c.page)
		c.page = nil
	}
	c.n, c.pos = 0, 0
}

// errShortColumn is a column chunk with fewer values than its row group
// has rows.
var errShortColumn = errors.New("column chunk shorter than its row group")

// load reads the next page of the column.
func (c *colState) load() error {
	c.release()
	p, err := c.pages.ReadPage()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot read column %s: %w", c.name, errShortColumn)
	}
	if err != nil {
		return fmt.Errorf("cannot read column %s: %w", c.name, err)
	}
	c.page, c.n, c.pos = p, int(p.NumValues()), 0
	if p.NumNulls() != 0 || int64(c.n) != p.NumRows() {
		return fmt.Errorf("cannot read column %s: a page with nulls or repeated values", c.name)
	}
	got := 0
	data := p.Data()
	switch c.field.kind {
	case pq.Int64:
		c.i64 = data.Int64()
		got = len(c.i64)
	case pq.Double:
		c.f64 = data.Double()
		got = len(c.f64)
	case pq.Boolean:
		c.bools = append(c.bools[:0], make([]bool, c.n)...)
		br, ok := p.Values().(pq.BooleanReader)
		if !ok {
			return fmt.Errorf("cannot read column %s: no boolean reader", c.name)
		}
		got, err = br.ReadBooleans(c.bools)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("cannot read column %s: %w", c.name, err)
		}
	case pq.ByteArray:
		if d := p.Dictionary(); d != nil {
			if d != c.dict {
				dv := d.Page().Data()
				dd, offs := dv.ByteArray()
				all := string(dd)
				c.dictStr = c.dictStr[:0]
				for i := 0; i+1 < len(offs); i++ {
					c.dictStr = append(c.dictStr, all[offs[i]:offs[i+1]])
				}
				c.dict = d
			}
			c.idx, c.offs = data.Int32(), nil
			got = len(c.idx)
			for _, x := range c.idx {
				if x < 0 || int(x) >= len(c.dictStr) {
					return fmt.Errorf("cannot read column %s: dictionary index %d of %d", c.name, x, len(c.dictStr))
				}
			}
		} else {
			b, offs := data.ByteArray()
			c.str, c.offs, c.idx = string(b), offs, nil
			got = max(len(offs)-1, 0)
		}
	default:
		panic("BUG: column kind")
	}
	if got != c.n {
		return fmt.Errorf("cannot read column %s: %d values decoded of %d", c.name, got, c.n)
	}
	return nil
}

// fill writes the column's next k values into the field of k rows, the
// first at base, stride bytes apart. Field addresses are computed from the
// row index, so no pointer ever points past the rows.
func (c *colState) fill(base unsafe.Pointer, stride uintptr, k int) error {
	base = unsafe.Add(base, c.field.off)
	at := func(row int) unsafe.Pointer { return unsafe.Add(base, uintptr(row)*stride) }
	for row := 0; row < k; {
		if c.pos == c.n {
			if err := c.load(); err != nil {
				return err
			}
			continue
		}
		m := min(k-row, c.n-c.pos)
		switch c.field.kind {
		case pq.Int64:
			for i, v := range c.i64[c.pos : c.pos+m] {
				*(*int64)(at(row + i)) = v
			}
		case pq.Double:
			for i, v := range c.f64[c.pos : c.pos+m] {
				*(*float64)(at(row + i)) = v
			}
		case pq.Boolean:
			for i, v := range c.bools[c.pos : c.pos+m] {
				*(*bool)(at(row + i)) = v
			}
		case pq.ByteArray:
			if c.offs == nil {
				for i, x := range c.idx[c.pos : c.pos+m] {
					*(*string)(at(row + i)) = c.dictStr[x]
				}
			} else {
				for i := range m {
					j := c.pos + i
					*(*string)(at(row + i)) = c.str[c.offs[j]:c.offs[j+1]]
				}
			}
		}
		c.pos += m
		row += m
	}
	return nil
}
