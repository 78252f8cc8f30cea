package history

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/jsonw"
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
	// It is a byte slice, not a string: at 1m over days it runs to
	// megabytes, and the caller copies it into the response once.
	SeriesJSON []byte
}

// seriesRowsSQL is crossVenue projected to what Series needs, with the
// symbol as its 1-based position in the bound symbol list and the bucket
// start in Unix microseconds, ordered by these two integers: sorting them
// is much cheaper than sorting the symbol text and a timestamp, and fewer,
// smaller values cross the driver (buy pressure is computed in Go, by
// candleOut's formula). Parameters: the symbol list, then crossVenue's.
var seriesRowsSQL = `
SELECT list_position(?::VARCHAR[], symbol)::BIGINT AS si, epoch_us(ts) AS us, open, high, low, close,
  volume, volume_usd, buy_volume_usd, sell_volume_usd, vwap, trade_count
FROM (` + crossVenue + `)
ORDER BY si, us`

// seriesRowsDirectSQL is seriesRowsSQL over files stored at the bucket width.
var seriesRowsDirectSQL = strings.Replace(seriesRowsSQL, crossVenue, crossVenueDirect, 1)

// maxSeriesPrealloc bounds the rows Series allocates per symbol before it
// reads any (11 days at 1m): a range may reach into the future.
const maxSeriesPrealloc = 1 << 14

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
		b = jsonw.AppendFloat(b, c.open)
		b = append(b, `,"high":`...)
		b = jsonw.AppendFloat(b, c.high)
		b = append(b, `,"low":`...)
		b = jsonw.AppendFloat(b, c.low)
		b = append(b, `,"close":`...)
		b = jsonw.AppendFloat(b, c.closep)
		b = append(b, `,"volumeUsd":`...)
		b = jsonw.AppendFloat(b, c.volUSD)
		b = append(b, `,"buyPressure":`...)
		b = jsonw.AppendFloat(b, c.bp)
		b = append(b, `,"tradeCount":`...)
		b = strconv.AppendInt(b, c.trades, 10)
		b = append(b, '}')
	}
	r.VWAP = r.Close
	if volume != 0 {
		r.VWAP = vwapVolume / volume
	}
	r.SeriesJSON = append(b, ']')
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
	stmt = withSums(stmt, cs.exactSums(w))
	// Each symbol's rows are sized for a full range when it starts (at most
	// maxSeriesPrealloc): regrowing them would copy and discard tens of
	// megabytes per request, and the garbage collections that garbage
	// causes cost more than the copying.
	perSymbol := min(int(to.Sub(from)/intervalDuration(interval))+1, maxSeriesPrealloc)
	rows := make([][]seriesRow, len(symbols))
	// The rows arrive ordered by symbol, so a symbol is complete when the
	// next one starts: it is summarized (rendering its numbers is most of
	// the Go time) on another goroutine, at most GOMAXPROCS at once, while
	// the result is still being read.
	sums := make([]SeriesSummary, len(symbols))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	done := func(i int) {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			sums[i] = summarize(symbols[i], rows[i])
			<-sem
		}()
	}
	cur := -1
	err := s.queryBatches(ctx, stmt, []any{symbols, cs.files, w, symbols, from.UTC(), to.UTC()}, func(rec arrow.RecordBatch) error {
		si, us := colInt64(rec, 0), colInt64(rec, 1)
		open, high, low, closep := colFloat64(rec, 2), colFloat64(rec, 3), colFloat64(rec, 4), colFloat64(rec, 5)
		vol, volUSD, buyUSD, sellUSD := colFloat64(rec, 6), colFloat64(rec, 7), colFloat64(rec, 8), colFloat64(rec, 9)
		vwap, trades := colFloat64(rec, 10), colInt64(rec, 11)
		for j := range si {
			i := int(si[j] - 1)
			if i < 0 || i >= len(symbols) || i < cur {
				panic("BUG: a series row of a symbol not asked for, or out of order")
			}
			if i != cur {
				if cur >= 0 {
					done(cur)
				}
				cur = i
				rows[i] = make([]seriesRow, 0, perSymbol)
			}
			r := seriesRow{ts: us[j]/1e6 - b2i(us[j]%1e6 < 0), open: open[j], high: high[j], low: low[j],
				closep: closep[j], vol: vol[j], volUSD: volUSD[j], buyUSD: buyUSD[j], sellUSD: sellUSD[j],
				vwap: vwap[j], trades: trades[j], bp: 50}
			if b := r.buyUSD + r.sellUSD; b > 0 {
				r.bp = 100 * r.buyUSD / b
			}
			rows[i] = append(rows[i], r)
		}
		return nil
	})
	if cur >= 0 && err == nil {
		done(cur)
	}
	wg.Wait()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot query the series: %w", err)
	}
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
