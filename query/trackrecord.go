package query

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/schemas"
)

const priceTrackRecord = 5_000

// Bounds of the track-record routes.
const (
	defaultTrackDays   = 30
	maxTrackDays       = 365
	trackLatestPaid    = 20
	trackLatestFree    = 5
	trackRecordWindow  = "5m"
	trackRecordSources = "parquet:signal_changes (the logged changes, never recomputed) scored on parquet:candles (cross-venue closes)"
)

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{
			{
				Method:        fiber.MethodGet,
				Path:          "/api/v1/intelligence/track-record",
				PriceMicroUSD: priceTrackRecord,
				Summary:       "Hit rate and average return in the signal's direction of the logged signal changes per horizon, signal type and confidence, with the latest outcomes.",
				Handler:       s.handleTrackRecord,
			},
			{
				Method:  fiber.MethodGet,
				Path:    "/track-record",
				Summary: "Free live track-record summary: the last 30 days of logged 5m signal changes.",
				Handler: s.handleFreeTrackRecord,
			},
		}
	})
	apiOperations["GET /api/v1/intelligence/track-record"] = apiOperation{
		id: "getTrackRecord",
		params: []obj{
			{{"name", "days"}, {"in", "query"}, {"required", false}, {"description", "Days back from now."},
				{"schema", obj{{"type", "integer"}, {"minimum", 1}, {"maximum", maxTrackDays}, {"default", defaultTrackDays}}}},
			windowParam(),
			{{"name", "symbol"}, {"in", "query"}, {"required", false}, {"description", "One symbol; every symbol when omitted."},
				{"schema", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", maxSymbolLen}, {"pattern", "^[A-Za-z0-9._-]+$"}}}},
		},
		responses: obj{
			{"200", jsonResponse("The track record.", ref("TrackRecord"))},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No logged signal changes in the range; not charged.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	apiOperations["GET /track-record"] = apiOperation{
		id: "getFreeTrackRecord",
		responses: obj{
			{"200", jsonResponse("The track record of the last 30 days (5m window, every symbol, 5 latest).", ref("TrackRecord"))},
			{"404", jsonResponse("No logged signal changes yet.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	horizon := object("Outcome at one horizon.", obj{
		{"samples", described(tCount, "Changes whose horizon has elapsed and has a price.")},
		{"hitRate", described(tPercent(), "Percentage of samples with a return above 0 in the signal's direction.")},
		{"averageReturnPercent", described(tNumber, "Mean return in the signal's direction (BEARISH is short), percent.")},
	})
	horizons := object("Keys 5m, 15m, 1h, 24h.", obj{{"5m", horizon}, {"15m", horizon}, {"1h", horizon}, {"24h", horizon}})
	group := obj{{"type", "object"}, {"additionalProperties", object("", obj{{"count", tCount}, {"horizons", horizons}})}}
	nullNum := obj{{"type", []string{"number", "null"}}}
	registerSchema("TrackRecord", object("Body of the track-record routes.", obj{
		{"window", tEnum(schemas.Windows...)},
		{"symbol", obj{{"type", []string{"string", "null"}}}},
		{"days", tCount},
		{"from", tDateTime}, {"to", tDateTime},
		{"source", tString},
		{"signalsLogged", described(tCount, "Logged changes of the window in the range, any signal.")},
		{"directionalSignals", described(tCount, "Logged changes to BULLISH or BEARISH, the ones scored.")},
		{"horizons", horizons},
		{"bySignal", described(group, "By signal (BULLISH, BEARISH).")},
		{"byEventType", described(group, "By event type.")},
		{"byConfidence", described(group, "By confidence decile (60-69, ...).")},
		{"latest", described(tArray(object("One logged change and its outcomes.", obj{
			{"symbol", tString}, {"changedAt", tDateTime},
			{"previousSignal", tString}, {"signal", tEnum("BULLISH", "BEARISH")}, {"eventType", tString},
			{"confidence", tNumber}, {"price", tNumber},
			{"outcomes", object("Return in the signal's direction, percent; null until the horizon has elapsed.", obj{
				{"5m", nullNum}, {"15m", nullNum}, {"1h", nullNum}, {"24h", nullNum}})},
		})), "Latest scored changes, newest first.")},
		{"generatedAt", tDateTime},
	}))
}

// handleTrackRecord serves GET /api/v1/intelligence/track-record.
func (s *Server) handleTrackRecord(c fiber.Ctx) error {
	days, perr := parseCount("days", c.Query("days"), defaultTrackDays, maxTrackDays)
	if perr == nil && days < 1 {
		const r = "integer 1 to 365"
		perr = &paramError{param: "days", message: "days must be an " + r, acceptedRange: r}
	}
	if perr != nil {
		return sendParamError(c, perr)
	}
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	sym := ""
	if raw := c.Query("symbol"); raw != "" {
		if sym, perr = parseSymbol(raw); perr != nil {
			return sendParamError(c, perr)
		}
	}
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if sym != "" {
		if perr, err := s.checkKnownSymbols(c, "symbol", []string{sym}); err != nil || perr != nil {
			if err != nil {
				return err
			}
			return sendParamError(c, perr)
		}
	}
	return s.serveTrackRecord(c, window, sym, int(days), trackLatestPaid)
}

// handleFreeTrackRecord serves GET /track-record.
func (s *Server) handleFreeTrackRecord(c fiber.Ctx) error {
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	return s.serveTrackRecord(c, trackRecordWindow, "", defaultTrackDays, trackLatestFree)
}

func (s *Server) serveTrackRecord(c fiber.Ctx, window, sym string, days, latest int) error {
	now := s.d.Now().UTC()
	from := now.Add(-time.Duration(days) * 24 * time.Hour)
	outs, logged, err := s.d.History.TrackRecord(c.Context(), window, sym, from, now)
	if err != nil {
		return historyErr(c, err, "no logged "+window+" signal changes in the last "+strconv.Itoa(days)+" days")
	}
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = appendString(b, window)
		b = append(b, `,"symbol":`...)
		if sym == "" {
			b = append(b, "null"...)
		} else {
			b = appendString(b, sym)
		}
		b = append(b, `,"days":`...)
		b = strconv.AppendInt(b, int64(days), 10)
		b = append(b, `,"from":"`...)
		b = from.AppendFormat(b, time.RFC3339)
		b = append(b, `","to":"`...)
		b = now.AppendFormat(b, time.RFC3339)
		b = append(b, `","source":`...)
		b = appendString(b, trackRecordSources)
		b = append(b, `,"signalsLogged":`...)
		b = strconv.AppendInt(b, int64(logged), 10)
		b = append(b, `,"directionalSignals":`...)
		b = strconv.AppendInt(b, int64(len(outs)), 10)
		b = append(b, `,"horizons":`...)
		b = appendHorizons(b, outs)
		b = appendGroups(b, "bySignal", outs, func(o history.ChangeOutcome) string { return o.Signal })
		b = appendGroups(b, "byEventType", outs, func(o history.ChangeOutcome) string { return o.EventType })
		b = appendGroups(b, "byConfidence", outs, func(o history.ChangeOutcome) string { return history.ConfidenceBucket(o.Confidence) })
		b = append(b, `,"latest":[`...)
		for i := range min(latest, len(outs)) {
			o := outs[len(outs)-1-i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = appendString(b, o.Symbol)
			b = append(b, `,"changedAt":"`...)
			b = o.ChangedAt.AppendFormat(b, time.RFC3339)
			b = append(b, `","previousSignal":`...)
			b = appendString(b, o.PreviousSignal)
			b = append(b, `,"signal":`...)
			b = appendString(b, o.Signal)
			b = append(b, `,"eventType":`...)
			b = appendString(b, o.EventType)
			b = append(b, `,"confidence":`...)
			b = datasets.AppendNumber(b, o.Confidence)
			b = append(b, `,"price":`...)
			b = datasets.AppendNumber(b, o.Price)
			b = append(b, `,"outcomes":{`...)
			for h, name := range history.TrackHorizons {
				if h > 0 {
					b = append(b, ',')
				}
				b = appendString(b, name)
				b = append(b, ':')
				if math.IsNaN(o.Returns[h]) {
					b = append(b, "null"...)
				} else {
					b = datasets.AppendNumber(b, o.Returns[h])
				}
			}
			b = append(b, "}}"...)
		}
		b = append(b, `],"generatedAt":"`...)
		b = now.AppendFormat(b, time.RFC3339)
		return append(b, `"}`...)
	})
}

func appendHorizons(b []byte, outs []history.ChangeOutcome) []byte {
	st := history.Summarize(outs)
	b = append(b, '{')
	for h, name := range history.TrackHorizons {
		if h > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, `:{"samples":`...)
		b = strconv.AppendInt(b, int64(st[h].Samples), 10)
		b = append(b, `,"hitRate":`...)
		b = datasets.AppendNumber(b, st[h].HitRate)
		b = append(b, `,"averageReturnPercent":`...)
		b = datasets.AppendNumber(b, st[h].AverageReturn)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendGroups(b []byte, name string, outs []history.ChangeOutcome, key func(history.ChangeOutcome) string) []byte {
	groups := map[string][]history.ChangeOutcome{}
	var keys []string
	for _, o := range outs {
		k := key(o)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], o)
	}
	slices.Sort(keys)
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, `:{"count":`...)
		b = strconv.AppendInt(b, int64(len(groups[k])), 10)
		b = append(b, `,"horizons":`...)
		b = appendHorizons(b, groups[k])
		b = append(b, '}')
	}
	return append(b, '}')
}
