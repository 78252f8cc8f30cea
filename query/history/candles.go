package history

import (
	"context"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/datasets"
)

// readCandles is the FROM clause over a bound list of candle files; the
// interval, date and venue partition columns come from the paths.
const readCandles = `read_parquet(?::VARCHAR[], hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`

// venueRollup rolls the stored candles of the bound files up to a bucket of
// ? seconds per (symbol, venue). Its floating-point sums are xsum(x),
// which withSums makes order-free (datasets.ExactSums) when a group can
// hold three rows or more (candleSet.exactSums): DuckDB scans files and
// row groups on several threads, and a sum taken in arrival order — plain
// or compensated (fsum) — differed in its last bit between two API
// instances reading the same day files (the cluster suite caught both).
// Sorting inside the aggregates (ORDER BY, or a sorted list) buffers every
// row and ran out of memory on a week of 20 symbols. A stored row coarser
// than the bucket keeps its own start and width. Parameters: files, bucket
// seconds (x3), symbols, from, to.
var venueRollup = `
WITH raw AS (
  SELECT symbol, venue, venue_kind, chain, ts, open, high, low, close, volume, volume_usd,
         buy_volume, sell_volume, buy_volume_usd, sell_volume_usd, vwap, trade_count, buy_count,
         sell_count, unknown_side_count,
         CASE interval WHEN '1m' THEN 60 WHEN '5m' THEN 300 WHEN '15m' THEN 900 ELSE 3600 END::BIGINT AS width
  FROM ` + readCandles + `
), p AS (SELECT ?::BIGINT AS w),
b AS (
  SELECT raw.*, CASE WHEN width < p.w THEN to_timestamp(floor(epoch(ts) / p.w) * p.w) ELSE ts END AS bts,
         greatest(width, p.w) AS bw
  FROM raw, p
  WHERE list_contains(?::VARCHAR[], symbol) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
)
SELECT symbol, venue, any_value(venue_kind) AS venue_kind, any_value(chain) AS chain, bts AS ts, max(bw) AS width,
       arg_min(open, ts) AS open, max(high) AS high, min(low) AS low, arg_max(close, ts) AS close,
       xsum(volume) AS volume, xsum(volume_usd) AS volume_usd, xsum(buy_volume) AS buy_volume,
       xsum(sell_volume) AS sell_volume, xsum(buy_volume_usd) AS buy_volume_usd,
       xsum(sell_volume_usd) AS sell_volume_usd,
       coalesce(xsum(vwap * volume) / nullif(xsum(volume), 0), arg_max(close, ts)) AS vwap,
       sum(trade_count)::BIGINT AS trade_count, sum(buy_count)::BIGINT AS buy_count,
       sum(sell_count)::BIGINT AS sell_count, sum(unknown_side_count)::BIGINT AS unknown_side_count
FROM b GROUP BY symbol, venue, bts`

// venueDirect is venueRollup for files all stored at the bucket width: the
// rows as they are, without a GROUP BY. Same parameters and columns.
const venueDirect = `
SELECT symbol, venue, venue_kind, chain, ts, width, open, high, low, close, volume, volume_usd, buy_volume,
       sell_volume, buy_volume_usd, sell_volume_usd, vwap, trade_count, buy_count, sell_count, unknown_side_count
FROM (
  SELECT *, CASE interval WHEN '1m' THEN 60 WHEN '5m' THEN 300 WHEN '15m' THEN 900 ELSE 3600 END::BIGINT AS width
  FROM ` + readCandles + `
), (SELECT ?::BIGINT AS w) p
WHERE list_contains(?::VARCHAR[], symbol) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ`

// leadKey is operators.Leads in SQL: over the venue rows of one bucket,
// arg_min(x, leadKey) is x of the leading venue — the largest USD volume
// (NULL and NaN rank as 0), ties to the venue name that sorts first —
// among the rows where x is not NULL (Go skips NaN the same way).
const leadKey = `(-coalesce(nullif(volume_usd::DOUBLE, 'NaN'::DOUBLE), 0), venue)`

// crossVenue aggregates the venue rows of venueRollup per (symbol, bucket)
// by the rule of docs/history.md (datasets.CrossVenueRule): sums of
// volumes and counts, high the highest and low the lowest venue price,
// open and close those of the leading venue (leadKey), VWAP from the
// summed notional, buy pressure from the summed aggressor volumes. Its
// sums are order-free, as venueRollup's.
var crossVenue = `
WITH v AS (` + venueRollup + `)
SELECT symbol, '' AS venue, '' AS venue_kind, '' AS chain, ts, max(width) AS width,
       arg_min(open, ` + leadKey + `) AS open,
       max(high) AS high, min(low) AS low,
       arg_min(close, ` + leadKey + `) AS close,
       xsum(volume) AS volume, xsum(volume_usd) AS volume_usd, xsum(buy_volume) AS buy_volume,
       xsum(sell_volume) AS sell_volume, xsum(buy_volume_usd) AS buy_volume_usd,
       xsum(sell_volume_usd) AS sell_volume_usd,
       coalesce(xsum(vwap * volume) / nullif(xsum(volume), 0), xsum(close) / count(close)) AS vwap,
       sum(trade_count)::BIGINT AS trade_count, sum(buy_count)::BIGINT AS buy_count,
       sum(sell_count)::BIGINT AS sell_count, sum(unknown_side_count)::BIGINT AS unknown_side_count
FROM v GROUP BY symbol, ts`

