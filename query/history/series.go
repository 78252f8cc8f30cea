package history

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/datasets"
)

// SeriesSummary is one symbol's cross-venue candles over a range, summed
// up, with the candles already rendered as a JSON array by DuckDB.
type SeriesSummary struct {
	Symbol        string
	Candles       int64
	Open, Close   float64
	High, Low     float64
	VWAP          float64
	VolumeUSD     float64
	BuyVolumeUSD  float64
	SellVolumeUSD float64
	TradeCount    int64
	// SeriesJSON is the candles as a JSON array of {"ts","open","high",
	// "low","close","volumeUsd","buyPressure","tradeCount"}, oldest first.
	SeriesJSON string
}

// jnum renders a DOUBLE column as a JSON number (0 when not finite).
func jnum(col string) string {
	return `CASE WHEN isfinite(` + col + `) THEN ` + col + `::VARCHAR ELSE '0' END`
}

// seriesSQL summarizes candleOut(crossVenue) per symbol and renders the
// series inside DuckDB: one row per symbol instead of one per candle, so
// large ranges cost no per-value driver calls. Parameters: crossVenue's and
// candleOut's venue-kind pair.
var seriesSQL = `
SELECT symbol, count(*), arg_min(open, ts), max(high), min(low), arg_max(close, ts),
  coalesce(sum(vwap * volume) / nullif(sum(volume), 0), arg_max(close, ts)),
  sum(volume_usd), sum(buy_volume_usd), sum(sell_volume_usd), sum(trade_count)::BIGINT,
  '[' || string_agg('{"ts":"' || strftime(ts, '%Y-%m-%dT%H:%M:%SZ') || '","open":' || ` + jnum("open") +
	` || ',"high":' || ` + jnum("high") + ` || ',"low":' || ` + jnum("low") + ` || ',"close":' || ` + jnum("close") +
	` || ',"volumeUsd":' || ` + jnum("volume_usd") + ` || ',"buyPressure":' || ` + jnum("buy_pressure") +
	` || ',"tradeCount":' || trade_count::VARCHAR || '}', ',' ORDER BY ts) || ']'
FROM (` + candleOut + `(` + crossVenue + `) WHERE (list_contains(?::VARCHAR[], venue_kind) OR len(?::VARCHAR[]) = 0))
GROUP BY symbol`

// seriesDirectSQL is seriesSQL over files stored at the bucket width.
var seriesDirectSQL = strings.Replace(seriesSQL, crossVenue, crossVenueDirect, 1)

// Series summarizes the cross-venue candles of symbols at interval in
// [from, to). Symbols without candles are absent; ErrNoData when no file
// covers the range. It also returns the stored resolutions read.
func (s *Store) Series(ctx context.Context, symbols []string, interval string, from, to time.Time) (map[string]SeriesSummary, []string, error) {
	if !slices.Contains(datasets.Intervals, interval) {
		panic("BUG: candle interval " + interval)
	}
	cs := s.candleFiles(interval, datasets.Day(from), datasets.Day(to.Add(-time.Nanosecond)))
	if len(cs.files) == 0 {
		return nil, nil, ErrNoData
	}
	w := int64(intervalDuration(interval) / time.Second)
	stmt := seriesSQL
	if cs.direct(w) {
		stmt = seriesDirectSQL
	}
	rows, err := s.db.QueryContext(ctx, stmt, cs.files, w, symbols, from.UTC(), to.UTC(), []string{}, []string{})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot query the series: %w", err)
	}
	defer rows.Close()
	out := map[string]SeriesSummary{}
	for rows.Next() {
		var r SeriesSummary
		if err := rows.Scan(&r.Symbol, &r.Candles, &r.Open, &r.High, &r.Low, &r.Close, &r.VWAP, &r.VolumeUSD,
			&r.BuyVolumeUSD, &r.SellVolumeUSD, &r.TradeCount, &r.SeriesJSON); err != nil {
			return nil, nil, fmt.Errorf("cannot read the series: %w", err)
		}
		out[r.Symbol] = r
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the series: %w", err)
	}
	if len(out) == 0 {
		return nil, nil, ErrNoData
	}
	return out, cs.resolutions, nil
}
