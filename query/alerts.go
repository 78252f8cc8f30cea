package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/sinks/alerts"
)

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

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{
			{
				Method: fiber.MethodPost, Path: "/api/v1/alerts/subscriptions", PriceMicroUSD: priceAlertSubscription,
				Summary: "Buy an alert pack (200 signed webhook deliveries, 7 days) for events of symbols; the secret is shown once.",
				Handler: s.handleAlertCreate,
			},
			{
				Method: fiber.MethodGet, Path: "/api/v1/alerts/subscriptions/:id",
				Summary: "Status of an alert subscription (X-Alert-Secret).",
				Handler: s.handleAlertGet,
			},
			{
				Method: fiber.MethodDelete, Path: "/api/v1/alerts/subscriptions/:id",
				Summary: "Cancel an alert subscription (X-Alert-Secret).",
				Handler: s.handleAlertCancel,
			},
			{
				Method: fiber.MethodPost, Path: "/api/v1/alerts/subscriptions/:id/test",
				Summary: "Send a signed test delivery now and report the receiver's answer (X-Alert-Secret).",
				Handler: s.handleAlertTest,
			},
			{
				Method: fiber.MethodPost, Path: "/api/v1/alerts/subscriptions/:id/resume",
				Summary: "Resume a suspended alert subscription (X-Alert-Secret).",
				Handler: s.handleAlertResume,
			},
			{
				Method: fiber.MethodGet, Path: "/api/v1/alerts/subscriptions/:id/events",
				Summary: "Events of the last 14 days for a subscription, with payloads and delivery state (X-Alert-Secret).",
				Handler: s.handleAlertEvents,
			},
		}
	})
	registerParameterNames("body", "url", "events", "categories", "minMateriality", "tokens", "forms", "since")
	registerAlertOpenAPI()
}

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

func subscriptionView(sub alerts.Subscription, secret string) alertSubscriptionView {
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
		LiveEvents: operators.LiveAlertEvents(),
	}
}

func sendAlertJSON(c fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot encode alert response: %w", err)
	}
	return sendJSON(c, status, b)
}

func sendAlertError(c fiber.Ctx, status int, code, msg string) error {
	return sendJSON(c, status, appendErrorBody(nil, code, msg))
}

// alertsReady answers 404 (error unavailable) when the server has no alert
// outbox: the alert resources do not exist on it.
func (s *Server) alertsReady(c fiber.Ctx) bool {
	if s.d.Alerts == nil {
		_ = sendAlertError(c, fiber.StatusNotFound, "unavailable", "alerts are not configured on this server")
		return false
	}
	return true
}

