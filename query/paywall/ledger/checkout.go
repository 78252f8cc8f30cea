package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Card checkout of credit packs (docs/checkout.md). A checkout session is
// opened when a person asks for a card payment page; it is paid when the
// card processor reports it paid (a signed webhook event or a retrieval of
// the session), which grants the pack's credit in the same transaction;
// and a session that bought a new key shows that key exactly once.
//
// The key is created at its one showing, not at the payment: the payment
// creates an account holding the credit and no key, and the first showing
// creates the key, stores its hash on that account and marks the session
// shown, in one transaction. So the plain key is never stored, not even
// encrypted, and a second showing finds the session marked and has nothing
// to show.

// States of a checkout session.
const (
	// CheckoutOpen: created, not paid (yet).
	CheckoutOpen = "open"
	// CheckoutPaid: the card processor reported it paid; the credit is
	// granted.
	CheckoutPaid = "paid"
	// CheckoutExpired: the session ended unpaid.
	CheckoutExpired = "expired"
	// CheckoutFailed: a delayed payment method failed.
	CheckoutFailed = "failed"
)

// Where the key of a checkout was shown.
const (
	// ShownOnPage: the success page the card processor redirects to.
	ShownOnPage = "page"
	// ShownByAPI: GET /api/v1/credits/checkout/session/{sessionId}.
	ShownByAPI = "api"
)

// Sentinels of the checkout operations.
var (
	// ErrUnknownCheckout: no checkout session with that id was opened here.
	ErrUnknownCheckout = errors.New("unknown checkout session")
	// ErrCheckoutUnpaid: the session is not paid (yet, or ever).
	ErrCheckoutUnpaid = errors.New("checkout session not paid")
	// ErrKeyAlreadyShown: the session's key was shown before and cannot be
	// shown again.
	ErrKeyAlreadyShown = errors.New("the key of this checkout session was already shown")
	// ErrCheckoutMismatch: a payment's amount or currency is not the
	// session's.
	ErrCheckoutMismatch = errors.New("payment does not match the checkout session")
	// ErrDuplicateEvent: an event with that id was handled before.
	ErrDuplicateEvent = errors.New("event already handled")
)

// NewCheckout is a checkout session to record, just created at the card
// processor.
type NewCheckout struct {
	// SessionID is the processor's session id (Stripe: cs_…).
	SessionID string
	// Pack is the pack name ("5", "20", "50").
	Pack string
	// CreditMicroUSD is the credit granted when paid; > 0.
	CreditMicroUSD int64
	// Amount is the price in the currency's minor units (cents); > 0.
	Amount int64
	// Currency is the lower-case ISO code, e.g. "usd".
	Currency string
	// TopUpKey is the API key to top up; "" buys a new key. Only its hash
	// is stored.
	TopUpKey string
	// At is when the session was created; zero means now.
	At time.Time
}

// Checkout is the recorded state of a checkout session.
type Checkout struct {
	SessionID      string
	Pack           string
	CreditMicroUSD int64
	Amount         int64
	Currency       string
	// TopUp: the session adds its credit to an existing key; it has no key
	// to show.
	TopUp bool
	// Status is CheckoutOpen, CheckoutPaid, CheckoutExpired or
	// CheckoutFailed.
	Status string
	// PaymentIntent is the processor's payment id once paid.
	PaymentIntent string
	// ReversedMicroUSD is the credit taken back after refunds and
	// disputes.
	ReversedMicroUSD int64
	// ShownVia is where the new key was shown (ShownOnPage, ShownByAPI);
	// "" while it has not been.
	ShownVia string
	ShownAt  time.Time
	// CreatedAt and PaidAt (zero until paid).
	CreatedAt time.Time
	PaidAt    time.Time
}

