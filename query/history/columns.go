package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

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

// Typed column readers of the record batches of queryBatches; NULLs read
// as the zero value. A column of another type is a bug in the statement
// (the statements cast what they select).

func colFloat64(rec arrow.RecordBatch, i int) []float64 { return colFloat64Or(rec, 0, i) }

// colFloat64Or is column i of rec, a DOUBLE, with NULLs read as null.
func colFloat64Or(rec arrow.RecordBatch, null float64, i int) []float64 {
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
		out[j] = null
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

// colTimestamp is column i of rec, a TIMESTAMPTZ, in Unix microseconds;
// NULLs read as 0.
func colTimestamp(rec arrow.RecordBatch, i int) []int64 {
	a, ok := rec.Column(i).(*array.Timestamp)
	if !ok || a.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond {
		panic(fmt.Sprintf("BUG: column %s is %s, not TIMESTAMPTZ", rec.ColumnName(i), rec.Column(i).DataType()))
	}
	v := a.TimestampValues()
	out := make([]int64, len(v))
	for j := range v {
		if a.IsValid(j) {
			out[j] = int64(v[j])
		}
	}
	return out
}

// colString is column i of rec as strings; the values alias the batch.
func colString(rec arrow.RecordBatch, i int) *array.String {
	a, ok := rec.Column(i).(*array.String)
	if !ok {
		panic(fmt.Sprintf("BUG: column %s is %s, not VARCHAR", rec.ColumnName(i), rec.Column(i).DataType()))
	}
	return a
}

// stringCache copies strings out of record batches, one copy per run of
// equal values in each of up to four columns: the symbol or venue of
// thousands of consecutive rows is one string.
type stringCache [4]string

// get returns row j of column a (NULL reads as ""), cached in slot k.
func (c *stringCache) get(k int, a *array.String, j int) string {
	if a.IsNull(j) {
		return ""
	}
	if v := a.Value(j); v != c[k] {
		c[k] = strings.Clone(v) // v aliases the batch
	}
	return c[k]
}
