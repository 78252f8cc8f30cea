package history

import (
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestQueryBatches runs in both builds (`make test` sets duckdb_arrow; the
// Makefile also runs this package without it): DuckDB's own Arrow export
// and the row-by-row fallback must give the same schema and values,
// NULLs, batch boundaries and callback errors included.
func TestQueryBatches(t *testing.T) {
	s, err := Open(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("ArrowNative = %v", ArrowNative)
	at := time.Date(2026, 1, 5, 10, 30, 0, 123456000, time.FixedZone("X", 3600))
	const stmt = `SELECT i::BIGINT AS b, (i * 0.5)::DOUBLE AS d, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 2.0 END::DOUBLE AS dn,
  i::INTEGER AS n, 'v' || i AS s, i % 2 = 0 AS p, ?::TIMESTAMPTZ + i * INTERVAL 1 SECOND AS ts
FROM range(?) t(i) ORDER BY i`
	want := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dn", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	const n = 5000
	next := 0
	err = s.queryBatches(t.Context(), stmt, []any{at, n}, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(want) {
			t.Fatalf("schema\n%s\nwant\n%s", rec.Schema(), want)
		}
		if rec.NumRows() == 0 || rec.NumRows() > 2048 {
			t.Fatalf("a batch of %d rows", rec.NumRows())
		}
		b, d, dn := colInt64(rec, 0), colFloat64(rec, 1), colFloat64(rec, 2)
		for j := range b {
			i := next + j
			wdn := float64(i * 2)
			if i%3 == 0 {
				wdn = 0
			}
			if b[j] != int64(i) || d[j] != float64(i)/2 || dn[j] != wdn {
				t.Fatalf("row %d: %d %v %v", i, b[j], d[j], dn[j])
			}
		}
		ts := rec.Column(6).(interface{ Value(int) arrow.Timestamp }).Value(0)
		if got := time.UnixMicro(int64(ts)); !got.Equal(at.Add(time.Duration(next) * time.Second)) {
			t.Fatalf("row %d: ts %v", next, got)
		}
		next += int(rec.NumRows())
		return nil
	})
	if err != nil || next != n {
		t.Fatalf("%d rows, %v", next, err)
	}
	stop := errors.New("stop")
	calls := 0
	err = s.queryBatches(t.Context(), stmt, []any{at, n}, func(arrow.RecordBatch) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("after a callback error: %v, %d calls", err, calls)
	}
	if err := s.queryBatches(t.Context(), "SELECT ?::DOUBLE WHERE false", []any{1.0}, func(arrow.RecordBatch) error {
		t.Fatal("a batch of an empty result")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
