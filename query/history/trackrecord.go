package history

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// TrackHorizons are the horizons of the track record.
var TrackHorizons = []string{"5m", "15m", "1h", "24h"}

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

// trackSQL scores logged changes with ASOF joins: the price at t+h is the
// close of the latest cross-venue candle ending by t+h, if it starts at or
// after t. Parameters: candle files, symbols, candle from, candle to;
// change files, window, symbol, symbol, from, to; now (x4).
const trackSQL = `
WITH c AS (` + priceSQL + `),
cov AS (SELECT symbol, max(cend) AS last_end FROM c GROUP BY symbol),
ch AS (
  SELECT symbol, changed_at AS ts, "window" AS win, previous_signal, signal, event_type, confidence_score AS conf, price
  FROM ` + readChanges + `
  WHERE "window" = ? AND (symbol = ? OR ? = '') AND changed_at >= ?::TIMESTAMPTZ AND changed_at < ?::TIMESTAMPTZ
    AND signal IN ('BULLISH', 'BEARISH') AND price > 0
), h AS (
  SELECT ch.*, cov.last_end, least(cov.last_end, ?::TIMESTAMPTZ) AS horizon_end,
         ts + INTERVAL 5 MINUTE AS t5, ts + INTERVAL 15 MINUTE AS t15, ts + INTERVAL 1 HOUR AS t60, ts + INTERVAL 24 HOUR AS t1d
  FROM ch LEFT JOIN cov USING (symbol)
)
SELECT h.symbol, h.ts, h.win, h.previous_signal, h.signal, h.event_type, h.conf, h.price,
  CASE WHEN h.t5 <= h.horizon_end AND a.ts >= h.ts THEN a.close END,
  CASE WHEN h.t15 <= h.horizon_end AND b.ts >= h.ts THEN b.close END,
  CASE WHEN h.t60 <= h.horizon_end AND d.ts >= h.ts THEN d.close END,
  CASE WHEN h.t1d <= h.horizon_end AND e.ts >= h.ts THEN e.close END
FROM h
ASOF LEFT JOIN c a ON a.symbol = h.symbol AND a.cend <= h.t5
ASOF LEFT JOIN c b ON b.symbol = h.symbol AND b.cend <= h.t15
ASOF LEFT JOIN c d ON d.symbol = h.symbol AND d.cend <= h.t60
ASOF LEFT JOIN c e ON e.symbol = h.symbol AND e.cend <= h.t1d
ORDER BY h.ts, h.symbol`

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
	symbols, err := s.Symbols(ctx)
	if err != nil {
		return nil, 0, err
	}
	if symbol != "" {
		symbols = []string{symbol}
	}
	cTo := to.Add(24 * time.Hour)
	cs := s.candleFiles("1m", datasetsDay(from), datasetsDay(cTo.Add(-time.Nanosecond)))
	now := s.Now()
	var rows *sql.Rows
	if len(cs.files) == 0 {
		rows, err = s.db.QueryContext(ctx, `SELECT symbol, changed_at, "window", previous_signal, signal, event_type,
  confidence_score, price, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE FROM `+readChanges+`
WHERE "window" = ? AND (symbol = ? OR ? = '') AND changed_at >= ?::TIMESTAMPTZ AND changed_at < ?::TIMESTAMPTZ
  AND signal IN ('BULLISH', 'BEARISH') AND price > 0 ORDER BY changed_at, symbol`,
			files, window, symbol, symbol, from.UTC(), to.UTC())
	} else {
		rows, err = s.db.QueryContext(ctx, trackSQL, cs.files, symbols, from.UTC(), cTo.UTC(),
			files, window, symbol, symbol, from.UTC(), to.UTC(), now)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cannot score logged signal changes: %w", err)
	}
	defer rows.Close()
	var out []ChangeOutcome
	for rows.Next() {
		var o ChangeOutcome
		var prev sql.NullString
		var px [4]sql.NullFloat64
		if err := rows.Scan(&o.Symbol, &o.ChangedAt, &o.Window, &prev, &o.Signal, &o.EventType, &o.Confidence, &o.Price,
			&px[0], &px[1], &px[2], &px[3]); err != nil {
			return nil, 0, fmt.Errorf("cannot read a signal change outcome: %w", err)
		}
		o.ChangedAt, o.PreviousSignal = o.ChangedAt.UTC(), prev.String
		d := 1.0
		if o.Signal == "BEARISH" {
			d = -1
		}
		for i := range px {
			o.Returns[i] = math.NaN()
			if px[i].Valid {
				o.Returns[i] = d * (px[i].Float64/o.Price - 1) * 100
			}
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("cannot read signal change outcomes: %w", err)
	}
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
