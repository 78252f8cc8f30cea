package checkout

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/query/web"
)

// Error codes of the checkout routes (docs/checkout.md).
const (
	codeOff             = "checkout_unavailable"
	codeWebhookOff      = "webhook_unavailable"
	codeUnknownAPIKey   = "unknown_api_key"
	codeProcessor       = "card_processor_unavailable"
	codeUnknownSession  = "unknown_session"
	codeAlreadyShown    = "key_already_shown"
	codeSessionEnded    = "session_ended"
	codeMismatch        = "payment_mismatch"
	codeSignature       = "invalid_signature"
	codeStale           = "stale_event"
	codeInvalidEvent    = "invalid_event"
	codeUnavailable     = "unavailable"
	offMessage          = "card checkout is not configured on this server (no Stripe key); buy credits with x402 at POST /api/v1/credits/buy/{pack} (docs/credits.md)"
	webhookOffMessage   = "the Stripe webhook is not configured on this server (no signing secret); payments are learnt when the buyer returns"
	maxWebhookBodyBytes = 1 << 20
)

var (
	packParam = api.Enum{Name: "pack", In: api.InPath, Required: true, Values: paywall.PackNames(),
		Desc: "Credit pack in USD: 5 (credit 5 USD), 20 (credit 22 USD) or 50 (credit 60 USD)."}
	topUpKeyParam = api.Header{Name: paywall.HeaderAPIKey, Desc: "API key to top up; absent buys a new key, shown once after payment."}
	sessionParam  = api.Text{Name: "sessionId", In: api.InPath, Desc: "The sessionId the checkout answered (Stripe's cs_… id).",
		Schema: schema.Obj{{"type", "string"}, {"pattern", sessionIDShape.String()}}, Check: checkSessionID}
	signatureParam = api.Header{Name: "Stripe-Signature", Required: true, Desc: "Stripe's signature of the body (t=…,v1=…)."}
)

func checkSessionID(raw string) *api.ParamError {
	if !sessionIDShape.MatchString(raw) {
		return &api.ParamError{Param: "sessionId", Message: "sessionId must be a Stripe Checkout Session id (cs_test_… or cs_live_…)", Range: sessionIDShape.String()}
	}
	return nil
}

