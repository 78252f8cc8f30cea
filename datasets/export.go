package datasets

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/marketintel/mi/internal/jsonw"
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

// WriteCSV writes d as CSV (RFC 4180, header first) to w: the bytes of
// AppendCSV.
func WriteCSV(w io.Writer, d ExportDay) error {
	_, err := w.Write(AppendCSV(nil, d))
	return err
}

// csvRowBytes and jsonCandleBytes are about the size of one rendered
// candle (a little more than the synthetic 1m candles of the benchmarks):
// AppendCSV and AppendJSON reserve that much per candle up front instead of
// growing a megabyte-sized buffer by doubling.
const (
	csvRowBytes     = 256
	jsonCandleBytes = 448
)

// candles is the number of candles of d.
func (d ExportDay) candles() int {
	n := 0
	for _, v := range d.Venues {
		n += len(v.Candles)
	}
	return n
}

// AppendCSV appends d as CSV (RFC 4180, header first, "\n" line ends),
// byte for byte what encoding/csv writes for the same records: a field is
// quoted when encoding/csv would quote it. Numbers follow the one rule of
// the JSON answers (package jsonw); non-finite ones are empty.
func AppendCSV(b []byte, d ExportDay) []byte {
	b = slices.Grow(b, d.candles()*csvRowBytes+512)
	for i, h := range CSVHeader {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, h)
	}
	b = append(b, '\n')
	// The fields that repeat on every row of a venue, rendered once.
	var fixed []byte
	for _, v := range d.Venues {
		fixed = fixed[:0]
		for _, f := range []string{d.Symbol, v.Venue, v.VenueKind, v.Chain, d.Interval} {
			fixed = append(fixed, ',')
			fixed = appendCSVField(fixed, f)
		}
		for _, c := range v.Candles {
			b = c.Time.UTC().AppendFormat(b, time.RFC3339)
			b = append(b, fixed...)
			for _, f := range [...]float64{c.Open, c.High, c.Low, c.Close, c.Volume, c.VolumeUSD, c.BuyVolume,
				c.SellVolume, c.BuyVolumeUSD, c.SellVolumeUSD, c.BuyPressure, c.VWAP} {
				b = append(b, ',')
				if !math.IsNaN(f) && !math.IsInf(f, 0) {
					b = jsonw.AppendFloat(b, f)
				}
			}
			for _, n := range [...]int64{c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount} {
				b = append(b, ',')
				b = strconv.AppendInt(b, n, 10)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// appendCSVField appends one CSV field, quoted (with doubled quotes) by
// the rule of encoding/csv: when it holds a comma, a quote, CR or LF,
// starts with a space, or is exactly \. (a PostgreSQL end marker).
func appendCSVField(b []byte, f string) []byte {
	if !csvNeedsQuotes(f) {
		return append(b, f...)
	}
	b = append(b, '"')
	for i := 0; i < len(f); i++ {
		if f[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, f[i])
	}
	return append(b, '"')
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes with a comma separator.
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` {
		return true
	}
	if strings.ContainsAny(f, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
}

// formatFloat is a CSV number: the service's one number rule (package
// jsonw, docs/api.md "Numbers"), empty when not finite.
func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return string(jsonw.AppendFloat(nil, f))
}

// AppendJSON appends d as the JSON body of the datasets route:
// {"symbol","date","interval","requestedInterval","note","venues":[{"venue",
// "venueKind","chain","candles":[…]}],"source"}. Note is null when the
// interval is the one requested.
func AppendJSON(b []byte, d ExportDay) []byte {
	b = slices.Grow(b, d.candles()*jsonCandleBytes+512)
	b = append(b, `{"symbol":`...)
	b = jsonw.AppendString(b, d.Symbol)
	b = append(b, `,"date":`...)
	b = jsonw.AppendString(b, d.Date)
	b = append(b, `,"interval":`...)
	b = jsonw.AppendString(b, d.Interval)
	b = append(b, `,"requestedInterval":`...)
	b = jsonw.AppendString(b, d.RequestedInterval)
	b = append(b, `,"note":`...)
	if d.Note == "" {
		b = append(b, "null"...)
	} else {
		b = jsonw.AppendString(b, d.Note)
	}
	b = append(b, `,"venues":[`...)
	for i, v := range d.Venues {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"venue":`...)
		b = jsonw.AppendString(b, v.Venue)
		b = append(b, `,"venueKind":`...)
		b = jsonw.AppendString(b, v.VenueKind)
		b = append(b, `,"chain":`...)
		b = jsonw.AppendString(b, v.Chain)
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
// unknownSideCount. Numbers follow the service's one rule (package jsonw:
// shortest decimal that reads back, no exponent from 1e-6 to 1e21);
// non-finite ones are written as 0.
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
		b = jsonw.AppendFloat(b, f.v)
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
