package checkout

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/marketintel/mi/query/paywall/checkout/checkouttest"
)

// FuzzLedgerEvent feeds the decoder of webhook events (run after the
// signature is verified, on Stripe's JSON) arbitrary events: it never
// panics, and an event it accepts has an id, a type and at most one effect.
func FuzzLedgerEvent(f *testing.F) {
	f.Add(checkouttest.SessionEvent("evt_1", "checkout.session.completed", checkouttest.Session{ID: "cs_test_a", Status: "complete",
		PaymentStatus: "paid", AmountTotal: 2000, Currency: "usd", PaymentIntent: "pi_1"}))
	f.Add(checkouttest.SessionEvent("evt_2", "checkout.session.expired", checkouttest.Session{ID: "cs_test_b", Status: "expired"}))
	f.Add(checkouttest.ChargeRefundedEvent("evt_3", "pi_1", 2000, 500))
	f.Add(checkouttest.DisputeEvent("evt_4", "pi_1", 2000))
	f.Add([]byte(`{"id":"evt_5","object":"event","type":"charge.refunded","data":{"object":{"id":"ch_1","payment_intent":{"id":"pi_2"}}}}`))
	f.Add([]byte(`{"id":"evt_6","object":"event","type":"checkout.session.completed","data":{"object":[]}}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		var ev stripe.Event
		if json.Unmarshal(payload, &ev) != nil {
			return
		}
		out, err := ledgerEvent(ev, time.Unix(0, 0))
		if err != nil {
			return
		}
		effects := 0
		if out.Pay != nil {
			effects++
		}
		if out.Close != "" {
			effects++
		}
		if out.Reverse != nil {
			effects++
		}
		if out.ID == "" || out.Type == "" || effects > 1 {
			t.Fatalf("accepted %s as %+v", payload, out)
		}
	})
}
