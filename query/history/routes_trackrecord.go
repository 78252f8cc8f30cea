package history

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
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

var (
	trackDaysParam    = api.Int{Name: "days", Desc: "Days back from now.", Min: 1, Max: maxTrackDays, Default: defaultTrackDays}
	trackSymbolParam  = api.Symbol{Desc: "One symbol; every symbol when omitted."}
	trackRecordSchema = trackRecordBody()
)

// trackRecordBody is the TrackRecord schema of both track-record routes.
func trackRecordBody() schema.Named {
	horizon := schema.Object("Outcome at one horizon.", schema.Obj{
		{"samples", schema.Described(schema.Count, "Changes whose horizon has elapsed and has a price.")},
		{"hitRate", schema.Described(schema.Percent(), "Percentage of samples with a return above 0 in the signal's direction.")},
		{"averageReturnPercent", schema.Described(schema.Number, "Mean return in the signal's direction (BEARISH is short), percent.")},
	})
	horizons := schema.Object("Keys 5m, 15m, 1h, 24h.", schema.Obj{{"5m", horizon}, {"15m", horizon}, {"1h", horizon}, {"24h", horizon}})
	group := schema.Obj{{"type", "object"}, {"additionalProperties", schema.Object("", schema.Obj{{"count", schema.Count}, {"horizons", horizons}})}}
	nullNum := schema.Obj{{"type", []string{"number", "null"}}}
	return schema.Named{Name: "TrackRecord", Schema: schema.Object("Body of the track-record routes.", schema.Obj{
		{"window", schema.Enum(schemas.Windows...)},
		{"symbol", schema.Obj{{"type", []string{"string", "null"}}}},
		{"days", schema.Count},
		{"from", schema.DateTime}, {"to", schema.DateTime},
		{"source", schema.String},
		{"signalsLogged", schema.Described(schema.Count, "Logged changes of the window in the range, any signal.")},
		{"directionalSignals", schema.Described(schema.Count, "Logged changes to BULLISH or BEARISH, the ones scored.")},
		{"horizons", horizons},
		{"bySignal", schema.Described(group, "By signal (BULLISH, BEARISH).")},
		{"byEventType", schema.Described(group, "By event type.")},
		{"byConfidence", schema.Described(group, "By confidence decile (60-69, ...).")},
		{"latest", schema.Described(schema.Array(schema.Object("One logged change and its outcomes.", schema.Obj{
			{"symbol", schema.String}, {"changedAt", schema.DateTime},
			{"previousSignal", schema.String}, {"signal", schema.Enum("BULLISH", "BEARISH")}, {"eventType", schema.String},
			{"confidence", schema.Number}, {"price", schema.Number},
			{"outcomes", schema.Object("Return in the signal's direction, percent; null until the horizon has elapsed.", schema.Obj{
				{"5m", nullNum}, {"15m", nullNum}, {"1h", nullNum}, {"24h", nullNum}})},
		})), "Latest scored changes, newest first.")},
		{"generatedAt", schema.DateTime},
	})}
}

// trackRecordOperations declares the paid and the free track record.
func (rt *Routes) trackRecordOperations() []api.Operation {
	return []api.Operation{
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/track-record", ID: "getTrackRecord", Price: priceTrackRecord,
			Summary: "Hit rate and average return in the signal's direction of the logged signal changes per horizon, signal type and confidence, with the latest outcomes.",
			Params:  []api.Param{trackDaysParam, api.Window, trackSymbolParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The track record.", trackRecordSchema),
				historyNoData("No logged signal changes in the range; not charged."),
			},
			NoTool:  "get_signal_track_record_summary gives models the free summary; the per-symbol detail is for quants",
			Handler: rt.handleTrackRecord,
		},
		{
			Method: fiber.MethodGet, Path: "/track-record", ID: "getFreeTrackRecord", Free: true,
			Summary: "Free live track-record summary: the last 30 days of logged 5m signal changes.",
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The track record of the last 30 days (5m window, every symbol, 5 latest).", trackRecordSchema),
				historyNoData("No logged signal changes yet."),
			},
			Tool: &api.Tool{Name: "get_signal_track_record_summary",
				Description: "Free live track record of the published signals: hit rate and average return in the signal's direction per horizon."},
			Handler: rt.handleFreeTrackRecord,
		},
	}
}

// handleTrackRecord serves GET /api/v1/intelligence/track-record.
func (rt *Routes) handleTrackRecord(c fiber.Ctx) error {
	days, window, sym := trackDaysParam.Get(c), api.Window.Get(c), trackSymbolParam.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	if sym != "" {
		if perr, err := rt.checkKnownSymbols(c, "symbol", []string{sym}); err != nil || perr != nil {
			if err != nil {
				return err
			}
			return api.SendParamError(c, perr)
		}
	}
	return rt.serveTrackRecord(c, window, sym, int(days), trackLatestPaid)
}