// crossVenueDirect is crossVenue over venueDirect.
var crossVenueDirect = strings.Replace(crossVenue, venueRollup, venueDirect, 1)

// withSums returns stmt with its xsum(x) calls as datasets.ExactSums writes
// them when exact, else as plain sums (candleSet.exactSums says which a
// read needs).
func withSums(stmt string, exact bool) string {
	if exact {
		return datasets.ExactSums(stmt)
	}
	return datasets.PlainSums(stmt)
}

// direct reports whether every file of cs is stored at width w seconds, so
// the venue rows need no roll-up.
func (cs candleSet) direct(w int64) bool {
	for _, x := range cs.widths {
		if x != w {
			return false
		}
	}
	return true
}

// candleOut is the select list both statements end with, in scan order,
// in the types candleBatch reads whatever a file stored.
const candleOut = `SELECT symbol, venue, venue_kind, chain, ts::TIMESTAMPTZ AS ts, width::BIGINT AS width,
  open::DOUBLE AS open, high::DOUBLE AS high, low::DOUBLE AS low, close::DOUBLE AS close, volume::DOUBLE AS volume,
  volume_usd::DOUBLE AS volume_usd, buy_volume::DOUBLE AS buy_volume, sell_volume::DOUBLE AS sell_volume,
  buy_volume_usd::DOUBLE AS buy_volume_usd, sell_volume_usd::DOUBLE AS sell_volume_usd,
  (CASE WHEN buy_volume_usd + sell_volume_usd > 0 THEN 100 * buy_volume_usd / (buy_volume_usd + sell_volume_usd) ELSE 50 END)::DOUBLE AS buy_pressure,
  vwap::DOUBLE AS vwap, trade_count::BIGINT AS trade_count, buy_count::BIGINT AS buy_count,
  sell_count::BIGINT AS sell_count, unknown_side_count::BIGINT AS unknown_side_count FROM `

// CandleQuery selects candles.
type CandleQuery struct {
	Symbols []string
	// Interval is the bucket wanted (datasets.Intervals).
	Interval string
	// From (inclusive) and To (exclusive) bound the bucket starts.
	From, To time.Time
	// PerVenue answers one row per venue and bucket instead of the
	// cross-venue aggregate.
	PerVenue bool
	// VenueKinds keeps only these venue kinds when not empty; it applies
	// with PerVenue only.
	VenueKinds []string
	// Latest keeps only the latest this many buckets per symbol (0: all).
	Latest int
}

// CandleResult is the answer of Candles.
type CandleResult struct {
	// Candles are ordered by symbol, venue, then time.
	Candles []datasets.Candle
	// Resolutions are the stored intervals read, finest first.
	Resolutions []string
	// Files is the number of Parquet files read.
	Files int
}

// Candles reads the candles q selects. It returns ErrNoData when no stored
// file covers the range or no row matches.
func (s *Store) Candles(ctx context.Context, q CandleQuery) (CandleResult, error) {
	if !slices.Contains(datasets.Intervals, q.Interval) {
		panic("BUG: candle interval " + q.Interval)
	}
	cs := s.candleFiles(q.Interval, datasets.Day(q.From), datasets.Day(q.To.Add(-time.Nanosecond)))
	if len(cs.files) == 0 {
		return CandleResult{}, ErrNoData
	}
	w := int64(intervalDuration(q.Interval) / time.Second)
	inner := crossVenue
	if q.PerVenue {
		inner = venueRollup
	}
	if cs.direct(w) {
		inner = map[string]string{crossVenue: crossVenueDirect, venueRollup: venueDirect}[inner]
	}
	stmt := candleOut + "(" + withSums(inner, cs.exactSums(w)) + ") WHERE (list_contains(?::VARCHAR[], venue_kind) OR len(?::VARCHAR[]) = 0) "
	order := "ORDER BY symbol, venue, ts"
	if q.Latest > 0 {
		stmt = "SELECT * FROM (" + stmt + "QUALIFY row_number() OVER (PARTITION BY symbol, venue ORDER BY ts DESC) <= ?) "
	}
	stmt += order
	kinds := q.VenueKinds
	if kinds == nil || !q.PerVenue {
		kinds = []string{}
	}
	args := []any{cs.files, w, q.Symbols, q.From.UTC(), q.To.UTC(), kinds, kinds}
	if q.Latest > 0 {
		args = append(args, q.Latest)
	}
	var out []datasets.Candle
	var strs stringCache
	if err := s.queryBatches(ctx, stmt, args, func(rec arrow.RecordBatch) error {
		out = appendCandles(out, rec, &strs)
		return nil
	}); err != nil {
		return CandleResult{}, fmt.Errorf("cannot query candles: %w", err)
	}
	if len(out) == 0 {
		return CandleResult{}, ErrNoData
	}
	used := map[int64]bool{}
	for _, c := range out {
		used[c.WidthSeconds] = true
	}
	var res []string
	for _, iv := range datasets.Intervals {
		if used[int64(intervalDuration(iv)/time.Second)] {
			res = append(res, iv)
		}
	}
	return CandleResult{Candles: out, Resolutions: res, Files: len(cs.files)}, nil
}