// The bodies of the checkout routes.
var (
	checkoutSchema = schema.Named{Name: "CardCheckout", Schema: schema.Object("A card payment page opened for a credit pack (docs/checkout.md).", schema.Obj{
		{"url", schema.Described(schema.String, "The card payment page (Stripe Checkout) to send the person to.")},
		{"sessionId", schema.Described(schema.String, "The checkout session; GET /api/v1/credits/checkout/session/{sessionId} answers the key after payment.")},
		{"sessionUrl", schema.Described(schema.String, "That route, absolute.")},
		{"successUrl", schema.Described(schema.String, "The page the payment page returns to; it shows the key once.")},
		{"pack", schema.Enum(paywall.PackNames()...)},
		{"priceUsd", schema.Described(schema.String, "Price, decimal USD.")},
		{"creditUsd", schema.Described(schema.String, "Credit granted when paid, decimal USD.")},
		{"creditMicroUsd", schema.Count},
		{"topUp", schema.Described(schema.Bool, "True when the pack tops up the key sent in X-API-Key; false buys a new key.")},
		{"expiresAt", schema.Described(schema.NullableDateTime, "When the payment page expires.")},
	})}
	sessionSchema = schema.Named{Name: "CardCheckoutSession", Schema: schema.Object("State of a card checkout (docs/checkout.md).", schema.Obj{
		{"sessionId", schema.String},
		{"pack", schema.Enum(paywall.PackNames()...)},
		{"status", schema.Described(schema.Enum(ledger.CheckoutOpen, ledger.CheckoutPaid, ledger.CheckoutExpired, ledger.CheckoutFailed),
			"open: not paid yet; paid: the credit is granted; expired or failed: ended unpaid.")},
		{"topUp", schema.Described(schema.Bool, "The pack tops up an existing key: there is no key to show.")},
		{"apiKey", schema.Described(schema.Obj{{"type", []string{"string", "null"}}, {"pattern", "^" + ledger.KeyPrefix + "[0-9a-f]{64}$"}},
			"The new API key, in this answer only (the first call after payment, unless the success page showed it first); null otherwise.")},
		{"keyShownVia", schema.Described(schema.Obj{{"type", []string{"string", "null"}}, {"enum", []any{ledger.ShownOnPage, ledger.ShownByAPI, nil}}},
			"Where the new key was shown: page (the success page) or api (this route); null before.")},
		{"keyShownAt", schema.NullableDateTime},
		{"creditUsd", schema.Described(schema.String, "Credit of the pack, decimal USD.")},
		{"creditMicroUsd", schema.Count},
		{"message", schema.Described(schema.String, "What the state means for the buyer.")},
	})}
	webhookBodySchema = schema.Named{Name: "StripeEvent", Schema: schema.Object("A Stripe event, as Stripe sends it (https://docs.stripe.com/api/events/object).", schema.Obj{
		{"id", schema.String}, {"object", schema.Const("event")}, {"type", schema.String},
		{"data", schema.Object("", schema.Obj{{"object", schema.Obj{{"type", "object"}}}})},
	})}
	webhookAnswerSchema = schema.Named{Name: "StripeEventReceipt", Schema: schema.Object("Answer to Stripe.", schema.Obj{
		{"received", schema.Const(true)},
		{"duplicate", schema.Described(schema.Bool, "The event id was handled before: nothing was done again.")},
		{"outcome", schema.Described(schema.String, "What the event did (empty for a duplicate).")},
	})}
	errorSchema = schema.Named{Name: "CardCheckoutError", Schema: schema.Object("Error body of the checkout routes; never charged.", schema.Obj{
		{"error", schema.Enum(codeOff, codeWebhookOff, codeUnknownAPIKey, codeProcessor, codeUnknownSession, codeMismatch,
			codeSignature, codeStale, codeInvalidEvent, codeUnavailable)},
		{"message", schema.String},
		{"charged", schema.Const(false)},
	})}
)

