package history

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/marketintel/mi/operators"
)

// pricePoint is one cross-venue candle of priceSQL: start and end in Unix
// microseconds, close, high and low (NaN for NULL).
type pricePoint struct {
	us, end          int64
	close, high, low float64
}

// venuePriceSQL reads the stored candles the backtest scores on, venue by
// venue: the symbol's 1-based position in the bound list, start and end in
// Unix microseconds, close, USD volume, high and low, ordered by symbol,
// start and venue (the venues of a start are adjacent, in name order;
// priceAcc makes them the cross-venue candle of priceSQL). Sorting the
// rows is much cheaper in DuckDB than grouping them by (symbol, start)
// first. Parameters: the symbol list, files, symbols, from, to.
const venuePriceSQL = `
SELECT list_position(?::VARCHAR[], symbol)::BIGINT AS si, epoch_us(ts) AS us,
  epoch_us(ts) + 1000000 * CASE interval WHEN '1m' THEN 60 WHEN '5m' THEN 300 WHEN '15m' THEN 900 ELSE 3600 END AS ce,
  close::DOUBLE AS close, volume_usd::DOUBLE AS volume_usd, high::DOUBLE AS high, low::DOUBLE AS low
FROM ` + readCandles + `
WHERE list_contains(?::VARCHAR[], symbol) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
ORDER BY si, us, venue`

// priceAcc combines the venue rows of one (symbol, start), met in venue
// name order, by priceSQL's rule, NULLs (NaN here) included: the end is
// the latest; the close is that of the leading venue among the rows with a
// close (operators.Leads: the largest USD volume, and of equal volumes the
// first met, whose name sorts first); high the highest, low the lowest.
type priceAcc struct {
	p                      pricePoint
	leadUSD                float64
	hasClose               bool
	hasHigh, hasLow, begun bool
}

func (a *priceAcc) add(us, end int64, close, vu, high, low float64) {
	if !a.begun {
		*a = priceAcc{p: pricePoint{us: us, end: end, close: math.NaN(), high: math.NaN(), low: math.NaN()}, begun: true}
	}
	a.p.end = max(a.p.end, end)
	if !math.IsNaN(close) {
		// Rows come in venue name order, so a later row leads only with
		// strictly more volume: operators.Leads without the names.
		if v := operators.LeadVolume(vu); !a.hasClose || v > a.leadUSD {
			a.p.close, a.leadUSD, a.hasClose = close, v, true
		}
	}
	if !math.IsNaN(high) {
		if !a.hasHigh || high > a.p.high {
			a.p.high = high
		}
		a.hasHigh = true
	}
	if !math.IsNaN(low) {
		if !a.hasLow || low < a.p.low {
			a.p.low = low
		}
		a.hasLow = true
	}
}

// point ends the candle: its cross-venue values.
func (a *priceAcc) point() pricePoint {
	a.begun = false
	return a.p
}

// qualifyingSQL selects the qualifying signals of Methodology: BULLISH or
// BEARISH documents with confidence and baseline samples at least the
// minimums and a positive price whose signal or event type differs from
// the symbol's previous document, ordered by symbol and time (numbers as
// DOUBLE whatever a file stored). Parameters:
// signal files, symbols (empty: every symbol) twice, start, end, minimum
// confidence, minimum baseline samples.
const qualifyingSQL = `
SELECT symbol, epoch_us(ts) AS us, signal, event_type, conf::DOUBLE AS conf, price::DOUBLE AS price FROM (
  SELECT symbol, ts, signal, event_type, confidence_score AS conf, baseline_samples AS bs, price,
         lag(signal) OVER w AS prev_signal, lag(event_type) OVER w AS prev_event
  FROM ` + readSignals + `
  WHERE (list_contains(?::VARCHAR[], symbol) OR len(?::VARCHAR[]) = 0) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
  WINDOW w AS (PARTITION BY symbol ORDER BY ts)
)
WHERE signal IN ('BULLISH', 'BEARISH') AND conf >= ? AND bs >= ? AND price > 0
  AND (prev_signal IS NULL OR prev_signal <> signal OR prev_event <> event_type)
ORDER BY symbol, us`

