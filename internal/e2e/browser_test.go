package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/query/paywall/checkout/checkouttest"
)

// TestBrowser is the browser test of the pages (docs/pages.md) and of card
// checkout (docs/checkout.md): a demo (mi run on the seeded simulator,
// card checkout on, Stripe's API played by stripe-mock) is driven by
// Playwright (playwright-core from npm) in Debian's Chromium by
// internal/interop/browser/browser.mjs. The script loads every page,
// fails on a console error, a failed request or an answer of 400 or above,
// reads the figures of each page and compares them with the route's JSON,
// runs axe-core on each page, checks each page transfers under 200 kB,
// takes screenshots, and walks the checkout to the success page and back.
//
// stripe-mock keeps no state and its sessions' payment page is a fixed URL
// on checkout.stripe.com, which this machine cannot reach. So the test
// stands between mi and stripe-mock (stripeFront): it passes every call on
// and points the url of each created session to a stand-in payment page
// of its own, which, when "paid", sends mi the checkout.session.completed
// event Stripe would send, signed with stripe-go's test helper, then sends
// the browser back to the session's success_url — as Stripe Checkout does.
//
// scripts/install.d/playwright.sh and chromium.sh install what it needs
// (make test runs them); without them the test fails naming the script.
// Screenshots go to $MI_BROWSER_OUT when set, else to the test's temporary
// directory.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test runs a demo and Chromium; -short leaves it out")
	}
	dir, err := filepath.Abs("../interop/browser")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"node_modules/playwright-core/package.json", "node_modules/axe-core/axe.min.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("Playwright and axe-core are not installed in %s: run scripts/install.d/playwright.sh (make test does): %v", dir, err)
		}
	}
	chromium := "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Debian's Chromium is missing: run scripts/install.d/chromium.sh (make test does): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}

	httpPort := freePort(t)
	origin := "http://127.0.0.1:" + strconv.Itoa(httpPort)
	front := newStripeFront(t, checkouttest.Start(t, ""), origin)

	// The demo: three hours of the simulator ending about an hour ago, so
	// that the track record (the last 30 days by the clock) has signals.
	start := time.Now().UTC().Add(-4 * time.Hour).Truncate(time.Hour).Format(time.RFC3339)
	data := t.TempDir()
	all := []string{"run", "--data-dir", data, "--http-addr", "127.0.0.1:" + strconv.Itoa(httpPort),
		"--kafka-listen", "127.0.0.1:" + strconv.Itoa(freePort(t)), "--log-format", "json",
		"--source", "sim:seed=11,start=" + start + ",duration=190m,rate=0.03,events=12,speed=max",
		"--parquet-flush-interval", "1s", "--public-url", origin, "--stripe-api-url", front.URL}
	cmd := exec.Command(miBinary(t), all...)
	cmd.Env = append(os.Environ(), "MI_STRIPE_SECRET_KEY="+checkouttest.TestKey, "MI_STRIPE_WEBHOOK_SECRET="+checkouttest.WebhookSecret)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start mi: %v", err)
	}
	p := &miProc{cmd: cmd}
	defer p.stop(t)
	waitDemo(t, origin, &logs)

	out := os.Getenv("MI_BROWSER_OUT")
	if out == "" {
		out = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, node, "browser.mjs", origin, chromium, out)
	run.Dir = dir
	var stderr bytes.Buffer
	run.Stderr = &stderr
	stdout, err := run.Output()
	if err != nil {
		t.Fatalf("browser.mjs: %v\n%s\n%s\nmi:\n%s", err, stdout, stderr.String(), tail(logs.String(), 4000))
	}
	var got struct {
		Pages []struct {
			Path       string `json:"path"`
			Bytes      int    `json:"bytes"`
			Violations int    `json:"violations"`
			Compared   int    `json:"compared"`
		} `json:"pages"`
		Checkout struct {
			Key          string `json:"key"`
			Copied       string `json:"copied"`
			ReloadState  string `json:"reloadState"`
			SessionAfter int    `json:"sessionAfter"`
			Balance      int64  `json:"balanceMicroUsd"`
		} `json:"checkout"`
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("browser.mjs answered %q: %v", stdout, err)
	}
	t.Logf("pages: %+v; screenshots in %s", got.Pages, out)
	if len(got.Pages) < 6 {
		t.Fatalf("browser.mjs checked %d pages, want the 6 pages", len(got.Pages))
	}
	for _, pg := range got.Pages {
		if pg.Bytes <= 0 || pg.Bytes >= 200_000 || pg.Violations != 0 || pg.Compared == 0 {
			t.Errorf("page %s: %d bytes, %d accessibility violations, %d figures compared", pg.Path, pg.Bytes, pg.Violations, pg.Compared)
		}
	}
	c := got.Checkout
	if !strings.HasPrefix(c.Key, "mi_") || c.Copied != c.Key || c.ReloadState == "" || c.SessionAfter != http.StatusGone ||
		c.Balance != 5_000_000 {
		t.Fatalf("checkout: %+v", c)
	}
	if n := front.paid(); n != 1 {
		t.Fatalf("the stand-in payment page was paid %d times, want 1", n)
	}
	if strings.Contains(logs.String(), c.Key) || strings.Contains(logs.String(), checkouttest.TestKey) ||
		strings.Contains(logs.String(), checkouttest.WebhookSecret) {
		t.Fatal("the key or a Stripe secret reached mi's log")
	}
}

