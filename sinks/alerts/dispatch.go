package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Delivery headers (spec §6).
const (
	HeaderEvent        = "X-MI-Event"
	HeaderDelivery     = "X-MI-Delivery"
	HeaderSubscription = "X-MI-Subscription"
	HeaderTimestamp    = "X-MI-Timestamp"
	HeaderSignature    = "X-MI-Signature"
)

// Delivery limits.
const (
	// AttemptTimeout bounds one attempt: a 2xx must arrive within it.
	AttemptTimeout = 10 * time.Second
	// MaxResponseBytes is how much of a receiver's answer is read.
	MaxResponseBytes = 64 << 10
)

// Body is the JSON body of a delivery (spec §2.10).
type Body struct {
	ID             string          `json:"id"`
	SubscriptionID string          `json:"subscriptionId"`
	Event          string          `json:"event"`
	Symbol         string          `json:"symbol"`
	OccurredAt     time.Time       `json:"occurredAt"`
	Data           json.RawMessage `json:"data"`
	DeliveriesLeft int             `json:"deliveriesLeft"`
	ExpiresAt      time.Time       `json:"expiresAt"`
}

// Sign returns the X-MI-Signature value of body sent at timestamp (the
// X-MI-Timestamp value): "sha256=" and the hex HMAC-SHA256 of
// timestamp + "." + body keyed with secret.
func Sign(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is the signature of body sent at
// timestamp, and timestamp is within tolerance of now. Receivers written in
// Go can use it as is.
func Verify(secret, timestamp string, body []byte, signature string, now time.Time, tolerance time.Duration) bool {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return false
	}
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature))
}

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	// Workers bounds the deliveries in flight; default 64.
	Workers int
	// PerHost bounds the deliveries in flight to one host; default 16.
	PerHost int
	// Poll is the wait between two looks at the outbox when it had nothing
	// due; default 250ms.
	Poll time.Duration
	// Lease is how long a claimed delivery is kept from other dispatchers;
	// a dispatcher that dies mid-delivery has its deliveries sent again,
	// with the same delivery id, once the lease ends. Default 2 minutes.
	Lease time.Duration
	// Safety decides which targets may be reached.
	Safety Safety
	// TLS, when set, is the client TLS configuration (tests add the test
	// receiver's CA); nil uses the system roots.
	TLS *tls.Config
	// Logger receives delivery failures; nil discards.
	Logger *slog.Logger
}

// Dispatcher sends the due deliveries of a Store. Several dispatchers on
// one database share the work through leases.
type Dispatcher struct {
	st     *Store
	cfg    DispatcherConfig
	client *http.Client
	log    *slog.Logger

	mu    sync.Mutex
	hosts map[string]chan struct{}
}

// NewDispatcher returns a dispatcher of st's outbox.
func NewDispatcher(st *Store, cfg DispatcherConfig) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = 64
	}
	if cfg.PerHost <= 0 {
		cfg.PerHost = 16
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	tr := &http.Transport{
		Proxy:               nil, // never through an environment proxy: the address check must see the target
		DialContext:         cfg.Safety.DialContext,
		TLSClientConfig:     cfg.TLS,
		ForceAttemptHTTP2:   true,
		MaxConnsPerHost:     cfg.PerHost,
		MaxIdleConnsPerHost: cfg.PerHost,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: AttemptTimeout,
	}
	return &Dispatcher{
		st: st, cfg: cfg, log: cfg.Logger, hosts: map[string]chan struct{}{},
		client: &http.Client{
			Transport: tr,
			Timeout:   AttemptTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse // a 3xx is an answer, and not a 2xx
			},
		},
	}
}

// Store is the outbox the dispatcher sends from.
func (d *Dispatcher) Store() *Store { return d.st }

// Safety is the target policy of the dispatcher; the create route checks
// URLs with it.
func (d *Dispatcher) Safety() Safety { return d.cfg.Safety }

