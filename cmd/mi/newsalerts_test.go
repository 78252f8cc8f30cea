package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgarreplay"
	"github.com/marketintel/mi/sinks/alerts"
)

// TestRunNewsAlertsDelivered runs the news and sec_filing alerts through
// `mi run` as a user meets them: two subscriptions made with POST
// /api/v1/alerts/subscriptions (a news one with minMateriality 4, a
// sec_filing one watching ADBE's 8-Ks) before the publishers answer, then
// the replayed feeds and EDGAR polled by the news source, the news stage's
// detector, the outbox and the dispatcher, to signed deliveries at a local
// HTTPS receiver (--dev-allow-loopback-webhooks with its certificate).
func TestRunNewsAlertsDelivered(t *testing.T) {
	fx := fixtures.Dir(t)
	pub, err := pubreplay.New(append(newsreplay.Routes(fx), edgarreplay.Routes(fx)...))
	if err != nil {
		t.Fatal(err)
	}
	// The publishers hold every request until the subscriptions exist: an
	// event raised before a subscription is not delivered to it.
	gate := make(chan struct{})
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		pub.ServeHTTP(w, r)
	}))
	defer ps.Close()
	var opened sync.Once
	open := func() { opened.Do(func() { close(gate) }) }
	defer open()

	type delivery struct {
		body              alerts.Body
		raw               []byte
		ts, sig, sub, evt string
	}
	var mu sync.Mutex
	var got []delivery
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		d := delivery{raw: raw, ts: r.Header.Get("X-MI-Timestamp"), sig: r.Header.Get("X-MI-Signature"),
			sub: r.Header.Get("X-MI-Subscription"), evt: r.Header.Get("X-MI-Event")}
		_ = json.Unmarshal(raw, &d.body)
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
	}))
	defer rcv.Close()

	dir := t.TempDir()
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(filepath.Join(dir, "data")) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	ca := filepath.Join(dir, "receiver.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	entry, err := json.Marshal(newsreplay.Config(ps.URL))
	if err != nil {
		t.Fatal(err)
	}
	httpCfg, err := json.Marshal(sources.HTTPConfig{Contact: newsreplay.HTTP().Contact, DefaultLimit: newsreplay.HTTP().DefaultLimit})
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sources.json")
	if err := os.WriteFile(cfg, []byte(`{"http":`+string(httpCfg)+`,"edgar":{"www":"`+ps.URL+`","data":"`+ps.URL+`"},"sources":[`+string(entry)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpAddr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, "run", nil, []string{"--data-dir", filepath.Join(dir, "data"), "--http-addr", httpAddr, "--kafka-listen", "127.0.0.1:0",
			"--sources-config", cfg, "--log-format", "json", "--news-alert-max-age", "-1s", "--news-retention", "87600h",
			"--dev-allow-loopback-webhooks", "--dev-webhook-ca", ca})
	}()
	defer func() {
		open()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("mi run did not stop")
		}
	}()
	base := "http://" + httpAddr
	deadline := time.Now().Add(2 * time.Minute)
	subscribe := func(body string) (id, secret string) {
		t.Helper()
		for {
			resp, err := http.Post(base+"/api/v1/alerts/subscriptions", "application/json", bytes.NewReader([]byte(body)))
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var s struct{ ID, Secret string }
				if resp.StatusCode == 201 || resp.StatusCode == 200 {
					if err := json.Unmarshal(b, &s); err != nil || s.ID == "" || s.Secret == "" {
						t.Fatalf("subscription %s: %s", body, b)
					}
					return s.ID, s.Secret
				}
				if resp.StatusCode != 503 {
					t.Fatalf("subscription %s: %d %s", body, resp.StatusCode, b)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("cannot subscribe: %v", err)
			}
			select {
			case err := <-done:
				t.Fatalf("mi run stopped: %v", err)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	newsID, newsSecret := subscribe(`{"url":"` + rcv.URL + `/news","events":["news"],"minMateriality":4}`)
	secID, secSecret := subscribe(`{"url":"` + rcv.URL + `/sec","events":["sec_filing"],"symbols":["ADBE"],"forms":["8-K"]}`)
	open()

	secrets := map[string]string{newsID: newsSecret, secID: secSecret}
	var sawHack, sawADBE bool
	for !sawHack || !sawADBE {
		mu.Lock()
		ds := append([]delivery(nil), got...)
		mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("deliveries: hack %v, ADBE 8-K %v; %d received", sawHack, sawADBE, len(ds))
		}
		time.Sleep(300 * time.Millisecond)
		for _, d := range ds {
			if !alerts.Verify(secrets[d.sub], d.ts, d.raw, d.sig, time.Now(), 5*time.Minute) {
				t.Fatalf("delivery %s to %s: bad signature", d.body.ID, d.sub)
			}
			var data struct {
				Materiality int    `json:"materiality"`
				Title       string `json:"title"`
				Form        string `json:"form"`
				Earnings    bool   `json:"earnings"`
				Accession   string `json:"accessionNumber"`
			}
			_ = json.Unmarshal(d.body.Data, &data)
			switch d.sub {
			case newsID:
				if d.evt != "news" || d.body.Event != "news" || data.Materiality < 4 {
					t.Fatalf("news delivery %s", d.raw)
				}
				// coindesk_rss_2026-09-25_subset.xml: the Bitget hack headline.
				sawHack = sawHack || data.Title == "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist"
			case secID:
				if d.evt != "sec_filing" || d.body.Symbol != "ADBE" || data.Form != "8-K" {
					t.Fatalf("sec_filing delivery %s", d.raw)
				}
				sawADBE = sawADBE || data.Earnings && data.Accession == "0000796343-23-000044"
			default:
				t.Fatalf("delivery to an unknown subscription %q", d.sub)
			}
		}
	}
}
