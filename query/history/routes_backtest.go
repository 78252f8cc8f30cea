package history

import (
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
)

const priceBacktest = 50_000

// Bounds of the backtest route (spec §4.1, §8).
const (
	defaultMinConfidence      = 60
	defaultMinBaselineSamples = 10
	minBaselineSamplesFloor   = 2
	maxBaselineSamples        = 1_000_000
	maxBacktestSpan           = 366 * 24 * time.Hour
)

var (
	minConfidenceParam = api.Number{Name: "minConfidence", Desc: "Minimum confidence score of a qualifying signal, 0 to 100.",
		Min: 0, Max: 100, Default: defaultMinConfidence}
	minBaselineParam = api.Int{Name: "minBaselineSamples", Desc: "Minimum baseline samples of a qualifying signal; values below 2 are raised to 2.",
		Min: 0, Max: maxBaselineSamples, Default: defaultMinBaselineSamples}
	backtestStartParam   = api.Instant{Name: "start", Desc: "Start, ISO-8601 UTC; 24 hours before end when omitted."}
	backtestEndParam     = api.Instant{Name: "end", Desc: "End, ISO-8601 UTC, after start, at most 366 days after it; now when omitted."}
	backtestSymbolsParam = api.Symbols{Desc: "Comma-separated symbols (up to 20); all symbols with history when omitted."}
	persistParam         = api.Bool{Name: "persist", Desc: "true stores the run under the data directory and answers its id."}
	backtestIDParam      = api.Text{Name: "id", In: api.InPath,
		Desc: "The id a backtest with persist=true answered (bt_…); unguessable, so it is the only key."}
	backtestSchema = backtestResultsSchema()
)

// backtestResultsSchema is BacktestResults (spec §2.6) with the id of a
// persisted run.
func backtestResultsSchema() schema.Named {
	eventStats := schema.Named{Name: "BacktestEventStats", Schema: schema.Object("BacktestEventStats (spec §2.6). Returns are percent in the signal's direction; win rates percent.", schema.Obj{
		{"occurrences", schema.Count},
		{"averageConfidence", schema.Number},
		{"winRate5m", schema.Percent()}, {"winRate15m", schema.Percent()}, {"winRate60m", schema.Percent()},
		{"averageReturn5mPercent", schema.Number}, {"averageReturn15mPercent", schema.Number}, {"averageReturn60mPercent", schema.Number},
		{"medianReturn15mPercent", schema.Number},
		{"averageMfe15mPercent", schema.Described(schema.Number, "Mean maximum favorable excursion over 15 minutes, percent ≥ 0.")},
		{"averageMae15mPercent", schema.Described(schema.Number, "Mean maximum adverse excursion over 15 minutes, percent ≥ 0.")},
		{"direction", schema.Enum("BULLISH", "BEARISH", "MIXED")},
	})}
	returnStats := schema.Named{Name: "BacktestReturnStats", Schema: schema.Object("BacktestReturnStats (spec §2.6).", schema.Obj{
		{"samples", schema.Count}, {"averagePercent", schema.Number}, {"medianPercent", schema.Number},
		{"positiveRate", schema.Described(schema.Percent(), "Percentage of positive returns.")},
	})}
	props := schema.Obj{
		{"start", schema.DateTime}, {"end", schema.DateTime},
		{"window", schema.Enum(schemas.Windows...)},
		{"symbolsAnalyzed", schema.Count},
		{"signalsEvaluated", schema.Count},
		{"minConfidence", schema.Integer},
		{"minBaselineSamples", schema.Integer},
		{"methodology", schema.String},
		{"dataResolution", schema.Described(schema.String, "Stored candle resolutions read, comma-separated; none without candles.")},
		{"effectiveWindow", schema.Described(schema.String, "Analysis window in seconds.")},
		{"signals", schema.Obj{{"type", "object"}, {"description", "By event type."}, {"additionalProperties", eventStats}}},
		{"confidenceCalibration", schema.Obj{{"type", "object"}, {"description", "By confidence decile: 60-69, 70-79, 80-89, 90-100."},
			{"additionalProperties", eventStats}}},
		{"allSignalsForwardReturns", schema.Object("Forward returns of every evaluated signal.", schema.Obj{
			{"1m", returnStats}, {"5m", returnStats}, {"15m", returnStats}, {"60m", returnStats},
		})},
	}
	required := make([]string, len(props))
	for i, p := range props {
		required[i] = p.K
	}
	// id is present only on persisted runs.
	return schema.Named{Name: "BacktestResults", Schema: schema.Obj{
		{"description", "BacktestResults (spec §2.6)."}, {"type", "object"},
		{"properties", append(schema.Obj{{"id", schema.Described(schema.String, "Id of the persisted run (persist=true only).")}}, props...)},
		{"required", required}, {"additionalProperties", false},
	}}
}