// OpenCheckout records a new checkout session. With TopUpKey, the key must
// exist (ErrUnknownKey) and its hash is bound to the session.
// ErrDuplicateRequest when the session id is recorded already.
func (s *SQL) OpenCheckout(ctx context.Context, n NewCheckout) error {
	if n.SessionID == "" || n.Pack == "" || n.Currency == "" {
		return fmt.Errorf("cannot open a checkout: session id, pack and currency are required")
	}
	if n.CreditMicroUSD <= 0 || n.Amount <= 0 {
		return ErrInvalidAmount
	}
	var keyHash any
	topup := 0
	if n.TopUpKey != "" {
		if !WellFormedKey(n.TopUpKey) {
			return ErrUnknownKey
		}
		keyHash, topup = HashKey(n.TopUpKey), 1
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if keyHash != nil {
			if _, err := s.keyAccount(ctx, tx, keyHash.(string)); err != nil {
				return err
			}
		}
		res, err := s.exec(ctx, tx, `INSERT INTO checkout_sessions
			(session_id, pack, credit, amount, currency, topup, key_hash, status, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			n.SessionID, n.Pack, n.CreditMicroUSD, n.Amount, n.Currency, topup, keyHash, CheckoutOpen, micros(n.At))
		if err != nil {
			return fmt.Errorf("cannot record the checkout session: %w", err)
		}
		if k, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("cannot record the checkout session: %w", err)
		} else if k == 0 {
			return ErrDuplicateRequest
		}
		return nil
	})
}

// Checkout returns the recorded state of a session; ErrUnknownCheckout when
// it was never opened here.
func (s *SQL) Checkout(ctx context.Context, sessionID string) (Checkout, error) {
	var c Checkout
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		c, err = s.checkout(ctx, tx, sessionID)
		return err
	})
	return c, err
}

// checkoutColumns are the columns scanCheckout reads, in order.
const checkoutColumns = `session_id, pack, credit, amount, currency, topup, status, payment_intent,
	reversed, shown_via, shown_at, created_at, paid_at, key_hash, account_id`

// checkoutRow is a session with the columns only the ledger uses.
type checkoutRow struct {
	Checkout
	keyHash string
	account int64
}

func (s *SQL) checkoutRow(ctx context.Context, tx *sql.Tx, where string, arg any) (checkoutRow, error) {
	var (
		r                     checkoutRow
		topup                 int64
		pi, via, kh           sql.NullString
		shownAt, paidAt, acct sql.NullInt64
		created               int64
	)
	err := s.queryRow(ctx, tx, `SELECT `+checkoutColumns+` FROM checkout_sessions WHERE `+where, arg).Scan(
		&r.SessionID, &r.Pack, &r.CreditMicroUSD, &r.Amount, &r.Currency, &topup, &r.Status, &pi,
		&r.ReversedMicroUSD, &via, &shownAt, &created, &paidAt, &kh, &acct)
	if errors.Is(err, sql.ErrNoRows) {
		return checkoutRow{}, ErrUnknownCheckout
	}
	if err != nil {
		return checkoutRow{}, fmt.Errorf("cannot read the checkout session: %w", err)
	}
	r.TopUp = topup == 1
	r.PaymentIntent, r.ShownVia, r.keyHash, r.account = pi.String, via.String, kh.String, acct.Int64
	r.CreatedAt = time.UnixMicro(created).UTC()
	if shownAt.Valid {
		r.ShownAt = time.UnixMicro(shownAt.Int64).UTC()
	}
	if paidAt.Valid {
		r.PaidAt = time.UnixMicro(paidAt.Int64).UTC()
	}
	return r, nil
}

func (s *SQL) checkout(ctx context.Context, tx *sql.Tx, sessionID string) (Checkout, error) {
	r, err := s.checkoutRow(ctx, tx, `session_id = ?`, sessionID)
	return r.Checkout, err
}

// CheckoutPayment is the processor's report that a session is paid.
type CheckoutPayment struct {
	SessionID string
	// Amount (minor units) and Currency the processor collected; they must
	// be the session's (ErrCheckoutMismatch).
	Amount   int64
	Currency string
	// PaymentIntent is the processor's payment id; refunds and disputes
	// name it.
	PaymentIntent string
	// At is when the payment was learnt; zero means now.
	At time.Time
}

// PayCheckout marks a session paid and grants its credit, once: a session
// paid before is returned unchanged with granted false. The credit goes to
// the account of the session's top-up key, or to a new account that the
// key created at the showing will join. ErrUnknownCheckout,
// ErrCheckoutMismatch refuse it and change nothing.
func (s *SQL) PayCheckout(ctx context.Context, p CheckoutPayment) (c Checkout, granted bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		c, granted, err = s.payCheckout(ctx, tx, p)
		return err
	})
	return c, granted, err
}

func (s *SQL) payCheckout(ctx context.Context, tx *sql.Tx, p CheckoutPayment) (Checkout, bool, error) {
	r, err := s.checkoutRow(ctx, tx, `session_id = ?`, p.SessionID)
	if err != nil {
		return Checkout{}, false, err
	}
	if r.Status == CheckoutPaid {
		return r.Checkout, false, nil
	}
	if p.Amount != r.Amount || p.Currency != r.Currency {
		return r.Checkout, false, fmt.Errorf("%w: paid %d %s, the pack costs %d %s", ErrCheckoutMismatch, p.Amount, p.Currency, r.Amount, r.Currency)
	}
	at := micros(p.At)
	// Claim the session first: of two concurrent payments (the webhook and
	// a retrieval) only the one whose update matched grants.
	res, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET status = ?, paid_at = ?, payment_intent = ?
		WHERE session_id = ? AND status <> ?`, CheckoutPaid, at, nullable(p.PaymentIntent), p.SessionID, CheckoutPaid)
	if err != nil {
		return Checkout{}, false, fmt.Errorf("cannot mark the checkout session paid: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return Checkout{}, false, fmt.Errorf("cannot mark the checkout session paid: %w", err)
	} else if k == 0 {
		c, err := s.checkout(ctx, tx, p.SessionID)
		return c, false, err
	}
	var acct int64
	if r.TopUp {
		if acct, err = s.keyAccount(ctx, tx, r.keyHash); err != nil {
			return Checkout{}, false, err
		}
	} else if acct, err = s.newAccount(ctx, tx, at); err != nil {
		return Checkout{}, false, err
	}
	if _, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET account_id = ? WHERE session_id = ?`, acct, p.SessionID); err != nil {
		return Checkout{}, false, fmt.Errorf("cannot bind the checkout session to its account: %w", err)
	}
	if err := s.credit(ctx, tx, entry{account: acct, keyHash: r.keyHash, kind: KindPurchase, route: CheckoutRoute,
		amount: r.CreditMicroUSD, requestID: "checkout:" + p.SessionID,
		reason: "pack " + r.Pack + " paid by card (" + strconv.FormatInt(r.Amount, 10) + " " + r.Currency + ")", at: at}); err != nil {
		return Checkout{}, false, err
	}
	c, err := s.checkout(ctx, tx, p.SessionID)
	return c, true, err
}

// CheckoutRoute is the route of a card purchase's entry.
const CheckoutRoute = "POST /api/v1/credits/checkout/:pack"

// RevealCheckoutKey shows the new key of a paid session, once: it creates
// the key, binds its hash to the account holding the credit and records
// where it was shown (via) in one transaction, and returns the plain key.
// A top-up session returns no key and no error (it has none to show).
// ErrUnknownCheckout, ErrCheckoutUnpaid, or ErrKeyAlreadyShown (with the
// session, which says where and when) otherwise; of two concurrent calls
// exactly one gets the key.
func (s *SQL) RevealCheckoutKey(ctx context.Context, sessionID, via string, at time.Time) (Checkout, string, error) {
	if via != ShownOnPage && via != ShownByAPI {
		panic("BUG: RevealCheckoutKey via " + via)
	}
	var (
		c   Checkout
		key string
	)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		r, err := s.checkoutRow(ctx, tx, `session_id = ?`, sessionID)
		if err != nil {
			return err
		}
		c = r.Checkout
		switch {
		case r.Status != CheckoutPaid:
			return ErrCheckoutUnpaid
		case r.TopUp:
			return nil
		case r.ShownVia != "":
			return ErrKeyAlreadyShown
		}
		when := micros(at)
		res, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET shown_via = ?, shown_at = ?
			WHERE session_id = ? AND status = ? AND topup = 0 AND shown_via IS NULL`, via, when, sessionID, CheckoutPaid)
		if err != nil {
			return fmt.Errorf("cannot mark the checkout key shown: %w", err)
		}
		if k, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("cannot mark the checkout key shown: %w", err)
		} else if k == 0 {
			if c, err = s.checkout(ctx, tx, sessionID); err != nil {
				return err
			}
			return ErrKeyAlreadyShown
		}
		k, h, err := s.newKey(ctx, tx, r.account, when)
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET key_hash = ? WHERE session_id = ?`, h, sessionID); err != nil {
			return fmt.Errorf("cannot bind the key to the checkout session: %w", err)
		}
		key = k
		c, err = s.checkout(ctx, tx, sessionID)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrCheckoutUnpaid) || errors.Is(err, ErrKeyAlreadyShown) {
			return c, "", err
		}
		return Checkout{}, "", err
	}
	return c, key, nil
}

// CheckoutBalance is the balance of the account a paid session credited:
// the top-up key's, or the new key's.
func (s *SQL) CheckoutBalance(ctx context.Context, sessionID string) (int64, error) {
	var bal int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		r, err := s.checkoutRow(ctx, tx, `session_id = ?`, sessionID)
		if err != nil {
			return err
		}
		if r.Status != CheckoutPaid {
			return ErrCheckoutUnpaid
		}
		acct, err := s.checkoutAccount(ctx, tx, r)
		if err != nil {
			return err
		}
		return s.queryRow(ctx, tx, `SELECT balance FROM accounts WHERE id = ?`, acct).Scan(&bal)
	})
	return bal, err
}

// checkoutAccount is the account holding a paid session's credit now: the
// account of its key (keys move when accounts merge), or the account made
// at payment while no key exists.
func (s *SQL) checkoutAccount(ctx context.Context, tx *sql.Tx, r checkoutRow) (int64, error) {
	if r.keyHash != "" {
		return s.keyAccount(ctx, tx, r.keyHash)
	}
	if r.account == 0 {
		panic("BUG: paid checkout session " + r.SessionID + " has no account")
	}
	return r.account, nil
}

// CheckoutReversal takes back credit of a paid session after a refund or a
// dispute: the share Amount / (the session's amount) of the pack's credit.
type CheckoutReversal struct {
	// PaymentIntent names the session's payment.
	PaymentIntent string
	// Amount is how much of the payment is taken back in all, in the
	// currency's minor units: the charge's amount refunded so far, or the
	// amount disputed. Reversals only grow: an amount below what was taken
	// back before takes nothing more.
	Amount int64
	// Reason describes it in the entry.
	Reason string
}

// StripeEvent is one webhook event, with the one effect it has on the
// ledger (at most one of Pay, Close and Reverse; none records the event
// only).
type StripeEvent struct {
	// ID is the event id (evt_…); an event is handled once.
	ID string
	// Type is the event type, e.g. checkout.session.completed.
	Type string
	// ObjectID is the object the event is about (cs_…, ch_…, dp_…).
	ObjectID string
	// At is when it was received; zero means now.
	At time.Time
	// Pay marks a session paid (PayCheckout).
	Pay *CheckoutPayment
	// Close ends an unpaid session: CheckoutExpired or CheckoutFailed.
	Close string
	// Reverse takes back credit after a refund or a dispute.
	Reverse *CheckoutReversal
}

// ApplyStripeEvent handles a webhook event once, in one transaction with
// its record: ErrDuplicateEvent when an event with that id was handled
// before (nothing changes). It returns what the event did, as recorded. An
// event about a session this ledger does not know is recorded and ignored
// (a Stripe account may serve other integrations); a payment that does not
// match its session returns ErrCheckoutMismatch and records nothing, so
// the processor's retries keep reporting it.
func (s *SQL) ApplyStripeEvent(ctx context.Context, e StripeEvent) (outcome string, err error) {
	if e.ID == "" || e.Type == "" {
		return "", fmt.Errorf("cannot handle a Stripe event without id and type")
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		// The event's row first: a concurrent delivery of the same event
		// (another replica, PostgreSQL) waits on it and then finds it.
		res, err := s.exec(ctx, tx, `INSERT INTO stripe_events (event_id, type, object_id, outcome, received_at)
			VALUES (?, ?, ?, '', ?) ON CONFLICT DO NOTHING`, e.ID, e.Type, e.ObjectID, micros(e.At))
		if err != nil {
			return fmt.Errorf("cannot record the Stripe event: %w", err)
		}
		if k, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("cannot record the Stripe event: %w", err)
		} else if k == 0 {
			return ErrDuplicateEvent
		}
		switch {
		case e.Pay != nil:
			var granted bool
			var c Checkout
			c, granted, err = s.payCheckout(ctx, tx, *e.Pay)
			switch {
			case errors.Is(err, ErrUnknownCheckout):
				outcome, err = "ignored: unknown checkout session", nil
			case err != nil:
			case granted:
				outcome = "paid: granted " + FormatUSD(c.CreditMicroUSD) + " USD"
			default:
				outcome = "paid before: nothing granted"
			}
		case e.Close != "":
			outcome, err = s.closeCheckout(ctx, tx, e.ObjectID, e.Close)
		case e.Reverse != nil:
			outcome, err = s.reverseCheckout(ctx, tx, *e.Reverse, e.ID, micros(e.At))
		default:
			outcome = "ignored: no effect"
		}
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `UPDATE stripe_events SET outcome = ? WHERE event_id = ?`, outcome, e.ID); err != nil {
			return fmt.Errorf("cannot record the Stripe event: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return outcome, nil
}

// closeCheckout ends an unpaid session as expired or failed; a paid or
// unknown session is left alone.
func (s *SQL) closeCheckout(ctx context.Context, tx *sql.Tx, sessionID, status string) (string, error) {
	if status != CheckoutExpired && status != CheckoutFailed {
		panic("BUG: closeCheckout to " + status)
	}
	res, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET status = ? WHERE session_id = ? AND status = ?`,
		status, sessionID, CheckoutOpen)
	if err != nil {
		return "", fmt.Errorf("cannot close the checkout session: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil {
		return "", fmt.Errorf("cannot close the checkout session: %w", err)
	} else if k == 1 {
		return status, nil
	}
	if _, err := s.checkout(ctx, tx, sessionID); errors.Is(err, ErrUnknownCheckout) {
		return "ignored: unknown checkout session", nil
	} else if err != nil {
		return "", err
	}
	return "ignored: session not open", nil
}

