package checkout

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/marketintel/mi/query/paywall/ledger"
)

// The Stripe event types the webhook acts on (docs/checkout.md); every
// other type is recorded and ignored.
const (
	evSessionCompleted     = "checkout.session.completed"
	evAsyncPaymentSucceded = "checkout.session.async_payment_succeeded"
	evAsyncPaymentFailed   = "checkout.session.async_payment_failed"
	evSessionExpired       = "checkout.session.expired"
	evChargeRefunded       = "charge.refunded"
	evDisputeCreated       = "charge.dispute.created"
)

// ledgerEvent turns a verified Stripe event into the ledger's event with
// its one effect. Only the fields read here are decoded, so events of
// another API version than the library's work the same (the webhook
// ignores the version mismatch; docs/checkout.md).
func ledgerEvent(ev stripe.Event, now time.Time) (ledger.StripeEvent, error) {
	if ev.ID == "" || ev.Type == "" || ev.Data == nil || len(ev.Data.Raw) == 0 {
		return ledger.StripeEvent{}, errors.New("the event has no id, type or data.object")
	}
	out := ledger.StripeEvent{ID: ev.ID, Type: string(ev.Type), At: now}
	switch ev.Type {
	case evSessionCompleted, evAsyncPaymentSucceded, evAsyncPaymentFailed, evSessionExpired:
		var s stripe.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &s); err != nil || s.ID == "" {
			return ledger.StripeEvent{}, fmt.Errorf("%s: data.object is not a checkout session", ev.Type)
		}
		out.ObjectID = s.ID
		switch {
		case ev.Type == evSessionExpired:
			out.Close = ledger.CheckoutExpired
		case ev.Type == evAsyncPaymentFailed:
			out.Close = ledger.CheckoutFailed
		case sessionPaid(&s):
			p := sessionPayment(&s, now)
			out.Pay = &p
		}
		// A completed session whose delayed payment is still pending
		// ("unpaid") has no effect; async_payment_succeeded follows.
	case evChargeRefunded:
		var ch stripe.Charge
		if err := json.Unmarshal(ev.Data.Raw, &ch); err != nil || ch.ID == "" {
			return ledger.StripeEvent{}, fmt.Errorf("%s: data.object is not a charge", ev.Type)
		}
		out.ObjectID = ch.ID
		if ch.PaymentIntent != nil {
			out.Reverse = &ledger.CheckoutReversal{PaymentIntent: ch.PaymentIntent.ID, Amount: ch.AmountRefunded,
				Reason: fmt.Sprintf("card payment refunded: %d of %d %s (%s)", ch.AmountRefunded, ch.Amount, ch.Currency, ev.ID)}
		}
	case evDisputeCreated:
		var d stripe.Dispute
		if err := json.Unmarshal(ev.Data.Raw, &d); err != nil || d.ID == "" {
			return ledger.StripeEvent{}, fmt.Errorf("%s: data.object is not a dispute", ev.Type)
		}
		out.ObjectID = d.ID
		if d.PaymentIntent != nil {
			out.Reverse = &ledger.CheckoutReversal{PaymentIntent: d.PaymentIntent.ID, Amount: d.Amount,
				Reason: fmt.Sprintf("card payment disputed: %d %s (%s)", d.Amount, d.Currency, ev.ID)}
		}
	}
	return out, nil
}
