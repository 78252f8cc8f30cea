package query

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/history"
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

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:        fiber.MethodGet,
			Path:          "/api/v1/intelligence/backtest",
			PriceMicroUSD: priceBacktest,
			Summary:       "Walk-forward backtest of the stored signals without look-ahead: forward returns, win rates, MFE/MAE, confidence calibration.",
			Handler:       s.handleBacktest,
		}, {
			Method:  fiber.MethodGet,
			Path:    "/api/v1/intelligence/backtest/:id",
			Summary: "A backtest run stored with persist=true, by its id (free: the run was paid for when it was made).",
			Handler: s.handleStoredBacktest,
		}}
	})
	apiOperations["GET /api/v1/intelligence/backtest"] = apiOperation{
		id: "backtestSignals",
		params: []obj{
			windowParam(),
			numberParam("minConfidence", "Minimum confidence score of a qualifying signal.", defaultMinConfidence, 0, 100),
			countParam("minBaselineSamples", "Minimum baseline samples of a qualifying signal; values below 2 are raised to 2.", defaultMinBaselineSamples, maxBaselineSamples),
			instantParam("start", "Start, ISO-8601 UTC; 24 hours before end when omitted.", false),
			instantParam("end", "End, ISO-8601 UTC, after start, at most 366 days after it; now when omitted.", false),
			{{"name", "symbols"}, {"in", "query"}, {"required", false},
				{"description", "Comma-separated symbols (up to 20); all symbols with history when omitted."}, {"schema", tString}},
			{{"name", "persist"}, {"in", "query"}, {"required", false},
				{"description", "true stores the run under the data directory and answers its id."},
				{"schema", obj{{"type", "string"}, {"enum", []string{"true", "false"}}, {"default", "false"}}}},
		},
		responses: obj{
			{"200", jsonResponse("BacktestResults (spec §2.6); id only when persist=true.", ref("BacktestResults"))},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No stored signal documents of the window in the range; not charged.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	apiOperations["GET /api/v1/intelligence/backtest/:id"] = apiOperation{
		id: "getStoredBacktest",
		params: []obj{{{"name", "id"}, {"in", "path"}, {"required", true},
			{"description", "The id a backtest with persist=true answered (bt_…); unguessable, so it is the only key."},
			{"schema", tString}}},
		responses: obj{
			{"200", jsonResponse("The stored BacktestResults, id included, exactly as persist=true answered them.", ref("BacktestResults"))},
			{"404", jsonResponse("No stored run with this id (or no history on this server).", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	stats := object("BacktestEventStats (spec §2.6). Returns are percent in the signal's direction; win rates percent.", obj{
		{"occurrences", tCount},
		{"averageConfidence", tNumber},
		{"winRate5m", tPercent()}, {"winRate15m", tPercent()}, {"winRate60m", tPercent()},
		{"averageReturn5mPercent", tNumber}, {"averageReturn15mPercent", tNumber}, {"averageReturn60mPercent", tNumber},
		{"medianReturn15mPercent", tNumber},
		{"averageMfe15mPercent", described(tNumber, "Mean maximum favorable excursion over 15 minutes, percent ≥ 0.")},
		{"averageMae15mPercent", described(tNumber, "Mean maximum adverse excursion over 15 minutes, percent ≥ 0.")},
		{"direction", tEnum("BULLISH", "BEARISH", "MIXED")},
	})
	registerSchema("BacktestEventStats", stats)
	registerSchema("BacktestReturnStats", object("BacktestReturnStats (spec §2.6).", obj{
		{"samples", tCount}, {"averagePercent", tNumber}, {"medianPercent", tNumber},
		{"positiveRate", described(tPercent(), "Percentage of positive returns.")},
	}))
	props := obj{
		{"start", tDateTime}, {"end", tDateTime},
		{"window", tEnum(schemas.Windows...)},
		{"symbolsAnalyzed", tCount},
		{"signalsEvaluated", tCount},
		{"minConfidence", tInteger},
		{"minBaselineSamples", tInteger},
		{"methodology", tString},
		{"dataResolution", described(tString, "Stored candle resolutions read, comma-separated; none without candles.")},
		{"effectiveWindow", described(tString, "Analysis window in seconds.")},
		{"signals", obj{{"type", "object"}, {"description", "By event type."}, {"additionalProperties", ref("BacktestEventStats")}}},
		{"confidenceCalibration", obj{{"type", "object"}, {"description", "By confidence decile: 60-69, 70-79, 80-89, 90-100."},
			{"additionalProperties", ref("BacktestEventStats")}}},
		{"allSignalsForwardReturns", object("Forward returns of every evaluated signal.", obj{
			{"1m", ref("BacktestReturnStats")}, {"5m", ref("BacktestReturnStats")},
			{"15m", ref("BacktestReturnStats")}, {"60m", ref("BacktestReturnStats")},
		})},
	}
	schema := object("BacktestResults (spec §2.6).", props)
	// id is present only on persisted runs.
	schema = append(schema[:len(schema)-3], kv{"properties", append(obj{{"id", described(tString, "Id of the persisted run (persist=true only).")}}, props...)},
		schema[len(schema)-2], schema[len(schema)-1])
	registerSchema("BacktestResults", schema)
}

// handleBacktest serves GET /api/v1/intelligence/backtest.
func (s *Server) handleBacktest(c fiber.Ctx) error {
	now := s.d.Now().UTC()
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	minConf, perr := parseNumber("minConfidence", c.Query("minConfidence"), defaultMinConfidence, 0, 100)
	if perr != nil {
		return sendParamError(c, perr)
	}
	minSamples, perr := parseCount("minBaselineSamples", c.Query("minBaselineSamples"), defaultMinBaselineSamples, maxBaselineSamples)
	if perr != nil {
		return sendParamError(c, perr)
	}
	minSamples = max(minSamples, minBaselineSamplesFloor)
	end, perr := parseInstant("end", c.Query("end"), now, now)
	if perr != nil {
		return sendParamError(c, perr)
	}
	start, perr := parseInstant("start", c.Query("start"), now, end.Add(-24*time.Hour))
	if perr != nil {
		return sendParamError(c, perr)
	}
	if !end.After(start) || end.Sub(start) > maxBacktestSpan {
		const r = "end after start, at most 366 days apart"
		return sendParamError(c, &paramError{param: "end", message: "end must be " + r, acceptedRange: r})
	}
	var syms []string
	if raw := c.Query("symbols"); raw != "" {
		if syms, perr = parseSymbols(raw); perr != nil {
			return sendParamError(c, perr)
		}
	}
	persist, perr := parseBool("persist", c.Query("persist"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if len(syms) > 0 {
		if perr, err := s.checkKnownSymbols(c, "symbols", syms); err != nil || perr != nil {
			if err != nil {
				return err
			}
			return sendParamError(c, perr)
		}
	}
	r, err := s.d.History.Backtest(c.Context(), history.BacktestParams{Window: window, MinConfidence: minConf,
		MinBaselineSamples: minSamples, Start: start, End: end, Symbols: syms})
	if err != nil {
		return historyErr(c, err, "no stored "+window+" signal documents between "+start.Format(time.RFC3339)+" and "+end.Format(time.RFC3339))
	}
	if persist {
		if r, err = s.d.History.Persist(r); err != nil {
			return err
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return sendJSON(c, fiber.StatusOK, b)
}

// handleStoredBacktest serves GET /api/v1/intelligence/backtest/:id: a run
// stored by persist=true. It is free: the run was paid for when it was
// made, and its id carries 128 random bits, so holding the id is the
// proof of purchase. Unknown and malformed ids answer the same 404.
func (s *Server) handleStoredBacktest(c fiber.Ctx) error {
	id := c.Params("id")
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	r, err := s.d.History.LoadBacktest(id)
	if err != nil {
		return historyErr(c, err, "no stored backtest run with this id; runs are stored by GET /api/v1/intelligence/backtest?persist=true")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return sendJSON(c, fiber.StatusOK, b)
}
