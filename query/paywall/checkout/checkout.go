// Package checkout sells the credit packs by card through Stripe Checkout
// (spec §4.8; docs/checkout.md): POST /api/v1/credits/checkout/{pack}
// opens a Stripe-hosted payment page; Stripe reports the payment to the
// signed webhook, or the service asks Stripe when the buyer comes back;
// the pack's credit is then granted once (query/paywall/ledger), and a new
// key is created and shown exactly once — on the success page or by GET
// /api/v1/credits/checkout/session/{sessionId}, whichever comes first.
// With X-API-Key the pack tops up that key instead (only the key's hash is
// bound to the session; nothing of the key goes to Stripe). Every route
// answers 404 until a Stripe secret key is configured.
//
// It is part of the payments room: it imports the credit packs of
// query/paywall, the ledger, and the page vocabulary query/web.
package checkout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/web"
)

// Config configures card checkout. The two secrets come from flags or the
// environment (cmd/mi); they are never logged nor answered.
type Config struct {
	// SecretKey is the Stripe secret key (sk_test_…, sk_live_…) or a
	// restricted key (rk_…) allowed to write Checkout Sessions. Empty turns
	// card checkout off: every route answers 404.
	SecretKey string
	// WebhookSecret is the signing secret of the webhook endpoint
	// (whsec_…). Empty turns the webhook route off; payments are then
	// learnt by retrieving the session when the buyer comes back.
	WebhookSecret string
	// APIURL is Stripe's API origin; empty is https://api.stripe.com (the
	// tests point it at stripe-mock).
	APIURL string
	// PublicURL is the service's public origin; the success and cancel
	// pages Stripe sends the buyer back to are under it.
	PublicURL string
	// Ledger records sessions, payments, keys and events.
	Ledger *ledger.SQL
	// Tolerance is how old a webhook signature may be; 0 is 5 minutes.
	Tolerance time.Duration
	// HTTPClient calls Stripe; nil uses one with a 30-second timeout.
	HTTPClient *http.Client
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger receives what happened to payments and events (ids, types,
	// outcomes; never a secret, a key or a payload).
	Logger *slog.Logger
}

// Checkout serves the card checkout routes and pages.
type Checkout struct {
	c      Config
	sc     *stripe.Client
	public string
}

// Off returns card checkout turned off: its routes are declared and answer
// 404 with the reason.
func Off() *Checkout {
	k, err := New(Config{})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return k
}

var (
	secretKeyShape     = regexp.MustCompile(`^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$`)
	webhookSecretShape = regexp.MustCompile(`^whsec_[A-Za-z0-9_+/=]{8,}$`)
	// secretInText finds a Stripe secret in an error text, to redact it.
	secretInText = regexp.MustCompile(`(sk|rk)_(test|live)_[A-Za-z0-9_*]+|whsec_[A-Za-z0-9_+/=*]+`)
)

// New checks c and returns card checkout, off when c has no secret key.
// Errors never contain the secrets.
func New(c Config) (*Checkout, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Tolerance == 0 {
		c.Tolerance = 5 * time.Minute
	}
	k := &Checkout{c: c}
	if c.SecretKey == "" {
		if c.WebhookSecret != "" {
			return nil, errors.New("cannot configure card checkout: a webhook signing secret without a Stripe secret key")
		}
		return k, nil
	}
	if !secretKeyShape.MatchString(c.SecretKey) {
		return nil, errors.New("cannot configure card checkout: the Stripe secret key does not look like sk_test_…, sk_live_… or rk_…")
	}
	if c.WebhookSecret != "" && !webhookSecretShape.MatchString(c.WebhookSecret) {
		return nil, errors.New("cannot configure card checkout: the webhook signing secret does not look like whsec_…")
	}
	if c.Ledger == nil {
		return nil, errors.New("cannot configure card checkout: no ledger")
	}
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("cannot configure card checkout: public URL %q is not an absolute http(s) URL", c.PublicURL)
	}
	k.public = u.Scheme + "://" + u.Host
	if c.APIURL != "" {
		a, err := url.Parse(c.APIURL)
		if err != nil || (a.Scheme != "http" && a.Scheme != "https") || a.Host == "" {
			return nil, fmt.Errorf("cannot configure card checkout: Stripe API URL %q is not an absolute http(s) URL", c.APIURL)
		}
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	cfg := &stripe.BackendConfig{HTTPClient: hc, LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if c.APIURL != "" {
		cfg.URL = stripe.String(strings.TrimRight(c.APIURL, "/"))
	}
	k.sc = stripe.NewClient(c.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
	return k, nil
}

// Enabled reports whether card checkout is on (a Stripe key is
// configured).
func (k *Checkout) Enabled() bool { return k.sc != nil }

// String describes the configuration for logs, without its secrets.
func (k *Checkout) String() string {
	if !k.Enabled() {
		return "card checkout off (no Stripe secret key)"
	}
	mode := "live"
	if strings.Contains(k.c.SecretKey, "_test_") {
		mode = "test"
	}
	api := k.c.APIURL
	if api == "" {
		api = stripe.APIURL
	}
	webhook := "webhook off (payments learnt by retrieval)"
	if k.c.WebhookSecret != "" {
		webhook = "webhook on"
	}
	return "card checkout on (Stripe " + mode + " mode, " + api + ", " + webhook + ", success page " + k.public + successPath + ")"
}

// pack returns the pack of a validated name.
func pack(name string) paywall.Pack {
	for _, p := range paywall.Packs() {
		if p.Name == name {
			return p
		}
	}
	panic("BUG: pack " + name + " passed validation")
}

// cents is a price in micro-USD in US cents.
func cents(micro int64) int64 {
	if micro%10_000 != 0 {
		panic(fmt.Sprintf("BUG: a pack price of %d micro-USD is not whole cents", micro))
	}
	return micro / 10_000
}

// currency of every card payment.
const currency = "usd"

// errProcessor wraps a failed call to Stripe.
var errProcessor = errors.New("the card processor did not answer")

// openSession creates the Stripe Checkout Session of pack p and records it
// (with the hash of topUpKey, when given) in the ledger.
func (k *Checkout) openSession(ctx context.Context, p paywall.Pack, topUpKey string) (*stripe.CheckoutSession, error) {
	name := "Market Intelligence API credit: " + web.USD(p.CreditMicroUSD) + " USD"
	params := &stripe.CheckoutSessionCreateParams{
		Mode:       stripe.String(string(stripe.CheckoutSessionModePayment)),
		SubmitType: stripe.String(string(stripe.CheckoutSessionSubmitTypePay)),
		SuccessURL: stripe.String(k.public + successPath + "?session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:  stripe.String(k.public + pagePath + "?canceled=true"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(currency),
				UnitAmount:  stripe.Int64(cents(p.PriceMicroUSD)),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(name)},
			},
		}},
		// The pack only: the key to top up stays in the ledger, as a hash.
		Metadata: map[string]string{"pack": p.Name, "service": "mi"},
	}
	s, err := k.sc.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errProcessor, redact(err))
	}
	if s.ID == "" || s.URL == "" {
		return nil, fmt.Errorf("%w: the session has no id or no URL", errProcessor)
	}
	err = k.c.Ledger.OpenCheckout(ctx, ledger.NewCheckout{SessionID: s.ID, Pack: p.Name, CreditMicroUSD: p.CreditMicroUSD,
		Amount: cents(p.PriceMicroUSD), Currency: currency, TopUpKey: topUpKey, At: k.c.Now()})
	if err != nil {
		return nil, err
	}
	k.c.Logger.Info("card checkout opened", "session", s.ID, "pack", p.Name, "topUp", topUpKey != "")
	return s, nil
}

