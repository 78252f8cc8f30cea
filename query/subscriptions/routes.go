// Package subscriptions serves the alert subscription routes (spec §4.8,
// §5.4, §6; docs/alerts.md): buying a pack of signed webhook deliveries,
// and managing it with its secret. The subscriptions, the outbox and the
// webhook dispatcher are package sinks/alerts; this package is their HTTP
// face.
package subscriptions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/sinks/alerts"
)

// Routes serve the alert subscriptions of one dispatcher.
type Routes struct {
	alerts *alerts.Dispatcher
	live   *operators.LiveEvents
}

// New returns the alert routes over d; nil answers 404 (unavailable) on
// every route: the alert resources do not exist on this server. A
// subscription may name only the events of live (those whose detector
// runs in this instance); nil: none.
func New(d *alerts.Dispatcher, live *operators.LiveEvents) *Routes {
	return &Routes{alerts: d, live: live}
}

// Alert routes (spec §4.8, §5.4, §6; docs/alerts.md).
const (
	priceAlertSubscription = 500_000 // 0.50 USD per pack of 200 deliveries, 7 days

	alertSecretHeader = "X-Alert-Secret"

	maxAlertSymbols   = 50
	maxAlertTokens    = 5
	maxAlertBodyBytes = 16 << 10
	defaultAlertLimit = 100
	maxAlertLimit     = 1000
)

