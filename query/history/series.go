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

// seriesRowsSQL is crossVenue projected to what Series needs, with the
// symbol as its 1-based position in the bound symbol list and the bucket
// start in Unix microseconds, ordered by these two integers: sorting them
// is much cheaper than sorting the symbol text and a timestamp, and fewer,
// smaller values cross the driver (buy pressure is computed in Go, by
// candleOut's formula). Parameters: the symbol list, then crossVenue's.
const seriesRowsSQL = `
SELECT list_position(?::VARCHAR[], symbol)::BIGINT AS si, epoch_us(ts) AS us, open, high, low, close,
  volume, volume_usd, buy_volume_usd, sell_volume_usd, vwap, trade_count
FROM (` + crossVenue + `)
ORDER BY si, us`

// seriesRowsDirectSQL is seriesRowsSQL over files stored at the bucket width.
var seriesRowsDirectSQL = strings.Replace(seriesRowsSQL, crossVenue, crossVenueDirect, 1)

// seriesRow is one cross-venue candle of a symbol's series.
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

// b2i is 1 for true, 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
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
	rows := make([][]seriesRow, len(symbols))
	err := s.queryRows(ctx, stmt, []any{symbols, cs.files, w, symbols, from.UTC(), to.UTC()}, func(v []driver.Value) error {
		i := vInt(v[0]) - 1
		if i < 0 || i >= int64(len(symbols)) {
			panic("BUG: a series row of a symbol not asked for")
		}
		us := vInt(v[1])
		r := seriesRow{ts: us/1e6 - b2i(us%1e6 < 0), open: vFloat(v[2]), high: vFloat(v[3]), low: vFloat(v[4]),
			closep: vFloat(v[5]), vol: vFloat(v[6]), volUSD: vFloat(v[7]), buyUSD: vFloat(v[8]), sellUSD: vFloat(v[9]),
			vwap: vFloat(v[10]), trades: vInt(v[11]), bp: 50}
		if b := r.buyUSD + r.sellUSD; b > 0 {
			r.bp = 100 * r.buyUSD / b
		}
		rows[i] = append(rows[i], r)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot query the series: %w", err)
	}
	// Rendering the numbers is most of the Go time: one goroutine per
	// symbol, at most GOMAXPROCS at once.
	sums := make([]SeriesSummary, len(symbols))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range symbols {
		if len(rows[i]) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			sums[i] = summarize(symbols[i], rows[i])
			<-sem
		}()
	}
	wg.Wait()
	out := make(map[string]SeriesSummary, len(symbols))
	for i, r := range sums {
		if len(rows[i]) > 0 {
			out[r.Symbol] = r
		}
	}
	if len(out) == 0 {
		return nil, nil, ErrNoData
	}
	return out, cs.resolutions, nil
}
