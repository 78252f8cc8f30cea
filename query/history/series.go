package history

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// seriesAcc sums up one symbol's rows of seriesRowsSQL, oldest first, and
// renders its series.
type seriesAcc struct {
	SeriesSummary
	vwapVolume, volume float64
	json               []byte
}

// add takes the next candle: v is one row of seriesRowsSQL.
func (a *seriesAcc) add(v []driver.Value) {
	ts := vTime(v[1])
	open, high, low, closep := vFloat(v[2]), vFloat(v[3]), vFloat(v[4]), vFloat(v[5])
	volUSD, bp, trades := vFloat(v[6]), vFloat(v[7]), vInt(v[8])
	if a.Candles == 0 {
		a.Open, a.High, a.Low = open, high, low
		a.json = append(a.json, '[')
	} else {
		a.High, a.Low = max(a.High, high), min(a.Low, low)
		a.json = append(a.json, ',')
	}
	a.Candles++
	a.Close = closep
	vol := vFloat(v[9])
	a.vwapVolume += vFloat(v[10]) * vol
	a.volume += vol
	a.VolumeUSD += volUSD
	a.BuyVolumeUSD += vFloat(v[11])
	a.SellVolumeUSD += vFloat(v[12])
	a.TradeCount += trades
	b := append(a.json, `{"ts":"`...)
	b = ts.AppendFormat(b, "2006-01-02T15:04:05Z")
	b = append(b, `","open":`...)
	b = datasets.AppendNumber(b, open)
	b = append(b, `,"high":`...)
	b = datasets.AppendNumber(b, high)
	b = append(b, `,"low":`...)
	b = datasets.AppendNumber(b, low)
	b = append(b, `,"close":`...)
	b = datasets.AppendNumber(b, closep)
	b = append(b, `,"volumeUsd":`...)
	b = datasets.AppendNumber(b, volUSD)
	b = append(b, `,"buyPressure":`...)
	b = datasets.AppendNumber(b, bp)
	b = append(b, `,"tradeCount":`...)
	b = strconv.AppendInt(b, trades, 10)
	a.json = append(b, '}')
}

// summary finishes the symbol.
func (a *seriesAcc) summary() SeriesSummary {
	r := a.SeriesSummary
	r.VWAP = a.Close
	if a.volume != 0 {
		r.VWAP = a.vwapVolume / a.volume
	}
	r.SeriesJSON = string(append(a.json, ']'))
	return r
}

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
	out := map[string]SeriesSummary{}
	var acc *seriesAcc
	err := s.queryRows(ctx, stmt, []any{cs.files, w, symbols, from.UTC(), to.UTC(), []string{}, []string{}}, func(v []driver.Value) error {
		if sym := vString(v[0]); acc == nil || acc.Symbol != sym {
			if acc != nil {
				out[acc.Symbol] = acc.summary()
			}
			acc = &seriesAcc{SeriesSummary: SeriesSummary{Symbol: sym}}
		}
		acc.add(v)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot query the series: %w", err)
	}
	if acc != nil {
		out[acc.Symbol] = acc.summary()
	}
	if len(out) == 0 {
		return nil, nil, ErrNoData
	}
	return out, cs.resolutions, nil
}
