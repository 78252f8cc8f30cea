package alerts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func flowEvent(id, sym string, at time.Time) Event {
	return Event{ID: id, Event: "unusual_flow", Symbol: sym, OccurredAt: at, Data: mustJSON(map[string]any{"eventType": "BREAKOUT", "confidenceScore": 80})}
}

func TestStoreSubscriptions(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		// Opening again applies no migration twice.
		st = openStore(t, db, dialect, c)
		sub, secret, err := st.Create(ctx, NewSubscription{URL: "https://example.com/hook", Events: []string{"unusual_flow"}, Filters: Filters{Symbols: []string{"BTCUSD"}}})
		if err != nil {
			t.Fatal(err)
		}
		if sub.DeliveriesLeft != 200 || !sub.ExpiresAt.Equal(c.Now().Add(7*24*time.Hour)) || sub.Status != StatusActive || !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("bad new subscription %+v %q", sub, secret)
		}
		got, err := st.Get(ctx, sub.ID, secret)
		if err != nil || got.URL != sub.URL || got.Filters.Symbols[0] != "BTCUSD" || got.Status != StatusActive {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		// The secret is not stored in plain text.
		var hash, enc string
		if err := db.QueryRow(st.q(`SELECT secret_hash, secret_enc FROM alert_subscriptions WHERE id = ?`), sub.ID).Scan(&hash, &enc); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(hash+enc, secret) || strings.Contains(hash+enc, secret[6:]) {
			t.Fatal("secret stored in plain text")
		}
		f := func(id, secret string) {
			t.Helper()
			if _, err := st.Get(ctx, id, secret); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get(%q, %q) = %v, want ErrNotFound", id, secret, err)
			}
		}
		f(sub.ID, "wrong")
		f(sub.ID, "")
		f("sub_unknown", secret)
		// A store opened with another key cannot read the secret.
		other, err := Open(ctx, db, dialect, Config{Key: []byte("ffffffffffffffffffffffffffffffff"), Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := other.subscription(ctx, sub.ID); err == nil {
			t.Fatal("secret decrypted with the wrong key")
		}
		if _, err := st.Resume(ctx, sub.ID, secret); err != nil {
			t.Fatalf("resume of an active subscription: %v", err)
		}
		if s, err := st.Cancel(ctx, sub.ID, secret); err != nil || s.Status != StatusCancelled {
			t.Fatalf("Cancel = %+v, %v", s, err)
		}
		if _, err := st.Resume(ctx, sub.ID, secret); !errors.Is(err, ErrNotResumable) {
			t.Fatalf("resume of a cancelled subscription = %v", err)
		}
		// Expiry is derived from the clock.
		sub2, secret2, _ := st.Create(ctx, NewSubscription{URL: "https://example.com/", Events: []string{"news"}})
		c.Advance(7*24*time.Hour + time.Second)
		if s, _ := st.Get(ctx, sub2.ID, secret2); s.Status != StatusExpired {
			t.Fatalf("status after 7 days = %s", s.Status)
		}
	})
}

