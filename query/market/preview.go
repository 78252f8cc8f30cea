package market

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/sinks/views"
)

// The free preview (spec §4.7): the last previewBars closed 5m bars of one
// of views.PreviewSymbols, aggregated across venues, delayed previewDelay
// behind the market clock of the candle view (docs/api.md).
const (
	previewPath          = "/api/v1/preview"
	defaultPreviewSymbol = "ETHUSD"
	previewBars          = 6
	previewBarWidth      = 5 * time.Minute
	previewDelay         = 15 * time.Minute
)

// previewLinks are the paid routes the preview points to, in this order;
// ":symbol" is replaced by the previewed symbol.
var previewLinks = []string{
	"/api/v1/intelligence/:symbol",
	"/api/v1/intelligence/snapshot/:symbol",
	"/api/v1/intelligence",
	"/api/v1/intelligence/summary",
	"/api/v1/intelligence/unusual",
}

// previewSymbolParam is the previewed symbol: exactly one of
// views.PreviewSymbols (exact spelling); absent means ETHUSD.
var previewSymbolParam = api.Enum{Name: "symbol", Values: views.PreviewSymbols, Default: defaultPreviewSymbol,
	Desc: "Previewed symbol (exact spelling)."}

// previewSchema is the body of GET /api/v1/preview.
var previewSchema = schema.Named{Name: "Preview", Schema: schema.Object("Free delayed sample of one symbol (spec §4.7).", schema.Obj{
	{"symbol", schema.Enum(views.PreviewSymbols...)},
	{"interval", schema.Const("5m")},
	{"delayMinutes", schema.Described(schema.Const(int(previewDelay/time.Minute)), "Delay behind the market clock, minutes.")},
	{"marketTime", schema.Described(schema.NullableDateTime, "The market clock: the newest 1m candle end the service has seen (event time, any symbol); null before any candle.")},
	{"asOf", schema.Described(schema.NullableDateTime, "marketTime minus the delay: candles end at or before it; null before any candle.")},
	{"candles", schema.Described(schema.Array(schema.Object("One 5m candle aggregated across venues.", schema.Obj{
		{"start", schema.Described(schema.DateTime, "Start of the candle (UTC, a multiple of 5 minutes).")},
		{"end", schema.Described(schema.DateTime, "End of the candle, exclusive.")},
		{"close", schema.Described(schema.Obj{{"type", []string{"number", "null"}}}, "Close of the last minute with trades (the leading venue's: most USD volume); carried from earlier candles when this one has no trades; null when unknown.")},
		{"volumeUsd", schema.Described(schema.Obj{{"type", "number"}, {"minimum", 0}}, "USD notional traded on every venue.")},
		{"buyPressure", schema.Described(schema.Percent(), "100 × buy USD / (buy + sell USD); 50 without sided volume.")},
		{"tradeCount", schema.Count},
	})), "Oldest first; 6 candles, or none before the first candle is seen.")},
	{"paidRoutes", schema.Described(schema.Array(schema.Object("A paid route with more on the symbol or the market.", schema.Obj{
		{"method", schema.Const("GET")},
		{"path", schema.String},
		{"priceUsd", schema.Described(schema.String, "USD per successful call, decimal.")},
		{"summary", schema.String},
	})), "Where the live data is.")},
})}

// previewOperation declares GET /api/v1/preview.
func (rt *Routes) previewOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: previewPath, ID: "getPreview", Free: true,
		Summary: "Free delayed sample: the last 6 closed 5m candles of ETHUSD, BTCUSD or TSLA, 15 minutes behind the market, with links to the paid routes.",
		Params:  []api.Param{previewSymbolParam},
		Responses: []api.Response{api.JSON(fiber.StatusOK,
			"Six closed 5m candles delayed 15 minutes (empty before any candle), with links to the paid routes.", previewSchema)},
		Tool: &api.Tool{Name: "get_market_preview",
			Description: "Free delayed sample: the last 6 closed 5-minute candles (close, USD volume, buy pressure) of ETHUSD, BTCUSD or TSLA, 15 minutes delayed, with links to the paid tools."},
		Handler: rt.handlePreview,
	}
}

// handlePreview serves GET /api/v1/preview?symbol=.
func (rt *Routes) handlePreview(c fiber.Ctx) error {
	symbol := previewSymbolParam.Get(c)
	bars, asOf, ok := rt.views.Candles().Bars(symbol, previewBars, int64(previewBarWidth), int64(previewDelay))
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbol":`...)
		b = jsonw.AppendString(b, symbol)
		b = append(b, `,"interval":"5m"`...)
		b = jsonw.AppendIntField(b, "delayMinutes", int64(previewDelay/time.Minute))
		b = append(b, `,"marketTime":`...)
		if ok {
			b = jsonw.AppendTime(b, asOf+int64(previewDelay))
			b = append(b, `,"asOf":`...)
			b = jsonw.AppendTime(b, asOf)
		} else {
			b = append(b, `null,"asOf":null`...)
		}
		b = append(b, `,"candles":[`...)
		for i, bar := range bars {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"start":`...)
			b = jsonw.AppendTime(b, bar.StartNs)
			b = append(b, `,"end":`...)
			b = jsonw.AppendTime(b, bar.EndNs)
			b = append(b, `,"close":`...)
			if bar.HasClose {
				b = jsonw.AppendFloat(b, bar.Close)
			} else {
				b = append(b, "null"...)
			}
			b = jsonw.AppendFloatField(b, "volumeUsd", bar.VolumeUSD)
			b = jsonw.AppendFloatField(b, "buyPressure", bar.BuyPressure)
			b = jsonw.AppendIntField(b, "tradeCount", int64(bar.Trades))
			b = append(b, '}')
		}
		b = append(b, `],"paidRoutes":[`...)
		n := 0
		for _, p := range previewLinks {
			i := slices.IndexFunc(rt.ops, func(op api.Operation) bool { return op.Path == p && op.Method == fiber.MethodGet })
			if i < 0 {
				continue
			}
			r := rt.ops[i]
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, `{"method":"GET","path":`...)
			b = jsonw.AppendString(b, strings.Replace(api.OpenAPIPath(p), "{symbol}", symbol, 1))
			b = append(b, `,"priceUsd":`...)
			b = jsonw.AppendString(b, api.PriceUSD(r.Price))
			b = append(b, `,"summary":`...)
			b = jsonw.AppendString(b, r.Summary)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	})
}
