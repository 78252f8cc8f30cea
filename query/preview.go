package query

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

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

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:  fiber.MethodGet,
			Path:    previewPath,
			Summary: "Free delayed sample: the last 6 closed 5m candles of ETHUSD, BTCUSD or TSLA, 15 minutes behind the market, with links to the paid routes.",
			Handler: s.handlePreview,
		}}
	})
	apiOperations["GET "+previewPath] = apiOperation{
		id: "getPreview",
		params: []obj{{
			{"name", "symbol"},
			{"in", "query"},
			{"description", "Previewed symbol (exact spelling)."},
			{"required", false},
			{"schema", obj{{"type", "string"}, {"enum", views.PreviewSymbols}, {"default", defaultPreviewSymbol}}},
		}},
		responses: obj{
			{"200", jsonResponse("Six closed 5m candles delayed 15 minutes (empty before any candle), with links to the paid routes.", ref("Preview"))},
			{"400", refResponse("InvalidParameter")},
			{"500", refResponse("Internal")},
		},
	}
	nullableTime := obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}
	registerSchema("Preview", object("Free delayed sample of one symbol (spec §4.7).", obj{
		{"symbol", tEnum(views.PreviewSymbols...)},
		{"interval", tConst("5m")},
		{"delayMinutes", described(tConst(int(previewDelay/time.Minute)), "Delay behind the market clock, minutes.")},
		{"marketTime", described(nullableTime, "The market clock: the newest 1m candle end the service has seen (event time, any symbol); null before any candle.")},
		{"asOf", described(nullableTime, "marketTime minus the delay: candles end at or before it; null before any candle.")},
		{"candles", described(tArray(object("One 5m candle aggregated across venues.", obj{
			{"start", described(tDateTime, "Start of the candle (UTC, a multiple of 5 minutes).")},
			{"end", described(tDateTime, "End of the candle, exclusive.")},
			{"close", described(obj{{"type", []string{"number", "null"}}}, "Close of the last minute with trades (USD-volume-weighted over venues); carried from earlier candles when this one has no trades; null when unknown.")},
			{"volumeUsd", described(obj{{"type", "number"}, {"minimum", 0}}, "USD notional traded on every venue.")},
			{"buyPressure", described(tPercent(), "100 × buy USD / (buy + sell USD); 50 without sided volume.")},
			{"tradeCount", tCount},
		})), "Oldest first; 6 candles, or none before the first candle is seen.")},
		{"paidRoutes", described(tArray(object("A paid route with more on the symbol or the market.", obj{
			{"method", tConst("GET")},
			{"path", tString},
			{"priceUsd", described(tString, "USD per successful call, decimal.")},
			{"summary", tString},
		})), "Where the live data is.")},
	}))
}

// parsePreviewSymbol validates the preview's symbol parameter: exactly one
// of views.PreviewSymbols; empty (absent) means ETHUSD.
func parsePreviewSymbol(raw string) (string, *paramError) {
	if raw == "" {
		return defaultPreviewSymbol, nil
	}
	if i := slices.Index(views.PreviewSymbols, raw); i >= 0 {
		return views.PreviewSymbols[i], nil
	}
	return "", &paramError{
		param:        "symbol",
		message:      "symbol must be one of " + strings.Join(views.PreviewSymbols, ", "),
		acceptedList: views.PreviewSymbols,
	}
}

// handlePreview serves GET /api/v1/preview?symbol=.
func (s *Server) handlePreview(c fiber.Ctx) error {
	symbol, perr := parsePreviewSymbol(c.Query("symbol"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	bars, asOf, ok := s.d.Views.Candles().Bars(symbol, previewBars, int64(previewBarWidth), int64(previewDelay))
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbol":`...)
		b = appendString(b, symbol)
		b = append(b, `,"interval":"5m"`...)
		b = appendIntField(b, "delayMinutes", int64(previewDelay/time.Minute))
		b = append(b, `,"marketTime":`...)
		if ok {
			b = appendTime(b, asOf+int64(previewDelay))
			b = append(b, `,"asOf":`...)
			b = appendTime(b, asOf)
		} else {
			b = append(b, `null,"asOf":null`...)
		}
		b = append(b, `,"candles":[`...)
		for i, bar := range bars {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"start":`...)
			b = appendTime(b, bar.StartNs)
			b = append(b, `,"end":`...)
			b = appendTime(b, bar.EndNs)
			b = append(b, `,"close":`...)
			if bar.HasClose {
				b = appendFloat(b, bar.Close)
			} else {
				b = append(b, "null"...)
			}
			b = appendFloatField(b, "volumeUsd", bar.VolumeUSD)
			b = appendFloatField(b, "buyPressure", bar.BuyPressure)
			b = appendIntField(b, "tradeCount", int64(bar.Trades))
			b = append(b, '}')
		}
		b = append(b, `],"paidRoutes":[`...)
		n := 0
		for _, p := range previewLinks {
			i := slices.IndexFunc(s.routes, func(r Route) bool { return r.Path == p && r.Method == fiber.MethodGet })
			if i < 0 {
				continue
			}
			r := s.routes[i]
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(b, `{"method":"GET","path":`...)
			b = appendString(b, strings.Replace(openAPIPathOf(p), "{symbol}", symbol, 1))
			b = append(b, `,"priceUsd":`...)
			b = appendString(b, priceUSD(r.PriceMicroUSD))
			b = append(b, `,"summary":`...)
			b = appendString(b, r.Summary)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	})
}
