package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var sessionSeq atomic.Int64

func newSessionID() string {
	return fmt.Sprintf("cs_test_%d_%d", time.Now().UnixNano(), sessionSeq.Add(1))
}

// openPack20 opens a checkout of the 20 USD pack (credit 22 USD).
func openPack20(t *testing.T, s *SQL, topUp string) string {
	t.Helper()
	id := newSessionID()
	if err := s.OpenCheckout(context.Background(), NewCheckout{SessionID: id, Pack: "20", CreditMicroUSD: 22_000_000,
		Amount: 2000, Currency: "usd", TopUpKey: topUp}); err != nil {
		t.Fatal(err)
	}
	return id
}

func paid(id string) CheckoutPayment {
	return CheckoutPayment{SessionID: id, Amount: 2000, Currency: "usd", PaymentIntent: "pi_" + id}
}

func TestConformanceCheckoutNewKeyShownOnce(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, reopen func() *SQL) {
		ctx := context.Background()
		id := openPack20(t, s, "")
		if err := s.OpenCheckout(ctx, NewCheckout{SessionID: id, Pack: "20", CreditMicroUSD: 1, Amount: 1, Currency: "usd"}); !errors.Is(err, ErrDuplicateRequest) {
			t.Fatalf("second open of %s: %v, want ErrDuplicateRequest", id, err)
		}
		// Not paid: no key, whatever asks.
		if _, key, err := s.RevealCheckoutKey(ctx, id, ShownByAPI, time.Time{}); !errors.Is(err, ErrCheckoutUnpaid) || key != "" {
			t.Fatalf("reveal before payment: %q, %v; want ErrCheckoutUnpaid", key, err)
		}
		if _, _, err := s.RevealCheckoutKey(ctx, "cs_nobody", ShownByAPI, time.Time{}); !errors.Is(err, ErrUnknownCheckout) {
			t.Fatalf("reveal of an unknown session: %v", err)
		}
		// A payment of another amount or currency grants nothing.
		for _, p := range []CheckoutPayment{{SessionID: id, Amount: 500, Currency: "usd"}, {SessionID: id, Amount: 2000, Currency: "eur"}} {
			if _, _, err := s.PayCheckout(ctx, p); !errors.Is(err, ErrCheckoutMismatch) {
				t.Fatalf("payment %+v: %v, want ErrCheckoutMismatch", p, err)
			}
		}
		c, granted, err := s.PayCheckout(ctx, paid(id))
		if err != nil || !granted || c.Status != CheckoutPaid || c.PaymentIntent != "pi_"+id {
			t.Fatalf("payment: %+v granted=%v %v", c, granted, err)
		}
		if _, granted, err := s.PayCheckout(ctx, paid(id)); err != nil || granted {
			t.Fatalf("second payment report: granted=%v %v, want nothing granted", granted, err)
		}
		if bal, err := s.CheckoutBalance(ctx, id); err != nil || bal != 22_000_000 {
			t.Fatalf("balance before the key exists: %d %v", bal, err)
		}
		s = reopen() // survives a restart
		c, key, err := s.RevealCheckoutKey(ctx, id, ShownOnPage, time.Time{})
		if err != nil || !WellFormedKey(key) || c.ShownVia != ShownOnPage || c.ShownAt.IsZero() {
			t.Fatalf("first showing: %q %+v %v", key, c, err)
		}
		mustBalance(t, s, key, 22_000_000)
		c, again, err := s.RevealCheckoutKey(ctx, id, ShownByAPI, time.Time{})
		if !errors.Is(err, ErrKeyAlreadyShown) || again != "" || c.ShownVia != ShownOnPage {
			t.Fatalf("second showing: %q %+v %v; want ErrKeyAlreadyShown naming the page", again, c, err)
		}
		// The key is stored as its hash only.
		var n int
		if err := s.DB().QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM checkout_sessions WHERE key_hash = ?`), HashKey(key)).Scan(&n); err != nil || n != 1 {
			t.Fatalf("sessions bound to the key's hash: %d %v", n, err)
		}
		if err := s.DB().QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM api_keys WHERE key_hash = ?`), key).Scan(&n); err != nil || n != 0 {
			t.Fatalf("plain key stored: %d %v", n, err)
		}
	})
}

