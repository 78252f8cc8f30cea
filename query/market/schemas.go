package market

import (
	"slices"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
)

// The bodies of the live intelligence routes (docs/api.md), field by field.
var (
	documentSchema        = schema.Named{Name: "IntelligenceDocument", Schema: schema.Object("Spec §2.1; every field is always present, in this order.", documentProps(false))}
	symbolDetailSchema    = schema.Named{Name: "SymbolDetail", Schema: schema.Object("IntelligenceDocument plus the symbol detail extension (spec §2.3).", symbolDetailProps())}
	compactDocumentSchema = schema.Named{Name: "CompactIntelligenceDocument", Schema: schema.Object("CompactMarketIntelligence (spec §2.2): IntelligenceDocument without id, buyVolume, sellVolume, "+
		"buySellRatio, averageTradeSize, tradeRatePerMinute, volumeRatePerMinute, priceChangePerMinute and timestamp.", documentProps(true))}
	marketSummaryNamed  = schema.Named{Name: "MarketSummary", Schema: marketSummarySchema()}
	marketRegimeNamed   = schema.Named{Name: "MarketRegime", Schema: marketRegimeSchema()}
	sellingSummaryNamed = schema.Named{Name: "SellingSummary", Schema: sellingSummarySchema()}
	comparisonNamed     = schema.Named{Name: "Comparison", Schema: comparisonSchema()}
	snapshotNamed       = schema.Named{Name: "Snapshot", Schema: snapshotSchema()}
	observationsSchema  = schema.Named{Name: "Observations", Schema: schema.OpenObject("Machine-readable measurements (spec §2.1: free-form object; these fields are always present).", schema.Obj{
		{"quality", qualitySchema},
		{"windowSeconds", schema.Described(schema.Number, "Effective span covered by the window.")},
		{"previousVolume", schema.Described(schema.Number, "USD volume of the previous comparable window.")},
		{"previousTradeCount", schema.Described(schema.Count, "Trades of the previous comparable window.")},
		{"firstPrice", schema.Described(schema.Number, "First price in the window.")},
		{"largeTradeThresholdUsd", schema.Described(schema.Number, "Notional from which a trade counts as large.")},
		{"high", schema.Described(schema.Number, "Highest price in the window.")},
		{"low", schema.Described(schema.Number, "Lowest price in the window.")},
		{"vwap", schema.Described(schema.Number, "Volume-weighted average price in the window.")},
		{"baselineVolumeMedian", schema.Described(schema.Number, "Median USD volume of the rolling baseline.")},
		{"baselineTradeCountMedian", schema.Described(schema.Number, "Median trade count of the rolling baseline.")},
	})}
	qualitySchema = schema.Named{Name: "Quality", Schema: schema.Object("Data quality of the window.", schema.Obj{
		{"lateTrades", schema.Described(schema.Count, "Trades rejected as late, counted in the window.")},
		{"duplicateTrades", schema.Described(schema.Count, "Trades dropped as duplicates, counted in the window.")},
		{"unknownSideShare", schema.Described(schema.Obj{{"type", "number"}, {"minimum", 0}, {"maximum", 1}},
			"Share of window volume whose aggressor side is unknown.")},
		{"venues", schema.Described(schema.Array(schema.String), "Venues contributing to the window, sorted.")},
		{"venueCount", schema.Described(schema.Count, "Number of venues.")},
		{"gaps", schema.Described(schema.Obj{{"type", "array"}, {"items", gapSchema}, {"maxItems", 16}},
			"Known source gaps overlapping the window, sorted by from, to, source, reason; at most 16, the latest by end time.")},
	})}
	gapSchema = schema.Named{Name: "Gap", Schema: schema.Object("A stretch of the symbol's trades a source could not deliver and cannot backfill.", schema.Obj{
		{"source", schema.Described(schema.String, "Name of the source, e.g. binance:binance.")},
		{"from", schema.Described(schema.DateTime, "Start of the gap (inclusive).")},
		{"to", schema.Described(schema.DateTime, "End of the gap (inclusive).")},
		{"reason", schema.Described(schema.String, "A stable phrase first (disconnected, missed trades), then details.")},
	})}
	interpretationSchema = schema.Named{Name: "Interpretation", Schema: schema.OpenObject("Machine-readable interpretation (spec §2.1: free-form object; these fields are always present).", schema.Obj{
		{"momentum", schema.String},
		{"activity", schema.String},
		{"buying", schema.String},
		{"relativeStrength", schema.String},
	})}
	noDataErrorSchema = schema.Named{Name: "NoDataError", Schema: schema.Object("404 of the single-symbol route (spec §7).", schema.Obj{
		{"error", schema.Const(api.CodeNoData)},
		{"message", schema.String},
		{"symbol", schema.Described(schema.String, "The requested symbol, upper case.")},
		{"coveredSymbols", schema.Described(schema.Array(schema.String), "Symbols with data; never null.")},
		{"charged", schema.Const(false)},
	})}
)

