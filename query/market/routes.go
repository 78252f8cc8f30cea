// Package market serves the live market-intelligence routes (spec §4.1):
// the documents of one symbol, the lists and rankings, the summary, regime
// and comparison computed by the cross-symbol market step, the snapshot and
// the free delayed preview. It reads the views the pipeline materializes
// and renders every body with the one document renderer (document.go).
// docs/api.md describes the routes and the market rules.
package market

import (
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// Config is what the live routes read.
type Config struct {
	// Views holds the latest documents; nil means empty views (every
	// symbol answers 404).
	Views *views.Views
	// Liquidity answers the liquidity block of /api/v1/intelligence/{symbol}
	// from the on-chain pool states; nil answers the "none" block.
	Liquidity *views.Liquidity
	// Now is the clock for freshness and generation times; nil means
	// time.Now.
	Now func() time.Time
	// Candles gives the pre-trade check its candles; nil reads the live
	// candle view (the symbols it keeps, two hours).
	Candles CandleSource
	// News gives the pre-trade check the symbol's news of 24 hours; nil
	// makes that check UNKNOWN.
	News NewsSource
	// Positioning is the perp positioning view the opportunity scan reads
	// (crowded_positioning, and a confirming source of every objective);
	// nil: source perp_positioning unavailable.
	Positioning *views.Positioning
	// SmartMoney gives the opportunity scan the smart-money rankings
	// already computed; nil: source smart_money unavailable.
	SmartMoney SmartMoneySource
	// TrackRecord gives the opportunity scan the live 1h hit rates; nil:
	// signalTrackRecord1h is null.
	TrackRecord TrackRecordSource
}

// Routes are the live routes over one set of views, with the cached market
// step of every window.
type Routes struct {
	views     *views.Views
	liquidity *views.Liquidity
	now       func() time.Time
	candles   CandleSource
	news      NewsSource
	// The opportunity scan's other sources (opportunities.go).
	positioning *views.Positioning
	smartMoney  SmartMoneySource
	trackRecord TrackRecordSource
	markets     marketCache
	ops         []api.Operation // the operations, for the preview's links
}

// New returns the live routes of c.
func New(c Config) *Routes {
	if c.Views == nil {
		c.Views = views.New()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	rt := &Routes{views: c.Views, liquidity: c.Liquidity, now: c.Now, candles: c.Candles, news: c.News,
		positioning: c.Positioning, smartMoney: c.SmartMoney, trackRecord: c.TrackRecord}
	if rt.candles == nil {
		rt.candles = liveCandles{c.Views}
	}
	rt.ops = rt.Operations()
	return rt
}

// Prices of the live intelligence routes in micro-USD (spec §8).
const (
	priceIntelligenceList   = 10_000
	priceIntelligenceSymbol = 5_000
	priceSummary            = 10_000
	priceTopMomentum        = 5_000
	priceTopActivity        = 5_000
	priceUnusual            = 10_000
	priceEvents             = 10_000
	priceBuying             = 5_000
	priceSelling            = 5_000
	priceCompare            = 10_000
	priceRegime             = 5_000
	priceSnapshot           = 1_000
)

// Parameters of the live routes (spec §4.1, §8).
var (
	windowParam         = api.Window
	symbolPathParam     = api.SymbolPath
	compareSymbolsParam = api.Symbols{Required: true,
		Desc: "1 to 20 comma-separated symbols, case-insensitive; a repeated symbol is answered once."}
	minAnomalyParam = api.Number{Name: "minAnomaly", Desc: "Lowest anomaly score kept, 0 to 100.", Min: 0, Max: 100, Default: defaultMinAnomaly}
	minTradesParam  = api.Int{Name: "minTrades", Desc: "Fewest trades in the window kept.", Min: 0, Max: maxMinTrades, Default: defaultMinTrades}
	minBuyParam     = api.Number{Name: "minBuyPressure", Desc: "Lowest buy pressure kept (share of volume bought by takers, 0 to 100).",
		Min: 0, Max: 100, Default: defaultMinBuyPressure}
	maxBuyParam = api.Number{Name: "maxBuyPressure", Desc: "Highest buy pressure kept (share of volume bought by takers, 0 to 100).",
		Min: 0, Max: 100, Default: defaultMaxBuyPressure}
)

// limitParam is the limit of a list route, 1 to maxListLimit.
func limitParam(def int64) api.Int {
	return api.Int{Name: "limit", Desc: "How many documents to return, most relevant first.", Min: 1, Max: maxListLimit, Default: def}
}

// documentsTool is the MCP tool of a route answering intelligence
// documents: compact by default (docs/mcp.md).
func documentsTool(name, desc string) *api.Tool {
	return &api.Tool{Name: name, Description: desc, Compact: CompactJSON}
}

// noData is the 404 of the single-symbol routes.
var noData = api.JSON(fiber.StatusNotFound, "No document for the symbol and window (spec §7); not charged.", noDataErrorSchema)

// Operations are the live market-intelligence routes and the free preview.
func (rt *Routes) Operations() []api.Operation {
	listLimit, rankLimit := limitParam(defaultListLimit), limitParam(defaultRankLimit)
	rankingOp := func(id, path string, price int64, summary, answer string, tool *api.Tool, extra []api.Param, rk func(fiber.Ctx) ranking) api.Operation {
		return api.Operation{
			Method: fiber.MethodGet, Path: path, ID: id, Price: price, Summary: summary,
			Params: append([]api.Param{windowParam, rankLimit}, extra...),
			Responses: []api.Response{api.JSON(fiber.StatusOK, answer+" Covered (fresh) symbols only, percentiles set; [] without data.",
				schema.Array(documentSchema))},
			Tool: tool,
			Handler: func(c fiber.Ctx) error {
				return rt.serveRanking(c, windowParam.Get(c), int(rankLimit.Get(c)), rk(c))
			},
		}
	}
	fixed := func(r ranking) func(fiber.Ctx) ranking { return func(fiber.Ctx) ranking { return r } }
	return append([]api.Operation{
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence", ID: "listIntelligence", Price: priceIntelligenceList,
			Summary: "Latest intelligence documents of every covered symbol for a window, most active first.",
			Params:  []api.Param{windowParam, listLimit},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Documents of every covered symbol for the window, most active first; [] without data.",
				schema.Array(documentSchema))},
			Tool: documentsTool("get_market_intelligence", "Latest trade-flow intelligence for every covered symbol (price, volume, buy pressure, momentum, activity, anomaly, confidence, signal), most active first. Use for a broad market scan."),
			Handler: func(c fiber.Ctx) error {
				return rt.serveRanking(c, windowParam.Get(c), int(listLimit.Get(c)), byActivity())
			},
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/summary", ID: "getMarketSummary", Price: priceSummary,
			Summary:   "Market summary of a window: breadth, averages, regime, top lists and data freshness.",
			Params:    []api.Param{windowParam},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Market summary of the window.", marketSummaryNamed)},
			Tool:      documentsTool("get_market_summary", "One-call market overview for a window: breadth (bullish/bearish counts), average buy pressure and price change, regime, top movers, events and data freshness."),
			Handler:   rt.handleSummary,
		},
		rankingOp("listTopMomentum", "/api/v1/intelligence/top-momentum", priceTopMomentum,
			"Covered symbols with the highest momentum score.", "Highest momentum score first.",
			documentsTool("get_top_momentum", "Symbols with the strongest momentum score right now (0-100; above 65 is strong upward momentum)."),
			nil, fixed(byMomentum())),
		rankingOp("listTopActivity", "/api/v1/intelligence/top-activity", priceTopActivity,
			"Covered symbols with the most trades, then volume.", "Most trades first, then volume.",
			documentsTool("get_top_activity", "Symbols with the most trading activity (trade count, then volume) in the window."),
			nil, fixed(byActivity())),
		rankingOp("listUnusual", "/api/v1/intelligence/unusual", priceUnusual,
			"Covered symbols with an anomaly score of at least minAnomaly and at least minTrades trades.",
			"Documents with anomalyScore ≥ minAnomaly and tradeCount ≥ minTrades, highest anomaly first.",
			documentsTool("find_unusual_activity", "Symbols whose activity deviates from their own baseline: anomaly score at least minAnomaly (default 70) with at least minTrades trades (default 3)."),
			[]api.Param{minAnomalyParam, minTradesParam},
			func(c fiber.Ctx) ranking { return unusualRanking(minAnomalyParam.Get(c), minTradesParam.Get(c)) }),
		rankingOp("listEvents", "/api/v1/intelligence/events", priceEvents,
			"Covered symbols with a market event (eventType other than NORMAL).",
			"Documents whose eventType is not NORMAL, highest confidence first.",
			documentsTool("find_market_events", "Symbols where a market event is happening now: unusual activity, breakout, breakdown, accumulation, distribution or momentum (eventType other than NORMAL)."),
			nil, fixed(eventsRanking())),
		rankingOp("listBuying", "/api/v1/intelligence/buying", priceBuying,
			"Covered symbols with a buy pressure of at least minBuyPressure, highest first.",
			"Documents with buyPressure ≥ minBuyPressure, highest first.",
			documentsTool("find_strong_buying", "Symbols under aggressive buying: buy pressure (share of volume bought by takers, 0-100) at least minBuyPressure (default 60), highest first."),
			[]api.Param{minBuyParam}, func(c fiber.Ctx) ranking { return buyingRanking(minBuyParam.Get(c)) }),
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/selling", ID: "getSelling", Price: priceSelling,
			Summary:   "Summary of the covered symbols with a buy pressure of at most maxBuyPressure, lowest first.",
			Params:    []api.Param{windowParam, rankLimit, maxBuyParam},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Symbols with buyPressure ≤ maxBuyPressure, lowest first.", sellingSummaryNamed)},
			Tool:      documentsTool("find_strong_selling", "Summary of symbols under aggressive selling: buy pressure at most maxBuyPressure (default 40), lowest first."),
			Handler: func(c fiber.Ctx) error {
				return rt.serveSelling(c, windowParam.Get(c), int(rankLimit.Get(c)), maxBuyParam.Get(c))
			},
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/compare", ID: "compareIntelligence", Price: priceCompare,
			Summary:   "Compact intelligence of up to 20 symbols side by side.",
			Params:    []api.Param{windowParam, compareSymbolsParam},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "One result per symbol; unknown or stale symbols have status no_data.", comparisonNamed)},
			Tool:      documentsTool("compare_symbols", "Side-by-side compact intelligence for up to 20 symbols; unknown symbols are reported per symbol."),
			Handler:   rt.handleCompare,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/regime", ID: "getMarketRegime", Price: priceRegime,
			Summary:   "Market regime of a window (BULLISH, BEARISH, MIXED, NO_DATA) with breadth and leaders.",
			Params:    []api.Param{windowParam},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Market regime of the window.", marketRegimeNamed)},
			Tool:      documentsTool("get_market_regime", "Aggregated market regime (BULLISH, BEARISH, MIXED or NO_DATA) with breadth, averages, high-confidence signal count and leaders."),
			Handler:   rt.handleRegime,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/snapshot/:symbol", ID: "getSnapshot", Price: priceSnapshot,
			Summary: "Cheapest live read of one symbol: price, change, buy pressure, signal, confidence.",
			Params:  []api.Param{windowParam, symbolPathParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "Latest price, change, buy pressure, signal and confidence of the symbol.", snapshotNamed),
				noData,
			},
			NoTool:  "get_symbol_intelligence answers the same symbol in full; a cheaper duplicate would only make a model choose",
			Handler: rt.handleSnapshot,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/:symbol", ID: "getIntelligence", Price: priceIntelligenceSymbol,
			Summary: "Latest intelligence document of one symbol for a window.",
			Params:  []api.Param{windowParam, symbolPathParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The latest document of the symbol for the window, with the symbol detail extension (spec §2.3).", symbolDetailSchema),
				noData,
			},
			Tool:    documentsTool("get_symbol_intelligence", "Full intelligence for one symbol: flow, scores, signal with its age and lifecycle, baselines, percentiles, evidence sentences, on-chain liquidity and source freshness."),
			Handler: rt.handleIntelligenceSymbol,
		},
		rt.previewOperation(),
		rt.equitiesOperation(),
		rt.preTradeOperation(),
	}, rt.opportunityOperations()...)
}

