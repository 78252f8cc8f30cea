package query

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
	"github.com/marketintel/mi/query/paywall/x402/x402test"
	"github.com/marketintel/mi/sinks/views"
)

// payFixture is a server whose paywall settles on a simulated chain with a
// SQLite ledger.
type payFixture struct {
	chain  *x402test.Chain
	store  *ledger.SQL
	app    *fiber.App
	payTo  common.Address
	payer  *ecdsa.PrivateKey
	paid   int64 // payer's initial token balance
	settle x402.Settler
}

const symbolPrice = priceIntelligenceSymbol

func newPayFixture(t *testing.T, settler func(*x402test.Chain) x402.Settler) *payFixture {
	t.Helper()
	return newPayFixtureWith(t, payOptions{settler: settler})
}

// payOptions change the fixture: the settlement backend, a wrapper around
// the ledger store and the settler the paywall sees (to count calls), and
// the server's dependencies besides the paywall.
type payOptions struct {
	settler     func(*x402test.Chain) x402.Settler
	wrapStore   func(ledger.Store) ledger.Store
	wrapSettler func(x402.Settler) x402.Settler
	deps        func(*Deps)
}

func newPayFixtureWith(t *testing.T, o payOptions) *payFixture {
	t.Helper()
	settler := o.settler
	chain := x402test.NewChain(t)
	store, err := ledger.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	payToKey, _ := crypto.GenerateKey()
	payer, _ := crypto.GenerateKey()
	f := &payFixture{chain: chain, store: store, payTo: crypto.PubkeyToAddress(payToKey.PublicKey), payer: payer, paid: 1_000_000}
	chain.Mint(t, crypto.PubkeyToAddress(payer.PublicKey), f.paid)
	if settler == nil {
		f.settle = &x402.Router{ByNetwork: map[string]x402.Settler{x402test.Network: chain.NewRelayer()}}
	} else {
		f.settle = settler(chain)
	}
	base := x402.KnownAssets[x402.NetworkBase][0]
	var pwStore ledger.Store = store
	if o.wrapStore != nil {
		pwStore = o.wrapStore(store)
	}
	pwSettler := f.settle
	if o.wrapSettler != nil {
		pwSettler = o.wrapSettler(f.settle)
	}
	pw, err := paywall.New(paywall.Config{
		Store: pwStore,
		Offers: []x402.Offer{
			{Network: x402test.Network, Asset: chain.Asset(), PayTo: f.payTo.Hex()},
			{Network: x402.NetworkBase, Asset: base, PayTo: f.payTo.Hex()},
		},
		Settler:         pwSettler,
		PublicURL:       "http://api.test",
		UnpaidPerMinute: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.deps == nil {
		f.app = newTestServer(nil, pw, fullDoc()).App()
		return f
	}
	v := views.New()
	v.Apply(fullDoc())
	d := Deps{Views: v, Version: "test", Now: func() time.Time { return testNow }, Paywall: pw}
	o.deps(&d)
	f.app = New(d).App()
	return f
}

type paidResponse struct {
	status  int
	header  http.Header
	body    string
	decoded map[string]any
}

func (f *payFixture) get(t *testing.T, target string, headers map[string]string) paidResponse {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := f.app.Test(req, fiber.TestConfig{Timeout: 60 * time.Second, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := paidResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &r.decoded)
	return r
}

func (f *payFixture) balances(t *testing.T) (payer, payTo int64) {
	return f.chain.Balance(t, crypto.PubkeyToAddress(f.payer.PublicKey)), f.chain.Balance(t, f.payTo)
}

// quoteOf decodes the PAYMENT-REQUIRED header of a 402.
func quoteOf(t *testing.T, r paidResponse) *x402.PaymentRequired {
	t.Helper()
	if r.status != http.StatusPaymentRequired {
		t.Fatalf("status %d, want 402: %s", r.status, r.body)
	}
	q, err := x402.DecodePaymentRequired(r.header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	return q
}

func header(t *testing.T, p *x402.PaymentPayload) map[string]string {
	t.Helper()
	h, err := x402.EncodeHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{x402.HeaderPaymentSignature: h}
}

const paidTarget = "/api/v1/intelligence/BTCUSD"

// TestPaywallQuote: an unpaid call answers 402 with the v2 PaymentRequired
// in the header and the body, one accepts entry per offer, the route's
// price in atomic units, the EIP-712 domain and a fresh sign-in challenge.
func TestPaywallQuote(t *testing.T) {
	f := newPayFixture(t, nil)
	r := f.get(t, paidTarget+"?window=5m", nil)
	q := quoteOf(t, r)
	if q.X402Version != 2 || q.Resource == nil || q.Resource.URL != "http://api.test"+paidTarget+"?window=5m" ||
		q.Resource.MimeType != "application/json" || len(q.Accepts) != 2 {
		t.Fatalf("quote %+v", q)
	}
	for _, a := range q.Accepts {
		if a.Scheme != "exact" || a.Amount != "5000" || a.PayTo != f.payTo.Hex() || a.MaxTimeoutSeconds != 60 ||
			a.Extra["name"] != "USD Coin" || a.Extra["version"] != "2" {
			t.Errorf("accepts entry %+v", a)
		}
	}
	if q.Accepts[1].Asset != "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" {
		t.Errorf("Base USDC %s", q.Accepts[1].Asset)
	}
	ext, _ := q.Extensions[x402.ExtensionSignIn].(map[string]any)
	info, _ := ext["info"].(map[string]any)
	if info["domain"] != "api.test" || len(info["nonce"].(string)) != 32 || ext["supportedChains"] == nil || ext["schema"] == nil {
		t.Fatalf("sign-in-with-x %v", ext)
	}
	r2 := f.get(t, paidTarget, nil)
	q2 := quoteOf(t, r2)
	if q2.Extensions[x402.ExtensionSignIn].(map[string]any)["info"].(map[string]any)["nonce"] == info["nonce"] {
		t.Error("the sign-in nonce is reused")
	}
	price, _ := r.decoded["price"].(map[string]any)
	if price["usd"] != "0.005" || price["microUsd"] != 5000.0 || r.decoded["x402Version"] != 2.0 || r.decoded["charged"] != false {
		t.Fatalf("body %s", r.body)
	}
}

// TestPaywallSettles: a paid call is served and settled on chain once; the
// same authorization again is refused and moves nothing; an error answer is
// never settled.
func TestPaywallSettles(t *testing.T) {
	f := newPayFixture(t, nil)
	q := quoteOf(t, f.get(t, paidTarget, nil))
	p := x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute)
	r := f.get(t, paidTarget, header(t, p))
	if r.status != 200 || r.decoded["symbol"] != "BTCUSD" {
		t.Fatalf("paid call: %d %s", r.status, r.body)
	}
	s, err := x402.DecodeSettlementResponse(r.header.Get(x402.HeaderPaymentResponse))
	if err != nil || !s.Success || s.Transaction == "" || s.Network != x402test.Network ||
		!strings.EqualFold(s.Payer, crypto.PubkeyToAddress(f.payer.PublicKey).Hex()) {
		t.Fatalf("PAYMENT-RESPONSE %+v %v", s, err)
	}
	payer, payTo := f.balances(t)
	if payer != f.paid-symbolPrice || payTo != symbolPrice {
		t.Fatalf("balances after one payment: payer %d, payTo %d", payer, payTo)
	}
	// Replayed: 402, nothing delivered, nothing moved.
	r = f.get(t, paidTarget, header(t, p))
	if quoteOf(t, r); r.decoded["error"] != "invalid_exact_evm_nonce_already_used" || r.decoded["symbol"] != nil {
		t.Fatalf("replay: %s", r.body)
	}
	// Replayed through X-PAYMENT (the spec's header name): same answer.
	h, _ := x402.EncodeHeader(p)
	if r = f.get(t, paidTarget, map[string]string{x402.HeaderXPayment: h}); r.decoded["error"] != "invalid_exact_evm_nonce_already_used" {
		t.Fatalf("replay via X-PAYMENT: %s", r.body)
	}
	// A paid call the handler answers with 404 is not settled.
	p404 := x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute)
	if r = f.get(t, "/api/v1/intelligence/NOPE", header(t, p404)); r.status != 404 || r.header.Get(x402.HeaderPaymentResponse) != "" {
		t.Fatalf("404: %d %s", r.status, r.body)
	}
	if p2, t2 := f.balances(t); p2 != payer || t2 != payTo {
		t.Fatalf("balances moved after a replay or a 404: payer %d, payTo %d", p2, t2)
	}
	// A fresh payment through X-PAYMENT pays.
	h, _ = x402.EncodeHeader(x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute))
	if r = f.get(t, paidTarget, map[string]string{x402.HeaderXPayment: h}); r.status != 200 {
		t.Fatalf("X-PAYMENT: %d %s", r.status, r.body)
	}
	if p2, t2 := f.balances(t); p2 != f.paid-2*symbolPrice || t2 != 2*symbolPrice {
		t.Fatalf("balances after two payments: payer %d, payTo %d", p2, t2)
	}
}

// TestPaywallAttacks: every forged or unpayable payment answers 402 with
// its reason; nothing is delivered and no balance moves.
func TestPaywallAttacks(t *testing.T) {
	f := newPayFixture(t, nil)
	q := quoteOf(t, f.get(t, paidTarget, nil))
	req := q.Accepts[0]
	now := time.Now()
	sign := func(a x402.Authorization, r x402.PaymentRequirements) *x402.PaymentPayload {
		return x402test.Signed(t, f.payer, r, a)
	}
	fresh := func() x402.Authorization { return x402test.Authorization(f.payer, req, now, time.Minute) }
	cases := map[string]struct {
		p    *x402.PaymentPayload
		want string
	}{}
	a := fresh()
	a.ValidBefore = big.NewInt(now.Add(-time.Second).Unix()).String()
	cases["expired"] = struct {
		p    *x402.PaymentPayload
		want string
	}{sign(a, req), "invalid_exact_evm_payload_authorization_valid_before"}
	a = fresh()
	a.Value = "4000"
	cases["wrong amount"] = struct {
		p    *x402.PaymentPayload
		want string
	}{sign(a, req), "invalid_exact_evm_payload_authorization_value_mismatch"}
	a = fresh()
	a.To = crypto.PubkeyToAddress(f.payer.PublicKey).Hex()
	cases["wrong payTo"] = struct {
		p    *x402.PaymentPayload
		want string
	}{sign(a, req), "invalid_exact_evm_payload_recipient_mismatch"}
	// Signed for Base (chain 8453) but presented for the simulated chain.
	onBase := req
	onBase.Network = x402.NetworkBase
	cases["wrong chain"] = struct {
		p    *x402.PaymentPayload
		want string
	}{func() *x402.PaymentPayload {
		p := sign(fresh(), onBase)
		p.Accepted = req
		return p
	}(), "invalid_exact_evm_payload_signature"}
	cases["unknown chain"] = struct {
		p    *x402.PaymentPayload
		want string
	}{func() *x402.PaymentPayload {
		r := req
		r.Network = "eip155:10"
		return sign(fresh(), r)
	}(), "invalid_network"}
	tampered := sign(fresh(), req)
	var pl x402.ExactEVMPayload
	_ = json.Unmarshal(tampered.Payload, &pl)
	sig := hexutil.MustDecode(pl.Signature)
	sig[10] ^= 0x55
	cases["tampered signature"] = struct {
		p    *x402.PaymentPayload
		want string
	}{x402test.Payload(t, req, pl.Authorization, hexutil.Encode(sig)), "invalid_exact_evm_payload_signature"}
	high := sign(fresh(), req)
	_ = json.Unmarshal(high.Payload, &pl)
	sig = hexutil.MustDecode(pl.Signature)
	s := new(big.Int).SetBytes(sig[32:64])
	s.Sub(crypto.S256().Params().N, s).FillBytes(sig[32:64])
	sig[64] = 55 - sig[64]
	cases["high s"] = struct {
		p    *x402.PaymentPayload
		want string
	}{x402test.Payload(t, req, pl.Authorization, hexutil.Encode(sig)), "invalid_exact_evm_payload_signature"}
	poor, _ := crypto.GenerateKey()
	cases["unfunded"] = struct {
		p    *x402.PaymentPayload
		want string
	}{x402test.Pay(t, poor, req, now, time.Minute), "insufficient_funds"}
	for name, c := range cases {
		r := f.get(t, paidTarget, header(t, c.p))
		quoteOf(t, r)
		if r.decoded["error"] != c.want || r.decoded["symbol"] != nil || r.header.Get(x402.HeaderPaymentResponse) != "" {
			t.Errorf("%s: %d %s, want reason %s", name, r.status, r.body, c.want)
		}
	}
	// Malformed headers.
	for _, h := range []string{"not base64!", "e30=", strings.Repeat("A", 3000)} {
		r := f.get(t, paidTarget, map[string]string{x402.HeaderPaymentSignature: h})
		if quoteOf(t, r); r.decoded["error"] == nil || r.decoded["symbol"] != nil {
			t.Errorf("malformed %.20q: %s", h, r.body)
		}
	}
	if payer, payTo := f.balances(t); payer != f.paid || payTo != 0 {
		t.Fatalf("balances moved: payer %d, payTo %d", payer, payTo)
	}
}

// TestPaywallSettlementFailure: when settlement fails after the handler
// answered, the client gets 402 with success:false and none of the data.
func TestPaywallSettlementFailure(t *testing.T) {
	f := newPayFixture(t, func(c *x402test.Chain) x402.Settler { return failingSettler{c.NewRelayer()} })
	q := quoteOf(t, f.get(t, paidTarget, nil))
	r := f.get(t, paidTarget, header(t, x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute)))
	quoteOf(t, r)
	s, err := x402.DecodeSettlementResponse(r.header.Get(x402.HeaderPaymentResponse))
	if err != nil || s.Success || s.ErrorReason != "unexpected_settle_error" || strings.Contains(r.body, "BTCUSD|") || r.decoded["symbol"] != nil {
		t.Fatalf("settlement failure: %+v %v %s", s, err, r.body)
	}
	if payer, payTo := f.balances(t); payer != f.paid || payTo != 0 {
		t.Fatalf("balances moved: payer %d, payTo %d", payer, payTo)
	}
}

