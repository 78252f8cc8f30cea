package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	pstats "github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/schemas"
	pqsink "github.com/marketintel/mi/sinks/parquet"
)

// BackfillConfig configures Backfill.
type BackfillConfig struct {
	// Root is the data directory the datasets are written under.
	Root string
	// Source is a source spec (ParseSourceSpec): "sim[:seed=N,rate=X,events=X]"
	// or "replay:PATH[,PATH...]". A simulation's start and end come from
	// From and To; start, duration and speed are refused.
	Source string
	// From and To are the first and last UTC days written (inclusive);
	// only their dates count.
	From, To time.Time
	// Seed, RateScale and Events, when not 0, configure the simulator
	// over the spec's values (seed and rate scale 0 mean 1; Events is its
	// events per symbol per day, 0 = default). Symbols, when set, restricts
	// the simulated universe.
	Seed      int64
	RateScale float64
	Events    float64
	Symbols   []string
	// Operators configures the operator chain; the zero value means
	// operators.DefaultConfig().
	Operators operators.Config
	// FlushRows is the number of buffered rows that triggers a part file
	// flush; 0 means 4,000,000.
	FlushRows int
	// Progress, when set, is called now and then with the fraction of the
	// event-time range done (0..1) and the trades read so far.
	Progress func(done float64, trades int64)
	Logger   *slog.Logger
}

// BackfillResult counts what Backfill wrote.
type BackfillResult struct {
	Trades, Candles, Signals, SignalChanges int64
	// Accepted counts the records the source delivered that were used:
	// trades the operators accepted (in the range or not) and side
	// records. Rejected counts the others by reason phrase
	// (stats.ReasonClass): the source's rejections (bad input, unknown
	// pool, ...) and the operators' (late, duplicate, ...).
	Accepted int64
	Rejected map[string]uint64
	// Days are the days whose day files were written, oldest first.
	Days []string
}

// SimWarmup is how long before From a simulated backfill starts, so the
// 1m and 5m baselines are ready at From; rows before From are not written.
const SimWarmup = time.Hour

// Backfill runs a source through the operator chain in event time, as fast
// as it goes, in process (no broker), and writes the rows of the days From
// to To through a Parquet sink: the same day files a live run writes.
// Trades are the ones the operators accepted; side records (pool events)
// and rejected inputs are not written. It opens the source from its spec
// and runs it with Drive, like mi run and mi bench; the destination is the
// operator chain and the sink (backfillDest). For "sim" it simulates from
// From minus SimWarmup to the end of To plus the sink's grace. At the end
// of input the last minute closes and every day written is compacted.
//
// With one operator engine over every symbol, signal documents match a
// live run with one partition of mi.trades.v1.
func Backfill(ctx context.Context, cfg BackfillConfig) (BackfillResult, error) {
	from := truncDay(cfg.From)
	to := truncDay(cfg.To)
	if to.Before(from) {
		return BackfillResult{}, fmt.Errorf("cannot backfill: --to %s is before --from %s", to.Format(time.DateOnly), from.Format(time.DateOnly))
	}
	if cfg.FlushRows == 0 {
		cfg.FlushRows = 4_000_000
	}
	if cfg.Operators == (operators.Config{}) {
		cfg.Operators = operators.DefaultConfig()
	}
	if err := cfg.Operators.Validate(); err != nil {
		return BackfillResult{}, fmt.Errorf("cannot backfill: %w", err)
	}
	sp, err := ParseSourceSpec(cfg.Source)
	if err != nil {
		return BackfillResult{}, fmt.Errorf("cannot backfill: %w", err)
	}
	hi := to.Add(24 * time.Hour)
	start := from
	if sp.Kind == "sim" {
		if !sp.Start.IsZero() || sp.Duration != 0 || sp.MaxSpeed {
			return BackfillResult{}, fmt.Errorf("cannot backfill from source %q: a backfill simulates the days of --from and --to as fast as it goes; leave start, duration and speed out", cfg.Source)
		}
		start = from.Add(-SimWarmup)
		sp.Start, sp.End = start, hi.Add(pqsink.DefaultGrace+time.Minute)
		if cfg.Seed != 0 {
			sp.Seed = cfg.Seed
		}
		if cfg.RateScale != 0 {
			sp.RateScale = cfg.RateScale
		}
		if cfg.Events != 0 {
			sp.Events = cfg.Events
		}
		sp.Symbols = cfg.Symbols
	}
	sink, err := pqsink.Open(pqsink.Config{Root: cfg.Root, Logger: cfg.Logger})
	if err != nil {
		return BackfillResult{}, err
	}
	src, err := sp.Open()
	if err != nil {
		return BackfillResult{}, fmt.Errorf("cannot backfill: %w", err)
	}
	defer src.Close()
	d := newBackfillDest(cfg, sink, from, hi, start)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	err = Drive(ctx, DriveConfig{Logger: log}, src, Checkpoint{}, d)
	d.res.Rejected = d.rejections.Counts()
	if err != nil {
		return d.res, err
	}
	if d.res.Accepted == 0 && d.rejections.Total() > 0 {
		return d.res, fmt.Errorf("cannot backfill from %s: all %d trades were rejected: %s", cfg.Source, d.rejections.Total(), d.rejections.Top(3))
	}
	return d.res, nil
}

