package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
)

// cmdSQL is "mi sql": a DuckDB query over the data directory, with the
// views candles, signals, trades and signal_changes defined.
func cmdSQL(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi sql", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./data", "data directory")
	asCSV := fs.Bool("csv", false, "print CSV instead of a table")
	memory := fs.String("memory-limit", "1GB", "DuckDB memory limit")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: mi sql [--data-dir DIR] [--csv] "SELECT ..."

Views: candles, signals, trades, signal_changes (complete day files only;
columns in docs/datasets.md).`)
		fs.PrintDefaults()
	}
	// Flags may come after the query too.
	var query []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		rest = fs.Args()
		if len(rest) > 0 {
			query = append(query, rest[0])
			rest = rest[1:]
		}
	}
	if len(query) != 1 || strings.TrimSpace(query[0]) == "" {
		fs.Usage()
		return fmt.Errorf(`cannot run mi sql: give exactly one query, e.g. mi sql "SELECT count(*) FROM candles"`)
	}
	return runSQL(ctx, os.Stdout, *dataDir, *memory, query[0], *asCSV)
}

func runSQL(ctx context.Context, w io.Writer, dataDir, memory, query string, asCSV bool) error {
	if _, err := os.Stat(dataDir); err != nil {
		return fmt.Errorf("cannot use --data-dir %s: %w", dataDir, err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fmt.Errorf("cannot open DuckDB: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		return fmt.Errorf("cannot set up DuckDB: %w", err)
	}
	if _, err := db.ExecContext(ctx, "SET memory_limit = '"+strings.ReplaceAll(memory, "'", "")+"'"); err != nil {
		return fmt.Errorf("cannot use --memory-limit %q: %w", memory, err)
	}
	for _, v := range datasets.Views(dataDir) {
		if _, err := db.ExecContext(ctx, v.CreateSQL()); err != nil {
			return fmt.Errorf("cannot create the view %s: %w", v.Name, err)
		}
	}
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("cannot run the query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	format := func() []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				out[i] = ""
			case time.Time:
				out[i] = x.UTC().Format(time.RFC3339Nano)
			case []byte:
				out[i] = string(x)
			default:
				out[i] = fmt.Sprint(x)
			}
		}
		return out
	}
	if asCSV {
		cw := csv.NewWriter(w)
		cw.Write(cols)
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			cw.Write(format())
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return rows.Err()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fmt.Fprintln(tw, strings.Join(format(), "\t"))
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	tw.Flush()
	fmt.Fprintf(w, "(%d rows)\n", n)
	return nil
}
