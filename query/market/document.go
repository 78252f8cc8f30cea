package market

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/marketintel/mi/internal/jsonw"
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
		b = jsonw.AppendString(b, d.Id)
		b = append(b, `,"symbol":`...)
	}
	b = jsonw.AppendString(b, d.Symbol)
	b = append(b, `,"window":`...)
	b = jsonw.AppendString(b, d.Window)
	b = jsonw.AppendFloatField(b, "price", d.Price)
	b = jsonw.AppendFloatField(b, "volume", d.Volume)
	if !compact {
		b = jsonw.AppendFloatField(b, "buyVolume", d.BuyVolume)
		b = jsonw.AppendFloatField(b, "sellVolume", d.SellVolume)
	}
	b = jsonw.AppendFloatField(b, "buyPressure", d.BuyPressure)
	if !compact {
		b = jsonw.AppendFloatField(b, "buySellRatio", d.BuySellRatio)
	}
	b = jsonw.AppendFloatField(b, "buySellImbalance", d.BuySellImbalance)
	b = jsonw.AppendFloatField(b, "priceChangePercent", d.PriceChangePercent)
	b = jsonw.AppendFloatField(b, "volumeAcceleration", d.VolumeAcceleration)
	b = jsonw.AppendFloatField(b, "tradeAcceleration", d.TradeAcceleration)
	b = jsonw.AppendFloatField(b, "momentumScore", d.MomentumScore)
	b = jsonw.AppendFloatField(b, "activityScore", d.ActivityScore)
	b = jsonw.AppendFloatField(b, "anomalyScore", d.AnomalyScore)
	b = jsonw.AppendFloatField(b, "confidenceScore", d.ConfidenceScore)
	if !compact {
		b = jsonw.AppendFloatField(b, "averageTradeSize", d.AverageTradeSize)
		b = jsonw.AppendFloatField(b, "tradeRatePerMinute", d.TradeRatePerMinute)
		b = jsonw.AppendFloatField(b, "volumeRatePerMinute", d.VolumeRatePerMinute)
		b = jsonw.AppendFloatField(b, "priceChangePerMinute", d.PriceChangePerMinute)
	}
	b = append(b, `,"tradeCount":`...)
	b = strconv.AppendInt(b, d.TradeCount, 10)
	b = append(b, `,"largeTradeCount":`...)
	b = strconv.AppendInt(b, d.LargeTradeCount, 10)
	b = jsonw.AppendFloatField(b, "largeBuyVolume", d.LargeBuyVolume)
	b = jsonw.AppendFloatField(b, "largeSellVolume", d.LargeSellVolume)
	b = jsonw.AppendFloatField(b, "maxTradeSize", d.MaxTradeSize)
	b = jsonw.AppendFloatField(b, "maxTradeNotional", d.MaxTradeNotional)
	b = append(b, `,"dominantSide":`...)
	b = jsonw.AppendString(b, d.DominantSide)
	b = append(b, `,"signal":`...)
	b = jsonw.AppendString(b, d.Signal)
	b = append(b, `,"signalStrength":`...)
	b = jsonw.AppendString(b, d.SignalStrength)
	if !compact {
		b = append(b, `,"timestamp":`...)
		b = jsonw.AppendTime(b, d.TimestampNs)
	}
	b = append(b, `,"previousSignal":`...)
	if d.PreviousSignal == "" {
		b = append(b, "null"...)
	} else {
		b = jsonw.AppendString(b, d.PreviousSignal)
	}
	b = append(b, `,"signalChangedAt":`...)
	b = jsonw.AppendTimeOrNull(b, d.SignalChangedAtNs)
	b = append(b, `,"signalAgeSeconds":`...)
	b = strconv.AppendInt(b, d.SignalAgeSeconds, 10)
	b = jsonw.AppendFloatField(b, "activityMultiple", d.ActivityMultiple)
	b = jsonw.AppendFloatField(b, "volumeMultiple", d.VolumeMultiple)
	b = jsonw.AppendFloatField(b, "activityZScore", d.ActivityZScore)
	b = jsonw.AppendFloatField(b, "volumeZScore", d.VolumeZScore)
	b = append(b, `,"baselineSamples":`...)
	b = strconv.AppendInt(b, d.BaselineSamples, 10)
	b = append(b, `,"baselineReady":`...)
	b = strconv.AppendBool(b, d.BaselineReady)
	b = jsonw.AppendFloatField(b, "marketPercentile", d.MarketPercentile)
	b = jsonw.AppendFloatField(b, "relativeMomentumPercentile", d.RelativeMomentumPercentile)
	b = jsonw.AppendFloatField(b, "relativeBuyPressurePercentile", d.RelativeBuyPressurePercentile)
	b = append(b, `,"eventType":`...)
	b = jsonw.AppendString(b, d.EventType)
	b = append(b, `,"lifecycleState":`...)
	b = jsonw.AppendString(b, d.LifecycleState)
	b = append(b, `,"observations":`...)
	b = appendObservations(b, d.Observations)
	b = append(b, `,"interpretation":`...)
	b = appendInterpretation(b, d.Interpretation)
	b = append(b, `,"evidence":`...)
	b = jsonw.AppendStrings(b, d.Evidence)
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
	b = jsonw.AppendFloatField(b, "unknownSideShare", q.GetUnknownSideShare())
	b = append(b, `,"venues":`...)
	b = jsonw.AppendStrings(b, q.GetVenues())
	b = append(b, `,"venueCount":`...)
	b = strconv.AppendUint(b, uint64(q.GetVenueCount()), 10)
	b = append(b, `,"gaps":[`...)
	for i, g := range q.GetGaps() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = jsonw.AppendString(b, g.GetSource())
		b = append(b, `,"from":`...)
		b = jsonw.AppendTime(b, g.GetFromNs())
		b = append(b, `,"to":`...)
		b = jsonw.AppendTime(b, g.GetToNs())
		b = append(b, `,"reason":`...)
		b = jsonw.AppendString(b, g.GetReason())
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	b = jsonw.AppendFloatField(b, "windowSeconds", o.GetWindowSeconds())
	b = jsonw.AppendFloatField(b, "previousVolume", o.GetPreviousVolume())
	b = append(b, `,"previousTradeCount":`...)
	b = strconv.AppendUint(b, uint64(o.GetPreviousTradeCount()), 10)
	b = jsonw.AppendFloatField(b, "firstPrice", o.GetFirstPrice())
	b = jsonw.AppendFloatField(b, "largeTradeThresholdUsd", o.GetLargeTradeThresholdUsd())
	b = jsonw.AppendFloatField(b, "high", o.GetHigh())
	b = jsonw.AppendFloatField(b, "low", o.GetLow())
	b = jsonw.AppendFloatField(b, "vwap", o.GetVwap())
	b = jsonw.AppendFloatField(b, "baselineVolumeMedian", o.GetBaselineVolumeMedian())
	b = jsonw.AppendFloatField(b, "baselineTradeCountMedian", o.GetBaselineTradeCountMedian())
	return append(b, '}')
}

// appendInterpretation renders the interpretation block; a nil in renders
// with empty strings.
func appendInterpretation(b []byte, in *schemas.Interpretation) []byte {
	b = append(b, `{"momentum":`...)
	b = jsonw.AppendString(b, in.GetMomentum())
	b = append(b, `,"activity":`...)
	b = jsonw.AppendString(b, in.GetActivity())
	b = append(b, `,"buying":`...)
	b = jsonw.AppendString(b, in.GetBuying())
	b = append(b, `,"relativeStrength":`...)
	b = jsonw.AppendString(b, in.GetRelativeStrength())
	return append(b, '}')
}

// CompactJSON drops the fields a CompactMarketIntelligence omits (spec §2.2)
// from every intelligence document in body, at any depth. A body that is not
// JSON is returned as is.
func CompactJSON(body []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return body
	}
	v = compactValue(v)
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

func compactValue(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = compactValue(x[i])
		}
	case map[string]any:
		// An intelligence document has a signal and a momentumScore.
		_, sig := x["signal"]
		_, mom := x["momentumScore"]
		for k, e := range x {
			if sig && mom && slices.Contains(compactOmitted, k) {
				delete(x, k)
				continue
			}
			x[k] = compactValue(e)
		}
	}
	return v
}