func TestStoreEvents(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		btc, secret, _ := st.Create(ctx, NewSubscription{URL: "https://example.com/a", Events: []string{"unusual_flow"}, Filters: Filters{Symbols: []string{"BTCUSD"}}})
		all, _, _ := st.Create(ctx, NewSubscription{URL: "https://example.com/b", Events: []string{"unusual_flow", "decision_change"}})
		news, _, _ := st.Create(ctx, NewSubscription{URL: "https://example.com/c", Events: []string{"news"}})
		f := func(e Event, want int) {
			t.Helper()
			n, err := st.AddEvent(ctx, e)
			if err != nil || n != want {
				t.Fatalf("AddEvent(%s %s) = %d, %v; want %d", e.Event, e.Symbol, n, err, want)
			}
		}
		f(flowEvent("e1", "BTCUSD", c.Now()), 2)
		f(flowEvent("e1", "BTCUSD", c.Now()), 0) // idempotent by id
		f(flowEvent("e2", "ETHUSD", c.Now()), 1)
		f(Event{ID: "e3", Event: "decision_change", Symbol: "BTCUSD", OccurredAt: c.Now(), Data: mustJSON(map[string]string{"from": "hold", "to": "buy"})}, 1)
		f(Event{ID: "n1", Event: "news", OccurredAt: c.Now(), Data: mustJSON(map[string]any{"materiality": 3})}, 0) // below default 4
		f(Event{ID: "n2", Event: "news", OccurredAt: c.Now(), Data: mustJSON(map[string]any{"materiality": 4})}, 1)
		if _, err := st.AddEvent(ctx, Event{ID: "", Event: "news"}); err == nil {
			t.Fatal("event without id accepted")
		}
		_ = all
		_ = news
		// Catch-up hands out pending deliveries and counts them.
		evs, err := st.EventsSince(ctx, btc, time.Time{}, 100)
		if err != nil || len(evs) != 1 || evs[0].Event.ID != "e1" || evs[0].State != DeliveryFetched {
			t.Fatalf("EventsSince = %+v, %v", evs, err)
		}
		var data map[string]any
		if err := json.Unmarshal(evs[0].Event.Data, &data); err != nil || data["eventType"] != "BREAKOUT" {
			t.Fatalf("payload %s", evs[0].Event.Data)
		}
		if s, _ := st.Get(ctx, btc.ID, secret); s.DeliveriesLeft != 199 {
			t.Fatalf("deliveriesLeft after catch-up = %d, want 199", s.DeliveriesLeft)
		}
		// Fetching again does not count twice.
		evs, _ = st.EventsSince(ctx, btc, time.Time{}, 100)
		if s, _ := st.Get(ctx, btc.ID, secret); len(evs) != 1 || s.DeliveriesLeft != 199 {
			t.Fatalf("second catch-up: %d events, %d left", len(evs), s.DeliveriesLeft)
		}
		// since narrows; 14 days prune.
		if evs, _ := st.EventsSince(ctx, btc, c.Now().Add(time.Second), 100); len(evs) != 0 {
			t.Fatalf("since in the future gave %d", len(evs))
		}
		c.Advance(EventRetention + time.Minute)
		n, err := st.Prune(ctx)
		if err != nil || n != 5 {
			t.Fatalf("Prune = %d, %v; want 5", n, err)
		}
	})
}

func TestMatch(t *testing.T) {
	f := func(sub Subscription, e Event, want bool) {
		t.Helper()
		if got := Match(sub, e); got != want {
			t.Fatalf("Match(%+v, %s %s %s) = %v", sub.Filters, e.Event, e.Symbol, e.Data, got)
		}
	}
	ev := func(name, sym string, data any) Event { return Event{Event: name, Symbol: sym, Data: mustJSON(data)} }
	sub := func(events []string, fl Filters) Subscription { return Subscription{Events: events, Filters: fl} }
	f(sub([]string{"unusual_flow"}, Filters{}), ev("unusual_flow", "X", nil), true)
	f(sub([]string{"unusual_flow"}, Filters{}), ev("decision_change", "X", nil), false)
	f(sub([]string{"unusual_flow"}, Filters{Symbols: []string{"A"}}), ev("unusual_flow", "B", nil), false)
	f(sub([]string{"news"}, Filters{Categories: []string{"crypto"}}), ev("news", "", map[string]any{"category": "crypto", "materiality": 5}), true)
	f(sub([]string{"news"}, Filters{Categories: []string{"crypto"}}), ev("news", "", map[string]any{"category": "stocks", "materiality": 5}), false)
	f(sub([]string{"news"}, Filters{MinMateriality: 2}), ev("news", "", map[string]any{"materiality": 2}), true)
	f(sub([]string{"news"}, Filters{}), ev("news", "", map[string]any{"materiality": 3}), false) // default minMateriality 4
	// News names several symbols: any of them matches; none matches no
	// symbol filter.
	btc := map[string]any{"materiality": 5, "symbols": []string{"ETHUSD", "BTCUSD"}}
	f(sub([]string{"news"}, Filters{Symbols: []string{"BTCUSD"}}), ev("news", "ETHUSD", btc), true)
	f(sub([]string{"news"}, Filters{Symbols: []string{"SOLUSD"}}), ev("news", "ETHUSD", btc), false)
	f(sub([]string{"news"}, Filters{Symbols: []string{"SOLUSD"}}), ev("news", "", map[string]any{"materiality": 5, "symbols": []string{}}), false)
	f(sub([]string{"news"}, Filters{}), ev("news", "", map[string]any{"materiality": 5, "symbols": []string{}}), true)
	f(sub([]string{"sec_filing"}, Filters{Forms: []string{"8-K"}}), ev("sec_filing", "AAPL", map[string]any{"form": "8-k"}), true)
	f(sub([]string{"sec_filing"}, Filters{Forms: []string{"4"}}), ev("sec_filing", "AAPL", map[string]any{"form": "8-K"}), false)
	tok := Filters{Tokens: []Token{{Address: "0xAbC", Chain: "base"}}}
	// The data of operators.TokenRiskChangeData: token (checksummed) and
	// chain; the event symbol is "<chain>:<token>", which symbols do not
	// narrow.
	f(sub([]string{"token_risk_change"}, tok), ev("token_risk_change", "base:0xabc", map[string]any{"token": "0xabc", "chain": "base"}), true)
	f(sub([]string{"token_risk_change"}, tok), ev("token_risk_change", "ethereum:0xabc", map[string]any{"token": "0xabc", "chain": "ethereum"}), false)
	f(sub([]string{"token_risk_change"}, tok), ev("token_risk_change", "base:0xabd", map[string]any{"token": "0xabd", "chain": "base"}), false)
	f(sub([]string{"token_risk_change"}, Filters{Symbols: []string{"BTCUSD"}, Tokens: tok.Tokens}), ev("token_risk_change", "base:0xabc", map[string]any{"token": "0xABC", "chain": "base"}), true)
	sol := Filters{Tokens: []Token{{Address: "So1abc", Chain: "solana"}}}
	f(sub([]string{"token_risk_change"}, sol), ev("token_risk_change", "", map[string]any{"token": "So1abc", "chain": "solana"}), true)
	f(sub([]string{"token_risk_change"}, sol), ev("token_risk_change", "", map[string]any{"token": "so1ABC", "chain": "solana"}), false)
}

