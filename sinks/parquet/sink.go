// Package parquet writes the history datasets — 1m candles per venue,
// signal documents at each minute close, normalized trades and the
// signal-change log — as Parquet files in the layout of package datasets.
//
// Rows are buffered per partition directory and written as part files into
// the staging tree (temp + rename). Once the event-time watermark passes the
// end of a UTC day plus a grace period, compaction merges that day's parts,
// and the day file if one exists, into the day file (temp + rename), then
// deletes the parts. Compaction deduplicates rows by their natural key and
// sorts them, so a day file is a function of the set of rows delivered: a
// record delivered twice (at-least-once) yields one row, and the same input
// yields the same bytes. A crash at any point leaves either the old state or
// the new one plus parts that the next compaction merges again; Open
// finishes the compaction of days that a later day file proves closed.
package parquet

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// DefaultGrace is how far the event-time watermark must pass the end of a
// UTC day before the day is compacted: more than the largest allowed
// lateness (30 s on EVM chains) plus the minute a candle needs to close.
const DefaultGrace = 2 * time.Minute

// Config configures a Sink.
type Config struct {
	// Root is the data directory holding the datasets.
	Root string
	// Grace is the event time past a day's end before the day closes;
	// 0 means DefaultGrace.
	Grace time.Duration
	// Logger receives compaction notices; nil discards them.
	Logger *slog.Logger
}

// Sink buffers rows and writes part files and day files under Root. It is
// not safe for concurrent use.
type Sink struct {
	root   string
	grace  int64
	log    *slog.Logger
	prefix string // part-name prefix, unique per Sink
	seq    int

	candles table[CandleRow]
	signals table[SignalRow]
	trades  table[TradeRow]
	changes table[SignalChangeRow]

	positioning table[PositioningRow] // positioning.go
	predictions table[PredictionRow]
	stablecoins table[StablecoinRow] // token.go
	tokenRisk   table[TokenRiskRow]

	lastMinute map[string]int64 // symbol|window → last minute close written (ns)
	hasMark    bool
	watermark  int64 // newest event time seen in any stream, ns
	// Per stream (candles, signals, trades): newest event time seen. A day
	// closes when every stream seen has passed it, so a lagging stream (the
	// operators' outputs behind the trades) does not miss its day file.
	streamSeen [3]bool
	streamMark [3]int64
	pending    map[string]struct{} // days with staged or buffered rows
	lastDay    string              // the day last marked pending; "" after a compaction
	buffered   int
}

// table is the buffer of one dataset: rows per final partition directory.
type table[T any] struct {
	cmp  func(a, b *T) int
	bufs map[string]*buffer[T]
	// byVenue finds the buffer of a (UTC day number, venue) without
	// formatting the day and joining the directory path for every row.
	byVenue map[venueDay]*buffer[T]
}

type venueDay struct {
	day   int64 // days since 1970-01-01 UTC
	venue string
}

// dayNumber is the UTC day of the Unix time ns, as days since the epoch.
func dayNumber(ns int64) int64 {
	const d = int64(24 * time.Hour)
	q := ns / d
	if ns%d < 0 {
		q--
	}
	return q
}

// addByVenue buffers row in the partition of venue and the UTC day of ns,
// whose directory dirOf returns for the day; it returns the day.
func (t *table[T]) addByVenue(ns int64, venue string, dirOf func(day string) string, row T) string {
	k := venueDay{dayNumber(ns), venue}
	b := t.byVenue[k]
	if b == nil {
		day := datasets.Day(time.Unix(k.day*86400, 0))
		dir := dirOf(day)
		if b = t.bufs[dir]; b == nil {
			b = &buffer[T]{day: day}
			t.bufs[dir] = b
		}
		if t.byVenue == nil {
			t.byVenue = map[venueDay]*buffer[T]{}
		}
		t.byVenue[k] = b
	}
	b.add(row)
	return b.day
}

func (t *table[T]) add(dir, day string, row T) {
	b := t.bufs[dir]
	if b == nil {
		b = &buffer[T]{day: day}
		t.bufs[dir] = b
	}
	b.add(row)
}

