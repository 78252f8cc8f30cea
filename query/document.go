package query

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/marketintel/mi/schemas"
)

// AppendDocument appends the JSON of d to b and returns the extended slice.
// It is the one renderer of an IntelligenceDocument (spec §2.1): every field
// is always present, in spec order, with the spec's camelCase names.
// Numbers are the shortest decimal that reads back as the same float64 (no
// rounding); NaN and ±Inf, which JSON cannot carry, render as 0. Times are
// RFC 3339 UTC with milliseconds; signalChangedAt (and previousSignal) is
// null when unknown. observations and interpretation are always objects and
// evidence, venues and gaps always arrays. A nil d renders as null.
func AppendDocument(b []byte, d *schemas.IntelligenceDocument) []byte {
	return appendDocument(b, d, false)
}

// AppendCompactDocument appends the JSON of d as a
// CompactMarketIntelligence (spec §2.2): the document of AppendDocument,
// rendered the same way, without id, buyVolume, sellVolume, buySellRatio,
// averageTradeSize, tradeRatePerMinute, volumeRatePerMinute,
// priceChangePerMinute and timestamp. A nil d renders as null.
func AppendCompactDocument(b []byte, d *schemas.IntelligenceDocument) []byte {
	return appendDocument(b, d, true)
}

// appendDocument renders d in full, or compact (spec §2.2) when compact is
// set.
func appendDocument(b []byte, d *schemas.IntelligenceDocument, compact bool) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	if compact {
		b = append(b, `{"symbol":`...)
	} else {
		b = append(b, `{"id":`...)
		b = appendString(b, d.Id)
		b = append(b, `,"symbol":`...)
	}
	b = appendString(b, d.Symbol)
	b = append(b, `,"window":`...)
	b = appendString(b, d.Window)
	b = appendFloatField(b, "price", d.Price)
	b = appendFloatField(b, "volume", d.Volume)
	if !compact {
		b = appendFloatField(b, "buyVolume", d.BuyVolume)
		b = appendFloatField(b, "sellVolume", d.SellVolume)
	}
	b = appendFloatField(b, "buyPressure", d.BuyPressure)
	if !compact {
		b = appendFloatField(b, "buySellRatio", d.BuySellRatio)
	}
	b = appendFloatField(b, "buySellImbalance", d.BuySellImbalance)
	b = appendFloatField(b, "priceChangePercent", d.PriceChangePercent)
	b = appendFloatField(b, "volumeAcceleration", d.VolumeAcceleration)
	b = appendFloatField(b, "tradeAcceleration", d.TradeAcceleration)
	b = appendFloatField(b, "momentumScore", d.MomentumScore)
	b = appendFloatField(b, "activityScore", d.ActivityScore)
	b = appendFloatField(b, "anomalyScore", d.AnomalyScore)
	b = appendFloatField(b, "confidenceScore", d.ConfidenceScore)
	if !compact {
		b = appendFloatField(b, "averageTradeSize", d.AverageTradeSize)
		b = appendFloatField(b, "tradeRatePerMinute", d.TradeRatePerMinute)
		b = appendFloatField(b, "volumeRatePerMinute", d.VolumeRatePerMinute)
		b = appendFloatField(b, "priceChangePerMinute", d.PriceChangePerMinute)
	}
	b = append(b, `,"tradeCount":`...)
	b = strconv.AppendInt(b, d.TradeCount, 10)
	b = append(b, `,"largeTradeCount":`...)
	b = strconv.AppendInt(b, d.LargeTradeCount, 10)
	b = appendFloatField(b, "largeBuyVolume", d.LargeBuyVolume)
	b = appendFloatField(b, "largeSellVolume", d.LargeSellVolume)
	b = appendFloatField(b, "maxTradeSize", d.MaxTradeSize)
	b = appendFloatField(b, "maxTradeNotional", d.MaxTradeNotional)
	b = append(b, `,"dominantSide":`...)
	b = appendString(b, d.DominantSide)
	b = append(b, `,"signal":`...)
	b = appendString(b, d.Signal)
	b = append(b, `,"signalStrength":`...)
	b = appendString(b, d.SignalStrength)
	if !compact {
		b = append(b, `,"timestamp":`...)
		b = appendTime(b, d.TimestampNs)
	}
	b = append(b, `,"previousSignal":`...)
	if d.PreviousSignal == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, d.PreviousSignal)
	}
	b = append(b, `,"signalChangedAt":`...)
	b = appendTimeOrNull(b, d.SignalChangedAtNs)
	b = append(b, `,"signalAgeSeconds":`...)
	b = strconv.AppendInt(b, d.SignalAgeSeconds, 10)
	b = appendFloatField(b, "activityMultiple", d.ActivityMultiple)
	b = appendFloatField(b, "volumeMultiple", d.VolumeMultiple)
	b = appendFloatField(b, "activityZScore", d.ActivityZScore)
	b = appendFloatField(b, "volumeZScore", d.VolumeZScore)
	b = append(b, `,"baselineSamples":`...)
	b = strconv.AppendInt(b, d.BaselineSamples, 10)
	b = append(b, `,"baselineReady":`...)
	b = strconv.AppendBool(b, d.BaselineReady)
	b = appendFloatField(b, "marketPercentile", d.MarketPercentile)
	b = appendFloatField(b, "relativeMomentumPercentile", d.RelativeMomentumPercentile)
	b = appendFloatField(b, "relativeBuyPressurePercentile", d.RelativeBuyPressurePercentile)
	b = append(b, `,"eventType":`...)
	b = appendString(b, d.EventType)
	b = append(b, `,"lifecycleState":`...)
	b = appendString(b, d.LifecycleState)
	b = append(b, `,"observations":`...)
	b = appendObservations(b, d.Observations)
	b = append(b, `,"interpretation":`...)
	b = appendInterpretation(b, d.Interpretation)
	b = append(b, `,"evidence":`...)
	b = appendStrings(b, d.Evidence)
	return append(b, '}')
}

