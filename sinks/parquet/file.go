package parquet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/s2"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// MaxRowsPerRowGroup bounds the row groups of every file we write, so
// DuckDB can parallelize a scan by row group (DESIGN.md §6).
const MaxRowsPerRowGroup = 1_000_000

// dictionaryMaxBytes bounds the dictionary of a column chunk: past it, the
// column is plain-encoded for the rest of the row group (high-cardinality
// wallets), so a dictionary never costs more than it saves.
const dictionaryMaxBytes = 1 << 20

// tmpSuffix marks a file being written; readers and compaction ignore it,
// and startup removes leftovers.
const tmpSuffix = ".tmp"

// writeOptions are the options of every file: fixed, so the same rows make
// the same bytes.
func writeOptions() []pq.WriterOption {
	return []pq.WriterOption{
		pq.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
		pq.Compression(fastSnappy{}),
		// Min/max statistics in every data page header duplicate the
		// column index and the column-chunk statistics, which are what
		// DuckDB and hyparquet read; computing them again per page cost a
		// sixth of the encoding time.
		pq.DataPageStatistics(false),
		pq.CreatedBy("mi", "1", ""),
		pq.DictionaryMaxBytes(dictionaryMaxBytes),
		// Bounds of string columns cost a comparison per value (a third of
		// the encoding time) and, with rows sorted by time, prune little:
		// only the numeric and time columns carry min/max statistics.
		pq.SkipPageBounds("symbol"), pq.SkipPageBounds("venue_kind"), pq.SkipPageBounds("chain"),
		pq.SkipPageBounds("market"), pq.SkipPageBounds("venue_symbol"), pq.SkipPageBounds("side"),
		pq.SkipPageBounds("trade_id"), pq.SkipPageBounds("wallet"), pq.SkipPageBounds("id"),
		pq.SkipPageBounds("document_id"), pq.SkipPageBounds("signal"), pq.SkipPageBounds("signal_strength"),
		pq.SkipPageBounds("event_type"), pq.SkipPageBounds("algorithm_version"), pq.SkipPageBounds("window"),
		pq.SkipPageBounds("previous_signal"),
	}
}

// fastSnappy is the Snappy codec with the fast block encoder: the bytes
// are standard Snappy blocks any reader decodes. parquet-go's codec uses
// the "better" encoder, which took a fifth of the encoding time for files
// 1-3 % smaller (BENCHMARKS.md).
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }
func (fastSnappy) Encode(dst, src []byte) ([]byte, error)    { return s2.EncodeSnappy(dst[:0], src), nil }
func (fastSnappy) Decode(dst, src []byte) ([]byte, error) {
	return (&snappy.Codec{}).Decode(dst, src)
}

// writeFile writes rows to path atomically: into path+".tmp", synced, then
// renamed over path, and the directory synced. A reader sees the whole file
// or none of it.
func writeFile[T any](path string, rows []T) error {
	return writeFileWith(path, func(w io.Writer) error { return encode(w, rows) })
}

// writeFileWith writes the file enc encodes to path atomically, as
// writeFile does.
func writeFileWith(path string, enc func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", filepath.Dir(path), err)
	}
	tmp := path + tmpSuffix
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", tmp, err)
	}
	if err := enc(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot rename %s: %w", tmp, err)
	}
	return syncDir(filepath.Dir(path))
}

// WriteRows writes rows (CandleRow, SignalRow, TradeRow or
// SignalChangeRow) as one Parquet file at path, atomically, with the
// options of every file the sink writes.
func WriteRows[T any](path string, rows []T) error { return writeFile(path, rows) }

// ReadRows reads every row of the Parquet file at path.
func ReadRows[T any](path string) ([]T, error) { return readFile[T](nil, path) }

// encode writes rows as one Parquet file to w.
func encode[T any](w io.Writer, rows []T) error { return encodeWith(w, rows, writeOptions()) }

// encodeWith writes rows as one Parquet file to w with the given options.
func encodeWith[T any](w io.Writer, rows []T, opts []pq.WriterOption) error {
	pw := pq.NewGenericWriter[T](w, opts...)
	for len(rows) > 0 {
		n := min(len(rows), 64*1024)
		if _, err := pw.Write(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return pw.Close()
}

// readFile appends the rows of the Parquet file at path to dst.
func readFile[T any](dst []T, path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return dst, fmt.Errorf("cannot open %s: %w", path, err)
	}
	defer f.Close()
	r, rows, err := openRows[T](f)
	if err != nil {
		return dst, err
	}
	defer r.Close()
	n := int(rows)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	got := 0
	for got < n {
		k, err := r.Read(dst[start+got:])
		got += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return dst[:start], fmt.Errorf("cannot read %s: %w", path, err)
		}
	}
	if got != n {
		return dst[:start], fmt.Errorf("cannot read %s: %d of %d rows", path, got, n)
	}
	return dst, nil
}

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", dir, err)
	}
	return nil
}