// priceSeries is one symbol's cross-venue candles ordered by start, with
// an index ordered by end for the as-of lookups when the ends are not in
// start order (venues stored at different resolutions on one day).
type priceSeries struct {
	pts []pricePoint
	// byEnd indexes pts by (end, start) when the ends are not
	// nondecreasing; nil when pts itself is in end order.
	byEnd   []int32
	lastEnd int64
}

func newPriceSeries(pts []pricePoint) priceSeries {
	ps := priceSeries{pts: pts, lastEnd: math.MinInt64}
	sorted := true
	for i, p := range pts {
		ps.lastEnd = max(ps.lastEnd, p.end)
		if i > 0 && p.end < pts[i-1].end {
			sorted = false
		}
	}
	if !sorted {
		ps.byEnd = make([]int32, len(pts))
		for i := range ps.byEnd {
			ps.byEnd[i] = int32(i)
		}
		slices.SortFunc(ps.byEnd, func(a, b int32) int {
			if c := cmpInt64(pts[a].end, pts[b].end); c != 0 {
				return c
			}
			return cmpInt64(pts[a].us, pts[b].us)
		})
	}
	return ps
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// asOf returns the candle with the latest end at or before t (the latest
// start among equal ends), or false when none ends by t: the row an ASOF
// join on end <= t picks.
func (ps *priceSeries) asOf(t int64) (pricePoint, bool) {
	n := len(ps.pts)
	at := func(i int) pricePoint {
		if ps.byEnd != nil {
			return ps.pts[ps.byEnd[i]]
		}
		return ps.pts[i]
	}
	// The first position whose end is after t; the one before it is the answer.
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if at(m).end <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return pricePoint{}, false
	}
	return at(lo - 1), true
}

// extremes returns the highest high and the lowest low of the candles that
// start at base + k minutes (k = 0..14) and end by end; false when there
// is none with both.
func (ps *priceSeries) extremes(base, end int64) (hi, lo float64, ok bool) {
	i, _ := slices.BinarySearchFunc(ps.pts, base, func(p pricePoint, t int64) int { return cmpInt64(p.us, t) })
	hi, lo = math.Inf(-1), math.Inf(1)
	hasHi, hasLo := false, false
	for ; i < len(ps.pts) && ps.pts[i].us < base+15*minuteUS; i++ {
		p := ps.pts[i]
		if (p.us-base)%minuteUS != 0 || p.end > end {
			continue
		}
		if !math.IsNaN(p.high) {
			hi, hasHi = max(hi, p.high), true
		}
		if !math.IsNaN(p.low) {
			lo, hasLo = min(lo, p.low), true
		}
	}
	return hi, lo, hasHi && hasLo
}

const minuteUS = int64(60_000_000)

// forwardReturn is the return in percent, signed by direction d, from entry
// at t (Unix microseconds) to the close of the candle with the latest end
// by t+h, if that candle starts at or after t; NaN when t+h is after end
// or there is no such candle.
func (ps *priceSeries) forwardReturn(t int64, h time.Duration, end int64, d, entry float64) float64 {
	th := t + h.Microseconds()
	if th > end {
		return math.NaN()
	}
	if p, ok := ps.asOf(th); ok && p.us >= t && !math.IsNaN(p.close) {
		return d * (p.close/entry - 1) * 100
	}
	return math.NaN()
}

// scoreSignal fills the returns, MFE and MAE of o, whose time is t (Unix
// microseconds), from its symbol's candles by Methodology: only candles
// that start at or after t count, and a horizon ending after the last
// candle is not a sample.
func (ps *priceSeries) scoreSignal(o *Outcome, t int64) {
	d := o.Direction()
	for i, h := range horizonDur {
		o.Returns[i] = ps.forwardReturn(t, h, ps.lastEnd, d, o.Entry)
	}
	o.MFE, o.MAE = math.NaN(), math.NaN()
	t15 := t + 15*minuteUS
	if t15 > ps.lastEnd {
		return
	}
	base := t - t%minuteUS
	if t%minuteUS < 0 {
		base -= minuteUS
	}
	if base != t {
		base += minuteUS
	}
	if hi, lo, ok := ps.extremes(base, t15); ok {
		up, down := (hi/o.Entry-1)*100, (1-lo/o.Entry)*100
		if d < 0 {
			up, down = down, up
		}
		o.MFE, o.MAE = math.Max(0, up), math.Max(0, down)
	}
}

