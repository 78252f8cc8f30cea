// Package history is the query tier's access to the history files of
// package datasets: one in-process DuckDB over the Parquet day files and,
// for (date, venue) pairs without a day file yet, the staging part files.
//
// Every statement is a constant SQL text with ? parameters: values that come
// from a request (symbols, times, thresholds) are always bound, never
// spliced. The list of files a statement reads is built from the directory
// tree by this package and bound as a parameter too.
//
// The routes that sell the history (routes*.go: candles, datasets, the
// multi-signal query, backtests, the track record) are declared here too,
// next to the store they read.
package history

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
)

// ErrNoData is returned when no stored file covers a request.
var ErrNoData = errors.New("no stored data")

// Config configures a Store.
type Config struct {
	// DataDir is the data root of package datasets.
	DataDir string
	// MemoryLimit is DuckDB's memory_limit, e.g. "512MB"; empty means
	// DefaultMemoryLimit. Spilling is off, so a query that would need more
	// fails with an out-of-memory error instead of exceeding it.
	MemoryLimit string
	// Threads is DuckDB's thread count; 0 means 2.
	Threads int
	// Now is the clock for defaults ("yesterday", "now"); nil means
	// time.Now.
	Now func() time.Time
}

// DefaultMemoryLimit is the memory limit of a Store whose Config leaves it
// empty.
const DefaultMemoryLimit = "512MB"

// Store is the DuckDB access layer. It is safe for concurrent use.
type Store struct {
	root string
	db   *sql.DB
	conn *duckdb.Connector
	now  func() time.Time
	// memoryBytes is MemoryLimit in bytes, for sizing batches.
	memoryBytes int64

	symMu sync.Mutex // guards the two listings below
	symAt time.Time
	syms  []string

	offKey             string // venue kinds of offSyms and offVenues
	offAt              time.Time
	offSyms, offVenues []string

	liveOnce sync.Once
	lc       *liveCache // what the live scan reads (live.go)
}

// Open opens an in-process DuckDB configured by c. It creates nothing on
// disk: DuckDB runs in memory and only reads the data root (backtest runs
// persisted with persist=true are JSON files under <root>/backtests).
func Open(c Config) (*Store, error) {
	if c.DataDir == "" {
		return nil, errors.New("cannot open the history store: no data directory")
	}
	if c.MemoryLimit == "" {
		c.MemoryLimit = DefaultMemoryLimit
	}
	memBytes, err := parseBytes(c.MemoryLimit)
	if err != nil {
		return nil, fmt.Errorf("cannot open the history store: memory limit %q: %w", c.MemoryLimit, err)
	}
	if c.Threads <= 0 {
		c.Threads = 2
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	q := url.Values{}
	q.Set("memory_limit", c.MemoryLimit)
	q.Set("threads", fmt.Sprint(c.Threads))
	// No spilling to disk: the memory limit is a hard bound, and the query
	// tier writes nothing next to the data.
	q.Set("temp_directory", "")
	// Every statement orders its result explicitly; not keeping insertion
	// order lets DuckDB stream more and hold less.
	q.Set("preserve_insertion_order", "false")
	conn, err := duckdb.NewConnector("?"+q.Encode(), func(e driver.ExecerContext) error {
		_, err := e.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot open DuckDB: %w", err)
	}
	return &Store{root: c.DataDir, db: sql.OpenDB(conn), conn: conn, now: c.Now, memoryBytes: memBytes}, nil
}

// parseBytes reads a DuckDB memory size: a number and a unit among B, KB,
// MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024),
// case-insensitive, spaces allowed between them.
func parseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, errors.New("want a number and a unit, e.g. 512MB")
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("cannot read the number: %w", err)
	}
	mult := map[string]float64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[strings.ToLower(strings.TrimSpace(v[i:]))]
	if mult == 0 || n <= 0 {
		return 0, errors.New("want a positive number and a unit among B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")
	}
	return int64(n * mult), nil
}

// Close ends the background reads (hit rates, smart-money rankings:
// live.go), waits for them, and closes DuckDB.
func (s *Store) Close() error {
	lc := s.live()
	lc.cancel()
	lc.bg.Wait()
	err := s.db.Close()
	if cerr := s.conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// DB returns the database handle, for tests and benchmarks.
func (s *Store) DB() *sql.DB { return s.db }

// Root returns the data root.
func (s *Store) Root() string { return s.root }

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now().UTC() }

// MemoryLimit returns DuckDB's effective memory_limit setting.
func (s *Store) MemoryLimit(ctx context.Context) (string, error) {
	var v string
	if err := s.db.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&v); err != nil {
		return "", fmt.Errorf("cannot read memory_limit: %w", err)
	}
	return v, nil
}

// leaf is one partition directory that holds rows, relative to a dataset
// prefix: "date=D" or "date=D/venue=V".
type leaf struct {
	day   string
	venue string // empty for datasets without a venue partition
	rel   string
}