func TestConformanceCheckoutConcurrentShowing(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		id := openPack20(t, s, "")
		// The webhook and a retrieval report the payment at once: one grant.
		var wg sync.WaitGroup
		var grants atomic.Int32
		for range 8 {
			wg.Go(func() {
				if _, g, err := s.PayCheckout(ctx, paid(id)); err != nil {
					t.Error(err)
				} else if g {
					grants.Add(1)
				}
			})
		}
		wg.Wait()
		if grants.Load() != 1 {
			t.Fatalf("%d grants of one payment", grants.Load())
		}
		// The success page and the session route ask at once: one key.
		var mu sync.Mutex
		var keys []string
		var shown atomic.Int32
		for i := range 8 {
			via := ShownOnPage
			if i%2 == 1 {
				via = ShownByAPI
			}
			wg.Go(func() {
				_, key, err := s.RevealCheckoutKey(ctx, id, via, time.Time{})
				switch {
				case errors.Is(err, ErrKeyAlreadyShown):
					shown.Add(1)
				case err != nil:
					t.Error(err)
				default:
					mu.Lock()
					keys = append(keys, key)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(keys) != 1 || shown.Load() != 7 {
			t.Fatalf("%d keys shown, %d told already shown; want 1 and 7", len(keys), shown.Load())
		}
		mustBalance(t, s, keys[0], 22_000_000)
	})
}

func TestConformanceCheckoutTopUp(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		key, err := s.CreateKey(ctx, 1_000_000, "test", reqID())
		if err != nil {
			t.Fatal(err)
		}
		unknown, _ := NewKey()
		for _, k := range []string{unknown, "mi_live_short", "not a key"} {
			if err := s.OpenCheckout(ctx, NewCheckout{SessionID: newSessionID(), Pack: "5", CreditMicroUSD: 5_000_000, Amount: 500,
				Currency: "usd", TopUpKey: k}); !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("top-up of %q: %v, want ErrUnknownKey", k, err)
			}
		}
		id := openPack20(t, s, key)
		c, err := s.Checkout(ctx, id)
		if err != nil || !c.TopUp || c.Status != CheckoutOpen {
			t.Fatalf("%+v %v", c, err)
		}
		if _, _, err := s.PayCheckout(ctx, paid(id)); err != nil {
			t.Fatal(err)
		}
		mustBalance(t, s, key, 23_000_000)
		// A top-up has no key to show, however often it is asked.
		for range 2 {
			c, k, err := s.RevealCheckoutKey(ctx, id, ShownByAPI, time.Time{})
			if err != nil || k != "" || !c.TopUp || c.ShownVia != "" {
				t.Fatalf("top-up showing: %q %+v %v", k, c, err)
			}
		}
	})
}