// handleFreeTrackRecord serves GET /track-record.
func (rt *Routes) handleFreeTrackRecord(c fiber.Ctx) error {
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	return rt.serveTrackRecord(c, trackRecordWindow, "", defaultTrackDays, trackLatestFree)
}

func (rt *Routes) serveTrackRecord(c fiber.Ctx, window, sym string, days, latest int) error {
	now := rt.now().UTC()
	from := now.Add(-time.Duration(days) * 24 * time.Hour)
	outs, logged, err := rt.store.TrackRecord(c.Context(), window, sym, from, now)
	if err != nil {
		return historyErr(c, err, "no logged "+window+" signal changes in the last "+strconv.Itoa(days)+" days")
	}
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"window":`...)
		b = jsonw.AppendString(b, window)
		b = append(b, `,"symbol":`...)
		if sym == "" {
			b = append(b, "null"...)
		} else {
			b = jsonw.AppendString(b, sym)
		}
		b = append(b, `,"days":`...)
		b = strconv.AppendInt(b, int64(days), 10)
		b = append(b, `,"from":"`...)
		b = from.AppendFormat(b, time.RFC3339)
		b = append(b, `","to":"`...)
		b = now.AppendFormat(b, time.RFC3339)
		b = append(b, `","source":`...)
		b = jsonw.AppendString(b, trackRecordSources)
		b = append(b, `,"signalsLogged":`...)
		b = strconv.AppendInt(b, int64(logged), 10)
		b = append(b, `,"directionalSignals":`...)
		b = strconv.AppendInt(b, int64(len(outs)), 10)
		b = append(b, `,"horizons":`...)
		b = appendHorizons(b, outs)
		b = appendGroups(b, "bySignal", outs, func(o ChangeOutcome) string { return o.Signal })
		b = appendGroups(b, "byEventType", outs, func(o ChangeOutcome) string { return o.EventType })
		b = appendGroups(b, "byConfidence", outs, func(o ChangeOutcome) string { return ConfidenceBucket(o.Confidence) })
		b = append(b, `,"latest":[`...)
		for i := range min(latest, len(outs)) {
			o := outs[len(outs)-1-i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"symbol":`...)
			b = jsonw.AppendString(b, o.Symbol)
			b = append(b, `,"changedAt":"`...)
			b = o.ChangedAt.AppendFormat(b, time.RFC3339)
			b = append(b, `","previousSignal":`...)
			b = jsonw.AppendString(b, o.PreviousSignal)
			b = append(b, `,"signal":`...)
			b = jsonw.AppendString(b, o.Signal)
			b = append(b, `,"eventType":`...)
			b = jsonw.AppendString(b, o.EventType)
			b = append(b, `,"confidence":`...)
			b = jsonw.AppendFloat(b, o.Confidence)
			b = append(b, `,"price":`...)
			b = jsonw.AppendFloat(b, o.Price)
			b = append(b, `,"outcomes":{`...)
			for h, name := range TrackHorizons {
				if h > 0 {
					b = append(b, ',')
				}
				b = jsonw.AppendString(b, name)
				b = append(b, ':')
				if math.IsNaN(o.Returns[h]) {
					b = append(b, "null"...)
				} else {
					b = jsonw.AppendFloat(b, o.Returns[h])
				}
			}
			b = append(b, "}}"...)
		}
		b = append(b, `],"generatedAt":"`...)
		b = now.AppendFormat(b, time.RFC3339)
		return append(b, `"}`...)
	})
}

func appendHorizons(b []byte, outs []ChangeOutcome) []byte {
	st := Summarize(outs)
	b = append(b, '{')
	for h, name := range TrackHorizons {
		if h > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, name)
		b = append(b, `:{"samples":`...)
		b = strconv.AppendInt(b, int64(st[h].Samples), 10)
		b = append(b, `,"hitRate":`...)
		b = jsonw.AppendFloat(b, st[h].HitRate)
		b = append(b, `,"averageReturnPercent":`...)
		b = jsonw.AppendFloat(b, st[h].AverageReturn)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendGroups(b []byte, name string, outs []ChangeOutcome, key func(ChangeOutcome) string) []byte {
	groups := map[string][]ChangeOutcome{}
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
		b = jsonw.AppendString(b, k)
		b = append(b, `:{"count":`...)
		b = strconv.AppendInt(b, int64(len(groups[k])), 10)
		b = append(b, `,"horizons":`...)
		b = appendHorizons(b, groups[k])
		b = append(b, '}')
	}
	return append(b, '}')
}