// handleIntelligenceSymbol serves GET /api/v1/intelligence/:symbol?window=.
func (rt *Routes) handleIntelligenceSymbol(c fiber.Ctx) error {
	now := rt.now()
	return rt.serveSymbol(c, func(b []byte, d *schemas.IntelligenceDocument) []byte {
		if rt.liquidity == nil {
			return appendSymbolDetail(b, d, now)
		}
		r := rt.liquidity.Report(d.Symbol)
		return appendSymbolDetailLiquidity(b, d, now, &r)
	})
}

// serveSymbol looks up the symbol's latest document for the window and
// answers it rendered by render, or 404 with the no_data body of spec §7.
// A covered (fresh) symbol's document comes from the cached market step,
// with its percentiles and relative strength; a stale symbol's as the views
// hold it (percentiles 0, relative strength as the operators wrote it).
func (rt *Routes) serveSymbol(c fiber.Ctx, render func([]byte, *schemas.IntelligenceDocument) []byte) error {
	window, symbol := windowParam.Get(c), symbolPathParam.Get(c)
	d, ok := rt.views.Get(symbol, window)
	if !ok {
		covered := rt.views.Symbols()
		return api.SendRendered(c, fiber.StatusNotFound, func(b []byte) []byte {
			return appendNoDataBody(b, symbol, window, covered)
		})
	}
	// A covered symbol is served as the market has it: with its
	// percentiles and relative strength. A stale one as the views hold it.
	if md, covered := rt.market(window).get(symbol); covered {
		d = md
	}
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		return render(b, d)
	})
}

// appendDocuments appends docs as a JSON array; an empty list renders as [].
func appendDocuments(b []byte, docs []*schemas.IntelligenceDocument) []byte {
	b = append(b, '[')
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendDocument(b, d)
	}
	return append(b, ']')
}

// appendNoDataBody appends the 404 body of the single-symbol route (spec §7):
// {"error":"no_data","message":…,"symbol":…,"coveredSymbols":[…],"charged":false}.
func appendNoDataBody(b []byte, symbol, window string, covered []string) []byte {
	b = append(b, `{"error":"`+api.CodeNoData+`","message":`...)
	b = jsonw.AppendString(b, "no "+window+" intelligence for "+symbol+"; coveredSymbols lists the symbols with data")
	b = append(b, `,"symbol":`...)
	b = jsonw.AppendString(b, symbol)
	b = append(b, `,"coveredSymbols":`...)
	b = jsonw.AppendStrings(b, covered)
	return append(b, `,"charged":false}`...)
}