// TestWatchedTokens: the risk watch's list is the distinct tokens of the
// token_risk_change subscriptions that can still receive events.
func TestWatchedTokens(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		if got, err := st.WatchedTokens(ctx); err != nil || len(got) != 0 {
			t.Fatalf("no subscription: %v %v", got, err)
		}
		a := Token{Address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", Chain: "base"}
		b := Token{Address: "0x4200000000000000000000000000000000000006", Chain: "optimism"}
		sol := Token{Address: "So11111111111111111111111111111111111111112", Chain: "solana"}
		mk := func(events []string, toks ...Token) (Subscription, string) {
			sub, secret, err := st.Create(ctx, NewSubscription{URL: "https://example.com/h", Events: events, Filters: Filters{Tokens: toks}})
			if err != nil {
				t.Fatal(err)
			}
			c.Advance(time.Second)
			return sub, secret
		}
		mk([]string{"token_risk_change"}, a, sol)
		upper := a
		upper.Address = "0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913"
		cancelled, secret := mk([]string{"token_risk_change", "news"}, upper, b)
		mk([]string{"news"}, Token{Address: "0x0000000000000000000000000000000000000001", Chain: "base"}) // tokens without the event
		got, err := st.WatchedTokens(ctx)
		if err != nil || len(got) != 3 || got[0] != a || got[1] != sol || got[2] != b {
			t.Fatalf("WatchedTokens = %v, %v", got, err)
		}
		if _, err := st.Cancel(ctx, cancelled.ID, secret); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.WatchedTokens(ctx); len(got) != 2 || got[1] != sol {
			t.Fatalf("after cancel: %v", got)
		}
		c.Advance(8 * 24 * time.Hour) // every subscription expired
		if got, _ := st.WatchedTokens(ctx); len(got) != 0 {
			t.Fatalf("after expiry: %v", got)
		}
	})
}