// compactOmitted are the fields of an IntelligenceDocument a
// CompactMarketIntelligence leaves out (spec §2.2).
var compactOmitted = []string{"id", "buyVolume", "sellVolume", "buySellRatio", "averageTradeSize",
	"tradeRatePerMinute", "volumeRatePerMinute", "priceChangePerMinute", "timestamp"}

// documentProps returns the properties of an IntelligenceDocument in
// render order, without the fields of compactOmitted when compact is set.
func documentProps(compact bool) schema.Obj {
	all := schema.Obj{
		{"id", schema.Described(schema.String, "Stable document identifier.")},
		{"symbol", schema.Described(schema.String, "Normalized crypto or US equity symbol.")},
		{"window", schema.Described(schema.Enum(schemas.Windows...), "Analysis window.")},
		{"price", schema.Described(schema.Number, "Latest observed trade price, USD per base unit.")},
		{"volume", schema.Described(schema.Number, "Total traded volume in the window, USD notional.")},
		{"buyVolume", schema.Described(schema.Number, "Volume classified as buy side, USD notional.")},
		{"sellVolume", schema.Described(schema.Number, "Volume classified as sell side, USD notional.")},
		{"buyPressure", schema.Described(schema.Percent(), "Percentage 0 to 100.")},
		{"buySellRatio", schema.Described(schema.Number, "Buy volume divided by sell volume.")},
		{"buySellImbalance", schema.Described(schema.Number, "Buy minus sell as a percentage of total volume.")},
		{"priceChangePercent", schema.Described(schema.Number, "Price change over the window, percent.")},
		{"volumeAcceleration", schema.Described(schema.Number, "Volume relative to the previous comparable window.")},
		{"tradeAcceleration", schema.Described(schema.Number, "Trade count relative to the previous comparable window.")},
		{"momentumScore", schema.Described(schema.Number, "Derived momentum score.")},
		{"activityScore", schema.Described(schema.Number, "Derived relative activity score.")},
		{"anomalyScore", schema.Described(schema.Number, "Derived from baseline deviations and activity/volume multiples.")},
		{"confidenceScore", schema.Described(schema.Number, "Derived from trade count and number of baseline samples.")},
		{"averageTradeSize", schema.Described(schema.Number, "USD notional per trade.")},
		{"tradeRatePerMinute", schema.Described(schema.Number, "Trades per minute.")},
		{"volumeRatePerMinute", schema.Described(schema.Number, "USD volume per minute.")},
		{"priceChangePerMinute", schema.Described(schema.Number, "Price change percent per minute.")},
		{"tradeCount", schema.Described(schema.Count, "Trades in the window.")},
		{"largeTradeCount", schema.Described(schema.Count, "Detected large trades.")},
		{"largeBuyVolume", schema.Described(schema.Number, "Volume of large buy trades, USD notional.")},
		{"largeSellVolume", schema.Described(schema.Number, "Volume of large sell trades, USD notional.")},
		{"maxTradeSize", schema.Described(schema.Number, "Largest single trade size, base units.")},
		{"maxTradeNotional", schema.Described(schema.Number, "Largest single trade notional, USD.")},
		{"dominantSide", schema.Described(schema.Enum("BUY", "SELL", "BALANCED"), "Dominant trade-flow side.")},
		{"signal", schema.Described(schema.Enum(signalValues...), "Derived market signal (docs/signals.md).")},
		{"signalStrength", schema.Described(schema.Enum("LOW", "MEDIUM", "HIGH"), "Strength of the signal.")},
		{"timestamp", schema.Described(schema.DateTime, "Time of the observation.")},
		{"previousSignal", schema.Obj{{"description", "Previous signal; null when there was no earlier signal."},
			{"type", []string{"string", "null"}}}},
		{"signalChangedAt", schema.Obj{{"description", "When the current signal began; null when unknown."},
			{"type", []string{"string", "null"}}, {"format", "date-time"}}},
		{"signalAgeSeconds", schema.Described(schema.Integer, "Age of the current signal in seconds.")},
		{"activityMultiple", schema.Described(schema.Number, "Activity relative to baseline.")},
		{"volumeMultiple", schema.Described(schema.Number, "Volume relative to baseline.")},
		{"activityZScore", schema.Described(schema.Number, "Activity deviation in standard deviations.")},
		{"volumeZScore", schema.Described(schema.Number, "Volume deviation in standard deviations.")},
		{"baselineSamples", schema.Described(schema.Count, "Number of baseline samples.")},
		{"baselineReady", schema.Described(schema.Bool, "Baseline has reached its minimum sample threshold.")},
		{"marketPercentile", schema.Described(schema.Percent(), "Percentile rank of activity among covered symbols.")},
		{"relativeMomentumPercentile", schema.Described(schema.Percent(), "Percentile rank of momentum among covered symbols.")},
		{"relativeBuyPressurePercentile", schema.Described(schema.Percent(), "Percentile rank of buy pressure among covered symbols.")},
		{"eventType", schema.Described(schema.Enum(eventTypeValues...), "Derived market event type (docs/signals.md).")},
		{"lifecycleState", schema.Described(schema.Enum("NEW_SIGNAL", "PERSISTING"), "Signal lifecycle state.")},
		{"observations", observationsSchema},
		{"interpretation", interpretationSchema},
		{"evidence", schema.Described(schema.Array(schema.String), "Human-readable supporting evidence; never null.")},
	}
	if !compact {
		return all
	}
	out := schema.Obj{}
	for _, p := range all {
		if !slices.Contains(compactOmitted, p.K) {
			out = append(out, p)
		}
	}
	return out
}