// claimed is a delivery taken for sending, with what its request needs.
type claimed struct {
	id, subID, eventID string
	attempts           int
	free               bool
	url, secret, event string
	body               []byte
}

// claim takes up to n due deliveries of active subscriptions, leases them
// and reserves one delivery of the pack for each (a subscription whose pack
// has no delivery left gets none claimed), and builds their bodies.
func (d *Dispatcher) claim(ctx context.Context, n int) ([]claimed, error) {
	st := d.st
	now := st.now().UnixNano()
	lock := ""
	if st.dialect == DialectPostgres {
		lock = " FOR UPDATE OF d SKIP LOCKED"
	}
	var out []claimed
	err := st.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, st.q(`SELECT d.id, d.subscription_id, d.event_id, d.attempts, d.reserved,
			s.url, s.secret_enc, s.deliveries_left, s.expires_at, e.event, e.symbol, e.occurred_at, e.data
			FROM alert_deliveries d JOIN alert_subscriptions s ON s.id = d.subscription_id JOIN alert_events e ON e.id = d.event_id
			WHERE d.state = ? AND d.free = 0 AND d.next_attempt_at <= ? AND d.lease_until <= ?
			AND s.status = ? AND s.expires_at > ?
			ORDER BY d.next_attempt_at, d.id LIMIT ?`+lock),
			DeliveryPending, now, now, StatusActive, now, n)
		if err != nil {
			return err
		}
		type cand struct {
			claimed
			reserved bool
			left     int
			expires  int64
			symbol   string
			occurred int64
			data     string
			enc      string
		}
		var cs []cand
		for rows.Next() {
			var c cand
			var res int
			if err := rows.Scan(&c.id, &c.subID, &c.eventID, &c.attempts, &res, &c.url, &c.enc, &c.left, &c.expires,
				&c.event, &c.symbol, &c.occurred, &c.data); err != nil {
				rows.Close()
				return err
			}
			c.reserved = res == 1
			cs = append(cs, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// Reserve from each subscription's pack in one statement per
		// subscription, in candidate order.
		need := map[string]int{}
		left := map[string]int{}
		for _, c := range cs {
			left[c.subID] = c.left
			if !c.reserved {
				need[c.subID]++
			}
		}
		for sub, k := range need {
			grant := min(k, left[sub])
			if grant == 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, st.q(`UPDATE alert_subscriptions SET deliveries_left = deliveries_left - ? WHERE id = ?`), grant, sub); err != nil {
				return err
			}
		}
		granted := map[string]int{}
		secrets := map[string]string{}
		var ids []any
		for _, c := range cs {
			after := left[c.subID] - need[c.subID]
			if !c.reserved {
				if granted[c.subID] >= min(need[c.subID], left[c.subID]) {
					continue // pack used up
				}
				granted[c.subID]++
				after = left[c.subID] - granted[c.subID]
			}
			after = max(after, 0)
			secret, ok := secrets[c.subID]
			if !ok {
				if secret, err = st.open(c.enc, c.subID); err != nil {
					return err
				}
				secrets[c.subID] = secret
			}
			c.secret = secret
			c.body, err = json.Marshal(Body{
				ID: c.id, SubscriptionID: c.subID, Event: c.event, Symbol: c.symbol,
				OccurredAt: time.Unix(0, c.occurred).UTC(), Data: json.RawMessage(c.data),
				DeliveriesLeft: after, ExpiresAt: time.Unix(0, c.expires).UTC(),
			})
			if err != nil {
				return err
			}
			ids = append(ids, c.id)
			out = append(out, c.claimed)
		}
		if len(ids) > 0 {
			lease := now + d.cfg.Lease.Nanoseconds()
			if _, err := tx.ExecContext(ctx, st.q(`UPDATE alert_deliveries SET lease_until = ?, reserved = 1 WHERE id IN (`+placeholders(len(ids))+`)`),
				append([]any{lease}, ids...)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot claim deliveries: %w", err)
	}
	return out, nil
}

// Result is the outcome of one attempt.
type Result struct {
	DeliveryID string `json:"deliveryId"`
	Delivered  bool   `json:"delivered"`
	// Status is the receiver's HTTP status; 0 when none arrived.
	Status int `json:"status"`
	// Error says why the attempt failed; empty on success.
	Error string `json:"error,omitempty"`
}

// outcome is an attempt waiting to be recorded.
type outcome struct {
	c claimed
	r Result
}

// Run sends due deliveries until ctx ends, and prunes events older than 14
// days once an hour. Each round claims up to Workers due deliveries, sends
// them concurrently (PerHost at most to one host), and records their
// outcomes in one transaction; a round lasts as long as its slowest
// attempt (at most AttemptTimeout).
func (d *Dispatcher) Run(ctx context.Context) error {
	lastPrune := time.Time{}
	for ctx.Err() == nil {
		if time.Since(lastPrune) > time.Hour {
			lastPrune = time.Now()
			if _, err := d.st.Prune(ctx); err != nil && ctx.Err() == nil {
				d.log.Warn("cannot prune alert events", "err", err)
			}
		}
		n, err := d.round(ctx)
		if err != nil && ctx.Err() == nil {
			d.log.Warn("alert delivery round failed", "err", err)
		}
		if n < d.cfg.Workers {
			select {
			case <-ctx.Done():
			case <-time.After(d.cfg.Poll):
			}
		}
	}
	return nil
}

// round claims, sends and records one batch and returns its size. When ctx
// ends mid-round the outcomes are not recorded: the deliveries stay leased
// and are sent again, with the same ids, when the lease ends.
func (d *Dispatcher) round(ctx context.Context) (int, error) {
	cs, err := d.claim(ctx, d.cfg.Workers)
	if err != nil || len(cs) == 0 {
		return 0, err
	}
	var wg sync.WaitGroup
	batch := make([]outcome, len(cs))
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch[i] = outcome{c, d.send(ctx, c)}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return len(cs), ctx.Err()
	}
	return len(cs), d.record(ctx, batch)
}

