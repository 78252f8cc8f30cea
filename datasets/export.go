package datasets

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Candle is one candle row of one venue (or, in the cross-venue candles of
// the query tier, of every venue), as read from a candle file plus its
// venue partition. Fields follow CandleColumns.
type Candle struct {
	Time      time.Time
	Symbol    string
	Venue     string
	VenueKind string
	Chain     string
	// WidthSeconds is the bucket length the row covers.
	WidthSeconds     int64
	Open             float64
	High             float64
	Low              float64
	Close            float64
	Volume           float64
	VolumeUSD        float64
	BuyVolume        float64
	SellVolume       float64
	BuyVolumeUSD     float64
	SellVolumeUSD    float64
	BuyPressure      float64
	VWAP             float64
	TradeCount       int64
	BuyCount         int64
	SellCount        int64
	UnknownSideCount int64
}

// VenueDay is one venue's candles of an export day, oldest first.
type VenueDay struct {
	Venue     string
	VenueKind string
	Chain     string
	Candles   []Candle
}

// ExportDay is one UTC day of one symbol's candles, separately per venue:
// the body of GET /api/v1/datasets/{symbol}.
type ExportDay struct {
	Symbol string
	// Date is the UTC day, YYYY-MM-DD.
	Date string
	// Interval is the resolution of the candles answered.
	Interval string
	// RequestedInterval is the interval asked for; it differs from
	// Interval when the day is stored only at a coarser resolution.
	RequestedInterval string
	// Note says why Interval differs from RequestedInterval; empty when
	// they are equal.
	Note   string
	Venues []VenueDay
}

// CSVHeader is the header row of the CSV export: one row per venue and
// bucket, in venue then time order.
var CSVHeader = []string{"ts", "symbol", "venue", "venue_kind", "chain", "interval", "open", "high", "low", "close",
	"volume", "volume_usd", "buy_volume", "sell_volume", "buy_volume_usd", "sell_volume_usd", "buy_pressure",
	"vwap", "trade_count", "buy_count", "sell_count", "unknown_side_count"}

// CSVFileName is the Content-Disposition file name of a CSV export, e.g.
// ETHUSD_2026-01-05_1m.csv.
func CSVFileName(symbol, day, interval, ext string) string {
	return symbol + "_" + day + "_" + interval + "." + ext
}

// WriteCSV writes d as CSV (RFC 4180, header first) to w.
func WriteCSV(w io.Writer, d ExportDay) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	rec := make([]string, len(CSVHeader))
	var buf []byte
	for _, v := range d.Venues {
		for _, c := range v.Candles {
			buf = buf[:0]
			rec[0] = c.Time.UTC().Format(time.RFC3339)
			rec[1] = d.Symbol
			rec[2] = v.Venue
			rec[3] = v.VenueKind
			rec[4] = v.Chain
			rec[5] = d.Interval
			for i, f := range []float64{c.Open, c.High, c.Low, c.Close, c.Volume, c.VolumeUSD, c.BuyVolume,
				c.SellVolume, c.BuyVolumeUSD, c.SellVolumeUSD, c.BuyPressure, c.VWAP} {
				rec[6+i] = formatFloat(f)
			}
			rec[18] = strconv.FormatInt(c.TradeCount, 10)
			rec[19] = strconv.FormatInt(c.BuyCount, 10)
			rec[20] = strconv.FormatInt(c.SellCount, 10)
			rec[21] = strconv.FormatInt(c.UnknownSideCount, 10)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// AppendJSON appends d as the JSON body of the datasets route:
// {"symbol","date","interval","requestedInterval","note","venues":[{"venue",
// "venueKind","chain","candles":[…]}],"source"}. Note is null when the
// interval is the one requested.
func AppendJSON(b []byte, d ExportDay) []byte {
	b = append(b, `{"symbol":`...)
	b = appendJSONString(b, d.Symbol)
	b = append(b, `,"date":`...)
	b = appendJSONString(b, d.Date)
	b = append(b, `,"interval":`...)
	b = appendJSONString(b, d.Interval)
	b = append(b, `,"requestedInterval":`...)
	b = appendJSONString(b, d.RequestedInterval)
	b = append(b, `,"note":`...)
	if d.Note == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, d.Note)
	}
	b = append(b, `,"venues":[`...)
	for i, v := range d.Venues {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"venue":`...)
		b = appendJSONString(b, v.Venue)
		b = append(b, `,"venueKind":`...)
		b = appendJSONString(b, v.VenueKind)
		b = append(b, `,"chain":`...)
		b = appendJSONString(b, v.Chain)
		b = append(b, `,"candles":[`...)
		for j, c := range v.Candles {
			if j > 0 {
				b = append(b, ',')
			}
			b = AppendCandleJSON(b, c)
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"source":"parquet:candles"}`...)
	return b
}

// AppendCandleJSON appends one candle as a JSON object: ts, open, high,
// low, close, volume, volumeUsd, buyVolume, sellVolume, buyVolumeUsd,
// sellVolumeUsd, buyPressure, vwap, tradeCount, buyCount, sellCount,
// unknownSideCount. Non-finite numbers are written as 0.
func AppendCandleJSON(b []byte, c Candle) []byte {
	b = append(b, `{"ts":"`...)
	b = c.Time.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, '"')
	for _, f := range []struct {
		k string
		v float64
	}{{"open", c.Open}, {"high", c.High}, {"low", c.Low}, {"close", c.Close}, {"volume", c.Volume},
		{"volumeUsd", c.VolumeUSD}, {"buyVolume", c.BuyVolume}, {"sellVolume", c.SellVolume},
		{"buyVolumeUsd", c.BuyVolumeUSD}, {"sellVolumeUsd", c.SellVolumeUSD}, {"buyPressure", c.BuyPressure},
		{"vwap", c.VWAP}} {
		b = append(b, ',', '"')
		b = append(b, f.k...)
		b = append(b, '"', ':')
		b = AppendNumber(b, f.v)
	}
	b = append(b, `,"tradeCount":`...)
	b = strconv.AppendInt(b, c.TradeCount, 10)
	b = append(b, `,"buyCount":`...)
	b = strconv.AppendInt(b, c.BuyCount, 10)
	b = append(b, `,"sellCount":`...)
	b = strconv.AppendInt(b, c.SellCount, 10)
	b = append(b, `,"unknownSideCount":`...)
	b = strconv.AppendInt(b, c.UnknownSideCount, 10)
	return append(b, '}')
}

// AppendNumber appends f as a JSON number, 0 when it is not finite.
func AppendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&15])
		case r == utf8.RuneError:
			b = append(b, `\ufffd`...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