// parseAlertCreate validates a create body field by field.
func (s *Server) parseAlertCreate(ctx context.Context, body []byte) (alerts.NewSubscription, *paramError) {
	var n alerts.NewSubscription
	var b alertCreateBody
	const shape = "a JSON object with url, events and optionally symbols, categories, minMateriality, tokens, forms"
	if len(body) > maxAlertBodyBytes {
		return n, &paramError{param: "body", message: "the body is larger than 16 KiB", acceptedRange: shape}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return n, &paramError{param: "body", message: "the body must be " + shape + ": " + err.Error(), acceptedRange: shape}
	}
	if dec.More() {
		return n, &paramError{param: "body", message: "the body must be one JSON object", acceptedRange: shape}
	}
	// events
	if len(b.Events) == 0 {
		return n, &paramError{param: "events", message: "events must name at least one event", acceptedList: operators.AlertEventNames}
	}
	for _, e := range b.Events {
		if !operators.IsAlertEvent(e) {
			return n, &paramError{param: "events", message: "unknown event " + strconv.Quote(e), acceptedList: operators.AlertEventNames}
		}
		if !slices.Contains(n.Events, e) {
			n.Events = append(n.Events, e)
		}
	}
	// url
	const urlRange = "a public https URL (no loopback, private, link-local, CGNAT or metadata address), at most 2048 characters"
	if b.URL == "" {
		return n, &paramError{param: "url", message: "url is required", acceptedRange: urlRange}
	}
	if err := s.d.Alerts.Safety().CheckURL(ctx, b.URL); err != nil {
		return n, &paramError{param: "url", message: err.Error(), acceptedRange: urlRange}
	}
	n.URL = b.URL
	// symbols
	const symRange = "up to 50 symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
	if len(b.Symbols) > maxAlertSymbols {
		return n, &paramError{param: "symbols", message: "too many symbols", acceptedRange: symRange}
	}
	for _, raw := range b.Symbols {
		sym, perr := parseSymbol(raw)
		if perr != nil {
			return n, &paramError{param: "symbols", message: "bad symbol " + strconv.Quote(raw), acceptedRange: symRange}
		}
		if !slices.Contains(n.Filters.Symbols, sym) {
			n.Filters.Symbols = append(n.Filters.Symbols, sym)
		}
	}
	if slices.Contains(n.Events, operators.AlertSECFiling) && len(n.Filters.Symbols) == 0 {
		return n, &paramError{param: "symbols", message: "sec_filing requires symbols (US tickers)", acceptedRange: symRange}
	}
	// categories
	for _, cat := range b.Categories {
		if !slices.Contains(alertCategories, cat) {
			return n, &paramError{param: "categories", message: "unknown category " + strconv.Quote(cat), acceptedList: alertCategories}
		}
		if !slices.Contains(n.Filters.Categories, cat) {
			n.Filters.Categories = append(n.Filters.Categories, cat)
		}
	}
	// minMateriality
	if b.MinMateriality != nil {
		if *b.MinMateriality < 1 || *b.MinMateriality > 5 {
			return n, &paramError{param: "minMateriality", message: "minMateriality must be an integer from 1 to 5", acceptedRange: "integer 1 to 5, default 4"}
		}
		n.Filters.MinMateriality = *b.MinMateriality
	}
	// tokens
	const tokRange = "up to 5 objects {address, chain}: chain one of base, ethereum, arbitrum, optimism, polygon, solana; address 0x + 40 hex digits on EVM chains, base58 (32 to 44 characters) on solana"
	if len(b.Tokens) > maxAlertTokens {
		return n, &paramError{param: "tokens", message: "at most 5 tokens", acceptedRange: tokRange}
	}
	for _, t := range b.Tokens {
		if !slices.Contains(alertChains, t.Chain) {
			return n, &paramError{param: "tokens", message: "unknown chain " + strconv.Quote(t.Chain), acceptedList: alertChains}
		}
		if t.Chain == "solana" && !solanaAddress.MatchString(t.Address) || t.Chain != "solana" && !evmAddress.MatchString(t.Address) {
			return n, &paramError{param: "tokens", message: "bad " + t.Chain + " address " + strconv.Quote(t.Address), acceptedRange: tokRange}
		}
		if t.Chain != "solana" {
			t.Address = strings.ToLower(t.Address)
		}
		n.Filters.Tokens = append(n.Filters.Tokens, t)
	}
	if slices.Contains(n.Events, operators.AlertTokenRiskChange) && len(n.Filters.Tokens) == 0 {
		return n, &paramError{param: "tokens", message: "token_risk_change requires tokens", acceptedRange: tokRange}
	}
	// forms
	for _, f := range b.Forms {
		i := slices.Index(alertForms, f)
		if i < 0 {
			return n, &paramError{param: "forms", message: "unknown form " + strconv.Quote(f), acceptedList: alertForms}
		}
		if !slices.Contains(n.Filters.Forms, alertForms[i]) {
			n.Filters.Forms = append(n.Filters.Forms, alertForms[i])
		}
	}
	return n, nil
}