// appendCandles appends the rows of a batch of candleOut to out; strs
// keeps one copy of each run of equal strings.
func appendCandles(out []datasets.Candle, rec arrow.RecordBatch, strs *stringCache) []datasets.Candle {
	sym, venue, kind, chain := colString(rec, 0), colString(rec, 1), colString(rec, 2), colString(rec, 3)
	ts, width := colTimestamp(rec, 4), colInt64(rec, 5)
	f := make([][]float64, 12)
	for i := range f {
		f[i] = colFloat64(rec, 6+i)
	}
	trades, buys, sells, unknown := colInt64(rec, 18), colInt64(rec, 19), colInt64(rec, 20), colInt64(rec, 21)
	for j := range ts {
		out = append(out, datasets.Candle{Symbol: strs.get(0, sym, j), Venue: strs.get(1, venue, j),
			VenueKind: strs.get(2, kind, j), Chain: strs.get(3, chain, j),
			Time: time.UnixMicro(ts[j]).UTC(), WidthSeconds: width[j], Open: f[0][j], High: f[1][j], Low: f[2][j],
			Close: f[3][j], Volume: f[4][j], VolumeUSD: f[5][j], BuyVolume: f[6][j], SellVolume: f[7][j],
			BuyVolumeUSD: f[8][j], SellVolumeUSD: f[9][j], BuyPressure: f[10][j], VWAP: f[11][j],
			TradeCount: trades[j], BuyCount: buys[j], SellCount: sells[j], UnknownSideCount: unknown[j]})
	}
	return out
}

// LatestDay returns the latest UTC day that has candle files of any
// interval, or ErrNoData.
func (s *Store) LatestDay() (string, error) {
	latest := ""
	for _, iv := range datasets.Intervals {
		rel := "candles/interval=" + iv
		for _, base := range []string{s.root + "/" + rel, s.root + "/" + datasets.StagingDir + "/" + rel} {
			if d := listDays(base); len(d) > 0 && d[len(d)-1] > latest {
				latest = d[len(d)-1]
			}
		}
	}
	if latest == "" {
		return "", ErrNoData
	}
	return latest, nil
}

// LatestCandles returns the latest limit cross-venue candles of symbol at
// interval, oldest first, from the days that end at the latest stored day.
func (s *Store) LatestCandles(ctx context.Context, symbol, interval string, limit int) (CandleResult, error) {
	day, err := s.LatestDay()
	if err != nil {
		return CandleResult{}, err
	}
	end, _ := time.Parse(datasets.DateFormat, day)
	end = end.Add(24 * time.Hour)
	span := time.Duration(limit) * intervalDuration(interval)
	days := int(math.Ceil(span.Hours()/24)) + 1
	from := end.Add(-time.Duration(days) * 24 * time.Hour)
	return s.Candles(ctx, CandleQuery{Symbols: []string{symbol}, Interval: interval, From: from, To: end, Latest: limit})
}

// Symbols returns the distinct symbols of every stored candle file, sorted.
func (s *Store) Symbols(ctx context.Context) ([]string, error) {
	syms, _, err := s.listing(ctx, nil)
	return syms, err
}

// Offered returns, sorted, the symbols and the venues with stored candles
// of the given venue kinds (what the datasets route sells: on-chain
// venues), from day files and staging parts alike.
func (s *Store) Offered(ctx context.Context, venueKinds []string) (symbols, venues []string, err error) {
	return s.listing(ctx, venueKinds)
}

// listing returns the distinct symbols and venues of the stored candles,
// of the given venue kinds (every kind when nil).
func (s *Store) listing(ctx context.Context, venueKinds []string) (symbols, venues []string, err error) {
	var files []string
	for _, iv := range datasets.Intervals {
		cs := s.candleFiles(iv, "", "")
		files = append(files, cs.files...)
	}
	if len(files) == 0 {
		return []string{}, []string{}, nil
	}
	slices.Sort(files)
	files = slices.Compact(files)
	q, args := `SELECT DISTINCT symbol, venue FROM `+readCandles, []any{files}
	if venueKinds != nil {
		q += ` WHERE venue_kind IN (SELECT unnest(?::VARCHAR[]))`
		args = append(args, venueKinds)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot list symbols: %w", err)
	}
	defer rows.Close()
	syms, vens := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var sym, venue string
		if err := rows.Scan(&sym, &venue); err != nil {
			return nil, nil, fmt.Errorf("cannot list symbols: %w", err)
		}
		syms[sym], vens[venue] = true, true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot list symbols: %w", err)
	}
	symbols, venues = slices.Sorted(maps.Keys(syms)), slices.Sorted(maps.Keys(vens))
	if symbols == nil {
		symbols, venues = []string{}, []string{}
	}
	return symbols, venues, nil
}
