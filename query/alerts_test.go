package query

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/sinks/alerts"
)

func init() {
	const m = "0 0 id:path X-Alert-Secret:header"
	featureOperations["post /api/v1/alerts/subscriptions"] = "0.5 500000"
	featureOperations["get /api/v1/alerts/subscriptions/{id}"] = m
	featureOperations["delete /api/v1/alerts/subscriptions/{id}"] = m
	featureOperations["post /api/v1/alerts/subscriptions/{id}/test"] = m
	featureOperations["post /api/v1/alerts/subscriptions/{id}/resume"] = m
	featureOperations["get /api/v1/alerts/subscriptions/{id}/events"] = m + " since:query limit:query"
}

// alertFixture is a server with an alert outbox on SQLite, a loopback TLS
// receiver the dispatcher is allowed to reach (test-only setting), and a
// validator of the server's OpenAPI document.
type alertFixture struct {
	srv   *Server
	st    *alerts.Store
	rcv   *httptest.Server
	mu    sync.Mutex
	got   []http.Header
	v     validator.Validator
	clock time.Time
}

func newAlertFixture(t *testing.T) *alertFixture {
	t.Helper()
	f := &alertFixture{clock: time.Now().UTC().Truncate(time.Second)}
	f.rcv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		f.mu.Lock()
		f.got = append(f.got, r.Header.Clone())
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(f.rcv.Close)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "ledger.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.st, err = alerts.Open(context.Background(), db, alerts.DialectSQLite, alerts.Config{Key: bytes.Repeat([]byte{7}, 32), Now: func() time.Time { return f.clock }})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(f.rcv.Certificate())
	d := alerts.NewDispatcher(f.st, alerts.DispatcherConfig{Safety: alerts.Safety{AllowLoopback: true}, TLS: &tls.Config{RootCAs: pool}})
	f.srv = New(Deps{Version: "test", Now: func() time.Time { return testNow }, Alerts: d, Events: testLiveEvents()})
	status, _, body := do(t, f.srv.App(), http.MethodGet, openapi.Path)
	if status != 200 {
		t.Fatal(body)
	}
	doc, err := libopenapi.NewDocument([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc, config.WithStrictMode(), config.WithFormatAssertions(),
		config.WithStrictIgnorePaths("$.body.deadLetters.*", "$.body.sources[*].rejectedByReason.*", "$.body.events[*].data.*"))
	if len(errs) > 0 {
		t.Fatalf("cannot build the validator: %v", errs)
	}
	f.v = v
	return f
}

// call sends a request and checks the response against the document.
func (f *alertFixture) call(t *testing.T, method, target, secret, body string, wantStatus int) map[string]any {
	t.Helper()
	mk := func() *http.Request {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if secret != "" {
			r.Header.Set("X-Alert-Secret", secret)
		}
		return r
	}
	resp, err := f.srv.App().Test(mk(), fiber.TestConfig{Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if resp.StatusCode != wantStatus {
		t.Fatalf("%s %s: %d, want %d: %s", method, target, resp.StatusCode, wantStatus, raw)
	}
	if ok, errs := f.v.ValidateHttpResponse(mk(), resp); !ok {
		t.Fatalf("%s %s: %d %s\ndoes not match the document:%s", method, target, resp.StatusCode, raw, describeErrors(errs))
	}
	if wantStatus < 300 {
		if ok, errs := f.v.ValidateHttpRequest(mk()); !ok {
			t.Fatalf("%s %s: the document rejects a request the server accepts:%s", method, target, describeErrors(errs))
		}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, target, raw)
	}
	return m
}

func TestAlertRoutes(t *testing.T) {
	f := newAlertFixture(t)
	const base = "/api/v1/alerts/subscriptions"
	created := f.call(t, http.MethodPost, base, "", `{"url":"`+f.rcv.URL+`/hook","events":["unusual_flow","decision_change"],"symbols":["btcusd"]}`, 201)
	id, secret := created["id"].(string), created["secret"].(string)
	if id == "" || !strings.HasPrefix(secret, "whsec_") || created["deliveriesLeft"] != 200.0 || created["status"] != "active" {
		t.Fatalf("create answer %v", created)
	}
	if syms := created["symbols"].([]any); len(syms) != 1 || syms[0] != "BTCUSD" {
		t.Fatalf("symbols %v", syms)
	}
	got := f.call(t, http.MethodGet, base+"/"+id, secret, "", 200)
	if _, ok := got["secret"]; ok || got["consecutiveFailures"] != 0.0 || got["expiresAt"] != created["expiresAt"] {
		t.Fatalf("GET %v", got)
	}
	// Wrong secret, no secret and unknown id answer the same.
	a := f.call(t, http.MethodGet, base+"/"+id, "whsec_wrong", "", 404)
	b := f.call(t, http.MethodGet, base+"/sub_nope", secret, "", 404)
	c := f.call(t, http.MethodGet, base+"/"+id, "", "", 404)
	if a["message"] != b["message"] || b["message"] != c["message"] {
		t.Fatalf("404 bodies differ: %v %v %v", a, b, c)
	}
	f.call(t, http.MethodDelete, base+"/"+id, "bad", "", 404)
	f.call(t, http.MethodPost, base+"/"+id+"/resume", "bad", "", 404)
	f.call(t, http.MethodPost, base+"/"+id+"/test", "bad", "", 404)
	f.call(t, http.MethodGet, base+"/"+id+"/events", "bad", "", 404)

	// A test delivery reaches the receiver.
	res := f.call(t, http.MethodPost, base+"/"+id+"/test", secret, "", 200)
	if res["delivered"] != true || res["status"] != 200.0 {
		t.Fatalf("test %v", res)
	}
	f.mu.Lock()
	if len(f.got) != 1 || f.got[0].Get(alerts.HeaderEvent) != "test" || f.got[0].Get(alerts.HeaderSubscription) != id {
		t.Fatalf("receiver got %v", f.got)
	}
	f.mu.Unlock()

	// Catch-up: an event stored while nobody delivered it is handed out
	// and counted against the pack.
	if _, err := f.st.AddEvent(context.Background(), alerts.Event{ID: "evt_1", Event: "unusual_flow", Symbol: "BTCUSD", OccurredAt: f.clock.Add(-time.Minute), Data: json.RawMessage(`{"eventType":"BREAKOUT"}`)}); err != nil {
		t.Fatal(err)
	}
	evs := f.call(t, http.MethodGet, base+"/"+id+"/events?since="+f.clock.Add(-time.Hour).Format(time.RFC3339), secret, "", 200)
	list := evs["events"].([]any)
	if len(list) != 1 || evs["deliveriesLeft"] != 199.0 {
		t.Fatalf("events %v", evs)
	}
	e := list[0].(map[string]any)
	if e["eventId"] != "evt_1" || e["state"] != "fetched" || e["data"].(map[string]any)["eventType"] != "BREAKOUT" || e["lastStatus"] != nil {
		t.Fatalf("event %v", e)
	}
	if evs := f.call(t, http.MethodGet, base+"/"+id+"/events?since="+f.clock.Format(time.RFC3339), secret, "", 200); len(evs["events"].([]any)) != 0 {
		t.Fatalf("since filter: %v", evs)
	}
	f.call(t, http.MethodGet, base+"/"+id+"/events?since=yesterday", secret, "", 400)
	f.call(t, http.MethodGet, base+"/"+id+"/events?limit=0", secret, "", 400)

	// Resume of an active subscription changes nothing; cancel; resume then 409.
	if r := f.call(t, http.MethodPost, base+"/"+id+"/resume", secret, "", 200); r["status"] != "active" {
		t.Fatalf("resume %v", r)
	}
	if r := f.call(t, http.MethodDelete, base+"/"+id, secret, "", 200); r["status"] != "cancelled" {
		t.Fatalf("cancel %v", r)
	}
	f.call(t, http.MethodPost, base+"/"+id+"/resume", secret, "", 409)
	f.call(t, http.MethodPost, base+"/"+id+"/test", secret, "", 409)
}

func TestAlertCreateValidation(t *testing.T) {
	f := newAlertFixture(t)
	u := f.rcv.URL
	check := func(body, param string) {
		t.Helper()
		m := f.call(t, http.MethodPost, "/api/v1/alerts/subscriptions", "", body, 400)
		if m["parameter"] != param || m["error"] != "invalid_parameter" || m["accepted"] == nil {
			t.Fatalf("body %s: %v, want parameter %s", body, m, param)
		}
	}
	check(`not json`, "body")
	check(`{"url":"`+u+`","events":["unusual_flow"],"bogus":1}`, "body")
	check(`{"url":"`+u+`","events":["unusual_flow"]} {}`, "body")
	check(`{"url":"`+u+`","events":[]}`, "events")
	check(`{"url":"`+u+`"}`, "events")
	check(`{"url":"`+u+`","events":["unusual_flow","moon"]}`, "events")
	check(`{"events":["unusual_flow"]}`, "url")
	check(`{"url":"http://example.com/","events":["unusual_flow"]}`, "url")
	check(`{"url":"https://10.0.0.1/","events":["unusual_flow"]}`, "url")
	check(`{"url":"https://169.254.169.254/","events":["unusual_flow"]}`, "url")
	check(`{"url":"`+u+`","events":["unusual_flow"],"symbols":["BTC USD"]}`, "symbols")
	check(`{"url":"`+u+`","events":["sec_filing"]}`, "symbols")
	check(`{"url":"`+u+`","events":["news"],"categories":["sports"]}`, "categories")
	check(`{"url":"`+u+`","events":["news"],"categories":["Crypto"]}`, "categories")
	check(`{"url":"`+u+`","events":["news"],"minMateriality":6}`, "minMateriality")
	check(`{"url":"`+u+`","events":["news"],"minMateriality":0}`, "minMateriality")
	check(`{"url":"`+u+`","events":["token_risk_change"]}`, "tokens")
	tok := `{"address":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","chain":"base"}`
	check(`{"url":"`+u+`","events":["token_risk_change"],"tokens":[`+strings.Repeat(tok+",", 5)+tok+`]}`, "tokens")
	check(`{"url":"`+u+`","events":["token_risk_change"],"tokens":[{"address":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","chain":"bsc"}]}`, "tokens")
	check(`{"url":"`+u+`","events":["token_risk_change"],"tokens":[{"address":"0x1234","chain":"ethereum"}]}`, "tokens")
	check(`{"url":"`+u+`","events":["token_risk_change"],"tokens":[{"address":"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913","chain":"solana"}]}`, "tokens")
	check(`{"url":"`+u+`","events":["sec_filing"],"symbols":["AAPL"],"forms":["8-K","13F"]}`, "forms")
	// The unknown-event answer lists every event name.
	m := f.call(t, http.MethodPost, "/api/v1/alerts/subscriptions", "", `{"url":"`+u+`","events":["moon"]}`, 400)
	if acc := m["accepted"].([]any); len(acc) != 8 {
		t.Fatalf("accepted %v", acc)
	}
	// Every filter at once is accepted and normalized.
	ok := f.call(t, http.MethodPost, "/api/v1/alerts/subscriptions", "", `{"url":"`+u+`","events":["news","sec_filing","token_risk_change"],"symbols":["aapl"],`+
		`"categories":["crypto"],"minMateriality":3,"forms":["8-K","DEF 14A"],"tokens":[{"address":"0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913","chain":"base"},`+
		`{"address":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","chain":"solana"}]}`, 201)
	if ok["minMateriality"] != 3.0 || ok["forms"].([]any)[1] != "DEF 14A" || ok["categories"].([]any)[0] != "crypto" ||
		ok["tokens"].([]any)[0].(map[string]any)["address"] != "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" {
		t.Fatalf("normalized %v", ok)
	}
}

// testLiveEvents are the events of the alert fixture's server: the signal
// and news detectors, and token_risk_change (so its filters are tested);
// funding_extreme, stablecoin_depeg and prediction_market_move have no
// detector there.
func testLiveEvents() *operators.LiveEvents {
	l := operators.NewLiveEvents()
	l.Register("signals", operators.SignalAlertEvents...)
	l.Register("news", operators.NewsAlertEvents...)
	l.Register("token-risk", operators.AlertTokenRiskChange)
	return l
}

// TestAlertEventsMustBeLive: a subscription may name only events whose
// detector runs on the server; another valid event is refused with 400
// naming events and listing the live ones, and nothing is created. The
// live list is what /coverage and the created subscription report.
func TestAlertEventsMustBeLive(t *testing.T) {
	f := newAlertFixture(t)
	live := []any{"decision_change", "unusual_flow", "news", "token_risk_change", "sec_filing"}
	for _, events := range []string{`["funding_extreme"]`, `["unusual_flow","stablecoin_depeg"]`, `["prediction_market_move"]`} {
		m := f.call(t, http.MethodPost, "/api/v1/alerts/subscriptions", "", `{"url":"`+f.rcv.URL+`/hook","events":`+events+`}`, 400)
		if m["parameter"] != "events" || !strings.Contains(m["message"].(string), "no detector running on this server") ||
			len(m["accepted"].([]any)) != len(live) {
			t.Fatalf("events %s: %v", events, m)
		}
	}
	for _, ev := range []string{"funding_extreme", "unusual_flow", "stablecoin_depeg", "prediction_market_move"} {
		if n, err := f.st.AddEvent(t.Context(), alerts.Event{ID: "evt_" + ev, Event: ev, Symbol: "BTCUSD", OccurredAt: f.clock}); err != nil || n != 0 {
			t.Fatalf("a refused subscription was created: %s reaches %d (%v)", ev, n, err)
		}
	}
	created := f.call(t, http.MethodPost, "/api/v1/alerts/subscriptions", "", `{"url":"`+f.rcv.URL+`/hook","events":["unusual_flow"]}`, 201)
	if got := created["liveEvents"].([]any); len(got) != len(live) || got[0] != "decision_change" || got[2] != "news" {
		t.Fatalf("liveEvents %v", got)
	}
	_, _, body := do(t, f.srv.App(), http.MethodGet, "/coverage")
	var cov struct {
		Events []struct {
			Name string `json:"name"`
			Live bool   `json:"live"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &cov); err != nil || len(cov.Events) != 8 {
		t.Fatalf("coverage %v %s", err, body)
	}
	for _, e := range cov.Events {
		if want := slices.Contains(live, any(e.Name)); e.Live != want {
			t.Errorf("coverage: %s live=%v, want %v", e.Name, e.Live, want)
		}
	}
}

// TestAlertRoutesUnconfigured: without an outbox the routes answer 404
// with error unavailable.
func TestAlertRoutesUnconfigured(t *testing.T) {
	s := newTestServer(nil, nil)
	status, _, body := do(t, s.App(), http.MethodGet, "/api/v1/alerts/subscriptions/sub_x")
	if status != 404 || !strings.Contains(body, "unavailable") {
		t.Fatalf("%d %s", status, body)
	}
}
