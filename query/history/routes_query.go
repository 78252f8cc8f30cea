package history

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
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

var (
	querySymbolsParam = api.Symbols{Required: true, Desc: "1 to 20 comma-separated symbols with history (GET /api/v1/datasets)."}
	queryFromParam    = api.Instant{Name: "from", Required: true, Desc: "Start of the range, ISO-8601 UTC (inclusive)."}
	queryToParam      = api.Instant{Name: "to", Required: true, Desc: "End of the range, ISO-8601 UTC (exclusive), after from, at most 366 days after it."}
	querySignalsParam = api.Subset{Name: "signals", Values: querySignals,
		Desc: "Comma-separated subset of momentum, activity, buying, selling, anomaly, regime; all when omitted."}
	historyQuerySchema = historyQueryBody()
)

func historyQueryBody() schema.Named {
	nullNum := schema.Obj{{"type", []string{"number", "null"}}}
	opt := schema.Object
	return schema.Named{Name: "HistoryQuery", Schema: schema.Object("Body of GET /api/v1/intelligence/query.", schema.Obj{
		{"window", schema.Object("The range answered.", schema.Obj{
			{"from", schema.DateTime}, {"to", schema.DateTime}, {"durationSeconds", schema.Count},
		})},
		{"resolution", schema.Described(schema.Enum(datasets.Intervals...), "Candle resolution of the series.")},
		{"resolutionRule", schema.String},
		{"source", schema.Described(schema.String, "Datasets read.")},
		{"signals", schema.Described(schema.Array(schema.Enum(querySignals...)), "The signal groups in every result.")},
		{"results", schema.Array(schema.Object("One symbol.", schema.Obj{
			{"symbol", schema.String},
			{"status", schema.Enum("ok", "no_data")},
			{"candleCount", schema.Count},
			{"open", schema.Number}, {"high", schema.Number}, {"low", schema.Number}, {"close", schema.Number},
			{"vwap", schema.Number},
			{"priceChangePercent", schema.Described(schema.Number, "100*(last close/first open - 1).")},
			{"volumeUsd", schema.Number},
			{"tradeCount", schema.Count},
			{"signals", schema.Obj{{"type", "object"}, {"additionalProperties", false}, {"properties", schema.Obj{
				{"momentum", opt("", schema.Obj{{"priceChangePercent", schema.Number}, {"averageMomentumScore", nullNum}})},
				{"activity", opt("", schema.Obj{{"tradeCount", schema.Count}, {"volumeUsd", schema.Number}, {"averageActivityScore", nullNum}})},
				{"buying", opt("", schema.Obj{{"buyVolumeUsd", schema.Number}, {"buyPressure", schema.Percent()}})},
				{"selling", opt("", schema.Obj{{"sellVolumeUsd", schema.Number}, {"sellPressure", schema.Percent()}})},
				{"anomaly", opt("", schema.Obj{{"maxAnomalyScore", nullNum}, {"averageAnomalyScore", nullNum}})},
				{"regime", opt("", schema.Obj{{"latestSignal", schema.Obj{{"type", []string{"string", "null"}}}},
					{"bullishSharePercent", nullNum}, {"bearishSharePercent", nullNum}})},
			}}}},
			{"series", schema.Described(schema.Array(schema.Object("One cross-venue candle.", schema.Obj{
				{"ts", schema.DateTime}, {"open", schema.Number}, {"high", schema.Number}, {"low", schema.Number}, {"close", schema.Number},
				{"volumeUsd", schema.Number}, {"buyPressure", schema.Percent()}, {"tradeCount", schema.Count},
			})), "Cross-venue candles at the resolution, oldest first.")},
		}))},
	})}
}

// historyQueryOperation declares GET /api/v1/intelligence/query.
func (rt *Routes) historyQueryOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/query", ID: "queryHistory", Price: priceHistoryQuery,
		Summary: "Historical multi-signal query: up to 20 symbols over a UTC time range, at a resolution chosen by age.",
		Params:  []api.Param{querySymbolsParam, queryFromParam, queryToParam, querySignalsParam, acceptParam},
		Responses: []api.Response{
			historyOK("One result per symbol, in request order (JSON), or the series of every symbol as an Arrow IPC stream of candles.", historyQuerySchema),
			historyNoData("No stored candles of any requested symbol in the range; not charged."),
		},
		NoTool:  "bulk series for quants, too large for a model's context at fine resolutions; backtest_signals answers the model's question about signal quality",
		Handler: rt.handleHistoryQuery,
	}
}

// checkKnownSymbols answers a paramError naming the symbols the history
// does not hold.
func (rt *Routes) checkKnownSymbols(c fiber.Ctx, param string, syms []string) (*api.ParamError, error) {
	known, err := rt.store.CachedSymbols(c.Context())
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
	return &api.ParamError{Param: param, Message: "unknown symbols " + strings.Join(unknown, ",") +
		": accepted are the symbols with history (GET /api/v1/datasets)", Accepted: known}, nil
}

// handleHistoryQuery serves GET /api/v1/intelligence/query.
func (rt *Routes) handleHistoryQuery(c fiber.Ctx) error {
	now := rt.now().UTC()
	syms := querySymbolsParam.Get(c)
	from, to := queryFromParam.Get(c, now, time.Time{}), queryToParam.Get(c, now, time.Time{})
	if !to.After(from) || to.Sub(from) > maxQuerySpan {
		const r = "a date-time after from, at most 366 days after it"
		return api.SendParamError(c, &api.ParamError{Param: "to", Message: "to must be " + r, Range: r})
	}
	sigs := querySignalsParam.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if perr, err := rt.checkKnownSymbols(c, "symbols", syms); err != nil || perr != nil {
		if err != nil {
			return err
		}
		return api.SendParamError(c, perr)
	}
	res := resolutionFor(now, from)
	noData := "no stored candles of " + strings.Join(syms, ",") + " between " + from.Format(time.RFC3339) + " and " + to.Format(time.RFC3339)
	if wantsArrow(c) {
		cr, err := rt.store.Candles(c.Context(), CandleQuery{Symbols: syms, Interval: res, From: from, To: to})
		if err != nil {
			return historyErr(c, err, noData)
		}
		return sendCandlesArrow(c, cr.Candles)
	}
	series, resolutions, err := rt.store.Series(c.Context(), syms, res, from, to)
	if err != nil {
		return historyErr(c, err, noData)
	}
	stats, err := rt.store.SignalSummary(c.Context(), querySignalWindow, syms, from, to)
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
	return api.SendOwned(c, fiber.StatusOK, make([]byte, 0, size), func(b []byte) []byte {
		b = append(b, `{"window":{"from":"`...)
		b = from.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","to":"`...)
		b = to.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","durationSeconds":`...)
		b = strconv.AppendInt(b, int64(to.Sub(from)/time.Second), 10)
		b = append(b, `},"resolution":`...)
		b = jsonw.AppendString(b, res)
		b = append(b, `,"resolutionRule":`...)
		b = jsonw.AppendString(b, resolutionRule)
		b = append(b, `,"source":`...)
		b = jsonw.AppendString(b, "parquet:candles/interval="+strings.Join(resolutions, ",")+" (cross-venue); parquet:signals/window="+querySignalWindow)
		b = append(b, `,"signals":`...)
		b = jsonw.AppendStrings(b, sigs)
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
func appendQueryResult(b []byte, sym string, se SeriesSummary, sigs []string, st SignalStats, hasSig bool) []byte {
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
		return jsonw.AppendFloat(b, v)
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
	b = jsonw.AppendString(b, sym)
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
				b = jsonw.AppendString(b, st.LatestSignal)
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