func TestConformanceStripeEvents(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		id := openPack20(t, s, "")
		p := paid(id)
		out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_1", Type: "checkout.session.completed", ObjectID: id, Pay: &p})
		if err != nil || out != "paid: granted 22 USD" {
			t.Fatalf("first event: %q %v", out, err)
		}
		if _, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_1", Type: "checkout.session.completed", ObjectID: id, Pay: &p}); !errors.Is(err, ErrDuplicateEvent) {
			t.Fatalf("replayed event: %v, want ErrDuplicateEvent", err)
		}
		// Another event paying the same session grants nothing more.
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_2", Type: "checkout.session.async_payment_succeeded", ObjectID: id, Pay: &p}); err != nil || out != "paid before: nothing granted" {
			t.Fatalf("second payment event: %q %v", out, err)
		}
		// A mismatched payment is refused and not recorded: the processor's
		// retry reports it again.
		other := openPack20(t, s, "")
		bad := CheckoutPayment{SessionID: other, Amount: 1, Currency: "usd"}
		for range 2 {
			if _, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_3", Type: "checkout.session.completed", ObjectID: other, Pay: &bad}); !errors.Is(err, ErrCheckoutMismatch) {
				t.Fatalf("mismatched payment: %v", err)
			}
		}
		// Unknown sessions are recorded and ignored.
		ghost := CheckoutPayment{SessionID: "cs_elsewhere", Amount: 1, Currency: "usd"}
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_4", Type: "checkout.session.completed", ObjectID: "cs_elsewhere", Pay: &ghost}); err != nil || out != "ignored: unknown checkout session" {
			t.Fatalf("unknown session: %q %v", out, err)
		}
		// Expiry closes an open session only.
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_5", Type: "checkout.session.expired", ObjectID: other, Close: CheckoutExpired}); err != nil || out != CheckoutExpired {
			t.Fatalf("expiry: %q %v", out, err)
		}
		if c, err := s.CloseCheckout(ctx, other, CheckoutFailed); err != nil || c.Status != CheckoutExpired {
			t.Fatalf("closing an expired session again: %+v %v", c, err)
		}
		if _, err := s.CloseCheckout(ctx, "cs_nobody", CheckoutExpired); !errors.Is(err, ErrUnknownCheckout) {
			t.Fatalf("closing an unknown session: %v", err)
		}
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_6", Type: "checkout.session.expired", ObjectID: id, Close: CheckoutExpired}); err != nil || out != "ignored: session not open" {
			t.Fatalf("expiry of a paid session: %q %v", out, err)
		}
		if c, err := s.Checkout(ctx, id); err != nil || c.Status != CheckoutPaid {
			t.Fatalf("%+v %v", c, err)
		}
		// Concurrent deliveries of one event: handled once.
		third := openPack20(t, s, "")
		p3 := paid(third)
		var wg sync.WaitGroup
		var handled, dup atomic.Int32
		for range 6 {
			wg.Go(func() {
				_, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_7", Type: "checkout.session.completed", ObjectID: third, Pay: &p3})
				switch {
				case err == nil:
					handled.Add(1)
				case errors.Is(err, ErrDuplicateEvent):
					dup.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if handled.Load() != 1 || dup.Load() != 5 {
			t.Fatalf("one event delivered 6 times: handled %d, duplicates %d", handled.Load(), dup.Load())
		}
	})
}

func TestConformanceCheckoutReversals(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		id := openPack20(t, s, "")
		if _, _, err := s.PayCheckout(ctx, paid(id)); err != nil {
			t.Fatal(err)
		}
		_, key, err := s.RevealCheckoutKey(ctx, id, ShownByAPI, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		pi := "pi_" + id
		// A partial refund of 5 of 20 USD takes back a quarter of 22 USD.
		out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_r1", Type: "charge.refunded", ObjectID: "ch_1",
			Reverse: &CheckoutReversal{PaymentIntent: pi, Amount: 500, Reason: "refund"}})
		if err != nil || out != "took back 5.5 USD of 5.5 USD" {
			t.Fatalf("partial refund: %q %v", out, err)
		}
		mustBalance(t, s, key, 16_500_000)
		// The same share again (a later event with the cumulative amount)
		// takes nothing more.
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_r2", Type: "charge.refunded", ObjectID: "ch_1",
			Reverse: &CheckoutReversal{PaymentIntent: pi, Amount: 500}}); err != nil || out != "nothing more to take back (5.5 USD taken before)" {
			t.Fatalf("same share: %q %v", out, err)
		}
		// Spend most of it, then a dispute of the whole payment takes back
		// what is left.
		if err := s.DebitKey(ctx, key, charge(16_000_000)); err != nil {
			t.Fatal(err)
		}
		out, err = s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_d1", Type: "charge.dispute.created", ObjectID: "dp_1",
			Reverse: &CheckoutReversal{PaymentIntent: pi, Amount: 2000, Reason: "dispute"}})
		if err != nil || out != "took back 0.5 USD of 16.5 USD (the rest was spent)" {
			t.Fatalf("dispute: %q %v", out, err)
		}
		mustBalance(t, s, key, 0)
		if c, err := s.Checkout(ctx, id); err != nil || c.ReversedMicroUSD != 22_000_000 {
			t.Fatalf("%+v %v", c, err)
		}
		if out, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_r3", Type: "charge.refunded", ObjectID: "ch_2",
			Reverse: &CheckoutReversal{PaymentIntent: "pi_other", Amount: 1}}); err != nil || out != "ignored: payment of no checkout session" {
			t.Fatalf("refund of another payment: %q %v", out, err)
		}
		// A refund before the key was shown takes from the account made at
		// payment.
		id2 := openPack20(t, s, "")
		if _, _, err := s.PayCheckout(ctx, paid(id2)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyStripeEvent(ctx, StripeEvent{ID: "evt_r4", Type: "charge.refunded", ObjectID: "ch_3",
			Reverse: &CheckoutReversal{PaymentIntent: "pi_" + id2, Amount: 2000}}); err != nil {
			t.Fatal(err)
		}
		if bal, err := s.CheckoutBalance(ctx, id2); err != nil || bal != 0 {
			t.Fatalf("balance after a full refund: %d %v", bal, err)
		}
	})
}