// RunOnce sends every delivery due now, round after round, and returns how
// many it attempted. Tests drive the dispatcher with it.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := d.round(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// SendTest stores a test delivery for sub and sends it once, now. It does
// not use up the pack, is not retried and does not count as a failure.
func (d *Dispatcher) SendTest(ctx context.Context, sub Subscription) (Result, error) {
	dl, err := d.st.AddTestDelivery(ctx, sub)
	if err != nil {
		return Result{}, err
	}
	_, secret, err := d.st.subscription(ctx, sub.ID)
	if err != nil {
		return Result{}, err
	}
	c := claimed{id: dl.ID, subID: sub.ID, eventID: dl.Event.ID, free: true, url: sub.URL, secret: secret, event: TestEvent}
	c.body, err = json.Marshal(Body{
		ID: c.id, SubscriptionID: sub.ID, Event: TestEvent, Symbol: "", OccurredAt: dl.Event.OccurredAt,
		Data: dl.Event.Data, DeliveriesLeft: sub.DeliveriesLeft, ExpiresAt: sub.ExpiresAt,
	})
	if err != nil {
		return Result{}, fmt.Errorf("cannot encode test delivery: %w", err)
	}
	r := d.send(ctx, c)
	return r, d.record(ctx, []outcome{{c, r}})
}

func (d *Dispatcher) hostSem(host string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.hosts[host]
	if s == nil {
		s = make(chan struct{}, d.cfg.PerHost)
		d.hosts[host] = s
	}
	return s
}

// send makes one attempt of a claimed delivery, holding a slot of its host.
func (d *Dispatcher) send(ctx context.Context, c claimed) Result {
	res := Result{DeliveryID: c.id}
	host := ""
	if u, err := url.Parse(c.url); err == nil {
		host = u.Host
	}
	hs := d.hostSem(host)
	select {
	case hs <- struct{}{}:
	case <-ctx.Done():
		res.Error = ctx.Err().Error()
		return res
	}
	status, err := d.post(ctx, c)
	<-hs
	res.Status, res.Delivered = status, err == nil
	if err != nil {
		res.Error = err.Error()
		d.log.Info("alert delivery failed", "delivery", c.id, "subscription", c.subID, "status", status, "err", err)
	}
	return res
}

