package query

import (
	"strconv"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/schemas"
)

// parseWindowLimit validates window, then limit with default def.
func parseWindowLimit(c fiber.Ctx, def int) (string, int, *paramError) {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return "", 0, perr
	}
	limit, perr := parseLimit(c.Query("limit"), def, maxListLimit)
	if perr != nil {
		return "", 0, perr
	}
	return window, limit, nil
}

// serveRanking validates window and limit (default def), then answers with
// the documents of the market that r ranks first, in full.
func (s *Server) serveRanking(c fiber.Ctx, def int, r func(c fiber.Ctx) (ranking, *paramError)) error {
	window, limit, perr := parseWindowLimit(c, def)
	if perr != nil {
		return sendParamError(c, perr)
	}
	rk, perr := r(c)
	if perr != nil {
		return sendParamError(c, perr)
	}
	docs, _ := s.market(window).rank(rk, limit)
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		return appendDocuments(b, docs)
	})
}

// noParams is the ranking parameter parser of routes without further
// parameters.
func noParams(r ranking) func(fiber.Ctx) (ranking, *paramError) {
	return func(fiber.Ctx) (ranking, *paramError) { return r, nil }
}

// handleTopMomentum serves GET /api/v1/intelligence/top-momentum.
func (s *Server) handleTopMomentum(c fiber.Ctx) error {
	return s.serveRanking(c, defaultRankLimit, noParams(byMomentum()))
}

// handleTopActivity serves GET /api/v1/intelligence/top-activity.
func (s *Server) handleTopActivity(c fiber.Ctx) error {
	return s.serveRanking(c, defaultRankLimit, noParams(byActivity()))
}

// handleEvents serves GET /api/v1/intelligence/events.
func (s *Server) handleEvents(c fiber.Ctx) error {
	return s.serveRanking(c, defaultRankLimit, noParams(eventsRanking()))
}

// handleUnusual serves GET /api/v1/intelligence/unusual.
func (s *Server) handleUnusual(c fiber.Ctx) error {
	return s.serveRanking(c, defaultRankLimit, func(c fiber.Ctx) (ranking, *paramError) {
		minAnomaly, perr := parseNumber("minAnomaly", c.Query("minAnomaly"), defaultMinAnomaly, 0, 100)
		if perr != nil {
			return ranking{}, perr
		}
		minTrades, perr := parseCount("minTrades", c.Query("minTrades"), defaultMinTrades, maxMinTrades)
		if perr != nil {
			return ranking{}, perr
		}
		return unusualRanking(minAnomaly, minTrades), nil
	})
}

// handleBuying serves GET /api/v1/intelligence/buying.
func (s *Server) handleBuying(c fiber.Ctx) error {
	return s.serveRanking(c, defaultRankLimit, func(c fiber.Ctx) (ranking, *paramError) {
		v, perr := parseNumber("minBuyPressure", c.Query("minBuyPressure"), defaultMinBuyPressure, 0, 100)
		return buyingRanking(v), perr
	})
}

// handleSelling serves GET /api/v1/intelligence/selling: a summary of the
// symbols with the lowest buy pressure (SellingSummary in docs/api.md).
func (s *Server) handleSelling(c fiber.Ctx) error {
	window, limit, perr := parseWindowLimit(c, defaultRankLimit)
	if perr != nil {
		return sendParamError(c, perr)
	}
	maxBP, perr := parseNumber("maxBuyPressure", c.Query("maxBuyPressure"), defaultMaxBuyPressure, 0, 100)
	if perr != nil {
		return sendParamError(c, perr)
	}
	m := s.market(window)
	docs, total := m.rank(sellingRanking(maxBP), limit)
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = appendString(b, window)
		b = appendFloatField(b, "maxBuyPressure", maxBP)
		b = appendIntField(b, "symbolsCovered", int64(len(m.docs)))
		b = appendIntField(b, "sellingSymbols", int64(total))
		b = append(b, `,"results":[`...)
		for i, d := range docs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = appendString(b, d.Symbol)
			b = appendFloatField(b, "price", d.Price)
			b = appendFloatField(b, "priceChangePercent", d.PriceChangePercent)
			b = appendFloatField(b, "buyPressure", d.BuyPressure)
			b = appendFloatField(b, "volume", d.Volume)
			b = appendIntField(b, "tradeCount", d.TradeCount)
			b = append(b, `,"signal":`...)
			b = appendString(b, d.Signal)
			b = appendFloatField(b, "confidenceScore", d.ConfidenceScore)
			b = append(b, `,"eventType":`...)
			b = appendString(b, d.EventType)
			b = appendFloatField(b, "relativeBuyPressurePercentile", d.RelativeBuyPressurePercentile)
			b = append(b, '}')
		}
		b = append(b, `],"timestamp":`...)
		b = appendTime(b, m.now.UnixNano())
		return append(b, '}')
	})
}