// Open returns a sink writing under cfg.Root. It removes temporary files a
// crash left behind and finishes the compaction of every staged day not
// after the newest day that has a day file.
func Open(cfg Config) (*Sink, error) {
	if cfg.Root == "" {
		return nil, errors.New("cannot open the Parquet sink: no data directory")
	}
	if cfg.Grace == 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Sink{
		root: cfg.Root, grace: int64(cfg.Grace), log: cfg.Logger,
		prefix:      fmt.Sprintf("part-%020d", time.Now().UnixNano()), // names only; never data
		candles:     table[CandleRow]{cmp: cmpCandle, bufs: map[string]*buffer[CandleRow]{}},
		signals:     table[SignalRow]{cmp: cmpSignal, bufs: map[string]*buffer[SignalRow]{}},
		trades:      table[TradeRow]{cmp: cmpTrade, bufs: map[string]*buffer[TradeRow]{}},
		changes:     table[SignalChangeRow]{cmp: cmpSignalChange, bufs: map[string]*buffer[SignalChangeRow]{}},
		positioning: table[PositioningRow]{cmp: cmpPositioning, bufs: map[string]*buffer[PositioningRow]{}},
		predictions: table[PredictionRow]{cmp: cmpPrediction, bufs: map[string]*buffer[PredictionRow]{}},
		stablecoins: table[StablecoinRow]{cmp: cmpStablecoin, bufs: map[string]*buffer[StablecoinRow]{}},
		tokenRisk:   table[TokenRiskRow]{cmp: cmpTokenRisk, bufs: map[string]*buffer[TokenRiskRow]{}},
		lastMinute:  map[string]int64{},
		pending:     map[string]struct{}{},
	}
	if err := os.MkdirAll(cfg.Root, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", cfg.Root, err)
	}
	if err := removeTemps(cfg.Root); err != nil {
		return nil, err
	}
	staged, err := StagedDays(cfg.Root)
	if err != nil {
		return nil, err
	}
	last, err := lastCompleteDay(cfg.Root)
	if err != nil {
		return nil, err
	}
	for _, d := range staged {
		s.pending[d] = struct{}{}
		if last != "" && d <= last {
			if err := s.CompactDay(d); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Watermark returns the newest event time the sink has seen.
func (s *Sink) Watermark() (time.Time, bool) {
	return time.Unix(0, s.watermark).UTC(), s.hasMark
}

// Buffered returns the number of rows not yet in a part file.
func (s *Sink) Buffered() int { return s.buffered }

// Streams whose watermarks close days.
const (
	streamCandles = iota
	streamSignals
	streamTrades
	streamNone = -1
)

func (s *Sink) observe(stream int, ns int64) {
	if !s.hasMark || ns > s.watermark {
		s.hasMark, s.watermark = true, ns
	}
	if stream != streamNone && (!s.streamSeen[stream] || ns > s.streamMark[stream]) {
		s.streamSeen[stream], s.streamMark[stream] = true, ns
	}
}

// closeMark is the oldest watermark of the streams seen.
func (s *Sink) closeMark() int64 {
	m, any := s.watermark, false
	for i, seen := range s.streamSeen {
		if seen && (!any || s.streamMark[i] < m) {
			m, any = s.streamMark[i], true
		}
	}
	return m
}

// mark records a row of day buffered. The map write is skipped while rows
// come for the day of the previous row (the same string from the same
// buffer, so the comparison is a pointer check).
func (s *Sink) mark(day string) {
	if day != s.lastDay {
		s.pending[day] = struct{}{}
		s.lastDay = day
	}
	s.buffered++
}

// ErrBadPartition is returned by the Add methods for a record whose venue
// or window cannot be a partition directory name (empty, "." or "..", or
// characters other than letters, digits, '_', '-' and '.').
var ErrBadPartition = errors.New("bad partition value")

func checkPart(kind, v string) error {
	ok := v != "" && v != "." && v != ".." && len(v) <= 64
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
	}
	if !ok {
		return fmt.Errorf("%w: %s %q", ErrBadPartition, kind, v)
	}
	return nil
}

// AddCandle buffers a closed 1m candle.
func (s *Sink) AddCandle(c *schemas.Candle) error {
	if err := checkPart("venue", c.Venue); err != nil {
		return err
	}
	day := s.candles.addByVenue(c.StartNs, c.Venue, func(day string) string {
		return datasets.CandleDir(s.root, datasets.Interval1m, day, c.Venue)
	}, CandleRowOf(c))
	s.mark(day)
	s.observe(streamCandles, c.StartNs+c.IntervalNs)
	return nil
}

// AddDocument buffers a document taken at a minute close (the operators'
// Emit.MinuteClose, published on mi.signal-minutes.v1): it covers the
// trades before its minute, and its row's ts is that minute. A second
// document of the same symbol, window and minute (the same one delivered
// again) is skipped. It reports whether a row was added.
func (s *Sink) AddDocument(d *schemas.IntelligenceDocument) (bool, error) {
	if err := checkPart("window", d.Window); err != nil {
		return false, err
	}
	s.observe(streamSignals, d.TimestampNs)
	m := floorMinute(d.TimestampNs)
	key := d.Symbol + "|" + d.Window
	if last, ok := s.lastMinute[key]; ok && last >= m {
		return false, nil
	}
	s.lastMinute[key] = m
	day := datasets.Day(time.Unix(0, m))
	s.signals.add(datasets.SignalDir(s.root, d.Window, day), day, SignalRowOf(d, m))
	s.mark(day)
	return true, nil
}

// AddTrade buffers a normalized trade.
func (s *Sink) AddTrade(t *schemas.Trade) error {
	if err := checkPart("venue", t.Venue); err != nil {
		return err
	}
	day := s.trades.addByVenue(t.EventTimeNs, t.Venue, func(day string) string {
		return datasets.TradeDir(s.root, day, t.Venue)
	}, TradeRowOf(t))
	s.mark(day)
	s.observe(streamTrades, t.EventTimeNs)
	return nil
}

// AddSignalChange buffers a signal change.
func (s *Sink) AddSignalChange(c *schemas.SignalChange) error {
	day := datasets.Day(time.Unix(0, c.ChangedAtNs))
	s.changes.add(datasets.SignalChangeDir(s.root, day), day, SignalChangeRowOf(c))
	s.mark(day)
	s.observe(streamNone, c.ChangedAtNs)
	return nil
}

func floorMinute(ns int64) int64 {
	const m = int64(time.Minute)
	q := ns / m
	if ns%m < 0 {
		q--
	}
	return q * m
}

// Flush writes every buffered row into part files in the staging tree.
// After Flush returns nil the rows are durable.
func (s *Sink) Flush() error {
	if err := flushTable(s, &s.candles); err != nil {
		return err
	}
	if err := flushTable(s, &s.signals); err != nil {
		return err
	}
	if err := flushTable(s, &s.trades); err != nil {
		return err
	}
	if err := flushTable(s, &s.changes); err != nil {
		return err
	}
	if err := flushTable(s, &s.positioning); err != nil {
		return err
	}
	if err := flushTable(s, &s.predictions); err != nil {
		return err
	}
	if err := flushTable(s, &s.stablecoins); err != nil {
		return err
	}
	if err := flushTable(s, &s.tokenRisk); err != nil {
		return err
	}
	s.buffered = 0
	return nil
}

func flushTable[T any](s *Sink, t *table[T]) error {
	dirs := make([]string, 0, len(t.bufs))
	for d := range t.bufs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		rows := t.bufs[dir].sorted(t.cmp)
		s.seq++
		name := fmt.Sprintf("%s-%08d.parquet", s.prefix, s.seq)
		staged := datasets.Staged(s.root, dir)
		err := writeFileWith(filepath.Join(staged, name), func(w io.Writer) error { return encodePtrs(w, rows) })
		if err != nil {
			return fmt.Errorf("cannot write a part file: %w", err)
		}
		delete(t.bufs, dir)
		clear(t.byVenue)
		if err := mergeParts(s, staged, t.cmp); err != nil {
			return err
		}
	}
	return nil
}

// mergeFanIn is how many parts of one level are merged into one part of the
// next level. Parts are leveled (a merged part's name ends in -L<level>), so
// a staging directory holds at most about mergeFanIn parts per level, and a
// row is rewritten once per level: a day of parts flushed every 30 s stays
// at a few dozen files for readers of the open day.
const mergeFanIn = 8

// mergeParts merges the parts of the lowest level that has mergeFanIn of
// them into one part of the next level (written before the inputs are
// deleted; a crash in between leaves duplicates that compaction drops).
func mergeParts[T any](s *Sink, staged string, cmp func(a, b *T) int) error {
	parts, err := filepath.Glob(filepath.Join(staged, "part-*.parquet"))
	if err != nil {
		panic("BUG: bad glob")
	}
	if len(parts) < mergeFanIn {
		return nil
	}
	sort.Strings(parts)
	byLevel := map[int][]string{}
	for _, p := range parts {
		lvl := 0
		if i := strings.LastIndex(p, "-L"); i > len(staged) {
			fmt.Sscanf(p[i+2:], "%d.parquet", &lvl)
		}
		byLevel[lvl] = append(byLevel[lvl], p)
	}
	for lvl := 0; lvl <= 16; lvl++ {
		in := byLevel[lvl]
		if len(in) < mergeFanIn {
			continue
		}
		s.seq++
		name := fmt.Sprintf("%s-%08d-L%d.parquet", s.prefix, s.seq, lvl+1)
		if _, err := mergeFiles(in, filepath.Join(staged, name), cmp); err != nil {
			return fmt.Errorf("cannot write a merged part file: %w", err)
		}
		for _, p := range in {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("cannot remove a merged part: %w", err)
			}
		}
		return nil
	}
	return nil
}