// Enumerations of docs/signals.md and spec §2.5.
var (
	signalValues    = []string{signalBullish, signalBearish, signalNeutral}
	eventTypeValues = []string{"BREAKOUT", "BREAKDOWN", "DISTRIBUTION", "ACCUMULATION", "UNUSUAL_ACTIVITY", "MOMENTUM", eventNormal}
	regimeValues    = []string{regimeBullish, regimeBearish, regimeMixed, regimeNoData}
)

func compactList(desc string) schema.Obj {
	return schema.Described(schema.Array(compactDocumentSchema), desc)
}

// marketSummarySchema is the body of GET /api/v1/intelligence/summary.
func marketSummarySchema() schema.Obj {
	return schema.Object("MarketSummary (spec §2.4) of the covered (fresh) symbols of a window.", schema.Obj{
		{"window", schema.Described(schema.Enum(schemas.Windows...), "Normalized window.")},
		{"symbolsCovered", schema.Described(schema.Count, "Fresh symbols of the window.")},
		{"bullishSymbols", schema.Described(schema.Count, "Covered symbols whose signal is BULLISH.")},
		{"bearishSymbols", schema.Described(schema.Count, "Covered symbols whose signal is BEARISH.")},
		{"neutralSymbols", schema.Described(schema.Count, "Covered symbols neither bullish nor bearish.")},
		{"bullishBreadthPercent", schema.Described(schema.Percent(), "100 × bullishSymbols / symbolsCovered; 0 without symbols.")},
		{"bearishBreadthPercent", schema.Described(schema.Percent(), "100 × bearishSymbols / symbolsCovered; 0 without symbols.")},
		{"averageBuyPressure", schema.Described(schema.Number, "Average buy pressure of the covered symbols.")},
		{"averagePriceChangePercent", schema.Described(schema.Number, "Average price change percent of the covered symbols.")},
		{"unusualActivitySymbols", schema.Described(schema.Count, "Covered symbols with an anomaly score of at least 70.")},
		{"regime", schema.Described(schema.Enum(regimeValues...), "Aggregated regime (docs/api.md, Market rules).")},
		{"topMomentum", compactList("Up to 5 symbols with the highest momentum score.")},
		{"topActivity", compactList("Up to 5 most active symbols.")},
		{"topBuying", compactList("Up to 5 symbols with buy pressure at least 60, highest first.")},
		{"topSelling", compactList("Up to 5 symbols with buy pressure at most 40, lowest first.")},
		{"events", compactList("Up to 5 symbols with an eventType other than NORMAL.")},
		{"dataFreshness", schema.Object("Ages (now − last trade) in ms of the covered symbols; 0 without symbols.", schema.Obj{
			{"freshestMs", schema.Count}, {"oldestMs", schema.Count}})},
		{"staleSymbols", schema.Described(schema.Count, "Symbols of the window left out as stale.")},
		{"source", schema.Described(schema.String, "Venues seen in the covered documents, sorted and comma-separated; mi-pipeline without venues.")},
		{"timestamp", schema.Described(schema.DateTime, "Generation time.")},
	})
}