// appendObservations renders the observations block; a nil o renders with
// zero values so the shape never changes.
func appendObservations(b []byte, o *schemas.Observations) []byte {
	q := o.GetQuality()
	b = append(b, `{"quality":{"lateTrades":`...)
	b = strconv.AppendUint(b, q.GetLateTrades(), 10)
	b = append(b, `,"duplicateTrades":`...)
	b = strconv.AppendUint(b, q.GetDuplicateTrades(), 10)
	b = appendFloatField(b, "unknownSideShare", q.GetUnknownSideShare())
	b = append(b, `,"venues":`...)
	b = appendStrings(b, q.GetVenues())
	b = append(b, `,"venueCount":`...)
	b = strconv.AppendUint(b, uint64(q.GetVenueCount()), 10)
	b = append(b, `,"gaps":[`...)
	for i, g := range q.GetGaps() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = appendString(b, g.GetSource())
		b = append(b, `,"from":`...)
		b = appendTime(b, g.GetFromNs())
		b = append(b, `,"to":`...)
		b = appendTime(b, g.GetToNs())
		b = append(b, `,"reason":`...)
		b = appendString(b, g.GetReason())
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	b = appendFloatField(b, "windowSeconds", o.GetWindowSeconds())
	b = appendFloatField(b, "previousVolume", o.GetPreviousVolume())
	b = append(b, `,"previousTradeCount":`...)
	b = strconv.AppendUint(b, uint64(o.GetPreviousTradeCount()), 10)
	b = appendFloatField(b, "firstPrice", o.GetFirstPrice())
	b = appendFloatField(b, "largeTradeThresholdUsd", o.GetLargeTradeThresholdUsd())
	b = appendFloatField(b, "high", o.GetHigh())
	b = appendFloatField(b, "low", o.GetLow())
	b = appendFloatField(b, "vwap", o.GetVwap())
	b = appendFloatField(b, "baselineVolumeMedian", o.GetBaselineVolumeMedian())
	b = appendFloatField(b, "baselineTradeCountMedian", o.GetBaselineTradeCountMedian())
	return append(b, '}')
}

// appendInterpretation renders the interpretation block; a nil in renders
// with empty strings.
func appendInterpretation(b []byte, in *schemas.Interpretation) []byte {
	b = append(b, `{"momentum":`...)
	b = appendString(b, in.GetMomentum())
	b = append(b, `,"activity":`...)
	b = appendString(b, in.GetActivity())
	b = append(b, `,"buying":`...)
	b = appendString(b, in.GetBuying())
	b = append(b, `,"relativeStrength":`...)
	b = appendString(b, in.GetRelativeStrength())
	return append(b, '}')
}

// appendFloatField appends `,"name":v`.
func appendFloatField(b []byte, name string, v float64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendFloat(b, v)
}

// appendFloat appends v as a JSON number: the shortest decimal that reads
// back as v, in the notation encoding/json uses. NaN and ±Inf render as 0,
// and so does -0.
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return append(b, '0')
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// timeLayout is RFC 3339 with milliseconds; in UTC it ends in Z.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendTime appends the Unix-nanosecond time ns as a quoted RFC 3339 UTC
// string with milliseconds (truncated, not rounded).
func appendTime(b []byte, ns int64) []byte {
	b = append(b, '"')
	b = time.Unix(0, ns).UTC().AppendFormat(b, timeLayout)
	return append(b, '"')
}

// appendTimeOrNull is appendTime, with null for 0 (unknown).
func appendTimeOrNull(b []byte, ns int64) []byte {
	if ns == 0 {
		return append(b, "null"...)
	}
	return appendTime(b, ns)
}

// appendStrings appends ss as a JSON array of strings; nil renders as [].
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a quoted JSON string. Control characters,
// quotes and backslashes are escaped, and so are <, >, & and U+2028/U+2029
// (as encoding/json does, so a body is safe to embed in HTML or JavaScript);
// invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