// TestDispatcherDelivers checks the body, headers and signature of a
// delivery, and the pack accounting.
func TestDispatcherDelivers(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		rcv := newReceiver(t)
		sub, secret, _ := st.Create(ctx, NewSubscription{URL: rcv.srv.URL + "/hook?x=1", Events: []string{"unusual_flow"}})
		if _, err := st.AddEvent(ctx, flowEvent("e1", "BTCUSD", c.Now())); err != nil {
			t.Fatal(err)
		}
		d := testDispatcher(st, rcv.srv, DispatcherConfig{})
		if n, err := d.RunOnce(ctx); err != nil || n != 1 {
			t.Fatalf("RunOnce = %d, %v", n, err)
		}
		if n, _ := d.RunOnce(ctx); n != 0 {
			t.Fatalf("delivered again: %d", n)
		}
		reqs := rcv.requests()
		if len(reqs) != 1 {
			t.Fatalf("receiver got %d requests", len(reqs))
		}
		r := reqs[0]
		h := r.Header
		if h.Get(HeaderEvent) != "unusual_flow" || h.Get(HeaderSubscription) != sub.ID || !strings.HasPrefix(h.Get(HeaderDelivery), "dlv_") {
			t.Fatalf("headers %v", h)
		}
		if h.Get(HeaderTimestamp) != "1772445600" {
			t.Fatalf("timestamp %q", h.Get(HeaderTimestamp))
		}
		if !Verify(secret, h.Get(HeaderTimestamp), r.Body, h.Get(HeaderSignature), c.Now(), 5*time.Minute) {
			t.Fatal("signature does not verify")
		}
		if Verify("whsec_other", h.Get(HeaderTimestamp), r.Body, h.Get(HeaderSignature), c.Now(), 5*time.Minute) {
			t.Fatal("signature verifies with another secret")
		}
		if Verify(secret, h.Get(HeaderTimestamp), r.Body, h.Get(HeaderSignature), c.Now().Add(6*time.Minute), 5*time.Minute) {
			t.Fatal("old timestamp accepted")
		}
		var b map[string]any
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "subscriptionId", "event", "symbol", "occurredAt", "data", "deliveriesLeft", "expiresAt"} {
			if _, ok := b[k]; !ok {
				t.Fatalf("body lacks %s: %s", k, r.Body)
			}
		}
		if len(b) != 8 || b["id"] != h.Get(HeaderDelivery) || b["deliveriesLeft"] != 199.0 || b["symbol"] != "BTCUSD" || b["occurredAt"] != "2026-03-02T10:00:00Z" {
			t.Fatalf("body %s", r.Body)
		}
		s, _ := st.Get(ctx, sub.ID, secret)
		if s.DeliveriesLeft != 199 || s.ConsecutiveFailures != 0 {
			t.Fatalf("after delivery %+v", s)
		}
		evs, _ := st.EventsSince(ctx, s, time.Time{}, 10)
		if len(evs) != 1 || evs[0].State != DeliveryDelivered || evs[0].LastStatus != 204 {
			t.Fatalf("events %+v", evs)
		}
		// A test delivery is free.
		res, err := d.SendTest(ctx, s)
		if err != nil || !res.Delivered || res.Status != 204 {
			t.Fatalf("SendTest = %+v, %v", res, err)
		}
		if got := rcv.requests(); len(got) != 2 || got[1].Header.Get(HeaderEvent) != TestEvent {
			t.Fatalf("test delivery not received")
		}
		if s, _ := st.Get(ctx, sub.ID, secret); s.DeliveriesLeft != 199 {
			t.Fatalf("test delivery used the pack: %d", s.DeliveriesLeft)
		}
	})
}

// TestDispatcherRetries checks retry times, that failures do not use up
// the pack, suspension after 50 failures in a row and resume.
func TestDispatcherRetries(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		rcv := newReceiver(t)
		rcv.setStatus(http.StatusInternalServerError)
		sub, secret, _ := st.Create(ctx, NewSubscription{URL: rcv.srv.URL, Events: []string{"unusual_flow"}})
		d := testDispatcher(st, rcv.srv, DispatcherConfig{})
		st.AddEvent(ctx, flowEvent("e1", "BTCUSD", c.Now()))
		step := func(advance time.Duration, want int) {
			t.Helper()
			c.Advance(advance)
			if n, err := d.RunOnce(ctx); err != nil || n != want {
				t.Fatalf("after %s: RunOnce = %d, %v; want %d", advance, n, err, want)
			}
		}
		step(0, 1)
		step(29*time.Second, 0)
		step(time.Second, 1) // retry after 30 s
		step(4*time.Minute+59*time.Second, 0)
		step(time.Second, 1) // retry after 5 min
		step(time.Hour, 0)   // given up
		s, _ := st.Get(ctx, sub.ID, secret)
		if s.DeliveriesLeft != 200 || s.ConsecutiveFailures != 3 || s.Status != StatusActive {
			t.Fatalf("after 3 failures %+v", s)
		}
		evs, _ := st.EventsSince(ctx, s, time.Time{}, 10)
		if len(evs) != 1 || evs[0].State != DeliveryFailed || evs[0].Attempts != 3 || evs[0].LastStatus != 500 {
			t.Fatalf("failed delivery %+v", evs)
		}
		// The same delivery id on every attempt.
		reqs := rcv.requests()
		if len(reqs) != 3 || reqs[0].Header.Get(HeaderDelivery) != reqs[2].Header.Get(HeaderDelivery) {
			t.Fatalf("%d attempts, ids differ", len(reqs))
		}
		// 47 more failures in a row suspend it.
		for i := range 47 {
			st.AddEvent(ctx, flowEvent("f"+string(rune('A'+i/26))+string(rune('a'+i%26)), "BTCUSD", c.Now()))
		}
		step(0, 47)
		s, _ = st.Get(ctx, sub.ID, secret)
		if s.Status != StatusSuspended || s.ConsecutiveFailures != 50 || s.DeliveriesLeft != 200 {
			t.Fatalf("after 50 failures %+v", s)
		}
		// Suspended: events are kept, nothing is sent.
		st.AddEvent(ctx, flowEvent("g1", "BTCUSD", c.Now()))
		step(time.Hour, 0)
		rcv.setStatus(http.StatusOK)
		s, err := st.Resume(ctx, sub.ID, secret)
		if err != nil || s.Status != StatusActive || s.ConsecutiveFailures != 0 {
			t.Fatalf("Resume = %+v, %v", s, err)
		}
		// g1 and the 47 pending retries are sent now.
		step(0, 48)
		s, _ = st.Get(ctx, sub.ID, secret)
		if s.DeliveriesLeft != 152 || s.Status != StatusActive {
			t.Fatalf("after resume %+v", s)
		}
	})
}