// marketRegimeSchema is the body of GET /api/v1/intelligence/regime.
func marketRegimeSchema() schema.Obj {
	return schema.Object("MarketRegime (spec §2.5) of the covered (fresh) symbols of a window.", schema.Obj{
		{"window", schema.Described(schema.Enum(schemas.Windows...), "Normalized window.")},
		{"regime", schema.Described(schema.Enum(regimeValues...), "Aggregated regime (docs/api.md, Market rules).")},
		{"symbolsCovered", schema.Described(schema.Count, "Fresh symbols of the window.")},
		{"bullishBreadthPercent", schema.Described(schema.Percent(), "Share of covered symbols whose signal is BULLISH.")},
		{"bearishBreadthPercent", schema.Described(schema.Percent(), "Share of covered symbols whose signal is BEARISH.")},
		{"averageBuyPressure", schema.Number},
		{"averagePriceChangePercent", schema.Number},
		{"averageMomentumScore", schema.Number},
		{"highConfidenceSignals", schema.Described(schema.Count, "BULLISH or BEARISH signals with a confidence score of at least 75.")},
		{"unusualActivity", schema.Described(schema.Count, "Covered symbols with an anomaly score of at least 70.")},
		{"topLeaders", compactList("Up to 5 symbols with the highest momentum score.")},
		{"topActivityConcentration", compactList("Up to 5 most active symbols.")},
		{"timestamp", schema.Described(schema.DateTime, "Generation time.")},
	})
}

// sellingSummarySchema is the body of GET /api/v1/intelligence/selling.
func sellingSummarySchema() schema.Obj {
	return schema.Object("Summary of the covered symbols under selling pressure (spec §4.1: summary only).", schema.Obj{
		{"window", schema.Described(schema.Enum(schemas.Windows...), "Normalized window.")},
		{"maxBuyPressure", schema.Described(schema.Percent(), "The threshold applied.")},
		{"symbolsCovered", schema.Described(schema.Count, "Fresh symbols of the window.")},
		{"sellingSymbols", schema.Described(schema.Count, "Covered symbols with buy pressure at most maxBuyPressure (before limit).")},
		{"results", schema.Described(schema.Array(schema.Object("", schema.Obj{
			{"symbol", schema.String},
			{"price", schema.Number},
			{"priceChangePercent", schema.Number},
			{"buyPressure", schema.Percent()},
			{"volume", schema.Number},
			{"tradeCount", schema.Count},
			{"signal", schema.Enum(signalValues...)},
			{"confidenceScore", schema.Number},
			{"eventType", schema.Enum(eventTypeValues...)},
			{"relativeBuyPressurePercentile", schema.Percent()},
		})), "Lowest buy pressure first, at most limit.")},
		{"timestamp", schema.Described(schema.DateTime, "Generation time.")},
	})
}

// comparisonSchema is the body of GET /api/v1/intelligence/compare.
func comparisonSchema() schema.Obj {
	return schema.Object("One result per requested symbol, in request order (repeats once).", schema.Obj{
		{"window", schema.Described(schema.Enum(schemas.Windows...), "Normalized window.")},
		{"results", schema.Array(schema.Obj{{"oneOf", []schema.Obj{
			schema.Object("A covered symbol.", schema.Obj{
				{"symbol", schema.String},
				{"status", schema.Const("ok")},
				{"data", compactDocumentSchema},
			}),
			schema.Object("A symbol without a fresh document for the window.", schema.Obj{
				{"symbol", schema.String},
				{"status", schema.Const("no_data")},
				{"message", schema.String},
			}),
		}}})},
	})
}

// snapshotSchema is the body of GET /api/v1/intelligence/snapshot/{symbol}.
func snapshotSchema() schema.Obj {
	return schema.Object("Cheapest live read of one symbol (spec §4.1: summary only).", schema.Obj{
		{"symbol", schema.String},
		{"window", schema.Enum(schemas.Windows...)},
		{"price", schema.Described(schema.Number, "Latest trade price, USD per base unit.")},
		{"priceChangePercent", schema.Described(schema.Number, "Price change over the window, percent.")},
		{"buyPressure", schema.Percent()},
		{"signal", schema.Enum(signalValues...)},
		{"signalStrength", schema.Enum("LOW", "MEDIUM", "HIGH")},
		{"confidenceScore", schema.Number},
		{"timestamp", schema.Described(schema.DateTime, "Time of the document.")},
	})
}

