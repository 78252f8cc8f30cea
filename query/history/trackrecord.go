package history

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// TrackHorizons are the horizons of the track record.
var TrackHorizons = []string{"5m", "15m", "1h", "24h"}

var trackHorizonDur = []time.Duration{5 * time.Minute, 15 * time.Minute, time.Hour, 24 * time.Hour}

// ChangeOutcome is one logged directional signal change and what the price
// did after it.
type ChangeOutcome struct {
	Symbol         string
	ChangedAt      time.Time
	Window         string
	PreviousSignal string
	Signal         string
	EventType      string
	Confidence     float64
	Price          float64
	// Returns are the returns in the signal's direction (BEARISH is short)
	// in percent at TrackHorizons; NaN where the horizon has not elapsed
	// (after now or after the symbol's last stored candle) or has no candle.
	Returns [4]float64
}

// readChanges is the FROM clause over a bound list of signal-change files.
const readChanges = `read_parquet(?::VARCHAR[], hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`

// changesSQL selects the logged directional changes of a window with a
// positive price, ordered by symbol and time. Parameters: change files,
// window, symbol, symbol (empty: every symbol), from, to.
const changesSQL = `
SELECT symbol, epoch_us(changed_at) AS us, "window", previous_signal, signal, event_type,
       confidence_score::DOUBLE AS conf, price::DOUBLE AS price
FROM ` + readChanges + `
WHERE "window" = ? AND (symbol = ? OR ? = '') AND changed_at >= ?::TIMESTAMPTZ AND changed_at < ?::TIMESTAMPTZ
  AND signal IN ('BULLISH', 'BEARISH') AND price > 0
ORDER BY symbol, us`

// TrackRecord returns the logged directional changes (BULLISH, BEARISH) of
// window in [from, to), of symbol or every symbol when symbol is empty,
// oldest first, each scored on the candles after it. It never recomputes a
// signal. It returns ErrNoData when no change of any signal is logged in
// the range.
func (s *Store) TrackRecord(ctx context.Context, window, symbol string, from, to time.Time) ([]ChangeOutcome, int, error) {
	files := s.signalChangeFiles(datasetsDay(from), datasetsDay(to.Add(-time.Nanosecond)))
	if len(files) == 0 {
		return nil, 0, ErrNoData
	}
	var logged int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+readChanges+`
WHERE "window" = ? AND (symbol = ? OR ? = '') AND changed_at >= ?::TIMESTAMPTZ AND changed_at < ?::TIMESTAMPTZ`,
		files, window, symbol, symbol, from.UTC(), to.UTC()).Scan(&logged); err != nil {
		return nil, 0, fmt.Errorf("cannot count logged signal changes: %w", err)
	}
	if logged == 0 {
		return nil, 0, ErrNoData
	}
	// The changes, by symbol.
	var out []ChangeOutcome
	var strs stringCache
	err := s.queryBatches(ctx, changesSQL, []any{files, window, symbol, symbol, from.UTC(), to.UTC()}, func(rec arrow.RecordBatch) error {
		sym, win, prev := colString(rec, 0), colString(rec, 2), colString(rec, 3)
		sig, ev := colString(rec, 4), colString(rec, 5)
		us, conf, price := colInt64(rec, 1), colFloat64(rec, 6), colFloat64(rec, 7)
		for j := range us {
			o := ChangeOutcome{Symbol: strs.get(0, sym, j), ChangedAt: unixMicroUTC(us[j]), Window: strs.get(1, win, j),
				PreviousSignal: strings.Clone(prev.Value(j)), Signal: strings.Clone(sig.Value(j)),
				EventType: strings.Clone(ev.Value(j)), Confidence: conf[j], Price: price[j]}
			if prev.IsNull(j) {
				o.PreviousSignal = ""
			}
			for i := range o.Returns {
				o.Returns[i] = math.NaN()
			}
			out = append(out, o)
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read logged signal changes: %w", err)
	}
	// Each change is scored on its symbol's cross-venue candles up to a day
	// after the range (the as-of rule of the backtest): the return at h is
	// the close of the candle with the latest end by t+h (the later start
	// among candles ending together) if it starts at or after t, and only
	// when t+h is neither after now nor after the symbol's last candle.
	// Symbols run in batches sized to the memory limit, as the backtest's.
	cTo := to.Add(24 * time.Hour)
	cs := s.candleFiles("1m", datasetsDay(from), datasetsDay(cTo.Add(-time.Nanosecond)))
	if len(cs.files) > 0 && len(out) > 0 {
		first := map[string]int{} // symbol → index of its first change in out
		var syms []string
		for i, o := range out {
			if _, ok := first[o.Symbol]; !ok {
				first[o.Symbol] = i
				syms = append(syms, o.Symbol)
			}
		}
		slices.Sort(syms)
		nowUS := s.Now().UnixMicro()
		size := max(1, int(s.memoryBytes/bytesPerOutcomeCandle/candlesPerSymbol(cs)))
		for batch := range slices.Chunk(syms, size) {
			err := s.eachPriceSeries(ctx, cs.files, batch, from, cTo, func(int) bool { return true }, func(i int, ps *priceSeries) {
				end := min(ps.lastEnd, nowUS)
				for k := first[batch[i]]; k < len(out) && out[k].Symbol == batch[i]; k++ {
					o := &out[k]
					d := 1.0
					if o.Signal == "BEARISH" {
						d = -1
					}
					for h, dur := range trackHorizonDur {
						o.Returns[h] = ps.forwardReturn(o.ChangedAt.UnixMicro(), dur, end, d, o.Price)
					}
				}
			})
			if err != nil {
				return nil, 0, fmt.Errorf("cannot read track-record prices: %w", err)
			}
		}
	}
	// Oldest first, then by symbol.
	slices.SortStableFunc(out, func(a, b ChangeOutcome) int {
		if c := a.ChangedAt.Compare(b.ChangedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Symbol, b.Symbol)
	})
	return out, logged, nil
}

// HorizonStats is the outcome of one horizon over a set of changes.
type HorizonStats struct {
	Samples int
	// HitRate is the percentage of samples with a return above 0.
	HitRate float64
	// AverageReturn is the mean return in the signal's direction, percent.
	AverageReturn float64
}

// Summarize returns the stats of os per horizon of TrackHorizons.
func Summarize(os []ChangeOutcome) [4]HorizonStats {
	var out [4]HorizonStats
	for i := range out {
		var xs []float64
		for _, o := range os {
			if !math.IsNaN(o.Returns[i]) {
				xs = append(xs, o.Returns[i])
			}
		}
		out[i] = HorizonStats{Samples: len(xs), HitRate: positiveRate(xs), AverageReturn: mean(xs)}
	}
	return out
}
