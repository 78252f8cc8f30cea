package datasets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Step is one retention roll-up: day files of From older than Keep are
// rolled up into To and then deleted.
type Step struct {
	From, To string
	// Keep is how long From is kept, counted in whole UTC days before the
	// day of now.
	Keep time.Duration
}

// Retention is the policy of spec §8: 1m kept 7 days, then 5m until 30
// days, 15m until 180 days, then 1h forever.
var Retention = []Step{
	{Interval1m, Interval5m, 7 * 24 * time.Hour},
	{Interval5m, Interval15m, 30 * 24 * time.Hour},
	{Interval15m, Interval1h, 180 * 24 * time.Hour},
}

// RetentionResult counts what Retain did.
type RetentionResult struct {
	RolledUp int // coarser day files written
	Deleted  int // finer day files deleted
	// Done lists each finer day file Retain removed, in the order it did
	// so, as "<from>→<to> <date> <venue>" (the coarser file was written
	// then, or existed already).
	Done []string
}

// Retain applies the retention policy to the candle day files under root as
// of now: for every step, each (date, venue) day file of the finer interval
// whose date is more than Keep before now's date is aggregated with DuckDB
// (COPY (SELECT … GROUP BY time_bucket …) TO … (FORMAT parquet)) into the
// coarser interval's day file — written to a temporary name and renamed —
// and then deleted. Steps run in order, so a day old enough cascades to 1h
// in one call. It is idempotent and resumable: a coarser file that exists
// was made from the finer one, which is then only deleted, and temporary
// files a crash left are removed. db is a DuckDB connection pool.
func Retain(ctx context.Context, db *sql.DB, root string, now time.Time) (RetentionResult, error) {
	var res RetentionResult
	if err := removeCandleTemps(root); err != nil {
		return res, err
	}
	today := now.UTC().Truncate(24 * time.Hour)
	for _, st := range Retention {
		cutoff := today.Add(-st.Keep).Format(DateFormat) // dates before it go
		files, err := filepath.Glob(filepath.Join(root, KindCandles, "interval="+st.From, "date=*", "venue=*", DayFileName))
		if err != nil {
			panic("BUG: bad glob")
		}
		sort.Strings(files)
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			day, venue := partitionValues(f)
			if day == "" || day >= cutoff {
				continue
			}
			dst := filepath.Join(CandleDir(root, st.To, day, venue), DayFileName)
			coarser, err := coarserExists(root, st.To, day, venue)
			if err != nil {
				return res, err
			}
			if !coarser {
				if err := rollUp(ctx, db, f, dst, st.To); err != nil {
					return res, err
				}
				res.RolledUp++
			}
			if err := os.Remove(f); err != nil {
				return res, fmt.Errorf("cannot remove %s: %w", f, err)
			}
			os.Remove(filepath.Dir(f))
			os.Remove(filepath.Dir(filepath.Dir(f)))
			res.Deleted++
			res.Done = append(res.Done, st.From+"→"+st.To+" "+day+" "+venue)
		}
	}
	return res, nil
}

// coarserExists reports whether (day, venue) has a day file at interval or
// any coarser one: then the finer file was already rolled up.
func coarserExists(root, interval, day, venue string) (bool, error) {
	i := 0
	for i < len(Intervals) && Intervals[i] != interval {
		i++
	}
	for _, iv := range Intervals[i:] {
		p := filepath.Join(CandleDir(root, iv, day, venue), DayFileName)
		if _, err := os.Stat(p); err == nil {
			return true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("cannot stat %s: %w", p, err)
		}
	}
	return false, nil
}

// bucketSQL maps an interval to its DuckDB INTERVAL literal.
var bucketSQL = map[string]string{
	Interval5m: "INTERVAL 5 MINUTE", Interval15m: "INTERVAL 15 MINUTE", Interval1h: "INTERVAL 1 HOUR",
}

// RollUpSQL is the aggregation of finer candles (the view or file src)
// into interval buckets: open of the first and close of the last finer
// candle, extremes, sums, buy pressure and VWAP recomputed from the sums.
// Columns and types are CandleColumns. Floating-point sums add a bucket's
// values in ascending order (xsum(x)), so their
// result does not depend on the order DuckDB's threads scan the rows in:
// rolling up the same files twice gives the same bytes.
func RollUpSQL(src, interval string) string {
	b, ok := bucketSQL[interval]
	if !ok {
		panic("BUG: no roll-up to " + interval)
	}
	return ExactSums(`SELECT time_bucket(` + b + `, ts) AS ts, symbol, venue_kind, chain,
  arg_min(open, ts) AS open, max(high) AS high, min(low) AS low, arg_max(close, ts) AS close,
  xsum(volume) AS volume, xsum(volume_usd) AS volume_usd, xsum(buy_volume) AS buy_volume, xsum(sell_volume) AS sell_volume,
  xsum(buy_volume_usd) AS buy_volume_usd, xsum(sell_volume_usd) AS sell_volume_usd,
  CASE WHEN xsum(buy_volume_usd) + xsum(sell_volume_usd) = 0 THEN 50.0
       ELSE 100 * xsum(buy_volume_usd) / (xsum(buy_volume_usd) + xsum(sell_volume_usd)) END AS buy_pressure,
  CASE WHEN xsum(volume) = 0 THEN arg_max(close, ts) ELSE xsum(vwap * volume) / xsum(volume) END AS vwap,
  sum(trade_count)::BIGINT AS trade_count, sum(buy_count)::BIGINT AS buy_count,
  sum(sell_count)::BIGINT AS sell_count, sum(unknown_side_count)::BIGINT AS unknown_side_count
FROM ` + src + `
GROUP BY ALL ORDER BY ts, symbol, venue_kind, chain`)
}

func rollUp(ctx context.Context, db *sql.DB, src, dst, interval string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", filepath.Dir(dst), err)
	}
	tmp := dst + ".tmp"
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot open a DuckDB connection: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		return fmt.Errorf("cannot set the DuckDB time zone: %w", err)
	}
	q := "COPY (" + RollUpSQL("read_parquet("+quoteString(src)+", hive_partitioning = false)", interval) +
		") TO " + quoteString(tmp) + " (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)"
	if _, err := conn.ExecContext(ctx, q); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot roll %s up to %s: %w", src, interval, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("cannot rename %s: %w", tmp, err)
	}
	return nil
}

// partitionValues returns the date= and venue= values of a path.
func partitionValues(p string) (day, venue string) {
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if v, ok := strings.CutPrefix(seg, "date="); ok {
			day = v
		}
		if v, ok := strings.CutPrefix(seg, "venue="); ok {
			venue = v
		}
	}
	return day, venue
}

func removeCandleTemps(root string) error {
	m, err := filepath.Glob(filepath.Join(root, KindCandles, "interval=*", "date=*", "venue=*", DayFileName+".tmp"))
	if err != nil {
		panic("BUG: bad glob")
	}
	for _, f := range m {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("cannot remove %s: %w", f, err)
		}
	}
	return nil
}