// handleSummary serves GET /api/v1/intelligence/summary (MarketSummary,
// spec §2.4).
func (s *Server) handleSummary(c fiber.Ctx) error {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	m := s.market(window)
	return sendJSON(c, fiber.StatusOK, m.memo(memoSummary, func(b []byte) []byte {
		topMomentum, _ := m.rank(byMomentum(), marketListLen)
		topActivity, _ := m.rank(byActivity(), marketListLen)
		topBuying, _ := m.rank(buyingRanking(defaultMinBuyPressure), marketListLen)
		topSelling, _ := m.rank(sellingRanking(defaultMaxBuyPressure), marketListLen)
		events, _ := m.rank(eventsRanking(), marketListLen)
		n := len(m.docs)
		b = append(b, `{"window":`...)
		b = appendString(b, window)
		b = appendIntField(b, "symbolsCovered", int64(n))
		b = appendIntField(b, "bullishSymbols", int64(m.bullish))
		b = appendIntField(b, "bearishSymbols", int64(m.bearish))
		b = appendIntField(b, "neutralSymbols", int64(n-m.bullish-m.bearish))
		b = appendFloatField(b, "bullishBreadthPercent", m.bullishBreadth)
		b = appendFloatField(b, "bearishBreadthPercent", m.bearishBreadth)
		b = appendFloatField(b, "averageBuyPressure", m.avgBuyPressure)
		b = appendFloatField(b, "averagePriceChangePercent", m.avgPriceChange)
		b = appendIntField(b, "unusualActivitySymbols", int64(m.unusual))
		b = append(b, `,"regime":`...)
		b = appendString(b, m.regime)
		b = appendCompactList(b, "topMomentum", topMomentum)
		b = appendCompactList(b, "topActivity", topActivity)
		b = appendCompactList(b, "topBuying", topBuying)
		b = appendCompactList(b, "topSelling", topSelling)
		b = appendCompactList(b, "events", events)
		b = append(b, `,"dataFreshness":{"freshestMs":`...)
		b = strconv.AppendInt(b, m.freshestMs, 10)
		b = appendIntField(b, "oldestMs", m.oldestMs)
		b = append(b, '}')
		b = appendIntField(b, "staleSymbols", int64(m.stale))
		b = append(b, `,"source":`...)
		b = appendString(b, m.source)
		b = append(b, `,"timestamp":`...)
		b = appendTime(b, m.now.UnixNano())
		return append(b, '}')
	}))
}

// handleRegime serves GET /api/v1/intelligence/regime (MarketRegime, spec
// §2.5).
func (s *Server) handleRegime(c fiber.Ctx) error {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	m := s.market(window)
	return sendJSON(c, fiber.StatusOK, m.memo(memoRegime, func(b []byte) []byte {
		leaders, _ := m.rank(byMomentum(), marketListLen)
		active, _ := m.rank(byActivity(), marketListLen)
		b = append(b, `{"window":`...)
		b = appendString(b, window)
		b = append(b, `,"regime":`...)
		b = appendString(b, m.regime)
		b = appendIntField(b, "symbolsCovered", int64(len(m.docs)))
		b = appendFloatField(b, "bullishBreadthPercent", m.bullishBreadth)
		b = appendFloatField(b, "bearishBreadthPercent", m.bearishBreadth)
		b = appendFloatField(b, "averageBuyPressure", m.avgBuyPressure)
		b = appendFloatField(b, "averagePriceChangePercent", m.avgPriceChange)
		b = appendFloatField(b, "averageMomentumScore", m.avgMomentum)
		b = appendIntField(b, "highConfidenceSignals", int64(m.highConfidence))
		b = appendIntField(b, "unusualActivity", int64(m.unusual))
		b = appendCompactList(b, "topLeaders", leaders)
		b = appendCompactList(b, "topActivityConcentration", active)
		b = append(b, `,"timestamp":`...)
		b = appendTime(b, m.now.UnixNano())
		return append(b, '}')
	}))
}

// handleCompare serves GET /api/v1/intelligence/compare: one result per
// requested symbol, in request order; a symbol without a covered document
// is reported with status no_data.
func (s *Server) handleCompare(c fiber.Ctx) error {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	symbols, perr := parseSymbols(c.Query("symbols"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	m := s.market(window)
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = appendString(b, window)
		b = append(b, `,"results":[`...)
		for i, sym := range symbols {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = appendString(b, sym)
			if d, ok := m.get(sym); ok {
				b = append(b, `,"status":"ok","data":`...)
				b = AppendCompactDocument(b, d)
			} else {
				msg := "no " + window + " intelligence for " + sym
				if _, ok := s.d.Views.Get(sym, window); ok {
					msg = "no fresh " + window + " intelligence for " + sym + ": its last trade is older than " +
						staleAfter(window).String()
				}
				b = append(b, `,"status":"no_data","message":`...)
				b = appendString(b, msg)
			}
			b = append(b, '}')
		}
		return append(b, "]}"...)
	})
}

// handleSnapshot serves GET /api/v1/intelligence/snapshot/:symbol: the
// cheapest read of one symbol's latest document (Snapshot in docs/api.md).
// It reads the view directly: no market, no staleness rule.
func (s *Server) handleSnapshot(c fiber.Ctx) error {
	return s.serveSymbol(c, appendSnapshot)
}

// appendSnapshot renders the Snapshot body of d.
func appendSnapshot(b []byte, d *schemas.IntelligenceDocument) []byte {
	b = append(b, `{"symbol":`...)
	b = appendString(b, d.Symbol)
	b = append(b, `,"window":`...)
	b = appendString(b, d.Window)
	b = appendFloatField(b, "price", d.Price)
	b = appendFloatField(b, "priceChangePercent", d.PriceChangePercent)
	b = appendFloatField(b, "buyPressure", d.BuyPressure)
	b = append(b, `,"signal":`...)
	b = appendString(b, d.Signal)
	b = append(b, `,"signalStrength":`...)
	b = appendString(b, d.SignalStrength)
	b = appendFloatField(b, "confidenceScore", d.ConfidenceScore)
	b = append(b, `,"timestamp":`...)
	b = appendTime(b, d.TimestampNs)
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

// appendIntField appends `,"name":v`.
func appendIntField(b []byte, name string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}