// qualifying reads the qualifying signals of docSyms (empty: every symbol)
// by symbol, each oldest first.
func (s *Store) qualifying(ctx context.Context, sigFiles, docSyms []string, p BacktestParams) (map[string][]Outcome, error) {
	outs := map[string][]Outcome{}
	last := ""
	err := s.queryBatches(ctx, qualifyingSQL, []any{sigFiles, docSyms, docSyms, p.Start.UTC(), p.End.UTC(), p.MinConfidence, p.MinBaselineSamples},
		func(rec arrow.RecordBatch) error {
			sym, sig, ev := colString(rec, 0), colString(rec, 2), colString(rec, 3)
			us, conf, price := colInt64(rec, 1), colFloat64(rec, 4), colFloat64(rec, 5)
			for j := range us {
				if v := sym.Value(j); v != last {
					last = strings.Clone(v) // v aliases the batch
				}
				k := last
				outs[k] = append(outs[k], Outcome{Symbol: k, Time: unixMicroUTC(us[j]), Signal: strings.Clone(sig.Value(j)),
					EventType: strings.Clone(ev.Value(j)), Confidence: conf[j], Entry: price[j]})
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("cannot select the backtest signals: %w", err)
	}
	return outs, nil
}

// scoreBatch scores the qualifying signals of the symbols of batch (sorted)
// on their candles and appends them to out in symbol and time order.
func (s *Store) scoreBatch(ctx context.Context, files, batch []string, sigs map[string][]Outcome, start, cEnd time.Time, out []Outcome) ([]Outcome, error) {
	err := s.eachPriceSeries(ctx, files, batch, start, cEnd, func(i int) bool { return len(sigs[batch[i]]) > 0 },
		func(i int, ps *priceSeries) {
			os := sigs[batch[i]]
			for k := range os {
				ps.scoreSignal(&os[k], os[k].Time.UnixMicro())
			}
			out = append(out, os...)
		})
	if err != nil {
		return nil, fmt.Errorf("cannot read backtest prices: %w", err)
	}
	return out, nil
}

// eachPriceSeries reads the cross-venue candles of the symbols of batch in
// [from, to) from files and calls each with every symbol's series, in
// batch order, for the symbols want accepts (by position in batch) that
// have candles. Only one symbol's candles are held at a time.
func (s *Store) eachPriceSeries(ctx context.Context, files, batch []string, from, to time.Time, want func(int) bool, each func(int, *priceSeries)) error {
	cur := -1
	wanted := false
	var pts []pricePoint
	flush := func() {
		if cur >= 0 && len(pts) > 0 {
			ps := newPriceSeries(pts)
			each(cur, &ps)
		}
		pts = pts[:0]
	}
	var acc priceAcc
	err := s.queryBatches(ctx, venuePriceSQL, []any{batch, files, batch, from.UTC(), to.UTC()}, func(rec arrow.RecordBatch) error {
		si, us, ce := colInt64(rec, 0), colInt64(rec, 1), colInt64(rec, 2)
		cl, vu, hi, lo := colFloat64Or(rec, math.NaN(), 3), colFloat64Or(rec, math.NaN(), 4), colFloat64Or(rec, math.NaN(), 5), colFloat64Or(rec, math.NaN(), 6)
		for j := range si {
			i := int(si[j] - 1)
			if i < 0 || i >= len(batch) || i < cur {
				panic("BUG: a price row of a symbol not asked for, or out of order")
			}
			if i != cur || (acc.begun && us[j] != acc.p.us) {
				if acc.begun {
					pts = append(pts, acc.point())
				}
				if i != cur {
					flush()
					cur, wanted = i, want(i)
				}
			}
			if wanted {
				acc.add(us[j], ce[j], cl[j], vu[j], hi[j], lo[j])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if acc.begun {
		pts = append(pts, acc.point())
	}
	flush()
	return nil
}

// candlesPerSymbol bounds the candles one symbol can have in files: a
// day's worth at each file's width (files are per day and venue).
func candlesPerSymbol(cs candleSet) int64 {
	var n int64
	for _, w := range cs.widths {
		n += 86400 / w
	}
	return max(n, 1)
}

func unixMicroUTC(us int64) time.Time { return time.UnixMicro(us).UTC() }