// post sends the body of c to its URL and returns the status; an error unless 2xx.
func (d *Dispatcher) post(ctx context.Context, c claimed) (int, error) {
	actx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return 0, fmt.Errorf("cannot build request: %w", err)
	}
	ts := strconv.FormatInt(d.st.now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mi-alerts/1")
	req.Header.Set(HeaderEvent, c.event)
	req.Header.Set(HeaderDelivery, c.id)
	req.Header.Set(HeaderSubscription, c.subID)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderSignature, Sign(c.secret, ts, c.body))
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("cannot deliver: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBytes))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// record stores the outcomes of attempts in one transaction: a success
// keeps the reserved delivery of the pack and resets the failure count; a
// failure gives the reservation back, schedules a retry (30 s, then 5 min)
// or gives up after MaxAttempts, and counts a failure in a row, suspending
// the subscription at SuspendAfter. Test deliveries change only their own
// row.
func (d *Dispatcher) record(ctx context.Context, batch []outcome) error {
	st := d.st
	now := st.now()
	err := st.tx(ctx, func(tx *sql.Tx) error {
		// Successes in one statement per status, and one failure-count
		// reset per subscription; failures row by row.
		ok := map[int][]any{}
		subs := map[string]bool{}
		for _, o := range batch {
			if !o.r.Delivered {
				if err := d.recordOne(ctx, tx, now, o.c, o.r); err != nil {
					return err
				}
				continue
			}
			ok[o.r.Status] = append(ok[o.r.Status], o.c.id)
			if !o.c.free {
				subs[o.c.subID] = true
			}
		}
		for status, ids := range ok {
			args := append([]any{DeliveryDelivered, now.UnixNano(), status, now.UnixNano(), DeliveryPending}, ids...)
			if _, err := tx.ExecContext(ctx, st.q(`UPDATE alert_deliveries SET state = ?, attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_error = '', delivered_at = ?, lease_until = 0
				WHERE state = ? AND id IN (`+placeholders(len(ids))+`)`), args...); err != nil {
				return err
			}
		}
		for sub := range subs {
			if _, err := tx.ExecContext(ctx, st.q(`UPDATE alert_subscriptions SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0`), sub); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot record %d deliveries: %w", len(batch), err)
	}
	return nil
}

// recordOne records a failed attempt.
func (d *Dispatcher) recordOne(ctx context.Context, tx *sql.Tx, now time.Time, c claimed, r Result) error {
	st := d.st
	errText := r.Error
	if len(errText) > 500 {
		errText = errText[:500]
	}
	attempts := c.attempts + 1
	state, next := DeliveryPending, now
	if c.free || attempts >= MaxAttempts {
		state = DeliveryFailed
	} else {
		next = now.Add(RetryDelays[attempts-1])
	}
	res, err := tx.ExecContext(ctx, st.q(`UPDATE alert_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, last_attempt_at = ?, last_status = ?, last_error = ?, lease_until = 0, reserved = 0
		WHERE id = ? AND state = ?`), state, attempts, next.UnixNano(), now.UnixNano(), r.Status, errText, c.id, DeliveryPending)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 || c.free {
		return nil
	}
	if _, err := tx.ExecContext(ctx, st.q(`UPDATE alert_subscriptions SET deliveries_left = deliveries_left + 1, consecutive_failures = consecutive_failures + 1 WHERE id = ?`), c.subID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, st.q(`UPDATE alert_subscriptions SET status = ? WHERE id = ? AND status = ? AND consecutive_failures >= ?`), StatusSuspended, c.subID, StatusActive, SuspendAfter)
	return err
}

// placeholders returns n comma-separated ? placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
