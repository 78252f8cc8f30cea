package alerts

import (
	"context"
	"database/sql"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestDispatchersShareOneOutbox runs three dispatchers (as three API or
// alerts instances would) on one outbox: every delivery of every event and
// subscription reaches its receiver exactly once. Ownership is by row:
// a dispatcher claims due deliveries in a transaction that leases them
// (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's write lock serializes
// claims), so no two dispatchers send the same delivery.
func TestDispatchersShareOneOutbox(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *sql.DB, dialect string) {
		ctx := context.Background()
		c := newClock()
		st := openStore(t, db, dialect, c)
		rcv := newReceiver(t)
		const subs, events = 3, 40
		for i := range subs {
			if _, _, err := st.Create(ctx, NewSubscription{URL: rcv.srv.URL + "/hook?s=" + strconv.Itoa(i), Events: []string{"unusual_flow"}}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range events {
			if _, err := st.AddEvent(ctx, flowEvent("e"+strconv.Itoa(i), "BTCUSD", c.Now())); err != nil {
				t.Fatal(err)
			}
		}
		rctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for range 3 {
			d := testDispatcher(openStore(t, db, dialect, c), rcv.srv, DispatcherConfig{Workers: 8, Poll: 5 * time.Millisecond})
			wg.Add(1)
			go func() { defer wg.Done(); _ = d.Run(rctx) }()
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(rcv.requests()) < subs*events && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // a second copy would arrive now
		cancel()
		wg.Wait()
		seen := map[string]int{}
		for _, r := range rcv.requests() {
			seen[r.Header.Get(HeaderDelivery)]++
		}
		if len(seen) != subs*events {
			t.Fatalf("%d distinct deliveries received, want %d", len(seen), subs*events)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("delivery %s received %d times", id, n)
			}
		}
	})
}

// TestConcurrentOpenMigratesOnce opens one empty PostgreSQL outbox from
// several instances at once (replicas starting together): every Open
// succeeds and the migrations are applied once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	db := openPostgres(t)
	errs := make(chan error, 6)
	for range cap(errs) {
		go func() {
			_, err := Open(context.Background(), db, DialectPostgres, Config{Key: testKey})
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent Open: %v", err)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM alert_schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Fatalf("%d migrations recorded (%v), want %d", n, err, len(migrations))
	}
}
