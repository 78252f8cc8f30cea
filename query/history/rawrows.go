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
)

// queryRows runs the constant statement stmt with args bound as ? parameters
// on one DuckDB connection and calls row for every result row with the
// driver's values, in result order. It talks to the driver directly: no
// database/sql Scan, whose reflection per value dominated the routes that
// answer thousands of rows. The values are valid during the call only
// (strings are copies and may be kept).
func (s *Store) queryRows(ctx context.Context, stmt string, args []any, row func([]driver.Value) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot get a DuckDB connection: %w", err)
	}
	defer conn.Close()
	named := make([]driver.NamedValue, len(args))
	for i, a := range bindArgs(args) {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			panic("BUG: the DuckDB driver connection has no QueryContext")
		}
		rows, err := q.QueryContext(ctx, stmt, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if err := row(dest); err != nil {
				return err
			}
		}
	})
}

// Typed readers of driver values; a NULL reads as the zero value.

func vString(v driver.Value) string {
	s, _ := v.(string)
	return s
}

func vFloat(v driver.Value) float64 {
	f, _ := v.(float64)
	return f
}

func vInt(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	}
	return 0
}

func vTime(v driver.Value) time.Time {
	t, _ := v.(time.Time)
	return t.UTC()
}

// bindArgs is args as query parameters: times in UTC.
func bindArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			a = t.UTC()
		}
		out[i] = a
	}
	return out
}

// Typed column readers of record batches; NULLs read as the zero value,
// as the driver-value readers above. A column of another type is a bug
// in the statement.

func colFloat64(rec arrow.RecordBatch, i int) []float64 {
	a, ok := rec.Column(i).(*array.Float64)
	if !ok {
		panic(fmt.Sprintf("BUG: column %s is %s, not DOUBLE", rec.ColumnName(i), rec.Column(i).DataType()))
	}
	v := a.Float64Values()
	if a.NullN() == 0 {
		return v
	}
	out := make([]float64, len(v))
	for j := range v {
		if a.IsValid(j) {
			out[j] = v[j]
		}
	}
	return out
}

func colInt64(rec arrow.RecordBatch, i int) []int64 {
	a, ok := rec.Column(i).(*array.Int64)
	if !ok {
		panic(fmt.Sprintf("BUG: column %s is %s, not BIGINT", rec.ColumnName(i), rec.Column(i).DataType()))
	}
	v := a.Int64Values()
	if a.NullN() == 0 {
		return v
	}
	out := make([]int64, len(v))
	for j := range v {
		if a.IsValid(j) {
			out[j] = v[j]
		}
	}
	return out
}