// TestDispatcherPackLimits checks deliveriesLeft and expiry are enforced.
func TestDispatcherPackLimits(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db := openSQLite(t)
	st := openStore(t, db, DialectSQLite, c)
	rcv := newReceiver(t)
	sub, secret, _ := st.Create(ctx, NewSubscription{URL: rcv.srv.URL, Events: []string{"unusual_flow"}})
	if _, err := db.Exec(`UPDATE alert_subscriptions SET deliveries_left = 2 WHERE id = ?`, sub.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		st.AddEvent(ctx, flowEvent(id, "BTCUSD", c.Now()))
	}
	d := testDispatcher(st, rcv.srv, DispatcherConfig{})
	if n, _ := d.RunOnce(ctx); n != 2 {
		t.Fatalf("sent %d with 2 left", n)
	}
	s, _ := st.Get(ctx, sub.ID, secret)
	if s.Status != StatusExhausted || s.DeliveriesLeft != 0 {
		t.Fatalf("after the pack %+v", s)
	}
	if n, _ := st.AddEvent(ctx, flowEvent("d", "BTCUSD", c.Now())); n != 0 {
		t.Fatal("exhausted subscription got a delivery")
	}
	sub2, _, _ := st.Create(ctx, NewSubscription{URL: rcv.srv.URL, Events: []string{"unusual_flow"}})
	st.AddEvent(ctx, flowEvent("e", "BTCUSD", c.Now()))
	c.Advance(PackLifetime)
	if n, _ := d.RunOnce(ctx); n != 0 {
		t.Fatalf("expired subscription %s got %d deliveries", sub2.ID, n)
	}
}

// BenchmarkDispatcher measures deliveries per second from a SQLite outbox
// to a local TLS receiver through Dispatcher.Run, with at most 64 requests
// in flight and 16 to the receiver's host. Run with -benchtime=2000x.
func BenchmarkDispatcher(b *testing.B) { benchDispatcher(b, false) }

// BenchmarkDispatcherRunOnce is the same through RunOnce (claim a batch,
// send it, record it).
func BenchmarkDispatcherRunOnce(b *testing.B) { benchDispatcher(b, true) }

func benchDispatcher(b *testing.B, once bool) {
	ctx := context.Background()
	c := newClock()
	st := openStore(b, openSQLite(b), DialectSQLite, c)
	rcv := newReceiver(b)
	rcv.setStatus(http.StatusOK)
	var subs []Subscription
	for i := range (b.N + PackDeliveries - 1) / PackDeliveries {
		sub, _, err := st.Create(ctx, NewSubscription{URL: rcv.srv.URL + "/hook", Events: []string{"unusual_flow"}, Filters: Filters{Symbols: []string{"S" + string(rune('A'+i%26))}}})
		if err != nil {
			b.Fatal(err)
		}
		subs = append(subs, sub)
	}
	for i := range b.N {
		sym := subs[i/PackDeliveries].Filters.Symbols[0]
		if _, err := st.AddEvent(ctx, flowEvent("e"+strconv.Itoa(i), sym, c.Now())); err != nil {
			b.Fatal(err)
		}
	}
	d := testDispatcher(st, rcv.srv, DispatcherConfig{Workers: 64, PerHost: 16, Poll: 5 * time.Millisecond})
	b.ResetTimer()
	start := time.Now()
	if once {
		n, err := d.RunOnce(ctx)
		if err != nil || n != b.N {
			b.Fatalf("RunOnce = %d, %v; want %d", n, err, b.N)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "deliveries/s")
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Run(rctx) }()
	for {
		var n int
		if err := st.db.QueryRow(`SELECT COUNT(*) FROM alert_deliveries WHERE state = ?`, DeliveryDelivered).Scan(&n); err != nil {
			b.Fatal(err)
		}
		if n == b.N {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if got := len(rcv.requests()); got != b.N {
		b.Fatalf("receiver got %d requests, want %d", got, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
}
