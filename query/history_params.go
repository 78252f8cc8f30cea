package query

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
)

// Parameters and bounds of the history routes (docs/history.md).
const (
	defaultCandleLimit = 60
	maxCandleLimit     = 1000
	earliestHistory    = "2020-01-01"
)

func init() {
	registerParameterNames("interval", "date", "format", "from", "to", "signals", "minConfidence",
		"minBaselineSamples", "start", "end", "persist", "days")
}

// sendHistoryNoData answers 404 {"error":"no_data","message":msg,"charged":false}
// (schema HistoryNoDataError).
func sendHistoryNoData(c fiber.Ctx, msg string) error {
	return sendRendered(c, fiber.StatusNotFound, func(b []byte) []byte { return appendErrorBody(b, codeNoData, msg) })
}

// historyErr answers err of the history store: 404 for ErrNoData, else the
// error (a 500 whose cause is logged).
func historyErr(c fiber.Ctx, err error, msg string) error {
	if errors.Is(err, history.ErrNoData) {
		return sendHistoryNoData(c, msg)
	}
	return err
}

// parseInterval validates interval: one of datasets.Intervals, default 1m.
func parseInterval(raw string) (string, *paramError) {
	if raw == "" {
		return datasets.Interval1m, nil
	}
	for _, iv := range datasets.Intervals {
		if raw == iv {
			return iv, nil
		}
	}
	return "", &paramError{param: "interval", message: "interval must be one of 1m, 5m, 15m, 1h", acceptedList: datasets.Intervals}
}

// parseEnum validates a parameter against accepted values; empty means def.
func parseEnum(name, raw, def string, accepted []string) (string, *paramError) {
	if raw == "" {
		return def, nil
	}
	for _, a := range accepted {
		if raw == a {
			return a, nil
		}
	}
	return "", &paramError{param: name, message: name + " must be one of " + strings.Join(accepted, ", "), acceptedList: accepted}
}

// parseDay validates a UTC day YYYY-MM-DD from earliestHistory to today
// (by now); empty means yesterday.
func parseDay(name, raw string, now time.Time) (string, *paramError) {
	today := datasets.Day(now)
	if raw == "" {
		return datasets.Day(now.AddDate(0, 0, -1)), nil
	}
	r := "UTC day YYYY-MM-DD from " + earliestHistory + " to " + today
	t, err := time.Parse(datasets.DateFormat, raw)
	if err != nil || len(raw) != 10 || raw < earliestHistory || raw > today {
		return "", &paramError{param: name, message: name + " must be a " + r, acceptedRange: r}
	}
	return datasets.Day(t), nil
}

// parseInstant validates an ISO-8601 date-time (RFC 3339, e.g.
// 2026-01-05T00:00:00Z; an offset is converted to UTC) or a UTC day
// (midnight), from earliestHistory to one day after now. Empty means def
// when def is not zero, and a missing required parameter otherwise.
func parseInstant(name, raw string, now, def time.Time) (time.Time, *paramError) {
	r := "ISO-8601 UTC date-time (e.g. 2026-01-05T00:00:00Z) or day YYYY-MM-DD, from " + earliestHistory + " to " +
		now.Add(24*time.Hour).UTC().Format(time.RFC3339)
	bad := &paramError{param: name, message: name + " must be an " + r, acceptedRange: r}
	if raw == "" {
		if def.IsZero() {
			bad.message = name + " is required: an " + r
			return time.Time{}, bad
		}
		return def, nil
	}
	if len(raw) > 40 {
		return time.Time{}, bad
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		t, err = time.Parse(datasets.DateFormat, raw)
	}
	lo, _ := time.Parse(datasets.DateFormat, earliestHistory)
	if err != nil || t.Before(lo) || t.After(now.Add(24*time.Hour)) {
		return time.Time{}, bad
	}
	return t.UTC(), nil
}

// parseBool validates a boolean parameter: true or false, default false.
func parseBool(name, raw string) (bool, *paramError) {
	v, perr := parseEnum(name, raw, "false", []string{"true", "false"})
	return v == "true", perr
}

// wantsArrow reports whether the request accepts an Arrow IPC stream
// (Accept: application/vnd.apache.arrow.stream).
func wantsArrow(c fiber.Ctx) bool {
	return strings.Contains(c.Get(fiber.HeaderAccept), history.ArrowMIME)
}

// sendCandlesArrow answers the candles as an Arrow IPC stream.
func sendCandlesArrow(c fiber.Ctx, cs []datasets.Candle) error {
	var b strings.Builder
	if err := history.WriteCandlesArrow(&b, cs); err != nil {
		return err
	}
	c.Status(fiber.StatusOK)
	c.Set(fiber.HeaderContentType, history.ArrowMIME)
	c.Response().SetBodyString(b.String())
	return nil
}