// reverseCheckout takes back the share of a paid session's credit that r
// names, beyond what earlier reversals took: the target is credit × amount
// / paid amount (at most the credit), and the account is debited the difference, or its
// whole balance when less is left (the rest was spent; docs/checkout.md).
func (s *SQL) reverseCheckout(ctx context.Context, tx *sql.Tx, r CheckoutReversal, eventID string, at int64) (string, error) {
	if r.PaymentIntent == "" {
		return "ignored: no payment named", nil
	}
	if s.dialect == DialectPostgres {
		// Two reversals of one session (a refund and a dispute) apply one
		// after the other, each seeing what the other took.
		if _, err := tx.ExecContext(ctx, `SELECT session_id FROM checkout_sessions WHERE payment_intent = $1 FOR UPDATE`, r.PaymentIntent); err != nil {
			return "", fmt.Errorf("cannot lock the checkout session: %w", err)
		}
	}
	row, err := s.checkoutRow(ctx, tx, `payment_intent = ?`, r.PaymentIntent)
	if errors.Is(err, ErrUnknownCheckout) {
		return "ignored: payment of no checkout session", nil
	}
	if err != nil {
		return "", err
	}
	if r.Amount < 0 {
		return "", fmt.Errorf("cannot reverse checkout %s: negative amount %d", row.SessionID, r.Amount)
	}
	target := row.CreditMicroUSD
	if r.Amount < row.Amount {
		target = row.CreditMicroUSD * r.Amount / row.Amount
	}
	delta := target - row.ReversedMicroUSD
	if delta <= 0 {
		return "nothing more to take back (" + FormatUSD(row.ReversedMicroUSD) + " USD taken before)", nil
	}
	acct, err := s.checkoutAccount(ctx, tx, row)
	if err != nil {
		return "", err
	}
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, acct); err != nil {
			return "", fmt.Errorf("cannot lock account: %w", err)
		}
	}
	var bal int64
	if err := s.queryRow(ctx, tx, `SELECT balance FROM accounts WHERE id = ?`, acct).Scan(&bal); err != nil {
		return "", fmt.Errorf("cannot read account: %w", err)
	}
	taken := min(delta, bal)
	e := entry{account: acct, keyHash: row.keyHash, kind: KindReversal, route: CheckoutRoute, amount: -taken,
		requestID: "stripe:" + eventID, reason: r.Reason, at: at}
	if taken == 0 {
		err = s.addEntry(ctx, tx, e)
	} else {
		err = s.debit(ctx, tx, e)
	}
	if err != nil {
		return "", err
	}
	if _, err := s.exec(ctx, tx, `UPDATE checkout_sessions SET reversed = ? WHERE session_id = ?`, target, row.SessionID); err != nil {
		return "", fmt.Errorf("cannot record the reversal: %w", err)
	}
	out := "took back " + FormatUSD(taken) + " USD of " + FormatUSD(delta) + " USD"
	if taken < delta {
		out += " (the rest was spent)"
	}
	return out, nil
}

// CloseCheckout ends an open session as CheckoutExpired or CheckoutFailed,
// as a retrieval from the processor found it, and returns its state; a
// session that is not open is left alone. ErrUnknownCheckout when it was
// never opened here.
func (s *SQL) CloseCheckout(ctx context.Context, sessionID, status string) (Checkout, error) {
	var c Checkout
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := s.closeCheckout(ctx, tx, sessionID, status); err != nil {
			return err
		}
		var err error
		c, err = s.checkout(ctx, tx, sessionID)
		return err
	})
	return c, err
}