// reveal shows the key of a session once (via says where), after asking
// Stripe when the ledger does not know the session paid: the webhook may
// be late, or off.
func (k *Checkout) reveal(ctx context.Context, id, via string) (ledger.Checkout, string, error) {
	c, key, err := k.c.Ledger.RevealCheckoutKey(ctx, id, via, k.c.Now())
	if !errors.Is(err, ledger.ErrCheckoutUnpaid) || c.Status != ledger.CheckoutOpen {
		return c, key, err
	}
	s, serr := k.sc.V1CheckoutSessions.Retrieve(ctx, id, nil)
	if serr != nil {
		k.c.Logger.Warn("cannot retrieve a checkout session from Stripe", "session", id, "err", redact(serr))
		return c, "", fmt.Errorf("%w: %s", errProcessor, redact(serr))
	}
	if s.ID != id {
		return c, "", fmt.Errorf("%w: asked for session %s, got %s", errProcessor, id, s.ID)
	}
	switch {
	case sessionPaid(s):
		_, granted, perr := k.c.Ledger.PayCheckout(ctx, sessionPayment(s, k.c.Now()))
		if perr != nil {
			k.c.Logger.Error("a retrieved checkout payment does not match its session", "session", id, "err", perr)
			return c, "", perr
		}
		if granted {
			k.c.Logger.Info("card checkout paid (retrieved)", "session", id, "pack", c.Pack)
		}
		return k.c.Ledger.RevealCheckoutKey(ctx, id, via, k.c.Now())
	case s.Status == stripe.CheckoutSessionStatusExpired:
		if c, err = k.c.Ledger.CloseCheckout(ctx, id, ledger.CheckoutExpired); err != nil {
			return ledger.Checkout{}, "", err
		}
	}
	return c, "", ledger.ErrCheckoutUnpaid
}

// sessionPaid is Stripe's word that a session is paid: complete, and its
// payment collected (a delayed method is complete but "unpaid" until it
// succeeds).
func sessionPaid(s *stripe.CheckoutSession) bool {
	return s.Status == stripe.CheckoutSessionStatusComplete && s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid
}

func sessionPayment(s *stripe.CheckoutSession, now time.Time) ledger.CheckoutPayment {
	p := ledger.CheckoutPayment{SessionID: s.ID, Amount: s.AmountTotal, Currency: string(s.Currency), At: now}
	if s.PaymentIntent != nil {
		p.PaymentIntent = s.PaymentIntent.ID
	}
	return p
}

// redact is the text of a Stripe error without any secret in it.
func redact(err error) string {
	var se *stripe.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("Stripe %d %s %s: %s (request %s)", se.HTTPStatusCode, se.Type, se.Code,
			secretInText.ReplaceAllString(se.Msg, "[redacted]"), se.RequestID)
	}
	return secretInText.ReplaceAllString(err.Error(), "[redacted]")
}

// sessionIDShape is a Stripe Checkout Session id.
var sessionIDShape = regexp.MustCompile(`^cs_(test|live)_[A-Za-z0-9]{1,250}$`)

// Paths of the checkout routes and pages.
const (
	createPath  = "/api/v1/credits/checkout/:pack"
	sessionPath = "/api/v1/credits/checkout/session/:sessionId"
	webhookPath = "/api/v1/credits/checkout/webhook"
	pagePath    = "/checkout"
	successPath = "/checkout/success"
)
