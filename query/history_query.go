package query

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
)

const priceHistoryQuery = 50_000

// querySignals are the accepted values of the signals parameter.
var querySignals = []string{"momentum", "activity", "buying", "selling", "anomaly", "regime"}

// Bounds of the query route.
const (
	maxQuerySpan = 366 * 24 * time.Hour
	// querySignalWindow is the analysis window of the signal documents the
	// query route summarizes.
	querySignalWindow = "5m"
	resolutionRule    = "by the age of from: under 7 days 1m, 7 to 30 days 5m, 30 to 180 days 15m, older 1h (spec §8 retention)"
)

// resolutionFor returns the candle resolution of a query starting at from.
func resolutionFor(now, from time.Time) string {
	switch age := now.Sub(from); {
	case age < 7*24*time.Hour:
		return datasets.Interval1m
	case age < 30*24*time.Hour:
		return datasets.Interval5m
	case age < 180*24*time.Hour:
		return datasets.Interval15m
	}
	return datasets.Interval1h
}

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/query",
			PriceMicroUSD: priceHistoryQuery,
			Summary:       "Historical multi-signal query: up to 20 symbols over a UTC time range, at a resolution chosen by age.",
			Handler:       s.handleHistoryQuery,
		}}
	})
	apiOperations["GET /api/v1/intelligence/query"] = apiOperation{
		id: "queryHistory",
		params: []obj{
			{{"name", "symbols"}, {"in", "query"}, {"required", true},
				{"description", "1 to 20 comma-separated symbols with history (GET /api/v1/datasets)."},
				{"schema", obj{{"type", "string"}, {"minLength", 1}}}},
			instantParam("from", "Start of the range, ISO-8601 UTC (inclusive).", true),
			instantParam("to", "End of the range, ISO-8601 UTC (exclusive), after from, at most 366 days after it.", true),
			{{"name", "signals"}, {"in", "query"}, {"required", false},
				{"description", "Comma-separated subset of momentum, activity, buying, selling, anomaly, regime; all when omitted."},
				{"schema", tString}},
			acceptParam(),
		},
		responses: obj{
			{"200", historyResponse("One result per symbol, in request order (JSON), or the series of every symbol as an Arrow IPC stream of candles.", ref("HistoryQuery"))},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No stored candles of any requested symbol in the range; not charged.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	nullNum := obj{{"type", []string{"number", "null"}}}
	opt := object
	registerSchema("HistoryQuery", object("Body of GET /api/v1/intelligence/query.", obj{
		{"window", object("The range answered.", obj{
			{"from", tDateTime}, {"to", tDateTime}, {"durationSeconds", tCount},
		})},
		{"resolution", described(tEnum(datasets.Intervals...), "Candle resolution of the series.")},
		{"resolutionRule", tString},
		{"source", described(tString, "Datasets read.")},
		{"signals", described(tArray(tEnum(querySignals...)), "The signal groups in every result.")},
		{"results", tArray(object("One symbol.", obj{
			{"symbol", tString},
			{"status", tEnum("ok", "no_data")},
			{"candleCount", tCount},
			{"open", tNumber}, {"high", tNumber}, {"low", tNumber}, {"close", tNumber},
			{"vwap", tNumber},
			{"priceChangePercent", described(tNumber, "100*(last close/first open - 1).")},
			{"volumeUsd", tNumber},
			{"tradeCount", tCount},
			{"signals", obj{{"type", "object"}, {"additionalProperties", false}, {"properties", obj{
				{"momentum", opt("", obj{{"priceChangePercent", tNumber}, {"averageMomentumScore", nullNum}})},
				{"activity", opt("", obj{{"tradeCount", tCount}, {"volumeUsd", tNumber}, {"averageActivityScore", nullNum}})},
				{"buying", opt("", obj{{"buyVolumeUsd", tNumber}, {"buyPressure", tPercent()}})},
				{"selling", opt("", obj{{"sellVolumeUsd", tNumber}, {"sellPressure", tPercent()}})},
				{"anomaly", opt("", obj{{"maxAnomalyScore", nullNum}, {"averageAnomalyScore", nullNum}})},
				{"regime", opt("", obj{{"latestSignal", obj{{"type", []string{"string", "null"}}}},
					{"bullishSharePercent", nullNum}, {"bearishSharePercent", nullNum}})},
			}}}},
			{"series", described(tArray(object("One cross-venue candle.", obj{
				{"ts", tDateTime}, {"open", tNumber}, {"high", tNumber}, {"low", tNumber}, {"close", tNumber},
				{"volumeUsd", tNumber}, {"buyPressure", tPercent()}, {"tradeCount", tCount},
			})), "Cross-venue candles at the resolution, oldest first.")},
		}))},
	}))
}

func instantParam(name, desc string, required bool) obj {
	return obj{{"name", name}, {"in", "query"}, {"required", required}, {"description", desc}, {"schema", tString}}
}

// parseQuerySignals validates signals: a comma-separated subset of
// querySignals; empty means all. The result is in querySignals order.
func parseQuerySignals(raw string) ([]string, *paramError) {
	if raw == "" {
		return querySignals, nil
	}
	var out []string
	for p := range strings.SplitSeq(raw, ",") {
		if !slices.Contains(querySignals, p) {
			return nil, &paramError{param: "signals", message: "signals must be a comma-separated subset of " +
				strings.Join(querySignals, ", "), acceptedList: querySignals}
		}
		out = append(out, p)
	}
	var ordered []string
	for _, q := range querySignals {
		if slices.Contains(out, q) {
			ordered = append(ordered, q)
		}
	}
	return ordered, nil
}

// checkKnownSymbols answers a paramError naming the symbols the history
// does not hold.
func (s *Server) checkKnownSymbols(c fiber.Ctx, param string, syms []string) (*paramError, error) {
	known, err := s.d.History.CachedSymbols(c.Context())
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, sym := range syms {
		if _, ok := slices.BinarySearch(known, sym); !ok {
			unknown = append(unknown, sym)
		}
	}
	if len(unknown) == 0 {
		return nil, nil
	}
	return &paramError{param: param, message: "unknown symbols " + strings.Join(unknown, ",") +
		": accepted are the symbols with history (GET /api/v1/datasets)", acceptedList: known}, nil
}

// handleHistoryQuery serves GET /api/v1/intelligence/query.
func (s *Server) handleHistoryQuery(c fiber.Ctx) error {
	now := s.d.Now().UTC()
	syms, perr := parseSymbols(c.Query("symbols"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	from, perr := parseInstant("from", c.Query("from"), now, time.Time{})
	if perr != nil {
		return sendParamError(c, perr)
	}
	to, perr := parseInstant("to", c.Query("to"), now, time.Time{})
	if perr != nil {
		return sendParamError(c, perr)
	}
	if !to.After(from) || to.Sub(from) > maxQuerySpan {
		const r = "a date-time after from, at most 366 days after it"
		return sendParamError(c, &paramError{param: "to", message: "to must be " + r, acceptedRange: r})
	}
	sigs, perr := parseQuerySignals(c.Query("signals"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if perr, err := s.checkKnownSymbols(c, "symbols", syms); err != nil || perr != nil {
		if err != nil {
			return err
		}
		return sendParamError(c, perr)
	}
	res := resolutionFor(now, from)
	noData := "no stored candles of " + strings.Join(syms, ",") + " between " + from.Format(time.RFC3339) + " and " + to.Format(time.RFC3339)
	if wantsArrow(c) {
		cr, err := s.d.History.Candles(c.Context(), history.CandleQuery{Symbols: syms, Interval: res, From: from, To: to})
		if err != nil {
			return historyErr(c, err, noData)
		}
		return sendCandlesArrow(c, cr.Candles)
	}
	series, resolutions, err := s.d.History.Series(c.Context(), syms, res, from, to)
	if err != nil {
		return historyErr(c, err, noData)
	}
	stats, err := s.d.History.SignalSummary(c.Context(), querySignalWindow, syms, from, to)
	if err != nil {
		return err
	}
	// The body is rendered into one buffer sized for it up front and
	// handed to the response without a copy: at 1m over days the series
	// run to tens of megabytes.
	size := 1024
	for _, se := range series {
		size += len(se.SeriesJSON) + 2048
	}
	size += 2048 * (len(syms) - len(series))
	return sendOwned(c, fiber.StatusOK, make([]byte, 0, size), func(b []byte) []byte {
		b = append(b, `{"window":{"from":"`...)
		b = from.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","to":"`...)
		b = to.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","durationSeconds":`...)
		b = strconv.AppendInt(b, int64(to.Sub(from)/time.Second), 10)
		b = append(b, `},"resolution":`...)
		b = appendString(b, res)
		b = append(b, `,"resolutionRule":`...)
		b = appendString(b, resolutionRule)
		b = append(b, `,"source":`...)
		b = appendString(b, "parquet:candles/interval="+strings.Join(resolutions, ",")+" (cross-venue); parquet:signals/window="+querySignalWindow)
		b = append(b, `,"signals":`...)
		b = appendStrings(b, sigs)
		b = append(b, `,"results":[`...)
		for i, sym := range syms {
			if i > 0 {
				b = append(b, ',')
			}
			st, hasSig := stats[sym]
			b = appendQueryResult(b, sym, series[sym], sigs, st, hasSig)
		}
		return append(b, "]}"...)
	})
}

// appendQueryResult appends the result object of one symbol; se is zero
// when the symbol has no candles in the range.
func appendQueryResult(b []byte, sym string, se history.SeriesSummary, sigs []string, st history.SignalStats, hasSig bool) []byte {
	open, high, low, closep, vwap := se.Open, se.High, se.Low, se.Close, se.VWAP
	vol, buy, sell, trades := se.VolumeUSD, se.BuyVolumeUSD, se.SellVolumeUSD, se.TradeCount
	change, bp := 0.0, 50.0
	if open != 0 {
		change = 100 * (closep/open - 1)
	}
	if buy+sell > 0 {
		bp = 100 * buy / (buy + sell)
	}
	num := func(b []byte, k string, v float64) []byte {
		b = append(b, ',', '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		return datasets.AppendNumber(b, v)
	}
	opt := func(b []byte, k string, v float64) []byte {
		if !hasSig {
			b = append(b, ',', '"')
			b = append(b, k...)
			return append(b, `":null`...)
		}
		return num(b, k, v)
	}
	b = append(b, `{"symbol":`...)
	b = appendString(b, sym)
	if se.Candles == 0 {
		b = append(b, `,"status":"no_data"`...)
	} else {
		b = append(b, `,"status":"ok"`...)
	}
	b = append(b, `,"candleCount":`...)
	b = strconv.AppendInt(b, se.Candles, 10)
	b = num(b, "open", open)
	b = num(b, "high", high)
	b = num(b, "low", low)
	b = num(b, "close", closep)
	b = num(b, "vwap", vwap)
	b = num(b, "priceChangePercent", change)
	b = num(b, "volumeUsd", vol)
	b = append(b, `,"tradeCount":`...)
	b = strconv.AppendInt(b, trades, 10)
	b = append(b, `,"signals":{`...)
	for i, sg := range sigs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, sg...)
		b = append(b, `":{`...)
		mark := len(b) // every field below starts with a comma; the first one's is dropped
		switch sg {
		case "momentum":
			b = num(b, "priceChangePercent", change)
			b = opt(b, "averageMomentumScore", st.AverageMomentum)
		case "activity":
			b = append(b, `,"tradeCount":`...)
			b = strconv.AppendInt(b, trades, 10)
			b = num(b, "volumeUsd", vol)
			b = opt(b, "averageActivityScore", st.AverageActivity)
		case "buying":
			b = num(b, "buyVolumeUsd", buy)
			b = num(b, "buyPressure", bp)
		case "selling":
			b = num(b, "sellVolumeUsd", sell)
			b = num(b, "sellPressure", 100-bp)
		case "anomaly":
			b = opt(b, "maxAnomalyScore", st.MaxAnomaly)
			b = opt(b, "averageAnomalyScore", st.AverageAnomaly)
		case "regime":
			if hasSig && st.LatestSignal != "" {
				b = append(b, `,"latestSignal":`...)
				b = appendString(b, st.LatestSignal)
			} else {
				b = append(b, `,"latestSignal":null`...)
			}
			b = opt(b, "bullishSharePercent", st.BullishShare)
			b = opt(b, "bearishSharePercent", st.BearishShare)
		}
		b = append(b[:mark], b[mark+1:]...) // drop the leading comma of the first field
		b = append(b, '}')
	}
	b = append(b, `},"series":`...)
	if len(se.SeriesJSON) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, se.SeriesJSON...)
	}
	return append(b, '}')
}