// backfillDest is Backfill's destination: the operator chain in process and
// a Parquet sink for the rows of [lo, hi).
type backfillDest struct {
	cfg    BackfillConfig
	sink   *pqsink.Sink
	eng    *operators.Engine
	lo, hi int64
	start  int64 // event time the source starts at, for progress
	res    BackfillResult
	// addErr is the first row the sink refused; rejected is set by the
	// engine's Reject for the trade being pushed.
	addErr     error
	rejected   bool
	rejections pstats.Reasons
	trades     int64
}

func newBackfillDest(cfg BackfillConfig, sink *pqsink.Sink, from, hi, start time.Time) *backfillDest {
	d := &backfillDest{cfg: cfg, sink: sink, lo: from.UnixNano(), hi: hi.UnixNano(), start: start.UnixNano()}
	d.eng = operators.NewEngine(cfg.Operators, operators.Emit{
		Candle: func(c *schemas.Candle) {
			if d.in(c.StartNs) && d.keep(sink.AddCandle(c)) {
				d.res.Candles++
			}
		},
		// The signals dataset is made of the minute-close documents; one
		// is in range when its minute is.
		MinuteClose: func(doc *schemas.IntelligenceDocument) {
			if d.in(time.Unix(0, doc.TimestampNs).Truncate(time.Minute).UnixNano()) {
				if added, err := sink.AddDocument(doc); d.keep(err) && added {
					d.res.Signals++
				}
			}
		},
		SignalChange: func(c *schemas.SignalChange) {
			if d.in(c.ChangedAtNs) && d.keep(sink.AddSignalChange(c)) {
				d.res.SignalChanges++
			}
		},
		Reject: func(_ *schemas.Trade, reason string) {
			d.rejected = true
			d.rejections.Add(reason)
		},
	})
	return d
}

func (d *backfillDest) in(ns int64) bool { return ns >= d.lo && ns < d.hi }

func (d *backfillDest) keep(err error) bool {
	if err != nil && d.addErr == nil {
		d.addErr = err
	}
	return err == nil
}

// Put implements Destination: a trade goes through the engine and, when
// accepted and in range, into the sink; other records are not written.
func (d *backfillDest) Put(ctx context.Context, rec sources.Record, _ int64) error {
	t := rec.Trade
	switch {
	case t != nil:
	case rec.Side != nil:
		d.res.Accepted++
		return nil
	case rec.Gap == nil:
		d.rejections.Add(rec.Reason)
		return nil
	default:
		return nil
	}
	d.rejected = false
	d.eng.Push(t)
	if !d.rejected {
		d.res.Accepted++
	}
	if !d.rejected && d.in(t.EventTimeNs) && d.keep(d.sink.AddTrade(t)) {
		d.res.Trades++
	}
	if d.addErr != nil {
		return fmt.Errorf("cannot backfill: %w", d.addErr)
	}
	d.trades++
	if d.trades&0xffff == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.cfg.Progress != nil {
			d.cfg.Progress(min(max(float64(t.EventTimeNs-d.start)/float64(d.hi-d.start), 0), 1), d.trades)
		}
		if d.sink.Buffered() >= d.cfg.FlushRows || len(d.sink.ClosedDays()) > 0 {
			days, err := d.sink.FlushAndCompact()
			if err != nil {
				return err
			}
			d.res.Days = append(d.res.Days, days...)
		}
	}
	return nil
}

// Commit implements Destination: nothing to do, the sink flushes by size
// and at the end.
func (d *backfillDest) Commit(context.Context) error { return nil }

// Due implements Destination: nothing is ever due.
func (d *backfillDest) Due() (time.Time, bool) { return time.Time{}, false }

// End implements Destination, the end of input: the engine closes its last
// minute (the last trades' candles, the minute-close documents), the sink
// writes what it buffers and compacts every day of the range it holds. The
// source being finite and the backfill its only writer, no later row can
// come for those days: a one-day backfill is readable at once.
func (d *backfillDest) End(context.Context) error {
	d.eng.End()
	if d.addErr != nil {
		return fmt.Errorf("cannot backfill: %w", d.addErr)
	}
	if err := d.sink.Flush(); err != nil {
		return err
	}
	days, err := d.sink.CompactDaysEndedBy(time.Unix(0, d.hi))
	if err != nil {
		return err
	}
	d.res.Days = append(d.res.Days, days...)
	if d.cfg.Progress != nil {
		d.cfg.Progress(1, d.trades)
	}
	return nil
}

func truncDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// BackfillSim writes days simulated UTC days starting at from into root at
// the given simulator rate (trades/s ≈ 300 × rate; 0.02 gives about 0.5 M
// trades a day, a second or two of work per day): the test history other
// packages build their fixtures from. The output is a pure function of the
// arguments.
func BackfillSim(ctx context.Context, root string, from time.Time, days int, rate float64) (BackfillResult, error) {
	if days < 1 {
		return BackfillResult{}, fmt.Errorf("cannot backfill %d days: at least 1", days)
	}
	return Backfill(ctx, BackfillConfig{
		Root: root, Source: "sim", From: from, To: truncDay(from).AddDate(0, 0, days-1), Seed: 1, RateScale: rate,
	})
}
