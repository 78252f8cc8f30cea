package market

import (
	"strconv"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/schemas"
)

// serveRanking answers the documents of the market of window that r ranks
// first, at most limit, in full.
func (rt *Routes) serveRanking(c fiber.Ctx, window string, limit int, r ranking) error {
	docs, _ := rt.market(window).rank(r, limit)
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		return appendDocuments(b, docs)
	})
}

// serveSelling serves GET /api/v1/intelligence/selling: a summary of the
// symbols with the lowest buy pressure (SellingSummary in docs/api.md).
func (rt *Routes) serveSelling(c fiber.Ctx, window string, limit int, maxBP float64) error {
	m := rt.market(window)
	docs, total := m.rank(sellingRanking(maxBP), limit)
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = jsonw.AppendString(b, window)
		b = jsonw.AppendFloatField(b, "maxBuyPressure", maxBP)
		b = jsonw.AppendIntField(b, "symbolsCovered", int64(len(m.docs)))
		b = jsonw.AppendIntField(b, "sellingSymbols", int64(total))
		b = append(b, `,"results":[`...)
		for i, d := range docs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = jsonw.AppendString(b, d.Symbol)
			b = jsonw.AppendFloatField(b, "price", d.Price)
			b = jsonw.AppendFloatField(b, "priceChangePercent", d.PriceChangePercent)
			b = jsonw.AppendFloatField(b, "buyPressure", d.BuyPressure)
			b = jsonw.AppendFloatField(b, "volume", d.Volume)
			b = jsonw.AppendIntField(b, "tradeCount", d.TradeCount)
			b = append(b, `,"signal":`...)
			b = jsonw.AppendString(b, d.Signal)
			b = jsonw.AppendFloatField(b, "confidenceScore", d.ConfidenceScore)
			b = append(b, `,"eventType":`...)
			b = jsonw.AppendString(b, d.EventType)
			b = jsonw.AppendFloatField(b, "relativeBuyPressurePercentile", d.RelativeBuyPressurePercentile)
			b = append(b, '}')
		}
		b = append(b, `],"timestamp":`...)
		b = jsonw.AppendTime(b, m.now.UnixNano())
		return append(b, '}')
	})
}

// handleSummary serves GET /api/v1/intelligence/summary (MarketSummary,
// spec §2.4).
func (rt *Routes) handleSummary(c fiber.Ctx) error {
	window := windowParam.Get(c)
	m := rt.market(window)
	return api.SendJSON(c, fiber.StatusOK, m.memo(memoSummary, func(b []byte) []byte {
		topMomentum, _ := m.rank(byMomentum(), marketListLen)
		topActivity, _ := m.rank(byActivity(), marketListLen)
		topBuying, _ := m.rank(buyingRanking(defaultMinBuyPressure), marketListLen)
		topSelling, _ := m.rank(sellingRanking(defaultMaxBuyPressure), marketListLen)
		events, _ := m.rank(eventsRanking(), marketListLen)
		n := len(m.docs)
		b = append(b, `{"window":`...)
		b = jsonw.AppendString(b, window)
		b = jsonw.AppendIntField(b, "symbolsCovered", int64(n))
		b = jsonw.AppendIntField(b, "bullishSymbols", int64(m.bullish))
		b = jsonw.AppendIntField(b, "bearishSymbols", int64(m.bearish))
		b = jsonw.AppendIntField(b, "neutralSymbols", int64(n-m.bullish-m.bearish))
		b = jsonw.AppendFloatField(b, "bullishBreadthPercent", m.bullishBreadth)
		b = jsonw.AppendFloatField(b, "bearishBreadthPercent", m.bearishBreadth)
		b = jsonw.AppendFloatField(b, "averageBuyPressure", m.avgBuyPressure)
		b = jsonw.AppendFloatField(b, "averagePriceChangePercent", m.avgPriceChange)
		b = jsonw.AppendIntField(b, "unusualActivitySymbols", int64(m.unusual))
		b = append(b, `,"regime":`...)
		b = jsonw.AppendString(b, m.regime)
		b = appendCompactList(b, "topMomentum", topMomentum)
		b = appendCompactList(b, "topActivity", topActivity)
		b = appendCompactList(b, "topBuying", topBuying)
		b = appendCompactList(b, "topSelling", topSelling)
		b = appendCompactList(b, "events", events)
		b = append(b, `,"dataFreshness":{"freshestMs":`...)
		b = strconv.AppendInt(b, m.freshestMs, 10)
		b = jsonw.AppendIntField(b, "oldestMs", m.oldestMs)
		b = append(b, '}')
		b = jsonw.AppendIntField(b, "staleSymbols", int64(m.stale))
		b = append(b, `,"source":`...)
		b = jsonw.AppendString(b, m.source)
		b = append(b, `,"timestamp":`...)
		b = jsonw.AppendTime(b, m.now.UnixNano())
		return append(b, '}')
	}))
}

