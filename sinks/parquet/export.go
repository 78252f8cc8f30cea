package parquet

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/marketintel/mi/datasets"
)

// DayFile is one complete day file under a data directory.
type DayFile struct {
	Rel  string // path relative to the data directory
	Kind string // datasets.KindCandles, ...
	Day  string
}

// DayFiles lists the complete day files under root (never staging parts)
// whose date is within [from, to] (YYYY-MM-DD strings, inclusive), sorted.
func DayFiles(root, from, to string) ([]DayFile, error) {
	var out []DayFile
	for _, kind := range []string{datasets.KindCandles, datasets.KindSignals, datasets.KindTrades, datasets.KindSignalChanges} {
		err := filepath.WalkDir(filepath.Join(root, kind), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == filepath.Join(root, kind) && os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() || d.Name() != datasets.DayFileName {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			day := ""
			for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
				if v, ok := strings.CutPrefix(seg, "date="); ok {
					day = v
				}
			}
			if day != "" && day >= from && day <= to {
				out = append(out, DayFile{Rel: rel, Kind: kind, Day: day})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot list the day files: %w", err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// ExportDayFile copies the day file f from root to the same relative path
// under dest, atomically. When symbols is not empty only their rows are
// kept; a file left with no rows is not written. It returns the rows
// written, or -1 when the file was copied byte for byte.
func ExportDayFile(root, dest string, f DayFile, symbols map[string]bool) (int, error) {
	src := filepath.Join(root, f.Rel)
	dst := filepath.Join(dest, f.Rel)
	if len(symbols) == 0 {
		return -1, copyFile(src, dst)
	}
	switch f.Kind {
	case datasets.KindCandles:
		return filterCopy(src, dst, symbols, func(r *CandleRow) string { return r.Symbol })
	case datasets.KindSignals:
		return filterCopy(src, dst, symbols, func(r *SignalRow) string { return r.Symbol })
	case datasets.KindTrades:
		return filterCopy(src, dst, symbols, func(r *TradeRow) string { return r.Symbol })
	case datasets.KindSignalChanges:
		return filterCopy(src, dst, symbols, func(r *SignalChangeRow) string { return r.Symbol })
	}
	panic("BUG: unknown dataset kind " + f.Kind)
}

func filterCopy[T any](src, dst string, symbols map[string]bool, sym func(*T) string) (int, error) {
	rows, err := readFile[T](nil, src)
	if err != nil {
		return 0, err
	}
	out := rows[:0]
	for i := range rows {
		if symbols[sym(&rows[i])] {
			out = append(out, rows[i])
		}
	}
	if len(out) == 0 {
		return 0, nil
	}
	return len(out), writeFile(dst, out)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", src, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", filepath.Dir(dst), err)
	}
	tmp := dst + tmpSuffix
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", tmp, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("cannot rename %s: %w", tmp, err)
	}
	return nil
}
