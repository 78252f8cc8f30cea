package history

import (
	"context"
	"database/sql"
	"math"
	"time"
)

// SetBytesPerOutcomeCandle sets the memory a backtest batch plans per
// candle and returns a function that restores it, for tests that force
// small batches.
func SetBytesPerOutcomeCandle(n int64) (restore func()) {
	old := bytesPerOutcomeCandle
	bytesPerOutcomeCandle = n
	return func() { bytesPerOutcomeCandle = old }
}

// outcomeSQL is the backtest as one DuckDB statement, the reference the Go
// scoring (score.go) is tested against. It scores qualifying signals on forward cross-venue candles: the
// returns with ASOF joins (latest candle ending by t+h, kept only if it
// starts at or after t), MFE/MAE from an equi-join on the candle starts of
// the 15 minutes from the first minute boundary at or after t. Parameters: priceSQL's; signal files, symbols,
// symbols, start, end, min confidence, min samples.
const outcomeSQL = `
WITH c AS (` + priceSQL + `),
cov AS (SELECT symbol, max(cend) AS last_end FROM c GROUP BY symbol),
docs AS (
  SELECT symbol, ts, signal, event_type, confidence_score AS conf, baseline_samples AS bs, price,
         lag(signal) OVER w AS prev_signal, lag(event_type) OVER w AS prev_event
  FROM ` + readSignals + `
  WHERE (list_contains(?::VARCHAR[], symbol) OR len(?::VARCHAR[]) = 0) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
  WINDOW w AS (PARTITION BY symbol ORDER BY ts)
), sig AS (
  SELECT symbol, ts, signal, event_type, conf, price, last_end,
         CASE WHEN date_trunc('minute', ts) = ts THEN ts ELSE date_trunc('minute', ts) + INTERVAL 1 MINUTE END AS base,
         ts + INTERVAL 1 MINUTE AS t1, ts + INTERVAL 5 MINUTE AS t5, ts + INTERVAL 15 MINUTE AS t15,
         ts + INTERVAL 60 MINUTE AS t60
  FROM docs JOIN cov USING (symbol)
  WHERE signal IN ('BULLISH', 'BEARISH') AND conf >= ? AND bs >= ? AND price > 0
    AND (prev_signal IS NULL OR prev_signal <> signal OR prev_event <> event_type)
), ex AS (
  SELECT sig.symbol, sig.ts, max(c.high) AS hi, min(c.low) AS lo
  FROM (SELECT symbol, ts, base, t15, base + to_minutes(k.m) AS cts FROM sig, range(15) k(m)) sig
  JOIN c ON c.symbol = sig.symbol AND c.ts = sig.cts
  WHERE c.cend <= sig.t15
  GROUP BY sig.symbol, sig.ts
)
SELECT sig.symbol, sig.ts, sig.signal, sig.event_type, sig.conf, sig.price,
  CASE WHEN sig.t1 <= sig.last_end AND a.ts >= sig.ts THEN a.close END,
  CASE WHEN sig.t5 <= sig.last_end AND b.ts >= sig.ts THEN b.close END,
  CASE WHEN sig.t15 <= sig.last_end AND d.ts >= sig.ts THEN d.close END,
  CASE WHEN sig.t60 <= sig.last_end AND e.ts >= sig.ts THEN e.close END,
  CASE WHEN sig.t15 <= sig.last_end THEN x.hi END,
  CASE WHEN sig.t15 <= sig.last_end THEN x.lo END
FROM sig
ASOF LEFT JOIN c a ON a.symbol = sig.symbol AND a.cend <= sig.t1
ASOF LEFT JOIN c b ON b.symbol = sig.symbol AND b.cend <= sig.t5
ASOF LEFT JOIN c d ON d.symbol = sig.symbol AND d.cend <= sig.t15
ASOF LEFT JOIN c e ON e.symbol = sig.symbol AND e.cend <= sig.t60
LEFT JOIN ex x ON x.symbol = sig.symbol AND x.ts = sig.ts
ORDER BY sig.symbol, sig.ts`

// OutcomesSQL scores p with outcomeSQL in one statement (no batches), the
// way the backtest did before it scored in Go.
func (s *Store) OutcomesSQL(ctx context.Context, p BacktestParams) ([]Outcome, error) {
	sigFiles := s.signalFiles(p.Window, datasetsDay(p.Start), datasetsDay(p.End.Add(-time.Nanosecond)))
	cEnd := p.End.Add(time.Hour)
	cs := s.candleFiles("1m", datasetsDay(p.Start), datasetsDay(cEnd.Add(-time.Nanosecond)))
	symbols := p.Symbols
	if symbols == nil {
		symbols = []string{}
	}
	candleSyms := symbols
	if len(candleSyms) == 0 {
		all, err := s.Symbols(ctx)
		if err != nil {
			return nil, err
		}
		candleSyms = all
	}
	rows, err := s.db.QueryContext(ctx, outcomeSQL, cs.files, candleSyms, p.Start.UTC(), cEnd.UTC(),
		sigFiles, symbols, symbols, p.Start.UTC(), p.End.UTC(), p.MinConfidence, p.MinBaselineSamples)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Outcome
	for rows.Next() {
		var o Outcome
		var px [4]sql.NullFloat64
		var hi, lo sql.NullFloat64
		if err := rows.Scan(&o.Symbol, &o.Time, &o.Signal, &o.EventType, &o.Confidence, &o.Entry,
			&px[0], &px[1], &px[2], &px[3], &hi, &lo); err != nil {
			return nil, err
		}
		o.Time = o.Time.UTC()
		d := o.Direction()
		for i := range px {
			o.Returns[i] = math.NaN()
			if px[i].Valid {
				o.Returns[i] = d * (px[i].Float64/o.Entry - 1) * 100
			}
		}
		o.MFE, o.MAE = math.NaN(), math.NaN()
		if hi.Valid && lo.Valid {
			up, down := (hi.Float64/o.Entry-1)*100, (1-lo.Float64/o.Entry)*100
			if d < 0 {
				up, down = down, up
			}
			o.MFE, o.MAE = math.Max(0, up), math.Max(0, down)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// trackSQL is the track record as one DuckDB statement, the reference the
// Go scoring is tested against. It scores logged changes with ASOF joins: the price at t+h is the
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

// TrackRecordSQL scores the changes TrackRecord would with trackSQL, the
// way the track record did before it scored in Go.
func (s *Store) TrackRecordSQL(ctx context.Context, window, symbol string, from, to time.Time) ([]ChangeOutcome, error) {
	files := s.signalChangeFiles(datasetsDay(from), datasetsDay(to.Add(-time.Nanosecond)))
	symbols, err := s.Symbols(ctx)
	if err != nil {
		return nil, err
	}
	if symbol != "" {
		symbols = []string{symbol}
	}
	cTo := to.Add(24 * time.Hour)
	cs := s.candleFiles("1m", datasetsDay(from), datasetsDay(cTo.Add(-time.Nanosecond)))
	rows, err := s.db.QueryContext(ctx, trackSQL, cs.files, symbols, from.UTC(), cTo.UTC(),
		files, window, symbol, symbol, from.UTC(), to.UTC(), s.Now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChangeOutcome
	for rows.Next() {
		var o ChangeOutcome
		var prev sql.NullString
		var px [4]sql.NullFloat64
		if err := rows.Scan(&o.Symbol, &o.ChangedAt, &o.Window, &prev, &o.Signal, &o.EventType, &o.Confidence, &o.Price,
			&px[0], &px[1], &px[2], &px[3]); err != nil {
			return nil, err
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
	return out, rows.Err()
}
