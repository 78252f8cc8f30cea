package query

import (
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
)

const priceCandles = 5_000

// crossVenueRule is the aggregation rule of the candles route, also in
// docs/history.md.
const crossVenueRule = "cross-venue: volumes, notionals and counts summed; high the highest and low the lowest venue price; " +
	"open and close the USD-volume-weighted mean of the venues' open and close; vwap = sum(price*size)/sum(size) over all venues; " +
	"buyPressure = 100*buyVolumeUsd/(buyVolumeUsd+sellVolumeUsd), 50 without aggressor volume"

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/candles/:symbol",
			PriceMicroUSD: priceCandles,
			Summary:       "Latest OHLCV candles of a symbol across venues, with aggressive buy and sell volume, buy pressure, VWAP and trade count.",
			Handler:       s.handleCandles,
		}}
	})
	apiOperations["GET /api/v1/intelligence/candles/:symbol"] = apiOperation{
		id: "getCandles",
		params: []obj{symbolParam(), intervalParam(), {
			{"name", "limit"}, {"in", "query"}, {"description", "Number of candles, the latest, decimal without sign."},
			{"required", false},
			{"schema", obj{{"type", "integer"}, {"minimum", 1}, {"maximum", maxCandleLimit}, {"default", defaultCandleLimit}}},
		}, acceptParam()},
		responses: obj{
			{"200", historyResponse("The latest candles, oldest first (JSON), or the same rows as an Arrow IPC stream.", ref("Candles"))},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No stored candles for the symbol; not charged.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	registerSchema("Candles", object("Body of GET /api/v1/intelligence/candles/{symbol}.", obj{
		{"symbol", described(tString, "The symbol, upper case.")},
		{"interval", described(tEnum(datasets.Intervals...), "The interval asked for.")},
		{"resolutions", described(tArray(tEnum(datasets.Intervals...)), "Bucket lengths of the candles answered; coarser than interval only where only a coarser resolution is stored (retention).")},
		{"aggregation", described(tString, "How venues are combined.")},
		{"candles", described(tArray(ref("Candle")), "Oldest first.")},
		{"source", described(tString, "Where the candles come from.")},
	}))
	registerSchema("Candle", object("One candle; prices in USD per base unit, volumes in base units, *Usd in USD.", obj{
		{"ts", described(tDateTime, "Bucket start, UTC.")},
		{"open", tNumber}, {"high", tNumber}, {"low", tNumber}, {"close", tNumber},
		{"volume", described(tNumber, "Traded size, base units.")},
		{"volumeUsd", described(tNumber, "Traded notional, USD.")},
		{"buyVolume", described(tNumber, "Size bought by aggressors.")},
		{"sellVolume", described(tNumber, "Size sold by aggressors.")},
		{"buyVolumeUsd", tNumber}, {"sellVolumeUsd", tNumber},
		{"buyPressure", described(tPercent(), "100*buyVolumeUsd/(buyVolumeUsd+sellVolumeUsd); 50 when both are 0.")},
		{"vwap", described(tNumber, "Volume-weighted average price.")},
		{"tradeCount", tCount}, {"buyCount", tCount}, {"sellCount", tCount}, {"unknownSideCount", tCount},
	}))
	registerSchema("HistoryNoDataError", object("404 of the history routes: nothing stored matches; not charged.", obj{
		{"error", tConst(codeNoData)},
		{"message", tString},
		{"charged", tConst(false)},
	}))
}

func intervalParam() obj {
	return obj{
		{"name", "interval"}, {"in", "query"}, {"description", "Candle interval."}, {"required", false},
		{"schema", obj{{"type", "string"}, {"enum", datasets.Intervals}, {"default", datasets.Interval1m}}},
	}
}

func acceptParam() obj {
	return obj{
		{"name", "Accept"}, {"in", "header"}, {"required", false},
		{"description", "application/vnd.apache.arrow.stream answers an Arrow IPC stream instead of JSON (docs/history.md)."},
		{"schema", tString},
	}
}

// historyResponse is a 200 with a JSON body and the Arrow IPC alternative.
func historyResponse(desc string, schema obj) obj {
	return obj{
		{"description", desc},
		{"content", obj{
			{"application/json", obj{{"schema", schema}}},
			{"application/vnd.apache.arrow.stream", obj{{"schema", obj{{"type", "string"}, {"contentMediaType", "application/vnd.apache.arrow.stream"}}}}},
		}},
	}
}

// handleCandles serves GET /api/v1/intelligence/candles/:symbol.
func (s *Server) handleCandles(c fiber.Ctx) error {
	sym, perr := parseSymbol(c.Params("symbol"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	iv, perr := parseInterval(c.Query("interval"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	limit, perr := parseLimit(c.Query("limit"), defaultCandleLimit, maxCandleLimit)
	if perr != nil {
		return sendParamError(c, perr)
	}
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	res, err := s.d.History.LatestCandles(c.Context(), sym, iv, limit)
	if err != nil {
		return historyErr(c, err, "no stored candles for "+sym+"; GET /api/v1/datasets lists the symbols with history")
	}
	if wantsArrow(c) {
		return sendCandlesArrow(c, res.Candles)
	}
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbol":`...)
		b = appendString(b, sym)
		b = append(b, `,"interval":`...)
		b = appendString(b, iv)
		b = append(b, `,"resolutions":`...)
		b = appendStrings(b, res.Resolutions)
		b = append(b, `,"aggregation":`...)
		b = appendString(b, crossVenueRule)
		b = append(b, `,"candles":[`...)
		for i, cd := range res.Candles {
			if i > 0 {
				b = append(b, ',')
			}
			b = datasets.AppendCandleJSON(b, cd)
		}
		b = append(b, `],"source":`...)
		b = appendString(b, "parquet:candles/interval="+strings.Join(res.Resolutions, ","))
		return append(b, '}')
	})
}
