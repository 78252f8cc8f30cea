package paywall

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/querytest"
)

// payingPaywall stands in for the x402 paywall on the credits routes: it
// records an x402 payment by payer, as the real paywall does once the
// PAYMENT-SIGNATURE is verified, with the X-API-Key to top up. The x402
// branch tests the real verification and settlement.
type payingPaywall struct{ payer string }

func (p payingPaywall) Wrap(r api.Operation, next fiber.Handler) fiber.Handler {
	return func(c fiber.Ctx) error {
		if r.X402Only {
			api.SetPayment(c, api.Payment{Method: "x402", Network: "eip155:8453", AssetSymbol: "EURC",
				Payer: p.payer, APIKey: c.Get("X-API-Key"), AmountAtomic: r.Price})
		}
		return next(c)
	}
}

// creditsServer is the credits routes mounted as the server mounts them,
// behind a paywall.
type creditsServer struct {
	*Credits
	app *fiber.App
}

func (s *creditsServer) App() *fiber.App { return s.app }

func newCreditsServer(t *testing.T, pw api.Paywall) (*creditsServer, *ledger.SQL) {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return mountCredits(NewCredits(l, func() time.Time { return querytest.Now }, nil), pw), l
}

// mountCredits mounts the operations of cr behind pw (nil: none).
func mountCredits(cr *Credits, pw api.Paywall) *creditsServer {
	app := fiber.New()
	api.Mount(app, cr.Operations(), time.Now, func(op api.Operation, h fiber.Handler) fiber.Handler {
		if op.Paid() && pw != nil {
			return pw.Wrap(op, h)
		}
		return h
	})
	return &creditsServer{Credits: cr, app: app}
}

// newOpenAPIFixture validates answers against the document of the credits
// routes as the server renders it.
func newOpenAPIFixture(t *testing.T) *querytest.OpenAPI {
	t.Helper()
	return querytest.NewOpenAPI(t, openapi.Build(NewCredits(nil, nil, nil).Operations(), Responses()), nil)
}

var describeErrors = querytest.DescribeErrors