// failingSettler verifies through a real relayer and never settles.
type failingSettler struct{ *x402.Relayer }

func (failingSettler) Settle(_ context.Context, _ *x402.PaymentPayload, req x402.PaymentRequirements) (x402.SettlementResponse, error) {
	return x402.SettlementResponse{Network: req.Network}, x402.ErrSettleFailed
}

// TestPaywallCredits: an API key pays the route price per 2xx, is refunded
// on a 404, and gets 402 when its credit is short or it is unknown.
func TestPaywallCredits(t *testing.T) {
	f := newPayFixture(t, nil)
	key, err := f.store.CreateKey(t.Context(), 2*symbolPrice+1, "test", "grant-1")
	if err != nil {
		t.Fatal(err)
	}
	hk := map[string]string{paywall.HeaderAPIKey: key}
	balance := func() int64 {
		b, err := f.store.KeyBalance(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if r := f.get(t, paidTarget, hk); r.status != 200 || r.decoded["symbol"] != "BTCUSD" {
		t.Fatalf("with a key: %d %s", r.status, r.body)
	}
	if b := balance(); b != symbolPrice+1 {
		t.Fatalf("balance %d after one call", b)
	}
	if r := f.get(t, "/api/v1/intelligence/NOPE", hk); r.status != 404 {
		t.Fatalf("404 with a key: %d", r.status)
	}
	if r := f.get(t, paidTarget+"?window=2h", hk); r.status != 400 {
		t.Fatalf("400 with a key: %d", r.status)
	}
	if b := balance(); b != symbolPrice+1 {
		t.Fatalf("balance %d after a 404 and a 400: not refunded", b)
	}
	if r := f.get(t, paidTarget, hk); r.status != 200 {
		t.Fatalf("second call: %d", r.status)
	}
	r := f.get(t, paidTarget, hk)
	if quoteOf(t, r); r.decoded["error"] != "insufficient_credit" {
		t.Fatalf("short credit: %s", r.body)
	}
	if b := balance(); b != 1 {
		t.Fatalf("balance %d at the end", b)
	}
	r = f.get(t, paidTarget, map[string]string{paywall.HeaderAPIKey: "mi_unknown"})
	if quoteOf(t, r); r.decoded["error"] != "invalid_api_key" {
		t.Fatalf("unknown key: %s", r.body)
	}
}

// TestPaywallSignIn: a wallet with credit pays by signing the challenge of
// a 402; a proof works once; a short credit is named in signIn.
func TestPaywallSignIn(t *testing.T) {
	f := newPayFixture(t, nil)
	wallet := crypto.PubkeyToAddress(f.payer.PublicKey)
	if err := f.store.CreditWallet(t.Context(), "eip155:"+strings.ToLower(wallet.Hex()), symbolPrice, "test", "w-1"); err != nil {
		t.Fatal(err)
	}
	proof := func() map[string]string {
		q := quoteOf(t, f.get(t, paidTarget, nil))
		raw, _ := json.Marshal(q.Extensions[x402.ExtensionSignIn])
		var ext x402.SignInExtension
		if err := json.Unmarshal(raw, &ext); err != nil {
			t.Fatal(err)
		}
		p := &x402.SignInProof{SignInInfo: ext.Info, ChainID: ext.SupportedChains[0].ChainID, Type: "eip191", Address: wallet.Hex()}
		msg, _ := x402.SIWEMessage(p)
		sig, _ := crypto.Sign(accounts.TextHash([]byte(msg)), f.payer)
		sig[64] += 27
		p.Signature = hexutil.Encode(sig)
		h, _ := x402.EncodeHeader(p)
		return map[string]string{x402.HeaderSignInWithX: h}
	}
	h := proof()
	if r := f.get(t, paidTarget, h); r.status != 200 || r.decoded["symbol"] != "BTCUSD" {
		t.Fatalf("signed in: %d %s", r.status, r.body)
	}
	if r := f.get(t, paidTarget, h); r.decoded["error"] != "siwx_proof_used" {
		t.Fatalf("proof reused: %d %s", r.status, r.body)
	}
	r := f.get(t, paidTarget, proof())
	si, _ := r.decoded["signIn"].(map[string]any)
	if quoteOf(t, r); r.decoded["error"] != "insufficient_credit" || si["covered"] != false || si["balanceMicroUsd"] != 0.0 {
		t.Fatalf("short wallet: %s", r.body)
	}
}

// TestPaywallX402Only: on an X402Only route an API key does not pay and is
// handed to the handler; SIGN-IN-WITH-X is not offered.
func TestPaywallX402Only(t *testing.T) {
	f := newPayFixture(t, nil)
	pw, err := paywall.New(paywall.Config{Store: f.store, Settler: f.settle, PublicURL: "http://api.test",
		Offers: []x402.Offer{{Network: x402test.Network, Asset: f.chain.Asset(), PayTo: f.payTo.Hex()}}})
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Value
	app := fiber.New()
	route := api.Operation{Method: "POST", Path: "/buy", Price: 5_000_000, X402Only: true, Assets: []string{"USDC", "EURC"}, Summary: "Buy."}
	app.Post("/buy", pw.Wrap(route, func(c fiber.Ctx) error {
		p, _ := api.PaymentOf(c)
		seen.Store(p)
		return c.SendString("ok")
	}))
	key, _ := f.store.CreateKey(t.Context(), 10_000_000, "test", "g")
	req := httptest.NewRequest("POST", "/buy", nil)
	req.Header.Set(paywall.HeaderAPIKey, key)
	resp, _ := app.Test(req)
	q, err := x402.DecodePaymentRequired(resp.Header.Get(x402.HeaderPaymentRequired))
	if resp.StatusCode != 402 || err != nil || q.Extensions != nil || q.Accepts[0].Amount != "5000000" {
		t.Fatalf("X402Only with a key: %d %+v %v", resp.StatusCode, q, err)
	}
	p := x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute)
	f.chain.Mint(t, crypto.PubkeyToAddress(f.payer.PublicKey), 5_000_000)
	h, _ := x402.EncodeHeader(p)
	req = httptest.NewRequest("POST", "/buy", nil)
	req.Header.Set(paywall.HeaderAPIKey, key)
	req.Header.Set(x402.HeaderPaymentSignature, h)
	resp, err = app.Test(req, fiber.TestConfig{Timeout: 60 * time.Second})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("paid: %v %v", resp, err)
	}
	got := seen.Load().(api.Payment)
	if got.Method != api.MethodX402 || got.APIKey != key || got.AssetSymbol != "USDC" || got.AmountAtomic != 5_000_000 {
		t.Fatalf("payment seen by the handler: %+v", got)
	}
	if b, _ := f.store.KeyBalance(t.Context(), key); b != 10_000_000 {
		t.Fatalf("the key was debited on an X402Only route: %d", b)
	}
}