// Operations declares the checkout routes and pages: free, without MCP
// tools (a person pays on a web page; a model has no card).
func (k *Checkout) Operations() []api.Operation {
	const noTool = "a person pays by card on a web page; a model's client buys credits with x402 (docs/checkout.md)"
	offResp := api.JSON(fiber.StatusNotFound, "Card checkout is not configured on this server (checkout_unavailable).", errorSchema)
	return []api.Operation{
		{
			Method: fiber.MethodPost, Path: createPath, ID: "createCardCheckout", Free: true,
			Summary: "Open a card payment page (Stripe Checkout) for a credit pack: a new API key shown once after payment, or with X-API-Key a top-up of that key.",
			Params:  []api.Param{packParam, topUpKeyParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The payment page to send the person to.", checkoutSchema),
				{Status: fiber.StatusSeeOther, Desc: "For a browser (Accept: text/html): a redirect to the payment page.",
					Headers: schema.Obj{{"Location", schema.Obj{{"schema", schema.String}}}}, Content: []api.Content{{Type: "text/plain", Schema: schema.String}}},
				api.JSON(fiber.StatusUnauthorized, "X-API-Key is not a key of this service (unknown_api_key).", errorSchema),
				offResp,
				api.JSON(fiber.StatusBadGateway, "Stripe did not answer (card_processor_unavailable).", errorSchema),
			},
			NoTool:  noTool,
			Handler: k.handleCreate,
		},
		{
			Method: fiber.MethodGet, Path: sessionPath, ID: "getCardCheckoutSession", Free: true,
			Summary: "State of a card checkout; the first call after payment answers the new API key (unless the success page showed it first).",
			Params:  []api.Param{sessionParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "Paid: the new key (this once), or the top-up done.", sessionSchema),
				api.JSON(fiber.StatusAccepted, "Not paid yet: ask again after the payment.", sessionSchema),
				api.JSON(fiber.StatusGone, "The key was already shown (key_already_shown), or the session ended unpaid (session_ended).", sessionSchema),
				api.JSON(fiber.StatusNotFound, "No checkout session of this server has that id (unknown_session), or card checkout is off (checkout_unavailable).", errorSchema),
				api.JSON(fiber.StatusConflict, "Stripe reports a payment that does not match the pack (payment_mismatch).", errorSchema),
				api.JSON(fiber.StatusBadGateway, "Stripe did not answer (card_processor_unavailable).", errorSchema),
			},
			NoTool:  noTool,
			Handler: k.handleSession,
		},
		{
			Method: fiber.MethodPost, Path: webhookPath, ID: "receiveStripeEvent", Free: true,
			Summary: "Stripe's webhook: signed events about checkout sessions, refunds and disputes, each handled once.",
			Params:  []api.Param{signatureParam},
			Body:    &api.Body{Schema: webhookBodySchema, Fields: []string{"body"}},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "Handled, or handled before (duplicate).", webhookAnswerSchema),
				api.JSON(fiber.StatusBadRequest, "Unsigned, wrongly signed (invalid_signature), older than 5 minutes (stale_event) or not an event (invalid_event): nothing done.", errorSchema),
				api.JSON(fiber.StatusNotFound, "No webhook signing secret is configured (webhook_unavailable), or card checkout is off.", errorSchema),
				api.JSON(fiber.StatusConflict, "A payment that does not match its pack (payment_mismatch): nothing granted; Stripe retries.", errorSchema),
				api.JSON(fiber.StatusRequestEntityTooLarge, "A body over 1 MiB (invalid_event): nothing done.", errorSchema),
			},
			NoTool:  "Stripe's server calls it",
			Handler: k.handleWebhook,
		},
		k.pageOperation(),
		k.successOperation(),
	}
}

func sendError(c fiber.Ctx, status int, code, msg string) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return api.SendError(c, status, code, msg)
}

// checkoutBody is the CardCheckout schema.
type checkoutBody struct {
	URL            string  `json:"url"`
	SessionID      string  `json:"sessionId"`
	SessionURL     string  `json:"sessionUrl"`
	SuccessURL     string  `json:"successUrl"`
	Pack           string  `json:"pack"`
	PriceUSD       string  `json:"priceUsd"`
	CreditUSD      string  `json:"creditUsd"`
	CreditMicroUSD int64   `json:"creditMicroUsd"`
	TopUp          bool    `json:"topUp"`
	ExpiresAt      *string `json:"expiresAt"`
}

