package checkout

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall/checkout/checkouttest"
	"github.com/marketintel/mi/query/paywall/ledger"
)

// harness is card checkout over a real SQLite ledger, calling stripe-mock.
type harness struct {
	t      *testing.T
	app    *fiber.App
	ledger *ledger.SQL
	k      *Checkout
	logs   *syncBuffer
}

// syncBuffer collects the logs of concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// allLogs gathers the logs of every harness, checked for secrets at the
// end.
var allLogs []*syncBuffer

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	l, err := ledger.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	logs := &syncBuffer{}
	allLogs = append(allLogs, logs)
	cfg.Ledger = l
	if cfg.PublicURL == "" {
		cfg.PublicURL = "https://mi.example"
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	ops := k.Operations()
	if err := api.CheckTable(ops); err != nil {
		t.Fatal(err)
	}
	api.Mount(app, ops, time.Now, nil)
	return &harness{t: t, app: app, ledger: l, k: k, logs: logs}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not JSON: %s", a.status, a.body)
	}
	return m
}

func (h *harness) do(method, path string, header map[string]string, body []byte) answer {
	h.t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := h.app.Test(req, fiber.TestConfig{Timeout: 30 * time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}
}

// open opens a checkout of pack (JSON) and returns its session id.
func (h *harness) open(pack, key string) string {
	h.t.Helper()
	hdr := map[string]string{}
	if key != "" {
		hdr["X-API-Key"] = key
	}
	a := h.do("POST", "/api/v1/credits/checkout/"+pack, hdr, nil)
	if a.status != 200 {
		h.t.Fatalf("checkout of pack %s: %d %s", pack, a.status, a.body)
	}
	id, _ := a.json(h.t)["sessionId"].(string)
	return id
}

// deliver posts a webhook event signed with secret at time at.
func (h *harness) deliver(payload []byte, secret string, at time.Time) answer {
	h.t.Helper()
	return h.do("POST", "/api/v1/credits/checkout/webhook", map[string]string{
		"Stripe-Signature": checkouttest.Sign(payload, secret, at), "Content-Type": "application/json"}, payload)
}

func paidSession(id string, amount int64) checkouttest.Session {
	return checkouttest.Session{ID: id, Status: "complete", PaymentStatus: "paid", AmountTotal: amount, Currency: "usd", PaymentIntent: "pi_" + id}
}

var keyInPage = regexp.MustCompile(`id="api-key" data-figure="api-key">(mi_live_[0-9a-f]{64})<`)

func TestCheckoutAgainstStripeMock(t *testing.T) {
	mock := checkouttest.Start(t, "")
	paidMock := checkouttest.Start(t, checkouttest.PaidFixtures(t, mock, 2000, "usd"))
	cfg := Config{SecretKey: checkouttest.TestKey, WebhookSecret: checkouttest.WebhookSecret, APIURL: mock}
	var shownKeys []string

	t.Run("off without a key", func(t *testing.T) {
		h := newHarness(t, Config{})
		for _, r := range [][2]string{{"POST", "/api/v1/credits/checkout/20"}, {"GET", "/api/v1/credits/checkout/session/cs_test_abc"},
			{"POST", "/api/v1/credits/checkout/webhook"}} {
			a := h.do(r[0], r[1], map[string]string{"Stripe-Signature": "t=1,v1=00"}, nil)
			if a.status != 404 || a.json(t)["error"] != codeOff || !strings.Contains(string(a.body), "x402") {
				t.Errorf("%s %s: %d %s", r[0], r[1], a.status, a.body)
			}
		}
		for _, p := range []string{"/checkout", "/checkout/success?session_id=cs_test_abc"} {
			a := h.do("GET", p, nil, nil)
			if a.status != 404 || !strings.Contains(string(a.body), "Card payment is not configured") {
				t.Errorf("%s: %d %s", p, a.status, a.body)
			}
		}
		if h.k.Enabled() || !strings.Contains(h.k.String(), "off") {
			t.Error(h.k.String())
		}
	})

	t.Run("bad secrets are refused without being echoed", func(t *testing.T) {
		for _, c := range []Config{{SecretKey: "pk_live_notasecret123"}, {SecretKey: checkouttest.TestKey, WebhookSecret: "secret-of-wrong-shape"},
			{WebhookSecret: checkouttest.WebhookSecret}} {
			c.PublicURL = "https://mi.example"
			c.Ledger = &ledger.SQL{}
			_, err := New(c)
			if err == nil || strings.Contains(err.Error(), "notasecret") || strings.Contains(err.Error(), "wrong-shape") {
				t.Errorf("New(%q, %q): %v", c.SecretKey, c.WebhookSecret, err)
			}
		}
	})

	t.Run("create", func(t *testing.T) {
		h := newHarness(t, cfg)
		a := h.do("POST", "/api/v1/credits/checkout/20", nil, nil)
		m := a.json(t)
		id, _ := m["sessionId"].(string)
		if a.status != 200 || !sessionIDShape.MatchString(id) || !strings.HasPrefix(m["url"].(string), "https://checkout.stripe.com/") ||
			m["creditUsd"] != "22" || m["priceUsd"] != "20" || m["topUp"] != false ||
			m["successUrl"] != "https://mi.example/checkout/success?session_id="+id ||
			m["sessionUrl"] != "https://mi.example/api/v1/credits/checkout/session/"+id {
			t.Fatalf("%d %s", a.status, a.body)
		}
		c, err := h.ledger.Checkout(context.Background(), id)
		if err != nil || c.Status != ledger.CheckoutOpen || c.Amount != 2000 || c.CreditMicroUSD != 22_000_000 || c.TopUp {
			t.Fatalf("%+v %v", c, err)
		}
		// A browser's form post is sent on to the payment page.
		a = h.do("POST", "/api/v1/credits/checkout/50", map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}, nil)
		if a.status != 303 || !strings.HasPrefix(a.header.Get("Location"), "https://checkout.stripe.com/") {
			t.Fatalf("browser: %d %v", a.status, a.header)
		}
		a = h.do("POST", "/api/v1/credits/checkout/7", nil, nil)
		if m := a.json(t); a.status != 400 || m["parameter"] != "pack" || len(m["accepted"].([]any)) != 3 {
			t.Fatalf("unknown pack: %d %s", a.status, a.body)
		}
		// The page offers the three packs.
		a = h.do("GET", "/checkout", nil, nil)
		for _, want := range []string{`action="/api/v1/credits/checkout/5"`, `action="/api/v1/credits/checkout/20"`, `action="/api/v1/credits/checkout/50"`,
			`data-figure="price-20">20 USD<`, "60 USD of credit"} {
			if a.status != 200 || !strings.Contains(string(a.body), want) {
				t.Errorf("checkout page lacks %s: %d", want, a.status)
			}
		}
		if a := h.do("GET", "/checkout?canceled=true", nil, nil); !strings.Contains(string(a.body), "nothing was charged") {
			t.Error("the cancel page does not say nothing was charged")
		}
	})

	t.Run("top-up of an unknown key", func(t *testing.T) {
		h := newHarness(t, cfg)
		unknown, _ := ledger.NewKey()
		for _, k := range []string{unknown, "mi_live_bogus"} {
			a := h.do("POST", "/api/v1/credits/checkout/5", map[string]string{"X-API-Key": k}, nil)
			if a.status != 401 || a.json(t)["error"] != codeUnknownAPIKey {
				t.Fatalf("%q: %d %s", k, a.status, a.body)
			}
		}
		var n int
		if err := h.ledger.DB().QueryRow(`SELECT COUNT(*) FROM checkout_sessions`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d sessions recorded for unknown keys (%v)", n, err)
		}
	})

	t.Run("unpaid session", func(t *testing.T) {
		h := newHarness(t, cfg)
		id := h.open("20", "")
		// The ledger knows nothing paid: the route asks stripe-mock, whose
		// session is open and unpaid.
		a := h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
		if m := a.json(t); a.status != 202 || m["status"] != "open" || m["apiKey"] != nil {
			t.Fatalf("%d %s", a.status, a.body)
		}
		a = h.do("GET", "/checkout/success?session_id="+id, nil, nil)
		if a.status != 200 || !strings.Contains(string(a.body), "not confirmed yet") || !strings.Contains(string(a.body), `http-equiv="refresh"`) ||
			a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
		// An event saying the session completed but the payment is pending
		// grants nothing.
		ev := checkouttest.SessionEvent("evt_pending_"+id, "checkout.session.completed",
			checkouttest.Session{ID: id, Status: "complete", PaymentStatus: "unpaid", AmountTotal: 2000, Currency: "usd"})
		if a := h.deliver(ev, checkouttest.WebhookSecret, time.Now()); a.status != 200 || a.json(t)["outcome"] != "ignored: no effect" {
			t.Fatalf("pending payment: %d %s", a.status, a.body)
		}
		if a := h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil); a.status != 202 {
			t.Fatalf("after the pending event: %d %s", a.status, a.body)
		}
		// It succeeds later.
		ev = checkouttest.SessionEvent("evt_async_"+id, "checkout.session.async_payment_succeeded", paidSession(id, 2000))
		if a := h.deliver(ev, checkouttest.WebhookSecret, time.Now()); a.status != 200 || a.json(t)["outcome"] != "paid: granted 22 USD" {
			t.Fatalf("async payment: %d %s", a.status, a.body)
		}
	})

	t.Run("paid by the webhook; the route shows the key once", func(t *testing.T) {
		h := newHarness(t, cfg)
		id := h.open("20", "")
		ev := checkouttest.SessionEvent("evt_paid_"+id, "checkout.session.completed", paidSession(id, 2000))
		a := h.deliver(ev, checkouttest.WebhookSecret, time.Now())
		if m := a.json(t); a.status != 200 || m["outcome"] != "paid: granted 22 USD" || m["duplicate"] != false {
			t.Fatalf("%d %s", a.status, a.body)
		}
		a = h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
		m := a.json(t)
		key, _ := m["apiKey"].(string)
		if a.status != 200 || !ledger.WellFormedKey(key) || m["keyShownVia"] != "api" || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%d %s", a.status, a.body)
		}
		shownKeys = append(shownKeys, key)
		if bal, err := h.ledger.KeyBalance(context.Background(), key); err != nil || bal != 22_000_000 {
			t.Fatalf("balance %d %v", bal, err)
		}
		// Double retrieval: gone.
		a = h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
		if m := a.json(t); a.status != 410 || m["apiKey"] != nil || m["keyShownVia"] != "api" || strings.Contains(string(a.body), key) {
			t.Fatalf("second retrieval: %d %s", a.status, a.body)
		}
		a = h.do("GET", "/checkout/success?session_id="+id, nil, nil)
		if a.status != 200 || strings.Contains(string(a.body), key) || !strings.Contains(string(a.body), "already shown by GET /api/v1/credits/checkout/session/{sessionId}") {
			t.Fatalf("success page after the route: %d %s", a.status, a.body)
		}
		// Replays of the paid event: the same delivery, and a re-signed one.
		for _, at := range []time.Time{time.Now(), time.Now().Add(time.Second)} {
			a = h.deliver(ev, checkouttest.WebhookSecret, at)
			if m := a.json(t); a.status != 200 || m["duplicate"] != true {
				t.Fatalf("replay: %d %s", a.status, a.body)
			}
		}
		if bal, _ := h.ledger.KeyBalance(context.Background(), key); bal != 22_000_000 {
			t.Fatalf("balance after replays %d", bal)
		}
		// Refunds and disputes take the credit back (docs/checkout.md).
		if a := h.deliver(checkouttest.ChargeRefundedEvent("evt_refund_"+id, "pi_"+id, 2000, 1000), checkouttest.WebhookSecret, time.Now()); a.status != 200 {
			t.Fatalf("refund: %d %s", a.status, a.body)
		}
		if bal, _ := h.ledger.KeyBalance(context.Background(), key); bal != 11_000_000 {
			t.Fatalf("balance after refunding half: %d", bal)
		}
		if a := h.deliver(checkouttest.DisputeEvent("evt_dispute_"+id, "pi_"+id, 2000), checkouttest.WebhookSecret, time.Now()); a.status != 200 {
			t.Fatalf("dispute: %d %s", a.status, a.body)
		}
		if bal, _ := h.ledger.KeyBalance(context.Background(), key); bal != 0 {
			t.Fatalf("balance after a dispute of the whole payment: %d", bal)
		}
	})

	t.Run("paid by the webhook; the success page shows the key once", func(t *testing.T) {
		h := newHarness(t, cfg)
		id := h.open("5", "")
		ev := checkouttest.SessionEvent("evt_paid_"+id, "checkout.session.completed", paidSession(id, 500))
		if a := h.deliver(ev, checkouttest.WebhookSecret, time.Now()); a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		a := h.do("GET", "/checkout/success?session_id="+id, map[string]string{"Accept": "text/html"}, nil)
		found := keyInPage.FindSubmatch(a.body)
		if a.status != 200 || found == nil || a.header.Get("Cache-Control") != "no-store" || a.header.Get("Referrer-Policy") != "no-referrer" {
			t.Fatalf("success page: %d %v %s", a.status, a.header, a.body)
		}
		key := string(found[1])
		shownKeys = append(shownKeys, key)
		if bal, err := h.ledger.KeyBalance(context.Background(), key); err != nil || bal != 5_000_000 {
			t.Fatalf("balance %d %v", bal, err)
		}
		a = h.do("GET", "/checkout/success?session_id="+id, nil, nil)
		if keyInPage.Match(a.body) || !strings.Contains(string(a.body), "already shown on the success page") {
			t.Fatalf("reloaded success page: %s", a.body)
		}
		a = h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
		if m := a.json(t); a.status != 410 || m["keyShownVia"] != "page" || m["apiKey"] != nil {
			t.Fatalf("route after the page: %d %s", a.status, a.body)
		}
	})

	t.Run("paid as a retrieval from Stripe finds it", func(t *testing.T) {
		// No webhook: the route asks Stripe (stripe-mock with a paid
		// session fixture) and grants on its answer.
		h := newHarness(t, Config{SecretKey: checkouttest.TestKey, APIURL: paidMock})
		id := h.open("20", "")
		a := h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
		key, _ := a.json(t)["apiKey"].(string)
		if a.status != 200 || !ledger.WellFormedKey(key) {
			t.Fatalf("%d %s", a.status, a.body)
		}
		shownKeys = append(shownKeys, key)
		c, _ := h.ledger.Checkout(context.Background(), id)
		if c.Status != ledger.CheckoutPaid || c.PaymentIntent == "" {
			t.Fatalf("%+v", c)
		}
		if a := h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil); a.status != 410 {
			t.Fatalf("double retrieval: %d %s", a.status, a.body)
		}
		if a := h.do("POST", "/api/v1/credits/checkout/webhook", map[string]string{"Stripe-Signature": "t=1,v1=00"}, []byte("{}")); a.status != 404 || a.json(t)["error"] != codeWebhookOff {
			t.Fatalf("webhook without a secret: %d %s", a.status, a.body)
		}
		// A retrieved payment of another amount than the pack's grants
		// nothing: the paid fixture is 20 USD, the pack 5.
		id = h.open("5", "")
		if a := h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil); a.status != 409 || a.json(t)["error"] != codeMismatch {
			t.Fatalf("mismatch: %d %s", a.status, a.body)
		}
		if c, _ := h.ledger.Checkout(context.Background(), id); c.Status != ledger.CheckoutOpen {
			t.Fatalf("mismatched session: %+v", c)
		}
	})

	t.Run("events that are refused", func(t *testing.T) {
		h := newHarness(t, cfg)
		id := h.open("20", "")
		ev := checkouttest.SessionEvent("evt_bad_"+id, "checkout.session.completed", paidSession(id, 2000))
		f := func(name string, a answer, code string) {
			t.Helper()
			if a.status != 400 || a.json(t)["error"] != code {
				t.Errorf("%s: %d %s, want 400 %s", name, a.status, a.body, code)
			}
		}
		f("wrong secret", h.deliver(ev, "whsec_someone_else_000000", time.Now()), codeSignature)
		f("unsigned", h.do("POST", "/api/v1/credits/checkout/webhook", nil, ev), codeSignature)
		tampered := bytes.Replace(ev, []byte(`"amount_total":2000`), []byte(`"amount_total":2001`), 1)
		f("tampered body", h.do("POST", "/api/v1/credits/checkout/webhook", map[string]string{
			"Stripe-Signature": checkouttest.Sign(ev, checkouttest.WebhookSecret, time.Now())}, tampered), codeSignature)
		f("stale timestamp", h.deliver(ev, checkouttest.WebhookSecret, time.Now().Add(-6*time.Minute)), codeStale)
		f("not an event", h.deliver([]byte(`{"id":"x","object":"charge"}`), checkouttest.WebhookSecret, time.Now()), codeInvalidEvent)
		f("no data", h.deliver([]byte(`{"id":"evt_x","object":"event","type":"checkout.session.completed"}`), checkouttest.WebhookSecret, time.Now()), codeInvalidEvent)
		// Nothing of it was granted or recorded.
		if c, _ := h.ledger.Checkout(context.Background(), id); c.Status != ledger.CheckoutOpen {
			t.Fatalf("after refused events: %+v", c)
		}
		// A payment that does not match the pack: 409, Stripe retries.
		wrong := checkouttest.SessionEvent("evt_wrong_"+id, "checkout.session.completed", paidSession(id, 500))
		if a := h.deliver(wrong, checkouttest.WebhookSecret, time.Now()); a.status != 409 || a.json(t)["error"] != codeMismatch {
			t.Fatalf("mismatch: %d %s", a.status, a.body)
		}
		// The good event still works afterwards, once.
		if a := h.deliver(ev, checkouttest.WebhookSecret, time.Now()); a.status != 200 || a.json(t)["outcome"] != "paid: granted 22 USD" {
			t.Fatalf("%d %s", a.status, a.body)
		}
		// Expiry of another session: the route says it ended.
		other := h.open("5", "")
		exp := checkouttest.SessionEvent("evt_exp_"+other, "checkout.session.expired", checkouttest.Session{ID: other, Status: "expired", PaymentStatus: "unpaid"})
		if a := h.deliver(exp, checkouttest.WebhookSecret, time.Now()); a.status != 200 || a.json(t)["outcome"] != "expired" {
			t.Fatalf("expiry: %d %s", a.status, a.body)
		}
		if a := h.do("GET", "/api/v1/credits/checkout/session/"+other, nil, nil); a.status != 410 || a.json(t)["status"] != "expired" {
			t.Fatalf("expired session: %d %s", a.status, a.body)
		}
		// Sessions of other integrations on the same Stripe account.
		ghost := checkouttest.SessionEvent("evt_ghost", "checkout.session.completed", paidSession("cs_test_elsewhere", 100))
		if a := h.deliver(ghost, checkouttest.WebhookSecret, time.Now()); a.status != 200 || a.json(t)["outcome"] != "ignored: unknown checkout session" {
			t.Fatalf("ghost: %d %s", a.status, a.body)
		}
	})

	t.Run("top-up", func(t *testing.T) {
		h := newHarness(t, cfg)
		key, err := h.ledger.CreateKey(context.Background(), 1_000_000, "test", "topup-test")
		if err != nil {
			t.Fatal(err)
		}
		a := h.do("POST", "/api/v1/credits/checkout/20", map[string]string{"X-API-Key": key}, nil)
		m := a.json(t)
		id, _ := m["sessionId"].(string)
		if a.status != 200 || m["topUp"] != true {
			t.Fatalf("%d %s", a.status, a.body)
		}
		if a := h.deliver(checkouttest.SessionEvent("evt_topup", "checkout.session.completed", paidSession(id, 2000)), checkouttest.WebhookSecret, time.Now()); a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		for range 2 {
			a = h.do("GET", "/api/v1/credits/checkout/session/"+id, nil, nil)
			if m := a.json(t); a.status != 200 || m["topUp"] != true || m["apiKey"] != nil || m["status"] != "paid" {
				t.Fatalf("%d %s", a.status, a.body)
			}
		}
		if a := h.do("GET", "/checkout/success?session_id="+id, nil, nil); !strings.Contains(string(a.body), "22 USD was added to the key you entered") {
			t.Fatalf("success page of a top-up: %s", a.body)
		}
		if bal, _ := h.ledger.KeyBalance(context.Background(), key); bal != 23_000_000 {
			t.Fatalf("balance %d, want 23 USD", bal)
		}
		// The key travels nowhere but the ledger, as a hash.
		if strings.Contains(h.logs.String(), key) {
			t.Fatal("the topped-up key is in the logs")
		}
	})

	t.Run("unknown and malformed sessions", func(t *testing.T) {
		h := newHarness(t, cfg)
		if a := h.do("GET", "/api/v1/credits/checkout/session/cs_test_neveropenedhere", nil, nil); a.status != 404 || a.json(t)["error"] != codeUnknownSession {
			t.Fatalf("%d %s", a.status, a.body)
		}
		if a := h.do("GET", "/checkout/success?session_id=cs_test_neveropenedhere", nil, nil); a.status != 404 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		for _, p := range []string{"/api/v1/credits/checkout/session/pi_123", "/checkout/success?session_id=%3Cscript%3E", "/checkout/success"} {
			if a := h.do("GET", p, nil, nil); a.status != 400 {
				t.Fatalf("%s: %d %s", p, a.status, a.body)
			}
		}
	})

	t.Run("Stripe unreachable", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		h := newHarness(t, Config{SecretKey: checkouttest.TestKey, WebhookSecret: checkouttest.WebhookSecret, APIURL: dead.URL,
			HTTPClient: &http.Client{Timeout: 2 * time.Second}})
		a := h.do("POST", "/api/v1/credits/checkout/20", nil, nil)
		if a.status != 502 || a.json(t)["error"] != codeProcessor {
			t.Fatalf("%d %s", a.status, a.body)
		}
		if !strings.Contains(h.logs.String(), "cannot open a card checkout") {
			t.Fatalf("the failure is not logged: %s", h.logs.String())
		}
	})

	// The secrets and the keys shown never reach a log.
	for _, l := range allLogs {
		s := l.String()
		for _, secret := range append([]string{checkouttest.TestKey, checkouttest.WebhookSecret, "mi_live_"}, shownKeys...) {
			if strings.Contains(s, secret) {
				t.Errorf("a log holds %q:\n%s", secret, s)
			}
		}
	}
	if len(shownKeys) != 3 {
		t.Errorf("%d keys shown, want 3", len(shownKeys))
	}
}