// countingStore counts what the paywall asks of the ledger.
type countingStore struct {
	ledger.Store
	debits, nonces atomic.Int32
}

func (s *countingStore) DebitKey(ctx context.Context, key string, c ledger.Charge) error {
	s.debits.Add(1)
	return s.Store.DebitKey(ctx, key, c)
}

func (s *countingStore) DebitWallet(ctx context.Context, wallet string, c ledger.Charge) error {
	s.debits.Add(1)
	return s.Store.DebitWallet(ctx, wallet, c)
}

func (s *countingStore) ReserveNonce(ctx context.Context, network, payer, nonce string, expires time.Time) error {
	s.nonces.Add(1)
	return s.Store.ReserveNonce(ctx, network, payer, nonce, expires)
}

// countingSettler counts the calls that leave the service (a facilitator's
// /verify and /settle).
type countingSettler struct {
	x402.Settler
	verifies atomic.Int32
}

func (s *countingSettler) Verify(ctx context.Context, p *x402.PaymentPayload, req x402.PaymentRequirements) (string, error) {
	s.verifies.Add(1)
	return s.Settler.Verify(ctx, p, req)
}

// TestPaywallValidatesBeforeCharging: a call with an invalid parameter is
// answered 400 before the paywall: no debit of an API key (so concurrent
// valid calls never meet insufficient_credit while credit remains), no
// nonce reserved and no facilitator call for an x402 payment, which then
// still pays a valid call. A path that is not a route answers 404
// not_found, never 402, paid or not.
func TestPaywallValidatesBeforeCharging(t *testing.T) {
	var st *countingStore
	var se *countingSettler
	f := newPayFixtureWith(t, payOptions{
		wrapStore:   func(s ledger.Store) ledger.Store { st = &countingStore{Store: s}; return st },
		wrapSettler: func(s x402.Settler) x402.Settler { se = &countingSettler{Settler: s}; return se },
	})
	key, err := f.store.CreateKey(t.Context(), symbolPrice, "test", "grant-validate")
	if err != nil {
		t.Fatal(err)
	}
	hk := map[string]string{paywall.HeaderAPIKey: key}
	for _, target := range []string{paidTarget + "?window=2h", "/api/v1/intelligence/candles/BTCUSD?interval=2m", "/api/v1/intelligence?window=1y"} {
		if r := f.get(t, target, hk); r.status != 400 || r.decoded["charged"] != false {
			t.Fatalf("%s with a key: %d %s", target, r.status, r.body)
		}
	}
	q := quoteOf(t, f.get(t, paidTarget, nil))
	pay := header(t, x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute))
	if r := f.get(t, paidTarget+"?window=2h", pay); r.status != 400 {
		t.Fatalf("x402 with a bad window: %d %s", r.status, r.body)
	}
	// pre-trade, equities and premium are routes now (issue 16): a bad or
	// missing parameter is a 400, never charged.
	for _, target := range []string{"/api/v1/intelligence/pre-trade", "/api/v1/intelligence/pre-trade?symbol=BTCUSD&side=hold",
		"/api/v1/intelligence/premium?symbols=BTCUSD", "/api/v1/intelligence/equities?window=1h",
		"/api/v1/intelligence/opportunities", "/api/v1/intelligence/opportunities?objective=moon",
		"/api/v1/agent/opportunities?objective=breakout&minBuyPressure=49", "/api/v1/intelligence/opportunities?objective=breakout&include=x"} {
		for _, h := range []map[string]string{nil, hk, pay} {
			if r := f.get(t, target, h); r.status != 400 || r.decoded["charged"] != false {
				t.Fatalf("%s (headers %v): %d %s, want 400", target, h != nil, r.status, r.body)
			}
		}
	}
	for _, target := range []string{"/api/v1/intelligence/snapshot/premium", "/api/v1/intelligence/candles/opportunities", "/api/v1/datasets/equities"} {
		for _, h := range []map[string]string{nil, hk, pay} {
			if r := f.get(t, target, h); r.status != 404 || r.decoded["error"] != "not_found" || r.header.Get(x402.HeaderPaymentRequired) != "" {
				t.Fatalf("%s (headers %v): %d %s, want 404 not_found", target, h != nil, r.status, r.body)
			}
		}
	}
	if d, n, v := st.debits.Load(), st.nonces.Load(), se.verifies.Load(); d != 0 || n != 0 || v != 0 {
		t.Fatalf("invalid calls reached the paywall: %d debits, %d nonces reserved, %d facilitator verifications", d, n, v)
	}
	// The credit and the payment are intact.
	if r := f.get(t, paidTarget, hk); r.status != 200 {
		t.Fatalf("valid call with the key: %d %s", r.status, r.body)
	}
	if r := f.get(t, paidTarget, pay); r.status != 200 || r.header.Get(x402.HeaderPaymentResponse) == "" {
		t.Fatalf("the x402 payment refused by the 400 does not pay a valid call: %d %s", r.status, r.body)
	}
}