// sendWith sends method target with headers and returns the request, the
// response (body readable again) and the body.
func sendWith(t *testing.T, app *fiber.App, method, target string, headers map[string]string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	mk := func() *http.Request {
		r := httptest.NewRequest(method, target, nil)
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		return r
	}
	resp, err := app.Test(mk())
	if err != nil {
		t.Fatalf("cannot send %s %s: %s", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return mk(), resp, body
}

func TestCreditsBuyAndBalance(t *testing.T) {
	const wallet = "0xAbC0000000000000000000000000000000000001"
	s, l := newCreditsServer(t, payingPaywall{payer: wallet})
	f := newOpenAPIFixture(t)
	app := s.App()
	ctx := context.Background()

	check := func(method, target string, headers map[string]string, wantStatus int) []byte {
		t.Helper()
		req, resp, body := sendWith(t, app, method, target, headers)
		if resp.StatusCode != wantStatus {
			t.Fatalf("%s %s: %d %s, want %d", method, target, resp.StatusCode, body, wantStatus)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("%s %s: %d %s\ndoes not match the document:%s", method, target, resp.StatusCode, body, describeErrors(errs))
		}
		return body
	}
	var buy purchaseBody
	if err := json.Unmarshal(check("POST", "/api/v1/credits/buy/20", nil, 200), &buy); err != nil {
		t.Fatal(err)
	}
	if buy.APIKey == nil || !ledger.WellFormedKey(*buy.APIKey) || buy.ToppedUp || buy.CreditMicroUSD != 22_000_000 ||
		buy.BalanceMicroUSD != 22_000_000 || buy.BalanceUSD != "22" || buy.PriceUSD != "20" ||
		buy.Wallet == nil || *buy.Wallet != "eip155:"+strings.ToLower(wallet) || buy.Asset != "EURC" {
		t.Fatalf("purchase %+v", buy)
	}
	key := *buy.APIKey
	// The paying wallet shares the key's balance; the pack is not granted twice.
	if bal, _ := l.WalletBalance(ctx, "eip155:"+wallet); bal != 22_000_000 {
		t.Fatalf("wallet balance %d, want 22000000", bal)
	}
	// Top-up of the key: no new key.
	var top purchaseBody
	if err := json.Unmarshal(check("POST", "/api/v1/credits/buy/5", map[string]string{"X-API-Key": key}, 200), &top); err != nil {
		t.Fatal(err)
	}
	if top.APIKey != nil || !top.ToppedUp || top.BalanceMicroUSD != 27_000_000 {
		t.Fatalf("top-up %+v", top)
	}
	var bal balanceBody
	if err := json.Unmarshal(check("GET", "/api/v1/credits/balance", map[string]string{"X-API-Key": key}, 200), &bal); err != nil {
		t.Fatal(err)
	}
	if bal.BalanceMicroUSD != 27_000_000 || bal.BalanceUSD != "27" || len(bal.Wallets) != 1 || bal.Keys != 1 {
		t.Fatalf("balance %+v", bal)
	}
	if err := l.DebitKey(ctx, key, ledger.Charge{Route: "GET /x", AmountMicroUSD: 5_000, RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(check("GET", "/api/v1/credits/balance", map[string]string{"X-API-Key": key}, 200), &bal); err != nil {
		t.Fatal(err)
	}
	if bal.BalanceUSD != "26.995" {
		t.Fatalf("balance %+v, want 26.995", bal)
	}

	other, _ := ledger.NewKey()
	check("POST", "/api/v1/credits/buy/50", map[string]string{"X-API-Key": other}, 401)
	check("GET", "/api/v1/credits/balance", nil, 401)
	check("GET", "/api/v1/credits/balance", map[string]string{"X-API-Key": other}, 401)
	check("GET", "/api/v1/credits/balance", map[string]string{"X-API-Key": "garbage"}, 401)
	for _, pack := range []string{"10", "0", "5.0", "abc", "500"} {
		body := check("POST", "/api/v1/credits/buy/"+pack, nil, 400)
		if !strings.Contains(string(body), `"parameter":"pack"`) || !strings.Contains(string(body), `"accepted":["5","20","50"]`) {
			t.Fatalf("pack %s: %s", pack, body)
		}
	}
	if err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCreditsRoutesTable(t *testing.T) {
	s, _ := newCreditsServer(t, nil)
	seen := map[string]api.Operation{}
	for _, r := range s.Operations() {
		seen[r.Key()] = r
	}
	for _, p := range []struct {
		path         string
		price        int64
		creditMicros int64
	}{{"5", 5_000_000, 5_000_000}, {"20", 20_000_000, 22_000_000}, {"50", 50_000_000, 60_000_000}} {
		r, ok := seen["POST /api/v1/credits/buy/"+p.path]
		if !ok || r.Price != p.price || !r.X402Only || strings.Join(r.Assets, ",") != "USDC,EURC" {
			t.Errorf("pack %s route %+v", p.path, r)
		}
	}
	if r := seen["GET /api/v1/credits/balance"]; !r.Free {
		t.Errorf("balance route is priced %d", r.Price)
	}
	// Without a paywall nothing pays for a pack: no key is given away.
	_, resp, body := sendWith(t, s.App(), "POST", "/api/v1/credits/buy/5", nil)
	if resp.StatusCode != 402 || strings.Contains(string(body), ledger.KeyPrefix) {
		t.Fatalf("unpaid buy: %d %s", resp.StatusCode, body)
	}
	// Without a ledger: 503.
	n := mountCredits(NewCredits(nil, nil, nil), nil)
	_, resp, body = sendWith(t, n.App(), "GET", "/api/v1/credits/balance", map[string]string{"X-API-Key": "x"})
	if resp.StatusCode != 503 {
		t.Fatalf("balance without ledger: %d %s", resp.StatusCode, body)
	}
}

func TestCreditsUndoUnsettled(t *testing.T) {
	s, l := newCreditsServer(t, nil)
	ctx := context.Background()
	key, err := l.CreateKey(ctx, 1_000, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	// A paywall whose settlement fails after the handler answered 2xx.
	app := fiber.New()
	h := s.Credits.buyHandler(creditPacks[1])
	app.Post("/buy", func(c fiber.Ctx) error {
		api.SetPayment(c, api.Payment{Method: "x402", Payer: "0xdef", APIKey: key, AssetSymbol: "USDC"})
		if err := h(c); err != nil {
			return err
		}
		if c.Response().StatusCode() != 200 {
			t.Fatalf("handler answered %d", c.Response().StatusCode())
		}
		if err := UndoUnsettled(c); err != nil {
			return err
		}
		return c.Status(402).SendString(`{"success":false}`)
	})
	resp, err := app.Test(httptest.NewRequest("POST", "/buy", nil))
	if err != nil || resp.StatusCode != 402 {
		t.Fatalf("%v %v", resp, err)
	}
	if bal, _ := l.KeyBalance(ctx, key); bal != 1_000 {
		t.Fatalf("balance %d after an unsettled top-up, want 1000", bal)
	}
	if err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}
