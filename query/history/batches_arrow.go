//go:build duckdb_arrow

package history

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// ArrowNative reports whether query results reach Go as DuckDB's own Arrow
// record batches (the duckdb_arrow build tag, which `make` sets) rather
// than rows converted in Go.
const ArrowNative = true

// queryBatches runs the constant statement stmt with args bound as ?
// parameters on one DuckDB connection and calls batch for every record
// batch of the result, in result order. The batches come straight from
// DuckDB's Arrow export, a data chunk (up to 2048 rows) each, and are
// valid during the call only.
func (s *Store) queryBatches(ctx context.Context, stmt string, args []any, batch func(arrow.RecordBatch) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot get a DuckDB connection: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		dconn, ok := dc.(driver.Conn)
		if !ok {
			panic("BUG: the DuckDB driver connection is not a driver.Conn")
		}
		ar, err := duckdb.NewArrowFromConn(dconn)
		if err != nil {
			return err
		}
		rr, err := ar.QueryContext(ctx, stmt, bindArgs(args)...)
		if err != nil {
			return err
		}
		defer rr.Release()
		for rr.Next() {
			if err := batch(rr.RecordBatch()); err != nil {
				return err
			}
		}
		return rr.Err()
	})
}