// backtestOperations declares the backtest and the stored runs.
func (rt *Routes) backtestOperations() []api.Operation {
	return []api.Operation{
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/backtest", ID: "backtestSignals", Price: priceBacktest,
			Summary: "Walk-forward backtest of the stored signals without look-ahead: forward returns, win rates, MFE/MAE, confidence calibration.",
			// end is checked before start: start's default depends on it.
			Params: []api.Param{api.Window, minConfidenceParam, minBaselineParam, backtestEndParam, backtestStartParam,
				backtestSymbolsParam, persistParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "BacktestResults (spec §2.6); id only when persist=true.", backtestSchema),
				historyNoData("No stored signal documents of the window in the range; not charged."),
			},
			Tool: &api.Tool{Name: "backtest_signals", Omit: []string{"persist"},
				Description: "Walk-forward backtest of the published signals over stored history: forward returns at 1m/5m/15m/60m, win rates, excursions and confidence calibration per event type."},
			Handler: rt.handleBacktest,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/backtest/:id", ID: "getStoredBacktest", Free: true,
			Summary: "A backtest run stored with persist=true, by its id (free: the run was paid for when it was made).",
			Params:  []api.Param{backtestIDParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The stored BacktestResults, id included, exactly as persist=true answered them.", backtestSchema),
				historyNoData("No stored run with this id (or no history on this server)."),
			},
			NoTool:  "reads back a stored run by the id backtest_signals answered with persist=true, which tools do not offer",
			Handler: rt.handleStoredBacktest,
		},
	}
}

// handleBacktest serves GET /api/v1/intelligence/backtest.
func (rt *Routes) handleBacktest(c fiber.Ctx) error {
	now := rt.now().UTC()
	window, minConf := api.Window.Get(c), minConfidenceParam.Get(c)
	minSamples := max(minBaselineParam.Get(c), minBaselineSamplesFloor)
	end := backtestEndParam.Get(c, now, now)
	start := backtestStartParam.Get(c, now, end.Add(-24*time.Hour))
	if !end.After(start) || end.Sub(start) > maxBacktestSpan {
		const r = "end after start, at most 366 days apart"
		return api.SendParamError(c, &api.ParamError{Param: "end", Message: "end must be " + r, Range: r})
	}
	syms, persist := backtestSymbolsParam.Get(c), persistParam.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if len(syms) > 0 {
		if perr, err := rt.checkKnownSymbols(c, "symbols", syms); err != nil || perr != nil {
			if err != nil {
				return err
			}
			return api.SendParamError(c, perr)
		}
	}
	r, err := rt.store.Backtest(c.Context(), BacktestParams{Window: window, MinConfidence: minConf,
		MinBaselineSamples: minSamples, Start: start, End: end, Symbols: syms})
	if err != nil {
		return historyErr(c, err, "no stored "+window+" signal documents between "+start.Format(time.RFC3339)+" and "+end.Format(time.RFC3339))
	}
	if persist {
		if r, err = rt.store.Persist(r); err != nil {
			return err
		}
	}
	return api.SendValue(c, fiber.StatusOK, r)
}

// handleStoredBacktest serves GET /api/v1/intelligence/backtest/:id: a run
// stored by persist=true. It is free: the run was paid for when it was
// made, and its id carries 128 random bits, so holding the id is the
// proof of purchase. Unknown and malformed ids answer the same 404.
func (rt *Routes) handleStoredBacktest(c fiber.Ctx) error {
	id := backtestIDParam.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	r, err := rt.store.LoadBacktest(id)
	if err != nil {
		return historyErr(c, err, "no stored backtest run with this id; runs are stored by GET /api/v1/intelligence/backtest?persist=true")
	}
	return api.SendValue(c, fiber.StatusOK, r)
}