// symbolDetailProps are the IntelligenceDocument's properties followed by
// the symbol detail extension of spec §2.3.
func symbolDetailProps() schema.Obj {
	nullableTime := schema.Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}
	sizes := schema.Object("USD order size to cost in bps, or null with the size's price move over 1%.", schema.Obj{
		{"1000", schema.Obj{{"type", []string{"number", "null"}}}},
		{"10000", schema.Obj{{"type", []string{"number", "null"}}}},
		{"50000", schema.Obj{{"type", []string{"number", "null"}}}},
	})
	return append(documentProps(false),
		schema.KV{"liquidity", schema.Object("On-chain liquidity: cost of a market order as one swap in the best pool, fee included, with concentrated-liquidity math from the pools' events (docs/liquidity.md). Without pool state, method says so and the numbers are null.", schema.Obj{
			{"method", schema.Described(schema.Obj{{"type", "string"}}, "Method label; \""+liquidityMethodNone+"\" while no pool of the symbol has state.")},
			{"as_of", schema.Described(nullableTime, "Time of the newest pool event used; null without one.")},
			{"liquidity_score", schema.Described(schema.Obj{{"type", []string{"integer", "null"}}, {"minimum", 0}, {"maximum", 100}}, "100·exp(−bps/50) with bps the average of the $10k buy and sell cost; null without both.")},
			{"slippage_bps", schema.Described(schema.Obj{{"oneOf", []schema.Obj{{{"type", "null"}}, schema.Object("Buy and sell costs.", schema.Obj{{"buy", sizes}, {"sell", sizes}})}}}, "Cost in bps per order size; null without an estimate.")},
			{"estimates", schema.Described(schema.Array(schema.Object("The cost of one market order in the best pool.", schema.Obj{
				{"side", schema.Enum("buy", "sell")},
				{"size_usd", schema.Described(schema.Obj{{"type", "integer"}}, "Order size in USD: 1000, 10000 or 50000.")},
				{"cost_bps", schema.Described(schema.Obj{{"type", []string{"number", "null"}}}, "Cost against the pool's mid price in bps, fee included; null when no pool fills it within a 1% price move.")},
				{"reason", schema.Described(schema.Obj{{"type", []string{"string", "null"}}}, "Why cost_bps is null; null otherwise.")},
				{"chain", schema.Described(schema.Obj{{"type", []string{"string", "null"}}}, "Chain of the best pool.")},
				{"pool", schema.Described(schema.Obj{{"type", []string{"string", "null"}}}, "Address of the best pool.")},
				{"fee_bps", schema.Described(schema.Obj{{"type", "number"}}, "The best pool's swap fee in bps (0 without a pool).")},
				{"ticks_crossed", schema.Described(schema.Obj{{"type", "integer"}}, "Initialized ticks the swap crosses.")},
			})), "Buy then sell, by size.")},
			{"pools", schema.Described(schema.Array(schema.Object("One pool of the symbol.", schema.Obj{
				{"chain", schema.Obj{{"type", "string"}}},
				{"address", schema.Obj{{"type", "string"}}},
				{"name", schema.Obj{{"type", "string"}}},
				{"fee_bps", schema.Obj{{"type", "number"}}},
				{"price_usd", schema.Described(schema.Obj{{"type", "number"}}, "Mid price of the base in USD.")},
				{"sqrt_price_x96", schema.Described(schema.Obj{{"type", "string"}}, "slot0 sqrtPriceX96 as a decimal string.")},
				{"liquidity", schema.Described(schema.Obj{{"type", "string"}}, "In-range liquidity as a decimal string.")},
				{"tick", schema.Obj{{"type", "integer"}}},
				{"known_ticks", schema.Described(schema.Obj{{"type", "integer"}}, "Initialized ticks seen in Mint and Burn events since start.")},
				{"as_of", schema.Described(nullableTime, "Time of the pool's newest event.")},
			})), "Pools whose base is the symbol, by chain and address.")},
		})},
		schema.KV{"sources", schema.Described(schema.Array(schema.Object("A venue contributing to the window.", schema.Obj{
			{"source", schema.Obj{{"type", "string"}}},
			{"status", schema.Described(schema.Enum("ok", "stale"), "stale once the symbol's last trade is older than the window's staleness limit.")},
			{"as_of", schema.Described(nullableTime, "The newest trade of the window.")},
		})), "One entry per venue in the window.")},
		schema.KV{"as_of", schema.Described(nullableTime, "Time of the response data: the document's timestamp.")},
	)
}