// ClosedDays returns the pending days whose end plus the grace period the
// watermarks of the candle, signal and trade streams (those seen) have all
// passed, oldest first.
func (s *Sink) ClosedDays() []string {
	var out []string
	if !s.hasMark {
		return nil
	}
	mark := s.closeMark()
	for d := range s.pending {
		t, err := time.Parse(datasets.DateFormat, d)
		if err != nil {
			panic("BUG: pending day " + d)
		}
		if t.Add(24*time.Hour).UnixNano()+s.grace <= mark {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// FlushAndCompact flushes the buffers, then compacts every closed day. It
// returns the days compacted.
func (s *Sink) FlushAndCompact() ([]string, error) {
	if err := s.Flush(); err != nil {
		return nil, err
	}
	days := s.ClosedDays()
	for _, d := range days {
		if err := s.CompactDay(d); err != nil {
			return nil, err
		}
	}
	return days, nil
}

// CompactDaysEndedBy compacts every pending day that ends at or before t
// and returns them, oldest first. Rows still buffered are not included:
// Flush first. A finite source calls it at its end with its watermark: no
// later row can come for those days, whatever the grace period.
func (s *Sink) CompactDaysEndedBy(t time.Time) ([]string, error) {
	var out []string
	for d := range s.pending {
		day, err := time.Parse(datasets.DateFormat, d)
		if err != nil {
			panic("BUG: pending day " + d)
		}
		if !day.Add(24 * time.Hour).After(t) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	for _, d := range out {
		if err := s.CompactDay(d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CompactDay merges the staged parts of day into its day files and deletes
// the parts. Rows still buffered are not included: Flush first. It is
// idempotent, and safe to repeat after a crash at any point.
func (s *Sink) CompactDay(day string) error {
	st := filepath.Join(s.root, datasets.StagingDir)
	pat := func(parts ...string) string { return filepath.Join(append([]string{st}, parts...)...) }
	dd := "date=" + day
	jobs := []struct {
		glob string
		fn   func(staged string) error
	}{
		{pat(datasets.KindCandles, "interval="+datasets.Interval1m, dd, "venue=*"), func(d string) error { return compactDir(s.root, d, cmpCandle) }},
		{pat(datasets.KindSignals, "window=*", dd), func(d string) error { return compactDir(s.root, d, cmpSignal) }},
		{pat(datasets.KindTrades, dd, "venue=*"), func(d string) error { return compactDir(s.root, d, cmpTrade) }},
		{pat(datasets.KindSignalChanges, dd), func(d string) error { return compactDir(s.root, d, cmpSignalChange) }},
		{pat(datasets.KindPositioning, dd, "venue=*"), func(d string) error { return compactDir(s.root, d, cmpPositioning) }},
		{pat(datasets.KindPredictionMarkets, dd, "venue=*"), func(d string) error { return compactDir(s.root, d, cmpPrediction) }},
		{pat(datasets.KindStablecoins, dd, "chain=*"), func(d string) error { return compactDir(s.root, d, cmpStablecoin) }},
		{pat(datasets.KindTokenRisk, dd, "chain=*"), func(d string) error { return compactDir(s.root, d, cmpTokenRisk) }},
	}
	for _, j := range jobs {
		dirs, err := filepath.Glob(j.glob)
		if err != nil {
			panic("BUG: bad glob " + j.glob)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			if err := j.fn(d); err != nil {
				return err
			}
		}
	}
	delete(s.pending, day)
	s.lastDay = ""
	s.log.Info("day compacted", "date", day)
	return nil
}

// compactDir merges the parts in the staging directory staged, and the day
// file of its partition if it exists, into that day file.
func compactDir[T any](root, staged string, cmp func(a, b *T) int) error {
	parts, err := filepath.Glob(filepath.Join(staged, "part-*.parquet"))
	if err != nil {
		panic("BUG: bad glob")
	}
	if len(parts) == 0 {
		os.Remove(staged)
		return nil
	}
	sort.Strings(parts)
	rel, err := filepath.Rel(filepath.Join(root, datasets.StagingDir), staged)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	final := filepath.Join(root, rel, datasets.DayFileName)
	inputs := parts
	if _, err := os.Stat(final); err == nil {
		inputs = append([]string{final}, parts...)
	}
	if _, err := mergeFiles(inputs, final, cmp); err != nil {
		return fmt.Errorf("cannot write a day file: %w", err)
	}
	for _, p := range parts {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("cannot remove a compacted part: %w", err)
		}
	}
	os.Remove(staged) // only if empty; stray files keep it
	return nil
}

// StagedDays returns the days that have part files in the staging tree,
// oldest first.
func StagedDays(root string) ([]string, error) {
	seen := map[string]struct{}{}
	st := filepath.Join(root, datasets.StagingDir)
	err := filepath.WalkDir(st, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), "part-") || !strings.HasSuffix(d.Name(), ".parquet") {
			return nil
		}
		for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
			if day, ok := strings.CutPrefix(seg, "date="); ok {
				seen[day] = struct{}{}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot list the staging tree: %w", err)
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// lastCompleteDay returns the newest date that has a 1m candle day file or
// a trade day file, or "".
func lastCompleteDay(root string) (string, error) {
	var last string
	for _, g := range []string{
		filepath.Join(root, datasets.KindCandles, "interval="+datasets.Interval1m, "date=*", "venue=*", datasets.DayFileName),
		filepath.Join(root, datasets.KindTrades, "date=*", "venue=*", datasets.DayFileName),
	} {
		m, err := filepath.Glob(g)
		if err != nil {
			panic("BUG: bad glob")
		}
		for _, p := range m {
			for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
				if day, ok := strings.CutPrefix(seg, "date="); ok && day > last {
					last = day
				}
			}
		}
	}
	return last, nil
}

// removeTemps deletes the temporary files a crash left under root.
func removeTemps(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == "kafka" && d.IsDir() {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".parquet"+tmpSuffix) {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("cannot remove %s: %w", p, err)
			}
		}
		return nil
	})
}