// TestPaywallHead: HEAD on a paid route is refused with 405 and Allow: GET
// before the paywall (a HEAD answer has no body: charging it sells
// nothing); HEAD on a free route answers as GET without a body.
func TestPaywallHead(t *testing.T) {
	var st *countingStore
	f := newPayFixtureWith(t, payOptions{wrapStore: func(s ledger.Store) ledger.Store { st = &countingStore{Store: s}; return st }})
	key, err := f.store.CreateKey(t.Context(), 10*symbolPrice, "test", "grant-head")
	if err != nil {
		t.Fatal(err)
	}
	head := func(target string, h map[string]string) *http.Response {
		t.Helper()
		req := httptest.NewRequest(http.MethodHead, target, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := f.app.Test(req, fiber.TestConfig{Timeout: 60 * time.Second, FailOnTimeout: true})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	q := quoteOf(t, f.get(t, paidTarget, nil))
	pay := header(t, x402test.Pay(t, f.payer, q.Accepts[0], time.Now(), time.Minute))
	for _, target := range []string{paidTarget, "/api/v1/intelligence/summary", "/api/v1/intelligence/candles/BTCUSD", "/api/v1/datasets/BTCUSD"} {
		for _, h := range []map[string]string{nil, {paywall.HeaderAPIKey: key}, pay} {
			if r := head(target, h); r.StatusCode != 405 || r.Header.Get(fiber.HeaderAllow) != "GET" || r.Header.Get(x402.HeaderPaymentRequired) != "" {
				t.Fatalf("HEAD %s: %d Allow=%q", target, r.StatusCode, r.Header.Get(fiber.HeaderAllow))
			}
		}
	}
	if d, n := st.debits.Load(), st.nonces.Load(); d != 0 || n != 0 {
		t.Fatalf("HEAD reached the paywall: %d debits, %d nonces", d, n)
	}
	if b, err := f.store.KeyBalance(t.Context(), key); err != nil || b != 10*symbolPrice {
		t.Fatalf("balance %d after HEADs (%v)", b, err)
	}
	if payer, payTo := f.balances(t); payer != f.paid || payTo != 0 {
		t.Fatalf("balances moved: payer %d, payTo %d", payer, payTo)
	}
	for _, target := range []string{"/healthz", "/pricing", "/coverage"} {
		if r := head(target, nil); r.StatusCode != 200 {
			t.Fatalf("HEAD %s (free): %d", target, r.StatusCode)
		}
	}
}

// TestPaywallLocalChecksBeforeFacilitator: what the service can check
// itself — nonce used, validity window, amount, payee, signature — is
// checked before the settlement backend's Verify (a facilitator's
// /verify): a replayed, expired, underpaid or misaddressed payment never
// leaves the service.
func TestPaywallLocalChecksBeforeFacilitator(t *testing.T) {
	var se *countingSettler
	f := newPayFixtureWith(t, payOptions{wrapSettler: func(s x402.Settler) x402.Settler { se = &countingSettler{Settler: s}; return se }})
	req := quoteOf(t, f.get(t, paidTarget, nil)).Accepts[0]
	now := time.Now()
	p := x402test.Pay(t, f.payer, req, now, time.Minute)
	if r := f.get(t, paidTarget, header(t, p)); r.status != 200 {
		t.Fatalf("payment: %d %s", r.status, r.body)
	}
	if n := se.verifies.Load(); n != 1 {
		t.Fatalf("%d verifications for one payment", n)
	}
	bad := map[string]*x402.PaymentPayload{"replayed": p}
	a := x402test.Authorization(f.payer, req, now, time.Minute)
	a.ValidBefore = big.NewInt(now.Add(-time.Second).Unix()).String()
	bad["expired"] = x402test.Signed(t, f.payer, req, a)
	a = x402test.Authorization(f.payer, req, now, time.Minute)
	a.Value = "1"
	bad["underpaid"] = x402test.Signed(t, f.payer, req, a)
	a = x402test.Authorization(f.payer, req, now, time.Minute)
	a.To = crypto.PubkeyToAddress(f.payer.PublicKey).Hex()
	bad["other payee"] = x402test.Signed(t, f.payer, req, a)
	for name, p := range bad {
		r := f.get(t, paidTarget, header(t, p))
		if quoteOf(t, r); r.decoded["symbol"] != nil {
			t.Fatalf("%s: served %s", name, r.body)
		}
		if n := se.verifies.Load(); n != 1 {
			t.Fatalf("%s (%s) reached the facilitator's verify", name, r.decoded["error"])
		}
	}
	if r := f.get(t, paidTarget, header(t, p)); r.decoded["error"] != "invalid_exact_evm_nonce_already_used" {
		t.Fatalf("replay: %s", r.body)
	}
}
