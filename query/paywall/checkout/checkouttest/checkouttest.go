// Package checkouttest runs Stripe's own API mock, stripe-mock, for the
// tests of card checkout (query/paywall/checkout and the browser tests of
// internal/interop/browser), and builds the webhook events Stripe would
// send, signed with the official library's test helper.
//
// stripe-mock answers every request from fixtures and keeps no state: a
// created session is always "open" and "unpaid", and a retrieved session is
// the fixture with the id asked for. PaidFixtures makes a second mock whose
// sessions are "complete" and "paid", from the first mock's own fixture,
// so that a retrieval that finds a payment is tested on Stripe's response
// format too (docs/checkout.md, "What the tests prove").
package checkouttest

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// StripeMockVersion is the version scripts/install.d/stripe-mock.sh
// installs.
const StripeMockVersion = "v0.203.0"

// TestKey is a test-mode secret key; stripe-mock accepts any.
const TestKey = "sk_test_mi0checkouttest000000000000"

// WebhookSecret is the signing secret the tests sign their events with.
const WebhookSecret = "whsec_mi_checkouttest_00000000000000000000"

// Binary returns the path of stripe-mock at the pinned version; it fails
// the test, naming the install script, when it is missing or another
// version.
func Binary(t testing.TB) string {
	t.Helper()
	var candidates []string
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		candidates = append(candidates, p)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			candidates = append(candidates, filepath.Join(dir, "bin", "stripe-mock"))
		}
	}
	var seen []string
	for _, p := range candidates {
		bi, err := buildinfo.ReadFile(p)
		if err != nil {
			continue
		}
		if bi.Main.Path == "github.com/stripe/stripe-mock" && bi.Main.Version == StripeMockVersion {
			return p
		}
		seen = append(seen, p+" ("+bi.Main.Version+")")
	}
	t.Fatalf("stripe-mock %s is not installed (found: %v): run scripts/install.d/stripe-mock.sh (make test does)", StripeMockVersion, seen)
	return ""
}

// Start runs stripe-mock on a free port of 127.0.0.1 until the test ends
// and returns its base URL. fixtures is a fixtures file to use instead of
// the bundled ones ("" for the bundled).
func Start(t testing.TB, fixtures string) string {
	t.Helper()
	args := []string{"-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:"}
	if fixtures != "" {
		args = append(args, "-fixtures", fixtures)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, Binary(t), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("cannot start stripe-mock: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "Listening for HTTP at address: "); ok {
				addr <- strings.TrimSpace(a)
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatal("stripe-mock exited before it listened")
		}
		go io.Copy(io.Discard, out)
		return "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatal("stripe-mock did not listen within 30 s")
	}
	return ""
}

// PaidFixtures writes a fixtures file whose checkout session is complete
// and paid for amount (minor units) in currency, made from the checkout
// session fixture the running mock at base answers, and returns its path.
func PaidFixtures(t testing.TB, base string, amount int64, currency string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/checkout/sessions/cs_test_fixture", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+TestKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("cannot read the checkout session fixture of stripe-mock: %v", err)
	}
	defer resp.Body.Close()
	var session map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&session); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("checkout session fixture: %d %v", resp.StatusCode, err)
	}
	session["status"], session["payment_status"] = "complete", "paid"
	session["amount_total"], session["currency"] = amount, currency
	b, err := json.Marshal(map[string]any{"resources": map[string]any{"checkout.session": session}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "paid-fixtures.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Session is what a checkout.session.* event carries about its session.
type Session struct {
	ID            string
	Status        string // open, complete, expired
	PaymentStatus string // paid, unpaid, no_payment_required
	AmountTotal   int64
	Currency      string
	PaymentIntent string
}

// SessionEvent is the JSON of a checkout.session.* event (type typ, id
// eventID) about s, in the shape Stripe sends it.
func SessionEvent(eventID, typ string, s Session) []byte {
	obj := map[string]any{
		"id": s.ID, "object": "checkout.session", "mode": "payment", "status": s.Status, "payment_status": s.PaymentStatus,
		"amount_total": s.AmountTotal, "currency": s.Currency, "livemode": false, "metadata": map[string]string{},
	}
	if s.PaymentIntent != "" {
		obj["payment_intent"] = s.PaymentIntent
	} else {
		obj["payment_intent"] = nil
	}
	return event(eventID, typ, obj)
}

// ChargeRefundedEvent is a charge.refunded event: refunded of amount (minor
// units) of the charge of paymentIntent.
func ChargeRefundedEvent(eventID, paymentIntent string, amount, refunded int64) []byte {
	return event(eventID, "charge.refunded", map[string]any{
		"id": "ch_" + eventID, "object": "charge", "amount": amount, "amount_refunded": refunded, "refunded": refunded == amount,
		"currency": "usd", "payment_intent": paymentIntent, "livemode": false,
	})
}

// DisputeEvent is a charge.dispute.created event disputing amount of the
// charge of paymentIntent.
func DisputeEvent(eventID, paymentIntent string, amount int64) []byte {
	return event(eventID, "charge.dispute.created", map[string]any{
		"id": "dp_" + eventID, "object": "dispute", "amount": amount, "currency": "usd", "charge": "ch_" + eventID,
		"payment_intent": paymentIntent, "reason": "fraudulent", "status": "needs_response", "livemode": false,
	})
}

func event(id, typ string, obj map[string]any) []byte {
	b, err := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": stripe.APIVersion, "created": time.Now().Unix(),
		"type": typ, "livemode": false, "pending_webhooks": 1,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": obj},
	})
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot encode a test event: %v", err))
	}
	return b
}

// Sign returns the Stripe-Signature header of payload signed with secret at
// time at, by the official library's test helper.
func Sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}
