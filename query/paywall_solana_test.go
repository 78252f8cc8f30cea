package query

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
	"github.com/marketintel/mi/sinks/views"
)

// solanaFacilitator answers /verify and /settle of Solana payments the way
// an x402 facilitator does, naming payer as the paying account; it is the
// only stand-in here (Solana always settles through a facilitator). It
// counts the calls it gets in calls.
func solanaFacilitator(t *testing.T, payer *string, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var body struct {
			PaymentRequirements x402.PaymentRequirements `json:"paymentRequirements"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/verify":
			_ = json.NewEncoder(w).Encode(x402.VerifyResponse{IsValid: true, Payer: *payer})
		case "/settle":
			_ = json.NewEncoder(w).Encode(x402.SettlementResponse{Success: true, Payer: *payer,
				Transaction: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", Network: body.PaymentRequirements.Network})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPaywallSolanaWallet: a Solana wallet that paid for a credit pack
// (payer named by the facilitator's settle answer) holds the credit under
// its solana: id and spends it by signing the 402's challenge with ed25519
// (SIWS); an unfunded Solana wallet and an EVM wallet get
// insufficient_credit with the signIn entry, and nothing is debited.
func TestPaywallSolanaWallet(t *testing.T) {
	store, err := ledger.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	_, unfunded, _ := ed25519.GenerateKey(rand.Reader)
	address := func(k ed25519.PrivateKey) string { return base58(k.Public().(ed25519.PublicKey)) }
	payer := address(key)
	var facCalls atomic.Int32
	fac := solanaFacilitator(t, &payer, &facCalls)
	sol := x402.KnownAssets[x402.NetworkSolana]
	payTo := "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	pw, err := paywall.New(paywall.Config{
		Store: store,
		Offers: []x402.Offer{
			{Network: x402.NetworkBase, Asset: x402.KnownAssets[x402.NetworkBase][0], PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"},
			{Network: x402.NetworkSolana, Asset: sol[0], PayTo: payTo, FeePayer: payTo},
			{Network: x402.NetworkSolana, Asset: sol[1], PayTo: payTo, FeePayer: payTo},
		},
		Settler:         &x402.Router{ByNetwork: map[string]x402.Settler{x402.NetworkSolana: &x402.Facilitator{URL: fac.URL}}},
		PublicURL:       "http://api.test",
		UnpaidPerMinute: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	views := views.New()
	views.Apply(fullDoc())
	app := New(Deps{Views: views, Now: func() time.Time { return testNow }, Paywall: pw, Ledger: store}).App()
	send := func(method, target string, headers map[string]string) paidResponse {
		t.Helper()
		req := httptest.NewRequest(method, target, nil)
		for k, val := range headers {
			req.Header.Set(k, val)
		}
		resp, err := app.Test(req, fiber.TestConfig{Timeout: 60 * time.Second, FailOnTimeout: true})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		r := paidResponse{status: resp.StatusCode, header: resp.Header, body: b.String()}
		_ = json.Unmarshal(b.Bytes(), &r.decoded)
		return r
	}

	// Buy pack 5 in EURC on Solana.
	q := quoteOf(t, send("POST", "/api/v1/credits/buy/5", nil))
	var req *x402.PaymentRequirements
	for i, a := range q.Accepts {
		if a.Network == x402.NetworkSolana && a.Asset == sol[1].Address {
			req = &q.Accepts[i]
		}
	}
	if req == nil {
		t.Fatalf("no Solana EURC offer in %+v", q.Accepts)
	}
	pay, _ := x402.EncodeHeader(&x402.PaymentPayload{X402Version: 2, Accepted: *req, Payload: json.RawMessage(`{"transaction":"AQIDBA=="}`)})
	r := send("POST", "/api/v1/credits/buy/5", map[string]string{x402.HeaderPaymentSignature: pay})
	if r.status != 200 || r.decoded["wallet"] != "solana:"+payer || r.decoded["asset"] != "EURC" {
		t.Fatalf("purchase: %d %s", r.status, r.body)
	}
	wallet := "solana:" + payer
	if bal, _ := store.WalletBalance(t.Context(), wallet); bal != 5_000_000 {
		t.Fatalf("wallet balance %d after the pack", bal)
	}
	// The same transaction again is refused locally: the facilitator is
	// not asked (it was asked twice, /verify and /settle, for the purchase).
	if r := send("POST", "/api/v1/credits/buy/5", map[string]string{x402.HeaderPaymentSignature: pay}); r.status != 402 ||
		r.decoded["error"] != "invalid_exact_evm_nonce_already_used" || facCalls.Load() != 2 {
		t.Fatalf("replayed Solana payment: %d %s, facilitator calls %d", r.status, r.body, facCalls.Load())
	}
	if bal, _ := store.WalletBalance(t.Context(), wallet); bal != 5_000_000 {
		t.Fatalf("wallet balance %d after a replay", bal)
	}

	// The 402 offers Solana sign-in; a SIWS proof pays the call.
	proof := func(k ed25519.PrivateKey, mod func(*x402.SignInProof)) map[string]string {
		t.Helper()
		raw, _ := json.Marshal(quoteOf(t, send("GET", paidTarget, nil)).Extensions[x402.ExtensionSignIn])
		var ext x402.SignInExtension
		if err := json.Unmarshal(raw, &ext); err != nil {
			t.Fatal(err)
		}
		var chain string
		for _, c := range ext.SupportedChains {
			if c.Type == "ed25519" {
				chain = c.ChainID
			}
		}
		if chain != x402.NetworkSolana {
			t.Fatalf("supportedChains %+v", ext.SupportedChains)
		}
		p := &x402.SignInProof{SignInInfo: ext.Info, ChainID: chain, Type: "ed25519", Address: address(k)}
		msg, err := x402.SIWSMessage(p, "")
		if err != nil {
			t.Fatal(err)
		}
		p.Signature = base58(ed25519.Sign(k, []byte(msg)))
		if mod != nil {
			mod(p)
		}
		h, _ := x402.EncodeHeader(p)
		return map[string]string{x402.HeaderSignInWithX: h}
	}
	h := proof(key, nil)
	if r := send("GET", paidTarget, h); r.status != 200 || r.decoded["symbol"] != "BTCUSD" {
		t.Fatalf("signed in: %d %s", r.status, r.body)
	}
	want := int64(5_000_000 - symbolPrice)
	if bal, _ := store.WalletBalance(t.Context(), wallet); bal != want {
		t.Fatalf("wallet balance %d after a signed-in call, want %d", bal, want)
	}
	refused := func(name string, h map[string]string, code string) {
		t.Helper()
		r := send("GET", paidTarget, h)
		if quoteOf(t, r); r.decoded["error"] != code {
			t.Fatalf("%s: %s, want %s", name, r.body, code)
		}
		if bal, _ := store.WalletBalance(t.Context(), wallet); bal != want {
			t.Fatalf("%s: wallet balance %d, want %d", name, bal, want)
		}
	}
	refused("replayed", h, "siwx_proof_used")
	refused("wrong domain", proof(key, func(p *x402.SignInProof) { p.Domain = "evil.test" }), "siwx_domain_mismatch")
	refused("tampered", proof(key, func(p *x402.SignInProof) { p.Statement += "!" }), "siwx_invalid_signature")
	refused("expired", proof(key, func(p *x402.SignInProof) { p.IssuedAt = "2020-01-01T00:00:00.000Z" }), "siwx_proof_expired")
	r = send("GET", paidTarget, proof(unfunded, nil))
	si, _ := r.decoded["signIn"].(map[string]any)
	if quoteOf(t, r); r.decoded["error"] != "insufficient_credit" || si["wallet"] != "solana:"+address(unfunded) || si["covered"] != false || si["balanceMicroUsd"] != 0.0 {
		t.Fatalf("unfunded Solana wallet: %s", r.body)
	}
}

// base58 writes b in the Bitcoin alphabet (tests only; x402 has the
// decoder the server uses).
func base58(b []byte) string {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	var digits []byte
	for _, v := range b {
		carry := int(v)
		for j := range digits {
			carry += int(digits[j]) << 8
			digits[j] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := []byte{}
	for _, v := range b {
		if v != 0 {
			break
		}
		out = append(out, '1')
	}
	for i := len(digits) - 1; i >= 0; i-- {
		out = append(out, alphabet[digits[i]])
	}
	return string(out)
}
