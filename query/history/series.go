package history

import (
	"context"
	"database/sql/driver"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/datasets"
)

// SeriesSummary is one symbol's cross-venue candles over a range, summed
// up, with the candles already rendered as a JSON array.
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

// seriesRowsSQL is candleOut(crossVenue) projected to what Series needs,
// ordered by symbol and time. Parameters: crossVenue's and candleOut's
// venue-kind pair.
var seriesRowsSQL = `
SELECT symbol, ts, open, high, low, close, volume_usd, buy_pressure, trade_count, volume, vwap, buy_volume_usd,
  sell_volume_usd
FROM (` + candleOut + `(` + crossVenue + `) WHERE (list_contains(?::VARCHAR[], venue_kind) OR len(?::VARCHAR[]) = 0))
ORDER BY symbol, ts`

// seriesRowsDirectSQL is seriesRowsSQL over files stored at the bucket width.
var seriesRowsDirectSQL = strings.Replace(seriesRowsSQL, crossVenue, crossVenueDirect, 1)

// seriesRow is one cross-venue candle of seriesRowsSQL.
type seriesRow struct {
	ts                                             int64 // Unix seconds
	open, high, low, closep, volUSD, bp, vwap, vol float64
	buyUSD, sellUSD                                float64
	trades                                         int64
}

// summarize sums up one symbol's rows, oldest first, and renders its
// series as a JSON array.
func summarize(sym string, rows []seriesRow) SeriesSummary {
	r := SeriesSummary{Symbol: sym, Candles: int64(len(rows))}
	if len(rows) == 0 {
		return r
	}
	r.Open, r.High, r.Low, r.Close = rows[0].open, rows[0].high, rows[0].low, rows[len(rows)-1].closep
	var vwapVolume, volume float64
	b := make([]byte, 0, 200*len(rows))
	b = append(b, '[')
	var dayStart int64 = -1
	var dayPrefix []byte
	for i, c := range rows {
		r.High, r.Low = max(r.High, c.high), min(r.Low, c.low)
		vwapVolume += c.vwap * c.vol
		volume += c.vol
		r.VolumeUSD += c.volUSD
		r.BuyVolumeUSD += c.buyUSD
		r.SellVolumeUSD += c.sellUSD
		r.TradeCount += c.trades
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"ts":"`...)
		// The date part is rendered once per UTC day.
		if sec := c.ts - dayStart; dayStart < 0 || sec < 0 || sec >= 86400 {
			dayStart = c.ts - ((c.ts%86400)+86400)%86400
			dayPrefix = time.Unix(dayStart, 0).UTC().AppendFormat(dayPrefix[:0], "2006-01-02T")
		}
		b = append(b, dayPrefix...)
		sec := c.ts - dayStart
		b = append2(b, sec/3600)
		b = append(b, ':')
		b = append2(b, sec/60%60)
		b = append(b, ':')
		b = append2(b, sec%60)
		b = append(b, `Z","open":`...)
		b = datasets.AppendNumber(b, c.open)
		b = append(b, `,"high":`...)
		b = datasets.AppendNumber(b, c.high)
		b = append(b, `,"low":`...)
		b = datasets.AppendNumber(b, c.low)
		b = append(b, `,"close":`...)
		b = datasets.AppendNumber(b, c.closep)
		b = append(b, `,"volumeUsd":`...)
		b = datasets.AppendNumber(b, c.volUSD)
		b = append(b, `,"buyPressure":`...)
		b = datasets.AppendNumber(b, c.bp)
		b = append(b, `,"tradeCount":`...)
		b = strconv.AppendInt(b, c.trades, 10)
		b = append(b, '}')
	}
	r.VWAP = r.Close
	if volume != 0 {
		r.VWAP = vwapVolume / volume
	}
	r.SeriesJSON = string(append(b, ']'))
	return r
}

// append2 appends 0 ≤ n < 100 as two digits.
func append2(b []byte, n int64) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

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
	stmt := seriesRowsSQL
	if cs.direct(w) {
		stmt = seriesRowsDirectSQL
	}
	var syms []string
	var rows [][]seriesRow
	err := s.queryRows(ctx, stmt, []any{cs.files, w, symbols, from.UTC(), to.UTC(), []string{}, []string{}}, func(v []driver.Value) error {
		if sym := vString(v[0]); len(syms) == 0 || syms[len(syms)-1] != sym {
			syms = append(syms, sym)
			rows = append(rows, nil)
		}
		t := vTime(v[1])
		rows[len(rows)-1] = append(rows[len(rows)-1], seriesRow{ts: t.Unix(), open: vFloat(v[2]), high: vFloat(v[3]),
			low: vFloat(v[4]), closep: vFloat(v[5]), volUSD: vFloat(v[6]), bp: vFloat(v[7]), trades: vInt(v[8]),
			vol: vFloat(v[9]), vwap: vFloat(v[10]), buyUSD: vFloat(v[11]), sellUSD: vFloat(v[12])})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot query the series: %w", err)
	}
	// Rendering the numbers is most of the Go time: one goroutine per
	// symbol, at most GOMAXPROCS at once.
	sums := make([]SeriesSummary, len(syms))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range syms {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			sums[i] = summarize(syms[i], rows[i])
			<-sem
		}()
	}
	wg.Wait()
	out := make(map[string]SeriesSummary, len(syms))
	for _, r := range sums {
		out[r.Symbol] = r
	}
	if len(out) == 0 {
		return nil, nil, ErrNoData
	}
	return out, cs.resolutions, nil
}
