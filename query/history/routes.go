package history

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// Routes serve the history routes over a Store (docs/history.md): candles,
// the dataset catalog and days, the multi-signal query, backtests and the
// track record. Without a store every route answers 404 no_data after
// validating its parameters.
type Routes struct {
	store *Store
	now   func() time.Time
}

// NewRoutes returns the history routes over st (nil: no history on this
// server); now is the clock of the date parameters and the defaults.
func NewRoutes(st *Store, now func() time.Time) *Routes {
	if now == nil {
		now = time.Now
	}
	return &Routes{store: st, now: now}
}

// Operations are the history routes.
func (rt *Routes) Operations() []api.Operation {
	ops := []api.Operation{rt.candlesOperation()}
	ops = append(ops, rt.datasetOperations()...)
	ops = append(ops, rt.historyQueryOperation())
	ops = append(ops, rt.backtestOperations()...)
	ops = append(ops, rt.trackRecordOperations()...)
	ops = append(ops, rt.premiumOperations()...)
	return append(ops, rt.smartMoneyOperation())
}

// Parameters and bounds of the history routes (docs/history.md).
const (
	defaultCandleLimit = 60
	maxCandleLimit     = 1000
)

// Parameters shared by the history routes.
var (
	intervalParam = api.Enum{Name: "interval", Values: datasets.Intervals, Default: datasets.Interval1m, Desc: "Candle interval."}
	acceptParam   = api.Header{Name: "Accept",
		Desc: "application/vnd.apache.arrow.stream answers an Arrow IPC stream instead of JSON (docs/history.md)."}
)

// Bodies shared by the history routes.
var (
	candleSchema = schema.Named{Name: "Candle", Schema: schema.Object("One candle; prices in USD per base unit, volumes in base units, *Usd in USD.", schema.Obj{
		{"ts", schema.Described(schema.DateTime, "Bucket start, UTC.")},
		{"open", schema.Number}, {"high", schema.Number}, {"low", schema.Number}, {"close", schema.Number},
		{"volume", schema.Described(schema.Number, "Traded size, base units.")},
		{"volumeUsd", schema.Described(schema.Number, "Traded notional, USD.")},
		{"buyVolume", schema.Described(schema.Number, "Size bought by aggressors.")},
		{"sellVolume", schema.Described(schema.Number, "Size sold by aggressors.")},
		{"buyVolumeUsd", schema.Number}, {"sellVolumeUsd", schema.Number},
		{"buyPressure", schema.Described(schema.Percent(), "100*buyVolumeUsd/(buyVolumeUsd+sellVolumeUsd); 50 when both are 0.")},
		{"vwap", schema.Described(schema.Number, "Volume-weighted average price.")},
		{"tradeCount", schema.Count}, {"buyCount", schema.Count}, {"sellCount", schema.Count}, {"unknownSideCount", schema.Count},
	})}
	historyNoDataSchema = schema.Named{Name: "HistoryNoDataError", Schema: schema.Object("404 of the history routes: nothing stored matches; not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)},
		{"message", schema.String},
		{"charged", schema.Const(false)},
	})}
)

// historyOK is a 200 with a JSON body and the Arrow IPC alternative.
func historyOK(desc string, body any) api.Response {
	return api.Response{Status: fiber.StatusOK, Desc: desc, Schema: body,
		Content: []api.Content{{Type: ArrowMIME, Schema: schema.Obj{{"type", "string"}, {"contentMediaType", ArrowMIME}}}}}
}

// historyNoData is the 404 of a history route.
func historyNoData(desc string) api.Response {
	return api.JSON(fiber.StatusNotFound, desc, historyNoDataSchema)
}

// sendHistoryNoData answers 404 {"error":"no_data","message":msg,"charged":false}
// (schema HistoryNoDataError).
func sendHistoryNoData(c fiber.Ctx, msg string) error {
	return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, msg)
}

// historyErr answers err of the history store: 404 for ErrNoData, else the
// error (a 500 whose cause is logged).
func historyErr(c fiber.Ctx, err error, msg string) error {
	if errors.Is(err, ErrNoData) {
		return sendHistoryNoData(c, msg)
	}
	return err
}

// wantsArrow reports whether the request accepts an Arrow IPC stream
// (Accept: application/vnd.apache.arrow.stream).
func wantsArrow(c fiber.Ctx) bool {
	return strings.Contains(c.Get(fiber.HeaderAccept), ArrowMIME)
}

// sendCandlesArrow answers the candles as an Arrow IPC stream.
func sendCandlesArrow(c fiber.Ctx, cs []datasets.Candle) error {
	var b strings.Builder
	if err := WriteCandlesArrow(&b, cs); err != nil {
		return err
	}
	c.Status(fiber.StatusOK)
	c.Set(fiber.HeaderContentType, ArrowMIME)
	c.Response().SetBodyString(b.String())
	return nil
}