// handleCreate serves POST /api/v1/credits/checkout/{pack}.
func (k *Checkout) handleCreate(c fiber.Ctx) error {
	if !k.Enabled() {
		return sendError(c, fiber.StatusNotFound, codeOff, offMessage)
	}
	p := pack(packParam.Get(c))
	key := strings.Clone(topUpKeyParam.Get(c))
	if key != "" {
		if _, err := k.c.Ledger.KeyAccount(c.Context(), key); errors.Is(err, ledger.ErrUnknownKey) {
			return sendError(c, fiber.StatusUnauthorized, codeUnknownAPIKey, "X-API-Key is not a key of this service; send no X-API-Key to buy a new key")
		} else if err != nil {
			return err
		}
	}
	s, err := k.openSession(c.Context(), p, key)
	switch {
	case errors.Is(err, errProcessor):
		k.c.Logger.Error("cannot open a card checkout", "pack", p.Name, "err", err)
		return sendError(c, fiber.StatusBadGateway, codeProcessor, "the card processor did not answer; try again, or buy credits with x402")
	case errors.Is(err, ledger.ErrUnknownKey):
		return sendError(c, fiber.StatusUnauthorized, codeUnknownAPIKey, "X-API-Key is not a key of this service; send no X-API-Key to buy a new key")
	case err != nil:
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	if web.WantsHTML(c.Get(fiber.HeaderAccept)) {
		return c.Redirect().Status(fiber.StatusSeeOther).To(s.URL)
	}
	body := checkoutBody{
		URL: s.URL, SessionID: s.ID, SessionURL: k.public + strings.Replace(sessionPath, ":sessionId", s.ID, 1),
		SuccessURL: k.public + successPath + "?session_id=" + s.ID, Pack: p.Name,
		PriceUSD: web.USD(p.PriceMicroUSD), CreditUSD: web.USD(p.CreditMicroUSD), CreditMicroUSD: p.CreditMicroUSD, TopUp: key != "",
	}
	if s.ExpiresAt > 0 {
		t := time.Unix(s.ExpiresAt, 0).UTC().Format(time.RFC3339)
		body.ExpiresAt = &t
	}
	return api.SendValue(c, fiber.StatusOK, body)
}

// sessionBody is the CardCheckoutSession schema.
type sessionBody struct {
	SessionID      string  `json:"sessionId"`
	Pack           string  `json:"pack"`
	Status         string  `json:"status"`
	TopUp          bool    `json:"topUp"`
	APIKey         *string `json:"apiKey"`
	KeyShownVia    *string `json:"keyShownVia"`
	KeyShownAt     *string `json:"keyShownAt"`
	CreditUSD      string  `json:"creditUsd"`
	CreditMicroUSD int64   `json:"creditMicroUsd"`
	Message        string  `json:"message"`
}

func newSessionBody(s ledger.Checkout, key, msg string) sessionBody {
	b := sessionBody{SessionID: s.SessionID, Pack: s.Pack, Status: s.Status, TopUp: s.TopUp,
		CreditUSD: web.USD(s.CreditMicroUSD), CreditMicroUSD: s.CreditMicroUSD, Message: msg}
	if key != "" {
		b.APIKey = &key
	}
	if s.ShownVia != "" {
		via, at := s.ShownVia, s.ShownAt.UTC().Format(time.RFC3339)
		b.KeyShownVia, b.KeyShownAt = &via, &at
	}
	return b
}

// shownWhere says where a key was shown, for people.
func shownWhere(via string) string {
	if via == ledger.ShownOnPage {
		return "on the success page"
	}
	return "by GET /api/v1/credits/checkout/session/{sessionId}"
}

// handleSession serves GET /api/v1/credits/checkout/session/{sessionId}.
func (k *Checkout) handleSession(c fiber.Ctx) error {
	if !k.Enabled() {
		return sendError(c, fiber.StatusNotFound, codeOff, offMessage)
	}
	id := strings.Clone(sessionParam.Get(c))
	s, key, err := k.reveal(c.Context(), id, ledger.ShownByAPI)
	c.Set(fiber.HeaderCacheControl, "no-store")
	switch {
	case errors.Is(err, ledger.ErrUnknownCheckout):
		return sendError(c, fiber.StatusNotFound, codeUnknownSession, "no card checkout of this server has that session id")
	case errors.Is(err, errProcessor):
		return sendError(c, fiber.StatusBadGateway, codeProcessor, "the card processor did not answer; ask again")
	case errors.Is(err, ledger.ErrCheckoutMismatch):
		return sendError(c, fiber.StatusConflict, codeMismatch, "the payment Stripe reports does not match the pack; the operator was told")
	case errors.Is(err, ledger.ErrKeyAlreadyShown):
		return api.SendValue(c, fiber.StatusGone, newSessionBody(s, "",
			"the key of this purchase was already shown "+shownWhere(s.ShownVia)+" at "+s.ShownAt.UTC().Format(time.RFC3339)+"; it is stored only as a hash and cannot be shown again"))
	case errors.Is(err, ledger.ErrCheckoutUnpaid) && s.Status == ledger.CheckoutOpen:
		return api.SendValue(c, fiber.StatusAccepted, newSessionBody(s, "", "not paid yet; ask again after the payment"))
	case errors.Is(err, ledger.ErrCheckoutUnpaid):
		return api.SendValue(c, fiber.StatusGone, newSessionBody(s, "", "the checkout ended unpaid ("+s.Status+"); nothing was charged"))
	case err != nil:
		return err
	}
	if s.TopUp {
		return api.SendValue(c, fiber.StatusOK, newSessionBody(s, "", "paid: "+web.USD(s.CreditMicroUSD)+" USD was added to the key sent when the checkout was opened"))
	}
	k.c.Logger.Info("card checkout key shown", "session", id, "via", ledger.ShownByAPI)
	return api.SendValue(c, fiber.StatusOK, newSessionBody(s, key,
		"paid: this is the new API key holding "+web.USD(s.CreditMicroUSD)+" USD; it is shown this once, keep it (send it in X-API-Key)"))
}

// webhookAnswer is the StripeEventReceipt schema.
type webhookAnswer struct {
	Received  bool   `json:"received"`
	Duplicate bool   `json:"duplicate"`
	Outcome   string `json:"outcome"`
}

// handleWebhook serves POST /api/v1/credits/checkout/webhook: it verifies
// Stripe-Signature with the library (HMAC of the timestamp and the body
// with the signing secret; a timestamp older than the tolerance is
// refused), then hands the event's one effect to the ledger, which handles
// an event id once.
func (k *Checkout) handleWebhook(c fiber.Ctx) error {
	if !k.Enabled() {
		return sendError(c, fiber.StatusNotFound, codeOff, offMessage)
	}
	if k.c.WebhookSecret == "" {
		return sendError(c, fiber.StatusNotFound, codeWebhookOff, webhookOffMessage)
	}
	payload := c.Body()
	if len(payload) > maxWebhookBodyBytes {
		return sendError(c, fiber.StatusRequestEntityTooLarge, codeInvalidEvent, "the event is larger than 1 MiB")
	}
	ev, err := webhook.ConstructEventWithOptions(payload, c.Get("Stripe-Signature"), k.c.WebhookSecret,
		webhook.ConstructEventOptions{Tolerance: k.c.Tolerance, IgnoreAPIVersionMismatch: true})
	switch {
	case errors.Is(err, webhook.ErrTooOld):
		k.c.Logger.Warn("Stripe event refused: stale signature", "tolerance", k.c.Tolerance)
		return sendError(c, fiber.StatusBadRequest, codeStale, "the signature's timestamp is older than "+k.c.Tolerance.String()+"; nothing was done")
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader), errors.Is(err, webhook.ErrNoValidSignature):
		k.c.Logger.Warn("Stripe event refused: bad signature", "err", err)
		return sendError(c, fiber.StatusBadRequest, codeSignature, "Stripe-Signature does not sign this body with the endpoint's secret; nothing was done")
	case err != nil:
		return sendError(c, fiber.StatusBadRequest, codeInvalidEvent, "the body is not a Stripe event; nothing was done")
	}
	se, err := ledgerEvent(ev, k.c.Now())
	if err != nil {
		return sendError(c, fiber.StatusBadRequest, codeInvalidEvent, err.Error())
	}
	outcome, err := k.c.Ledger.ApplyStripeEvent(c.Context(), se)
	switch {
	case errors.Is(err, ledger.ErrDuplicateEvent):
		k.c.Logger.Info("Stripe event handled before", "event", ev.ID, "type", ev.Type)
		return api.SendValue(c, fiber.StatusOK, webhookAnswer{Received: true, Duplicate: true})
	case errors.Is(err, ledger.ErrCheckoutMismatch):
		k.c.Logger.Error("Stripe reports a payment that does not match its checkout", "event", ev.ID, "session", se.ObjectID, "err", err)
		return sendError(c, fiber.StatusConflict, codeMismatch, "the payment does not match the checkout session's pack; nothing was granted")
	case err != nil:
		return err
	}
	k.c.Logger.Info("Stripe event handled", "event", ev.ID, "type", ev.Type, "object", se.ObjectID, "outcome", outcome)
	return api.SendValue(c, fiber.StatusOK, webhookAnswer{Received: true, Outcome: outcome})
}
