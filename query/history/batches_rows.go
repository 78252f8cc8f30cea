//go:build !duckdb_arrow

package history

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ArrowNative reports whether query results reach Go as DuckDB's own Arrow
// record batches (the duckdb_arrow build tag, which `make` sets) rather
// than rows converted in Go.
const ArrowNative = false

// rowBatch is the number of rows per record batch of the fallback, the
// size of a DuckDB data chunk.
const rowBatch = 2048

// queryBatches runs the constant statement stmt with args bound as ?
// parameters on one DuckDB connection and calls batch for every record
// batch of the result, in result order. This build lacks the duckdb_arrow
// tag, so it reads the result row by row and builds batches of up to 2048
// rows in Go, with the types DuckDB's Arrow export would give (DOUBLE,
// BIGINT, INTEGER, VARCHAR, BOOLEAN and TIMESTAMPTZ). The batches are
// valid during the call only.
func (s *Store) queryBatches(ctx context.Context, stmt string, args []any, batch func(arrow.RecordBatch) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot get a DuckDB connection: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			panic("BUG: the DuckDB driver connection has no QueryContext")
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range bindArgs(args) {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, stmt, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		typed, ok := rows.(driver.RowsColumnTypeDatabaseTypeName)
		if !ok {
			panic("BUG: DuckDB rows without column type names")
		}
		cols := rows.Columns()
		fields := make([]arrow.Field, len(cols))
		for i, name := range cols {
			t, err := arrowType(typed.ColumnTypeDatabaseTypeName(i))
			if err != nil {
				return fmt.Errorf("cannot read column %s as Arrow: %w", name, err)
			}
			fields[i] = arrow.Field{Name: name, Type: t, Nullable: true}
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
		defer b.Release()
		flush := func() error {
			rec := b.NewRecordBatch()
			defer rec.Release()
			return batch(rec)
		}
		dest := make([]driver.Value, len(cols))
		n := 0
		for {
			if err := rows.Next(dest); err != nil {
				if !errors.Is(err, io.EOF) {
					return err
				}
				if n > 0 {
					return flush()
				}
				return nil
			}
			for i, v := range dest {
				appendValue(b.Field(i), v)
			}
			if n++; n == rowBatch {
				if err := flush(); err != nil {
					return err
				}
				n = 0
			}
		}
	})
}

// arrowType is the Arrow type DuckDB's Arrow export gives a column of the
// DuckDB type named name.
func arrowType(name string) (arrow.DataType, error) {
	switch name {
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64, nil
	case "BIGINT":
		return arrow.PrimitiveTypes.Int64, nil
	case "INTEGER":
		return arrow.PrimitiveTypes.Int32, nil
	case "VARCHAR":
		return arrow.BinaryTypes.String, nil
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean, nil
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	}
	return nil, fmt.Errorf("unsupported DuckDB type %s (build with -tags duckdb_arrow)", name)
}

// appendValue appends the driver value v (nil for NULL) to the builder of
// its column, whose type arrowType chose.
func appendValue(fb array.Builder, v driver.Value) {
	if v == nil {
		fb.AppendNull()
		return
	}
	switch fb := fb.(type) {
	case *array.Float64Builder:
		fb.Append(v.(float64))
	case *array.Int64Builder:
		fb.Append(v.(int64))
	case *array.Int32Builder:
		fb.Append(v.(int32))
	case *array.StringBuilder:
		fb.Append(v.(string))
	case *array.BooleanBuilder:
		fb.Append(v.(bool))
	case *array.TimestampBuilder:
		fb.Append(arrow.Timestamp(v.(time.Time).UnixMicro()))
	default:
		panic(fmt.Sprintf("BUG: no Arrow append for %T", fb))
	}
}