// handleRegime serves GET /api/v1/intelligence/regime (MarketRegime, spec
// §2.5).
func (rt *Routes) handleRegime(c fiber.Ctx) error {
	window := windowParam.Get(c)
	m := rt.market(window)
	return api.SendJSON(c, fiber.StatusOK, m.memo(memoRegime, func(b []byte) []byte {
		leaders, _ := m.rank(byMomentum(), marketListLen)
		active, _ := m.rank(byActivity(), marketListLen)
		b = append(b, `{"window":`...)
		b = jsonw.AppendString(b, window)
		b = append(b, `,"regime":`...)
		b = jsonw.AppendString(b, m.regime)
		b = jsonw.AppendIntField(b, "symbolsCovered", int64(len(m.docs)))
		b = jsonw.AppendFloatField(b, "bullishBreadthPercent", m.bullishBreadth)
		b = jsonw.AppendFloatField(b, "bearishBreadthPercent", m.bearishBreadth)
		b = jsonw.AppendFloatField(b, "averageBuyPressure", m.avgBuyPressure)
		b = jsonw.AppendFloatField(b, "averagePriceChangePercent", m.avgPriceChange)
		b = jsonw.AppendFloatField(b, "averageMomentumScore", m.avgMomentum)
		b = jsonw.AppendIntField(b, "highConfidenceSignals", int64(m.highConfidence))
		b = jsonw.AppendIntField(b, "unusualActivity", int64(m.unusual))
		b = appendCompactList(b, "topLeaders", leaders)
		b = appendCompactList(b, "topActivityConcentration", active)
		b = append(b, `,"timestamp":`...)
		b = jsonw.AppendTime(b, m.now.UnixNano())
		return append(b, '}')
	}))
}

// handleCompare serves GET /api/v1/intelligence/compare: one result per
// requested symbol, in request order; a symbol without a covered document
// is reported with status no_data.
func (rt *Routes) handleCompare(c fiber.Ctx) error {
	window, symbols := windowParam.Get(c), compareSymbolsParam.Get(c)
	m := rt.market(window)
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = jsonw.AppendString(b, window)
		b = append(b, `,"results":[`...)
		for i, sym := range symbols {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = jsonw.AppendString(b, sym)
			if d, ok := m.get(sym); ok {
				b = append(b, `,"status":"ok","data":`...)
				b = AppendCompactDocument(b, d)
			} else {
				msg := "no " + window + " intelligence for " + sym
				if _, ok := rt.views.Get(sym, window); ok {
					msg = "no fresh " + window + " intelligence for " + sym + ": its last trade is older than " +
						staleAfter(window).String()
				}
				b = append(b, `,"status":"no_data","message":`...)
				b = jsonw.AppendString(b, msg)
			}
			b = append(b, '}')
		}
		return append(b, "]}"...)
	})
}

// handleSnapshot serves GET /api/v1/intelligence/snapshot/:symbol: the
// cheapest read of one symbol's latest document (Snapshot in docs/api.md).
func (rt *Routes) handleSnapshot(c fiber.Ctx) error {
	return rt.serveSymbol(c, appendSnapshot)
}

// appendSnapshot renders the Snapshot body of d.
func appendSnapshot(b []byte, d *schemas.IntelligenceDocument) []byte {
	b = append(b, `{"symbol":`...)
	b = jsonw.AppendString(b, d.Symbol)
	b = append(b, `,"window":`...)
	b = jsonw.AppendString(b, d.Window)
	b = jsonw.AppendFloatField(b, "price", d.Price)
	b = jsonw.AppendFloatField(b, "priceChangePercent", d.PriceChangePercent)
	b = jsonw.AppendFloatField(b, "buyPressure", d.BuyPressure)
	b = append(b, `,"signal":`...)
	b = jsonw.AppendString(b, d.Signal)
	b = append(b, `,"signalStrength":`...)
	b = jsonw.AppendString(b, d.SignalStrength)
	b = jsonw.AppendFloatField(b, "confidenceScore", d.ConfidenceScore)
	b = append(b, `,"timestamp":`...)
	b = jsonw.AppendTime(b, d.TimestampNs)
	return append(b, '}')
}

// appendCompactList appends `,"name":[…]` with docs as compact documents.
func appendCompactList(b []byte, name string, docs []*schemas.IntelligenceDocument) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendCompactDocument(b, d)
	}
	return append(b, ']')
}