func (s *Server) handleAlertCreate(c fiber.Ctx) error {
	if !s.alertsReady(c) {
		return nil
	}
	n, perr := s.parseAlertCreate(c.Context(), c.Body())
	if perr != nil {
		return sendParamError(c, perr)
	}
	if p, ok := PaymentOf(c); ok {
		n.Payer = p.Method
		if p.Payer != "" {
			n.Payer += ":" + p.Payer
		}
	}
	sub, secret, err := s.d.Alerts.Store().Create(c.Context(), n)
	if err != nil {
		return err
	}
	return sendAlertJSON(c, fiber.StatusCreated, subscriptionView(sub, secret))
}

// alertSubscription authenticates the request; it answers 404 itself (the
// same for an unknown id, a wrong secret and no secret) and returns false.
func (s *Server) alertSubscription(c fiber.Ctx) (alerts.Subscription, bool, error) {
	if !s.alertsReady(c) {
		return alerts.Subscription{}, false, nil
	}
	sub, err := s.d.Alerts.Store().Get(c.Context(), c.Params("id"), c.Get(alertSecretHeader))
	if errors.Is(err, alerts.ErrNotFound) {
		return sub, false, sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	}
	if err != nil {
		return sub, false, err
	}
	return sub, true, nil
}

func (s *Server) handleAlertGet(c fiber.Ctx) error {
	sub, ok, err := s.alertSubscription(c)
	if !ok {
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, subscriptionView(sub, ""))
}

func (s *Server) handleAlertCancel(c fiber.Ctx) error {
	if !s.alertsReady(c) {
		return nil
	}
	sub, err := s.d.Alerts.Store().Cancel(c.Context(), c.Params("id"), c.Get(alertSecretHeader))
	if errors.Is(err, alerts.ErrNotFound) {
		return sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	}
	if err != nil {
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, subscriptionView(sub, ""))
}

func (s *Server) handleAlertResume(c fiber.Ctx) error {
	if !s.alertsReady(c) {
		return nil
	}
	sub, err := s.d.Alerts.Store().Resume(c.Context(), c.Params("id"), c.Get(alertSecretHeader))
	switch {
	case errors.Is(err, alerts.ErrNotFound):
		return sendAlertError(c, fiber.StatusNotFound, "not_found", "no subscription with this id and X-Alert-Secret")
	case errors.Is(err, alerts.ErrNotResumable):
		return sendAlertError(c, fiber.StatusConflict, "not_resumable", "the subscription is "+sub.Status+"; subscribe again for a new pack")
	case err != nil:
		return err
	}
	return sendAlertJSON(c, fiber.StatusOK, subscriptionView(sub, ""))
}

func (s *Server) handleAlertTest(c fiber.Ctx) error {
	sub, ok, err := s.alertSubscription(c)
	if !ok {
		return err
	}
	if sub.Status == alerts.StatusCancelled || sub.Status == alerts.StatusExpired {
		return sendAlertError(c, fiber.StatusConflict, "not_resumable", "the subscription is "+sub.Status)
	}
	res, err := s.d.Alerts.SendTest(c.Context(), sub)
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
func parseSince(raw string, now time.Time) (time.Time, *paramError) {
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
	return time.Time{}, &paramError{param: "since", message: "since must be " + r, acceptedRange: r}
}

func (s *Server) handleAlertEvents(c fiber.Ctx) error {
	if !s.alertsReady(c) {
		return nil
	}
	since, perr := parseSince(c.Query("since"), s.d.Alerts.Store().Now())
	if perr != nil {
		return sendParamError(c, perr)
	}
	limit, perr := parseLimit(c.Query("limit"), defaultAlertLimit, maxAlertLimit)
	if perr != nil {
		return sendParamError(c, perr)
	}
	sub, ok, err := s.alertSubscription(c)
	if !ok {
		return err
	}
	ds, err := s.d.Alerts.Store().EventsSince(c.Context(), sub, since, limit)
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
	if sub, err = s.d.Alerts.Store().Get(c.Context(), sub.ID, c.Get(alertSecretHeader)); err != nil {
		return err
	}
	out.Status, out.DeliveriesLeft = sub.Status, sub.DeliveriesLeft
	return sendAlertJSON(c, fiber.StatusOK, out)
}
