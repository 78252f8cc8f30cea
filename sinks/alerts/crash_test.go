package alerts

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/pgtest"
)

// The child half of TestDispatcherSIGKILL: it runs a dispatcher on the
// database and receiver named in the environment until it is killed.
func runCrashChild() {
	db, err := sql.Open("sqlite", os.Getenv("MI_ALERTS_CRASH_DSN"))
	if err != nil {
		panic(err)
	}
	st, err := Open(context.Background(), db, DialectSQLite, Config{Key: testKey})
	if err != nil {
		panic(err)
	}
	pemBytes, err := os.ReadFile(os.Getenv("MI_ALERTS_CRASH_CA"))
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	d := NewDispatcher(st, DispatcherConfig{Workers: 4, Lease: time.Second, Poll: 20 * time.Millisecond,
		Safety: Safety{AllowLoopback: true}, TLS: &tls.Config{RootCAs: pool}})
	_ = d.Run(context.Background())
}

func TestMain(m *testing.M) {
	if os.Getenv("MI_ALERTS_CRASH_CHILD") == "1" {
		runCrashChild()
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m, testPG))
}

// TestDispatcherSIGKILL kills a dispatcher process with SIGKILL while its
// deliveries are in flight, then lets another dispatcher take over: every
// event is delivered, and the deliveries cut off by the kill are sent again
// with their X-MI-Delivery id unchanged.
func TestDispatcherSIGKILL(t *testing.T) {
	const events = 20
	dir := t.TempDir()
	dsn := "file:" + filepath.Join(dir, "ledger.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := Open(context.Background(), db, DialectSQLite, Config{Key: testKey})
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	hang := true
	var hung []string             // delivery ids cut off by the kill
	delivered := map[string]int{} // delivery id → successful requests
	release := make(chan struct{})
	firstHung := make(chan struct{}, events)
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderDelivery)
		mu.Lock()
		if hang {
			hung = append(hung, id)
			mu.Unlock()
			firstHung <- struct{}{}
			<-release // never answers before the kill
			return
		}
		delivered[id]++
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sub, secret, err := st.Create(ctx, NewSubscription{URL: rcv.URL + "/hook", Events: []string{"unusual_flow"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if _, err := st.AddEvent(ctx, flowEvent(fmt.Sprintf("evt_%02d", i), "BTCUSD", time.Now())); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestDispatcherSIGKILL$")
	cmd.Env = append(os.Environ(), "MI_ALERTS_CRASH_CHILD=1", "MI_ALERTS_CRASH_DSN="+dsn, "MI_ALERTS_CRASH_CA="+ca)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has deliveries in flight, then kill it.
	for range 3 {
		select {
		case <-firstHung:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("the child dispatcher sent nothing")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	mu.Lock()
	hang = false
	cut := append([]string(nil), hung...)
	mu.Unlock()
	close(release)
	if len(cut) < 3 {
		t.Fatalf("only %d deliveries in flight at the kill", len(cut))
	}

	// A new dispatcher takes over once the leases of the dead one end.
	d := NewDispatcher(st, DispatcherConfig{Workers: 4, Lease: time.Second, Poll: 20 * time.Millisecond,
		Safety: Safety{AllowLoopback: true}, TLS: tlsFor(rcv)})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = d.Run(rctx); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM alert_deliveries WHERE state = ?`, DeliveryDelivered).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == events {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events delivered after the crash", n, events)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done

	mu.Lock()
	defer mu.Unlock()
	if len(delivered) != events {
		t.Fatalf("receiver got %d distinct deliveries, want %d", len(delivered), events)
	}
	for _, id := range cut {
		if delivered[id] == 0 {
			t.Fatalf("delivery %s cut off by the kill was not re-sent with the same X-MI-Delivery", id)
		}
	}
	s, err := st.Get(ctx, sub.ID, secret)
	if err != nil || s.DeliveriesLeft != PackDeliveries-events {
		t.Fatalf("after recovery %+v, %v; want %d left", s, err, PackDeliveries-events)
	}
}