// listDays returns the date=YYYY-MM-DD values under dir, sorted.
func listDays(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if d, ok := strings.CutPrefix(e.Name(), "date="); ok && e.IsDir() {
			if _, err := time.Parse(datasets.DateFormat, d); err == nil {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// leaves lists the partition leaves of the dataset prefix rel (e.g.
// "candles/interval=1m") whose day is within [from, to] (inclusive, ""
// meaning open), in the main tree and in the staging tree. withVenue says
// the leaves are date=/venue= pairs.
func (s *Store) leaves(rel string, withVenue bool, from, to string) []leaf {
	seen := map[string]leaf{}
	for _, base := range []string{filepath.Join(s.root, rel), filepath.Join(s.root, datasets.StagingDir, rel)} {
		for _, d := range listDays(base) {
			if (from != "" && d < from) || (to != "" && d > to) {
				continue
			}
			if !withVenue {
				r := "date=" + d
				seen[r] = leaf{day: d, rel: r}
				continue
			}
			ents, _ := os.ReadDir(filepath.Join(base, "date="+d))
			for _, e := range ents {
				if v, ok := strings.CutPrefix(e.Name(), "venue="); ok && e.IsDir() && v != "" {
					r := filepath.Join("date="+d, e.Name())
					seen[r] = leaf{day: d, venue: v, rel: r}
				}
			}
		}
	}
	out := make([]leaf, 0, len(seen))
	for _, l := range seen {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b leaf) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// files returns the Parquet files of one leaf: the day file when it exists,
// otherwise the staging part files.
func (s *Store) files(rel string, l leaf) []string {
	day := filepath.Join(s.root, rel, l.rel, datasets.DayFileName)
	if st, err := os.Stat(day); err == nil && st.Mode().IsRegular() {
		return []string{day}
	}
	parts, _ := filepath.Glob(filepath.Join(s.root, datasets.StagingDir, rel, l.rel, "*.parquet"))
	return parts
}

// intervalDuration is the length of a stored candle interval.
func intervalDuration(iv string) time.Duration {
	switch iv {
	case datasets.Interval1m:
		return time.Minute
	case datasets.Interval5m:
		return 5 * time.Minute
	case datasets.Interval15m:
		return 15 * time.Minute
	case datasets.Interval1h:
		return time.Hour
	}
	panic("BUG: unknown interval " + iv)
}

// IntervalDuration returns the length of a candle interval of
// datasets.Intervals; it panics on any other value.
func IntervalDuration(iv string) time.Duration { return intervalDuration(iv) }

// candleSet is the files of the candles dataset chosen for a request, each
// (date, venue) pair read at one stored interval.
type candleSet struct {
	files []string
	// widths are the bucket widths in seconds, parallel to files.
	widths []int64
	// resolutions are the stored intervals used, finest first.
	resolutions []string
	// venues is the number of distinct venues of the files: no bucket
	// combines more venue rows than that.
	venues int
}

// exactSums reports whether a statement over cs at bucket width w must sum
// with datasets.ExactSums: when a group can hold three rows or more — a
// roll-up of finer rows, or three venues or more — whose plain sum would
// depend on the order DuckDB's threads deliver them. Groups of one or two
// rows sum the same in any order (floating-point addition commutes), so
// the common direct read of two venues keeps the cheaper plain sum.
func (cs candleSet) exactSums(w int64) bool {
	return cs.venues >= 3 || !cs.direct(w)
}

// candleFiles chooses, for every (date, venue) pair with days in [from, to],
// the finest stored interval no coarser than want (or, when the pair has
// only coarser ones, the finest it has), and returns its files. A pair is
// read at one interval only, so rows are never counted twice while a
// retention roll-up leaves two resolutions of a day on disk.
func (s *Store) candleFiles(want string, from, to string) candleSet {
	type pick struct {
		iv    int
		files []string
	}
	wantIdx := slices.Index(datasets.Intervals, want)
	best := map[string]pick{}
	leafVenue := map[string]string{}
	for i, iv := range datasets.Intervals {
		rel := filepath.Join(datasets.KindCandles, "interval="+iv)
		for _, l := range s.leaves(rel, true, from, to) {
			fs := s.files(rel, l)
			if len(fs) == 0 {
				continue
			}
			if cur, ok := best[l.rel]; ok && pickScore(cur.iv, wantIdx) <= pickScore(i, wantIdx) {
				continue
			}
			best[l.rel] = pick{iv: i, files: fs}
			leafVenue[l.rel] = l.venue
		}
	}
	var cs candleSet
	used := map[int]bool{}
	venues := map[string]bool{}
	keys := make([]string, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := best[k]
		used[p.iv] = true
		venues[leafVenue[k]] = true
		w := int64(intervalDuration(datasets.Intervals[p.iv]) / time.Second)
		for _, f := range p.files {
			cs.files = append(cs.files, f)
			cs.widths = append(cs.widths, w)
		}
	}
	for i, iv := range datasets.Intervals {
		if used[i] {
			cs.resolutions = append(cs.resolutions, iv)
		}
	}
	cs.venues = len(venues)
	return cs
}

// pickScore orders the stored intervals of a (date, venue) pair for a
// wanted interval, lower first: the coarsest no coarser than wanted (the
// same candles from the fewest rows), then the finer of the coarser ones.
func pickScore(iv, want int) int {
	if iv <= want {
		return want - iv
	}
	return 100 + iv
}

// dayFiles returns the files of a dataset without a venue partition
// (signals of one window, signal changes) for days in [from, to].
func (s *Store) dayFiles(rel, from, to string) []string {
	var out []string
	for _, l := range s.leaves(rel, false, from, to) {
		out = append(out, s.files(rel, l)...)
	}
	return out
}

// signalFiles returns the signal-document files of window for [from, to].
func (s *Store) signalFiles(window, from, to string) []string {
	return s.dayFiles(filepath.Join(datasets.KindSignals, "window="+window), from, to)
}

// signalChangeFiles returns the signal-change files for [from, to].
func (s *Store) signalChangeFiles(from, to string) []string {
	return s.dayFiles(datasets.KindSignalChanges, from, to)
}

func datasetsDay(t time.Time) string { return datasets.Day(t) }
