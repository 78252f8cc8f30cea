package parquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/schemas"
)

// BackfillConfig configures Backfill.
type BackfillConfig struct {
	// Root is the data directory the datasets are written under.
	Root string
	// Source is "sim" or "replay:PATH[,PATH...]".
	Source string
	// From and To are the first and last UTC days written (inclusive);
	// only their dates count.
	From, To time.Time
	// Seed and RateScale configure the simulator (0 means 1); Events is its
	// events per symbol per day (0 = default). Symbols, when set, restricts
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
	// Days are the days whose day files were written, oldest first.
	Days []string
}

// SimWarmup is how long before From a simulated backfill starts, so the
// 1m and 5m baselines are ready at From; rows before From are not written.
const SimWarmup = time.Hour

// Backfill runs a source through the operator chain in event time, as fast
// as it goes, in process (no broker), and writes the rows of the days From
// to To through a Sink: the same day files a live run writes. Trades are the
// ones the operators accepted. For "sim" it simulates from From minus
// SimWarmup to the end of To plus the sink's grace, so every day closes.
// For a replay, days whose end the replay's last trade passes are closed;
// a later day stays staged, as it would in a live run.
//
// With one operator engine over every symbol, signal documents match a
// live run with one partition of mi.trades.v1.
func Backfill(ctx context.Context, cfg BackfillConfig) (BackfillResult, error) {
	var res BackfillResult
	from := truncDay(cfg.From)
	to := truncDay(cfg.To)
	if to.Before(from) {
		return res, fmt.Errorf("cannot backfill: --to %s is before --from %s", to.Format(time.DateOnly), from.Format(time.DateOnly))
	}
	lo, hi := from.UnixNano(), to.Add(24*time.Hour).UnixNano()
	if cfg.FlushRows == 0 {
		cfg.FlushRows = 4_000_000
	}
	if cfg.Operators == (operators.Config{}) {
		cfg.Operators = operators.DefaultConfig()
	}
	if err := cfg.Operators.Validate(); err != nil {
		return res, fmt.Errorf("cannot backfill: %w", err)
	}
	sink, err := Open(Config{Root: cfg.Root, Logger: cfg.Logger})
	if err != nil {
		return res, err
	}
	var src sources.Source
	start := from
	switch {
	case cfg.Source == "sim":
		start = from.Add(-SimWarmup)
		s, err := sim.New(sim.Config{Seed: cfg.Seed, Start: start, End: time.Unix(0, hi).Add(DefaultGrace + time.Minute),
			RateScale: cfg.RateScale, EventsPerSymbolPerDay: cfg.Events, Symbols: cfg.Symbols})
		if err != nil {
			return res, fmt.Errorf("cannot start the simulator: %w", err)
		}
		src = s
	case strings.HasPrefix(cfg.Source, "replay:") && len(cfg.Source) > len("replay:"):
		s, err := replay.OpenAll(strings.Split(strings.TrimPrefix(cfg.Source, "replay:"), ","))
		if err != nil {
			return res, fmt.Errorf("cannot open the replay: %w", err)
		}
		src = s
	default:
		return res, fmt.Errorf(`cannot backfill from source %q: accepted "sim" or "replay:PATH[,PATH...]"`, cfg.Source)
	}
	defer src.Close()

	in := func(ns int64) bool { return ns >= lo && ns < hi }
	var addErr error // the first row the sink refused
	keep := func(err error) bool {
		if err != nil && addErr == nil {
			addErr = err
		}
		return err == nil
	}
	rejected := false
	eng := operators.NewEngine(cfg.Operators, operators.Emit{
		Candle: func(c *schemas.Candle) {
			if in(c.StartNs) && keep(sink.AddCandle(c)) {
				res.Candles++
			}
		},
		MinuteClose: func(d *schemas.IntelligenceDocument) {
			if in(floorMinute(d.TimestampNs)) {
				if added, err := sink.AddDocument(d); keep(err) && added {
					res.Signals++
				}
			}
		},
		SignalChange: func(c *schemas.SignalChange) {
			if in(c.ChangedAtNs) && keep(sink.AddSignalChange(c)) {
				res.SignalChanges++
			}
		},
		Reject: func(*schemas.Trade, string) { rejected = true },
	})
	span := float64(hi - start.UnixNano())
	var n int64
	for {
		rec, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("cannot read the source: %w", err)
		}
		if rec.Trade == nil {
			continue
		}
		t := rec.Trade
		rejected = false
		eng.Push(t)
		if !rejected && in(t.EventTimeNs) && keep(sink.AddTrade(t)) {
			res.Trades++
		}
		if addErr != nil {
			return res, fmt.Errorf("cannot backfill: %w", addErr)
		}
		n++
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if cfg.Progress != nil {
				cfg.Progress(min(max(float64(t.EventTimeNs-start.UnixNano())/span, 0), 1), n)
			}
			if sink.Buffered() >= cfg.FlushRows || len(sink.ClosedDays()) > 0 {
				days, err := sink.FlushAndCompact()
				if err != nil {
					return res, err
				}
				res.Days = append(res.Days, days...)
			}
		}
	}
	days, err := sink.FlushAndCompact()
	if err != nil {
		return res, err
	}
	res.Days = append(res.Days, days...)
	if wm, ok := sink.Watermark(); ok {
		// A finite replay: close the days it got past.
		for d := range sink.pending {
			t, _ := time.Parse(time.DateOnly, d)
			if !t.Add(24 * time.Hour).After(wm) {
				if err := sink.CompactDay(d); err != nil {
					return res, err
				}
				res.Days = append(res.Days, d)
			}
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(1, n)
	}
	return res, nil
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
