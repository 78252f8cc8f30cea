package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// cmdExport is "mi export": copy the complete day files of a date range.
func cmdExport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi export", flag.ContinueOnError)
	from := fs.String("from", "", "first UTC day, YYYY-MM-DD (required)")
	to := fs.String("to", "", "last UTC day, YYYY-MM-DD (default: --from)")
	dest := fs.String("dest", "", "destination directory (required); the layout of the data directory is kept")
	symbols := fs.String("symbols", "", "comma-separated symbols to keep (default: all)")
	dataDir := fs.String("data-dir", "./data", "data directory to export from")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, t, err := parseDayRange(*from, *to)
	if err != nil {
		return err
	}
	if *dest == "" {
		return fmt.Errorf("cannot export without --dest: accepted a directory path")
	}
	keep := map[string]bool{}
	if *symbols != "" {
		for _, s := range strings.Split(*symbols, ",") {
			if s = strings.ToUpper(strings.TrimSpace(s)); s != "" {
				keep[s] = true
			}
		}
	}
	files, err := pqsink.DayFiles(*dataDir, f.Format("2006-01-02"), t.Format("2006-01-02"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("cannot export: no complete day files between %s and %s in %s", *from, t.Format("2006-01-02"), *dataDir)
	}
	bar := newFracBar(os.Stderr)
	written := 0
	for i, df := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := pqsink.ExportDayFile(*dataDir, *dest, df, keep)
		if err != nil {
			bar.done()
			return err
		}
		if n != 0 {
			written++
		}
		bar.update(float64(i+1)/float64(len(files)), fmt.Sprintf("%d/%d files", i+1, len(files)))
	}
	bar.done()
	fmt.Fprintf(os.Stderr, "exported %d day files to %s\n", written, *dest)
	return nil
}
