package history

import (
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

const priceCandles = 5_000

var (
	candleLimitParam = api.Int{Name: "limit", Desc: "Number of candles, the latest, decimal without sign.",
		Min: 1, Max: maxCandleLimit, Default: defaultCandleLimit}
	candlesSchema = schema.Named{Name: "Candles", Schema: schema.Object("Body of GET /api/v1/intelligence/candles/{symbol}.", schema.Obj{
		{"symbol", schema.Described(schema.String, "The symbol, upper case.")},
		{"interval", schema.Described(schema.Enum(datasets.Intervals...), "The interval asked for.")},
		{"resolutions", schema.Described(schema.Array(schema.Enum(datasets.Intervals...)), "Bucket lengths of the candles answered; coarser than interval only where only a coarser resolution is stored (retention).")},
		{"aggregation", schema.Described(schema.String, "How venues are combined.")},
		{"candles", schema.Described(schema.Array(candleSchema), "Oldest first.")},
		{"source", schema.Described(schema.String, "Where the candles come from.")},
	})}
)

// candlesOperation declares GET /api/v1/intelligence/candles/:symbol.
func (rt *Routes) candlesOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/candles/:symbol", ID: "getCandles", Price: priceCandles,
		Summary: "Latest OHLCV candles of a symbol across venues, with aggressive buy and sell volume, buy pressure, VWAP and trade count.",
		Params:  []api.Param{api.SymbolPath, intervalParam, candleLimitParam, acceptParam},
		Responses: []api.Response{
			historyOK("The latest candles, oldest first (JSON), or the same rows as an Arrow IPC stream.", candlesSchema),
			historyNoData("No stored candles for the symbol; not charged."),
		},
		NoTool:  "a time series for charts and quants; get_symbol_intelligence and backtest_signals answer what a model asks",
		Handler: rt.handleCandles,
	}
}

// handleCandles serves GET /api/v1/intelligence/candles/:symbol.
func (rt *Routes) handleCandles(c fiber.Ctx) error {
	sym, iv, limit := api.SymbolPath.Get(c), intervalParam.Get(c), int(candleLimitParam.Get(c))
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	res, err := rt.store.LatestCandles(c.Context(), sym, iv, limit)
	if err != nil {
		return historyErr(c, err, "no stored candles for "+sym+"; GET /api/v1/datasets lists the symbols with history")
	}
	if wantsArrow(c) {
		return sendCandlesArrow(c, res.Candles)
	}
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbol":`...)
		b = jsonw.AppendString(b, sym)
		b = append(b, `,"interval":`...)
		b = jsonw.AppendString(b, iv)
		b = append(b, `,"resolutions":`...)
		b = jsonw.AppendStrings(b, res.Resolutions)
		b = append(b, `,"aggregation":`...)
		b = jsonw.AppendString(b, datasets.CrossVenueRule)
		b = append(b, `,"candles":[`...)
		for i, cd := range res.Candles {
			if i > 0 {
				b = append(b, ',')
			}
			b = datasets.AppendCandleJSON(b, cd)
		}
		b = append(b, `],"source":`...)
		b = jsonw.AppendString(b, "parquet:candles/interval="+strings.Join(res.Resolutions, ","))
		return append(b, '}')
	})
}