// syncBuffer collects the output of a process.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitDemo waits until the demo answers a track record (the simulator has
// run through and its signals are in the Parquet history).
func waitDemo(t *testing.T, origin string, logs *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(6 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(origin + "/track-record")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var tr struct {
				Horizons map[string]struct{ Samples int } `json:"horizons"`
			}
			if resp.StatusCode == http.StatusOK && json.Unmarshal(b, &tr) == nil && tr.Horizons["1h"].Samples > 0 {
				return
			}
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("the demo has no track record after 6 minutes:\n%s", tail(logs.String(), 4000))
}

// stripeFront stands between mi and stripe-mock (see TestBrowser), and
// serves the stand-in payment page.
type stripeFront struct {
	*httptest.Server
	t        *testing.T
	origin   string // mi's
	mu       sync.Mutex
	sessions map[string]frontSession
	paidN    int
}

type frontSession struct {
	success, cancel string
	amount          int64
}

func newStripeFront(t *testing.T, mock, origin string) *stripeFront {
	target, err := url.Parse(mock)
	if err != nil {
		t.Fatal(err)
	}
	f := &stripeFront{t: t, origin: origin, sessions: map[string]frontSession{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = f.rewrite
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pay/{id}", f.page)
	mux.HandleFunc("POST /pay/{id}", f.pay)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /v1/checkout/sessions", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		form, _ := url.ParseQuery(string(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Set("X-Front-Form", form.Encode()) // read back by rewrite
		proxy.ServeHTTP(w, r)
	})
	mux.Handle("/", proxy)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// rewrite points the url of a created session to the stand-in page and
// remembers where to send the browser back.
func (f *stripeFront) rewrite(resp *http.Response) error {
	raw := resp.Request.Header.Get("X-Front-Form")
	if raw == "" || resp.StatusCode != http.StatusOK {
		return nil
	}
	form, _ := url.ParseQuery(raw)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	id, _ := s["id"].(string)
	amount, _ := strconv.ParseInt(form.Get("line_items[0][price_data][unit_amount]"), 10, 64)
	f.mu.Lock()
	f.sessions[id] = frontSession{success: strings.ReplaceAll(form.Get("success_url"), "{CHECKOUT_SESSION_ID}", id),
		cancel: form.Get("cancel_url"), amount: amount}
	f.mu.Unlock()
	s["url"] = f.URL + "/pay/" + id
	if b, err = json.Marshal(s); err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return nil
}

func (f *stripeFront) session(id string) (frontSession, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[id]
	return s, ok
}

func (f *stripeFront) page(w http.ResponseWriter, r *http.Request) {
	s, ok := f.session(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test payment</title></head>
<body><main><h1>Test payment page</h1><p>Stand-in for Stripe Checkout: %s USD.</p>
<form method="post"><button type="submit" id="pay">Pay</button></form>
<p><a id="cancel" href="%s">Cancel</a></p></main></body></html>`,
		strconv.FormatFloat(float64(s.amount)/100, 'f', 2, 64), html.EscapeString(s.cancel))
}

// pay sends mi the event Stripe sends when a session is paid, then the
// browser to the success page.
func (f *stripeFront) pay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s, ok := f.session(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	ev := checkouttest.SessionEvent("evt_browser_"+strconv.FormatInt(time.Now().UnixNano(), 36), "checkout.session.completed",
		checkouttest.Session{ID: id, Status: "complete", PaymentStatus: "paid", AmountTotal: s.amount, Currency: "usd",
			PaymentIntent: "pi_browser_" + id[len(id)-6:]})
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, f.origin+"/api/v1/credits/checkout/webhook", bytes.NewReader(ev))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", checkouttest.Sign(ev, checkouttest.WebhookSecret, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.t.Errorf("the webhook answered %d %s", resp.StatusCode, b)
		http.Error(w, "webhook refused", http.StatusBadGateway)
		return
	}
	f.mu.Lock()
	f.paidN++
	f.mu.Unlock()
	http.Redirect(w, r, s.success, http.StatusSeeOther)
}

func (f *stripeFront) paid() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paidN
}