// Accepted values of the subscription filters (spec §6).
var (
	alertCategories = []string{"crypto", "stocks", "europe", "policy", "filings"}
	alertChains     = []string{"base", "ethereum", "arbitrum", "optimism", "polygon", "solana"}
	alertForms      = []string{"4", "8-K", "144", "13D", "13G", "10-Q", "10-K", "S-1", "DEF 14A"}
	evmAddress      = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	solanaAddress   = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`)
)

// time0 is a clock for checking since, whose validity does not depend on
// the time (the default does).
var time0 = time.Time{}

// alertCreateBody is the body of POST /api/v1/alerts/subscriptions.
type alertCreateBody struct {
	URL            string         `json:"url"`
	Events         []string       `json:"events"`
	Symbols        []string       `json:"symbols"`
	Categories     []string       `json:"categories"`
	MinMateriality *int           `json:"minMateriality"`
	Tokens         []alerts.Token `json:"tokens"`
	Forms          []string       `json:"forms"`
}

// alertSubscriptionView is the JSON of a subscription.
type alertSubscriptionView struct {
	ID                  string         `json:"id"`
	Secret              string         `json:"secret,omitempty"`
	Status              string         `json:"status"`
	URL                 string         `json:"url"`
	Events              []string       `json:"events"`
	Symbols             []string       `json:"symbols"`
	Categories          []string       `json:"categories"`
	MinMateriality      int            `json:"minMateriality"`
	Tokens              []alerts.Token `json:"tokens"`
	Forms               []string       `json:"forms"`
	DeliveriesLeft      int            `json:"deliveriesLeft"`
	ExpiresAt           time.Time      `json:"expiresAt"`
	CreatedAt           time.Time      `json:"createdAt"`
	ConsecutiveFailures int            `json:"consecutiveFailures"`
	LiveEvents          []string       `json:"liveEvents"`
}

func (rt *Routes) subscriptionView(sub alerts.Subscription, secret string) alertSubscriptionView {
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	toks := sub.Filters.Tokens
	if toks == nil {
		toks = []alerts.Token{}
	}
	minM := sub.Filters.MinMateriality
	if minM == 0 {
		minM = alerts.DefaultMinMateriality
	}
	return alertSubscriptionView{
		ID: sub.ID, Secret: secret, Status: sub.Status, URL: sub.URL, Events: nz(sub.Events),
		Symbols: nz(sub.Filters.Symbols), Categories: nz(sub.Filters.Categories), MinMateriality: minM,
		Tokens: toks, Forms: nz(sub.Filters.Forms), DeliveriesLeft: sub.DeliveriesLeft,
		ExpiresAt: sub.ExpiresAt, CreatedAt: sub.CreatedAt, ConsecutiveFailures: sub.ConsecutiveFailures,
		LiveEvents: rt.live.Names(),
	}
}

func sendAlertJSON(c fiber.Ctx, status int, v any) error {
	return api.SendValue(c, status, v)
}

func sendAlertError(c fiber.Ctx, status int, code, msg string) error {
	return api.SendError(c, status, code, msg)
}

// alertsReady answers 404 (error unavailable) when the server has no alert
// outbox: the alert resources do not exist on it.
func (rt *Routes) alertsReady(c fiber.Ctx) bool {
	if rt.alerts == nil {
		_ = sendAlertError(c, fiber.StatusNotFound, "unavailable", "alerts are not configured on this server")
		return false
	}
	return true
}

// parseAlertCreate validates a create body field by field.
func (rt *Routes) parseAlertCreate(ctx context.Context, body []byte) (alerts.NewSubscription, *api.ParamError) {
	var n alerts.NewSubscription
	var b alertCreateBody
	const shape = "a JSON object with url, events and optionally symbols, categories, minMateriality, tokens, forms"
	if len(body) > maxAlertBodyBytes {
		return n, &api.ParamError{Param: "body", Message: "the body is larger than 16 KiB", Range: shape}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return n, &api.ParamError{Param: "body", Message: "the body must be " + shape + ": " + err.Error(), Range: shape}
	}
	if dec.More() {
		return n, &api.ParamError{Param: "body", Message: "the body must be one JSON object", Range: shape}
	}
	// events
	if len(b.Events) == 0 {
		return n, &api.ParamError{Param: "events", Message: "events must name at least one event", Accepted: operators.AlertEventNames}
	}
	for _, e := range b.Events {
		if !operators.IsAlertEvent(e) {
			return n, &api.ParamError{Param: "events", Message: "unknown event " + strconv.Quote(e), Accepted: operators.AlertEventNames}
		}
		if !rt.live.Live(e) {
			// A valid event that nothing in this instance detects: selling
			// it would sell deliveries that never come.
			return n, &api.ParamError{Param: "events", Accepted: rt.live.Names(),
				Message: "event " + strconv.Quote(e) + " has no detector running on this server (its data source is not configured); the accepted events are the live ones"}
		}
		if !slices.Contains(n.Events, e) {
			n.Events = append(n.Events, e)
		}
	}
	// url
	const urlRange = "a public https URL (no loopback, private, link-local, CGNAT or metadata address), at most 2048 characters"
	if b.URL == "" {
		return n, &api.ParamError{Param: "url", Message: "url is required", Range: urlRange}
	}
	if err := rt.alerts.Safety().CheckURL(ctx, b.URL); err != nil {
		return n, &api.ParamError{Param: "url", Message: err.Error(), Range: urlRange}
	}
	n.URL = b.URL
	// symbols
	const symRange = "up to 50 symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
	if len(b.Symbols) > maxAlertSymbols {
		return n, &api.ParamError{Param: "symbols", Message: "too many symbols", Range: symRange}
	}
	for _, raw := range b.Symbols {
		sym, perr := api.ParseSymbol(raw)
		if perr != nil {
			return n, &api.ParamError{Param: "symbols", Message: "bad symbol " + strconv.Quote(raw), Range: symRange}
		}
		if !slices.Contains(n.Filters.Symbols, sym) {
			n.Filters.Symbols = append(n.Filters.Symbols, sym)
		}
	}
	if slices.Contains(n.Events, operators.AlertSECFiling) && len(n.Filters.Symbols) == 0 {
		return n, &api.ParamError{Param: "symbols", Message: "sec_filing requires symbols (US tickers)", Range: symRange}
	}
	// categories
	for _, cat := range b.Categories {
		if !slices.Contains(alertCategories, cat) {
			return n, &api.ParamError{Param: "categories", Message: "unknown category " + strconv.Quote(cat), Accepted: alertCategories}
		}
		if !slices.Contains(n.Filters.Categories, cat) {
			n.Filters.Categories = append(n.Filters.Categories, cat)
		}
	}
	// minMateriality
	if b.MinMateriality != nil {
		if *b.MinMateriality < 1 || *b.MinMateriality > 5 {
			return n, &api.ParamError{Param: "minMateriality", Message: "minMateriality must be an integer from 1 to 5", Range: "integer 1 to 5, default 4"}
		}
		n.Filters.MinMateriality = *b.MinMateriality
	}
	// tokens
	const tokRange = "up to 5 objects {address, chain}: chain one of base, ethereum, arbitrum, optimism, polygon, solana; address 0x + 40 hex digits on EVM chains, base58 (32 to 44 characters) on solana"
	if len(b.Tokens) > maxAlertTokens {
		return n, &api.ParamError{Param: "tokens", Message: "at most 5 tokens", Range: tokRange}
	}
	for _, t := range b.Tokens {
		if !slices.Contains(alertChains, t.Chain) {
			return n, &api.ParamError{Param: "tokens", Message: "unknown chain " + strconv.Quote(t.Chain), Accepted: alertChains}
		}
		if t.Chain == "solana" && !solanaAddress.MatchString(t.Address) || t.Chain != "solana" && !evmAddress.MatchString(t.Address) {
			return n, &api.ParamError{Param: "tokens", Message: "bad " + t.Chain + " address " + strconv.Quote(t.Address), Range: tokRange}
		}
		if t.Chain != "solana" {
			t.Address = strings.ToLower(t.Address)
		}
		n.Filters.Tokens = append(n.Filters.Tokens, t)
	}
	if slices.Contains(n.Events, operators.AlertTokenRiskChange) && len(n.Filters.Tokens) == 0 {
		return n, &api.ParamError{Param: "tokens", Message: "token_risk_change requires tokens", Range: tokRange}
	}
	// forms
	for _, f := range b.Forms {
		i := slices.Index(alertForms, f)
		if i < 0 {
			return n, &api.ParamError{Param: "forms", Message: "unknown form " + strconv.Quote(f), Accepted: alertForms}
		}
		if !slices.Contains(n.Filters.Forms, alertForms[i]) {
			n.Filters.Forms = append(n.Filters.Forms, alertForms[i])
		}
	}
	return n, nil
}

// parsedCreate is the request local where checkAlertCreate keeps the
// parsed body for handleAlertCreate.
type parsedCreate struct{}

// checkAlertCreate validates the create body before the paywall (the
// operation's Body.Check): an invalid body, or one naming an event that is
// not live here, is answered 400 without charging. Without an outbox it
// leaves the 404 to the handler.
func (rt *Routes) checkAlertCreate(c fiber.Ctx) *api.ParamError {
	if rt.alerts == nil {
		return nil
	}
	n, perr := rt.parseAlertCreate(c.Context(), c.Body())
	if perr == nil {
		c.Locals(parsedCreate{}, n)
	}
	return perr
}

func (rt *Routes) handleAlertCreate(c fiber.Ctx) error {
	if !rt.alertsReady(c) {
		return nil
	}
	n, ok := c.Locals(parsedCreate{}).(alerts.NewSubscription)
	if !ok {
		var perr *api.ParamError
		if n, perr = rt.parseAlertCreate(c.Context(), c.Body()); perr != nil {
			return api.SendParamError(c, perr)
		}
	}
	if p, ok := api.PaymentOf(c); ok {
		n.Payer = p.Method
		if p.Payer != "" {
			n.Payer += ":" + p.Payer
		}
	}
	sub, secret, err := rt.alerts.Store().Create(c.Context(), n)
	if err != nil {
		return err
	}
	return sendAlertJSON(c, fiber.StatusCreated, rt.subscriptionView(sub, secret))
}

// alertSubscription authenticates the request; it answers 404 itself (the
// same for an unknown id, a wrong secret and no secret) and returns false.
func (rt *Routes) alertSubscription(c fiber.Ctx) (alerts.Subscription, bool, error) {
	if !rt.alertsReady(c) {
		return alerts.Subscription{}, false, nil
	}
	sub, err := rt.alerts.Store().Get(c.Context(), alertIDParam.Get(c), alertSecretParam.Get(c))
	if errors.Is(err, alerts.ErrNotFound) {
		return sub, false, sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	}
	if err != nil {
		return sub, false, err
	}
	return sub, true, nil
}

func (rt *Routes) handleAlertGet(c fiber.Ctx) error {
	sub, ok, err := rt.alertSubscription(c)
	if !ok {
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, rt.subscriptionView(sub, ""))
}

func (rt *Routes) handleAlertCancel(c fiber.Ctx) error {
	if !rt.alertsReady(c) {
		return nil
	}
	sub, err := rt.alerts.Store().Cancel(c.Context(), alertIDParam.Get(c), alertSecretParam.Get(c))
	if errors.Is(err, alerts.ErrNotFound) {
		return sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	}
	if err != nil {
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, rt.subscriptionView(sub, ""))
}

func (rt *Routes) handleAlertResume(c fiber.Ctx) error {
	if !rt.alertsReady(c) {
		return nil
	}
	sub, err := rt.alerts.Store().Resume(c.Context(), alertIDParam.Get(c), alertSecretParam.Get(c))
	switch {
	case errors.Is(err, alerts.ErrNotFound):
		return sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	case errors.Is(err, alerts.ErrNotResumable):
		return sendAlertError(c, fiber.StatusConflict, "not_resumable", "the subscription is "+sub.Status+"; subscribe again for a new pack")
	case err != nil:
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, rt.subscriptionView(sub, ""))
}

func (rt *Routes) handleAlertTest(c fiber.Ctx) error {
	sub, ok, err := rt.alertSubscription(c)
	if !ok {
		return err
	}
	if sub.Status == alerts.StatusCancelled || sub.Status == alerts.StatusExpired {
		return sendAlertError(c, fiber.StatusConflict, "not_resumable", "the subscription is "+sub.Status)
	}
	res, err := rt.alerts.SendTest(c.Context(), sub)
	if err != nil {
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, res)
}

// alertEventView is one event of the events route.
type alertEventView struct {
	DeliveryID    string          `json:"deliveryId"`
	EventID       string          `json:"eventId"`
	Event         string          `json:"event"`
	Symbol        string          `json:"symbol"`
	OccurredAt    time.Time       `json:"occurredAt"`
	Data          json.RawMessage `json:"data"`
	State         string          `json:"state"`
	Attempts      int             `json:"attempts"`
	LastAttemptAt *time.Time      `json:"lastAttemptAt"`
	LastStatus    *int            `json:"lastStatus"`
	DeliveredAt   *time.Time      `json:"deliveredAt"`
}

// parseSince reads since: RFC 3339 or Unix seconds; empty means 14 days ago.
func parseSince(raw string, now time.Time) (time.Time, *api.ParamError) {
	const r = "an RFC 3339 time (2026-03-02T10:00:00Z) or Unix seconds; events older than 14 days are gone"
	if raw == "" {
		return now.Add(-alerts.EventRetention), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil && n >= 0 && n < 1<<40 {
		return time.Unix(n, 0), nil
	}
	return time.Time{}, &api.ParamError{Param: "since", Message: "since must be " + r, Range: r}
}

func (rt *Routes) handleAlertEvents(c fiber.Ctx) error {
	if !rt.alertsReady(c) {
		return nil
	}
	since, perr := parseSince(alertSinceParam.Get(c), rt.alerts.Store().Now())
	if perr != nil {
		panic("BUG: since passed its check and failed its parse: " + perr.Message)
	}
	limit := int(alertLimitParam.Get(c))
	sub, ok, err := rt.alertSubscription(c)
	if !ok {
		return err
	}
	ds, err := rt.alerts.Store().EventsSince(c.Context(), sub, since, limit)
	if err != nil {
		return err
	}
	out := struct {
		SubscriptionID string           `json:"subscriptionId"`
		Status         string           `json:"status"`
		DeliveriesLeft int              `json:"deliveriesLeft"`
		Since          time.Time        `json:"since"`
		Events         []alertEventView `json:"events"`
	}{SubscriptionID: sub.ID, Since: since.UTC(), Events: []alertEventView{}}
	for _, d := range ds {
		v := alertEventView{
			DeliveryID: d.ID, EventID: d.Event.ID, Event: d.Event.Event, Symbol: d.Event.Symbol,
			OccurredAt: d.Event.OccurredAt, Data: d.Event.Data, State: d.State, Attempts: d.Attempts,
		}
		if !d.LastAttemptAt.IsZero() {
			v.LastAttemptAt, v.LastStatus = &d.LastAttemptAt, &d.LastStatus
		}
		if !d.DeliveredAt.IsZero() {
			v.DeliveredAt = &d.DeliveredAt
		}
		out.Events = append(out.Events, v)
	}
	// Read after the hand-out so deliveriesLeft counts it.
	if sub, err = rt.alerts.Store().Get(c.Context(), sub.ID, alertSecretParam.Get(c)); err != nil {
		return err
	}
	out.Status, out.DeliveriesLeft = sub.Status, sub.DeliveriesLeft
	return sendAlertJSON(c, fiber.StatusOK, out)
}
