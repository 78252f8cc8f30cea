package query

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/query/api"
)

func TestStatus(t *testing.T) {
	f := func(sts *stats.Stats, want string) {
		t.Helper()
		app := newTestServer(sts, nil, smallDoc("BTCUSD", "5m", 1, 1), smallDoc("BTCUSD", "1m", 1, 1), smallDoc("ETHUSD", "5m", 1, 1)).App()
		status, ct, body := do(t, app, http.MethodGet, "/status")
		if status != 200 || ct != "application/json" || body != want {
			t.Fatalf("GET /status:\ngot:  %d %s %s\nwant: 200 %s", status, ct, body, want)
		}
	}
	const views = `"views":{"documents":3,"symbols":2,"windows":{"15m":0,"1m":1,"5m":2}}`
	f(nil, `{"service":"mi","version":"0.1.0-test","generatedAt":"2024-08-08T12:00:00.000Z","sources":[],"deadLetters":{},`+views+`,"operators":null,"freshness":{"chains":[],"sources":[]}}`)

	st := stats.New()
	st.SetState("replay:b", "running", nil)
	st.Trade("replay:b", testNow.Add(-3*1e9).UnixNano(), testNow.Add(-1500*1e6).UnixNano())
	st.Trade("replay:b", testNow.Add(-4*1e9).UnixNano(), testNow.Add(-1250*1e6).UnixNano())
	st.Reject("replay:b", "bad price: -1")
	st.Reject("", "late")
	st.SetState("ws:a", "failed", errors.New("cannot dial"))
	st.Reconnect("ws:a")
	st.Reconnect("ws:a")
	st.Gap("ws:a", testNow.Add(-2e9).UnixNano(), testNow.UnixNano(), "disconnected")
	st.Trade("ws:future", testNow.UnixNano(), testNow.Add(1e9).UnixNano())
	f(st, `{"service":"mi","version":"0.1.0-test","generatedAt":"2024-08-08T12:00:00.000Z","sources":[`+
		`{"source":"replay:b","state":"running","trades":2,"rejected":1,"rejectedByReason":{"bad price":1},"lastEventAt":"2024-08-08T11:59:57.000Z","lastIngestAt":"2024-08-08T11:59:58.750Z","freshnessMs":1250,"reconnects":0,"error":null,"lagMs":2750,"gaps":0,"lastGap":null},`+
		`{"source":"ws:a","state":"failed","trades":0,"rejected":0,"rejectedByReason":{},"lastEventAt":null,"lastIngestAt":null,"freshnessMs":null,"reconnects":2,"error":"cannot dial","lagMs":null,"gaps":1,"lastGap":"disconnected"},`+
		`{"source":"ws:future","state":"starting","trades":1,"rejected":0,"rejectedByReason":{},"lastEventAt":"2024-08-08T12:00:00.000Z","lastIngestAt":"2024-08-08T12:00:01.000Z","freshnessMs":0,"reconnects":0,"error":null,"lagMs":1000,"gaps":0,"lastGap":null}],`+
		`"deadLetters":{"bad price":1,"late":1},`+views+`,"operators":null,"freshness":{"chains":[],"sources":[]}}`)

	proc := fixedOps{Trades: 10, Candles: 2, Transactions: 1}
	st = stats.New()
	st.AttachOperators(proc)
	f(st, `{"service":"mi","version":"0.1.0-test","generatedAt":"2024-08-08T12:00:00.000Z","sources":[],"deadLetters":{},`+views+
		`,"operators":{"trades":10,"gaps":0,"candles":2,"documents":0,"signalChanges":0,"rejected":0,"transactions":1,"aborts":0,"restores":0},"freshness":{"chains":[],"sources":[]}}`)
}

// /status shows the freshness registry of the polled sources and chain
// readers: chains apart from the others, every time in the one format,
// ages from the generation time, errors redacted.
func TestStatusFreshness(t *testing.T) {
	clk := clock.NewFake(testNow.Add(-10 * time.Minute))
	reg := sources.NewRegistry(nil, clk)
	eth := reg.Register("chain:ethereum", "chain", "https://eth.example/v2/abcdefghij0123456789XYZ")
	eth.Attempt()
	eth.Success(testNow.Add(-11 * time.Minute))
	par := reg.Register("treasury:par", "rates", "https://home.treasury.gov/x")
	par.SetMaxAge(time.Hour)
	par.Attempt()
	par.Failure(errors.New("cannot get https://home.treasury.gov/x: HTTP 503 Service Unavailable"))
	reg.Register("poll:hyperliquid", "perps", "https://api.hyperliquid.xyz")
	clk.Advance(10 * time.Minute)
	s := New(Deps{Version: "0.1.0-test", Now: func() time.Time { return testNow }, Freshness: reg})
	status, _, body := do(t, s.App(), http.MethodGet, "/status")
	want := `"freshness":{"chains":[` +
		`{"name":"chain:ethereum","kind":"chain","endpoint":"https://eth.example/v2/REDACTED","state":"ok","stale":false,` +
		`"lastAttemptAt":"2024-08-08T11:50:00.000Z","lastSuccessAt":"2024-08-08T11:50:00.000Z","lastDataAt":"2024-08-08T11:49:00.000Z",` +
		`"ageMs":600000,"dataAgeMs":660000,"maxAgeMs":null,"consecutiveFailures":0,"error":null,"errorAt":null}],"sources":[` +
		`{"name":"poll:hyperliquid","kind":"perps","endpoint":"https://api.hyperliquid.xyz","state":"starting","stale":true,` +
		`"lastAttemptAt":null,"lastSuccessAt":null,"lastDataAt":null,"ageMs":null,"dataAgeMs":null,"maxAgeMs":null,"consecutiveFailures":0,"error":null,"errorAt":null},` +
		`{"name":"treasury:par","kind":"rates","endpoint":"https://home.treasury.gov/x","state":"failing","stale":true,` +
		`"lastAttemptAt":"2024-08-08T11:50:00.000Z","lastSuccessAt":null,"lastDataAt":null,"ageMs":null,"dataAgeMs":null,"maxAgeMs":3600000,"consecutiveFailures":1,` +
		`"error":"cannot get https://home.treasury.gov/x: HTTP 503 Service Unavailable","errorAt":"2024-08-08T11:50:00.000Z"}]}}`
	if status != 200 || !strings.HasSuffix(body, want) {
		t.Fatalf("GET /status:\ngot:  %s\nwant: …%s", body, want)
	}
}

func TestHealthz(t *testing.T) {
	status, ct, body := do(t, newTestServer(nil, nil).App(), http.MethodGet, "/healthz")
	if status != 200 || ct != "application/json" || body != `{"status":"ok"}` {
		t.Fatalf("GET /healthz: %d %s %s", status, ct, body)
	}
}

func TestUnknownRoutes(t *testing.T) {
	app := newTestServer(nil, nil).App()
	f := func(method, target string, wantStatus int, wantBody string) {
		t.Helper()
		status, ct, body := do(t, app, method, target)
		if status != wantStatus || body != wantBody || ct != "application/json" {
			t.Fatalf("%s %s:\ngot:  %d %s %s\nwant: %d %s", method, target, status, ct, body, wantStatus, wantBody)
		}
	}
	f("GET", "/nope", 404, `{"error":"not_found","message":"no route GET /nope; see /openapi.json and docs/api.md","charged":false}`)
	f("GET", "/api/v1/intelligence/BTCUSD/extra", 404, `{"error":"not_found","message":"no route GET /api/v1/intelligence/BTCUSD/extra; see /openapi.json and docs/api.md","charged":false}`)
	f("GET", "/api/v2/intelligence", 404, `{"error":"not_found","message":"no route GET /api/v2/intelligence; see /openapi.json and docs/api.md","charged":false}`)
	f("POST", "/healthz", 405, `{"error":"method_not_allowed","message":"method POST is not allowed on /healthz","charged":false}`)
}

func TestPanicIsInternalError(t *testing.T) {
	s := newTestServer(nil, nil)
	s.App().Get("/boom", func(fiber.Ctx) error { panic("secret internal detail") })
	s.App().Get("/fail", func(fiber.Ctx) error { return errors.New("secret database error") })
	f := func(target string) {
		t.Helper()
		status, ct, body := do(t, s.App(), http.MethodGet, target)
		want := `{"error":"internal","message":"internal server error","charged":false}`
		if status != 500 || ct != "application/json" || body != want {
			t.Fatalf("GET %s: %d %s %s, want 500 %s", target, status, ct, body, want)
		}
	}
	f("/boom")
	f("/fail")
	// The server still serves after a panic.
	if status, _, _ := do(t, s.App(), http.MethodGet, "/healthz"); status != 200 {
		t.Fatalf("healthz after panic: %d", status)
	}
}

// recordingPaywall answers 402 on every route it wraps and records them.
type recordingPaywall struct {
	wrapped []string
	calls   []string
}

func (p *recordingPaywall) Wrap(r api.Operation, next fiber.Handler) fiber.Handler {
	p.wrapped = append(p.wrapped, r.Path)
	return func(c fiber.Ctx) error {
		p.calls = append(p.calls, r.Path)
		if c.Get("X-Test-Paid") == "yes" {
			return next(c)
		}
		return api.SendJSON(c, fiber.StatusPaymentRequired, []byte(`{"error":"payment_required"}`))
	}
}

func TestPaywall(t *testing.T) {
	pw := &recordingPaywall{}
	srv := newTestServer(nil, pw, fullDoc())
	app := srv.App()
	var priced []string
	for _, r := range newTestServer(nil, nil).Operations() {
		if r.Paid() && !r.BilledInside {
			priced = append(priced, r.Path)
		}
	}
	slices.Sort(pw.wrapped)
	slices.Sort(priced)
	if !slices.Equal(pw.wrapped, priced) || !slices.Contains(priced, "/api/v1/intelligence/:symbol") {
		t.Fatalf("paywall wrapped %v, want exactly the priced routes %v", pw.wrapped, priced)
	}
	f := func(target string, paid bool, wantStatus int, wantCalls int) {
		t.Helper()
		pw.calls = nil
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		if paid {
			req.Header.Set("X-Test-Paid", "yes")
		}
		resp, err := app.Test(req)
		if err != nil {
			t.Fatalf("GET %s: %s", target, err)
		}
		resp.Body.Close()
		if resp.StatusCode != wantStatus || len(pw.calls) != wantCalls {
			t.Fatalf("GET %s (paid=%v): status %d, paywall calls %v; want %d and %d calls", target, paid, resp.StatusCode, pw.calls, wantStatus, wantCalls)
		}
	}
	f("/api/v1/intelligence/BTCUSD", false, 402, 1)
	f("/api/v1/intelligence/BTCUSD", true, 200, 1)
	f("/api/v1/intelligence?limit=5", false, 402, 1)
	f("/api/v1/intelligence?limit=5", true, 200, 1)
	f("/api/v1/intelligence/summary", false, 402, 1)
	f("/api/v1/intelligence/snapshot/BTCUSD", true, 200, 1)
	f("/status", false, 200, 0)
	f("/healthz", false, 200, 0)
	f("/nope", false, 404, 0)
}

func TestRoutes(t *testing.T) {
	s := newTestServer(nil, nil)
	var got []string
	for _, r := range s.Operations() {
		if err := r.Check(); err != nil {
			t.Fatalf("incomplete operation: %v", err)
		}
		got = append(got, r.Method+" "+r.Path+" "+strconv.FormatInt(r.Price, 10))
	}
	want := []string{
		"GET /api/v1/intelligence 10000",
		"GET /api/v1/intelligence/summary 10000",
		"GET /api/v1/intelligence/top-momentum 5000",
		"GET /api/v1/intelligence/top-activity 5000",
		"GET /api/v1/intelligence/unusual 10000",
		"GET /api/v1/intelligence/events 10000",
		"GET /api/v1/intelligence/buying 5000",
		"GET /api/v1/intelligence/selling 5000",
		"GET /api/v1/intelligence/compare 10000",
		"GET /api/v1/intelligence/regime 5000",
		"GET /api/v1/intelligence/snapshot/:symbol 1000",
		"GET /api/v1/intelligence/:symbol 5000",
		"GET /api/v1/preview 0",
		"GET /api/v1/intelligence/equities 5000",
		"GET /api/v1/intelligence/pre-trade 5000",
		"GET /api/v1/intelligence/opportunities 30000",
		"POST /api/v1/intelligence/opportunities 30000",
		"GET /api/v1/agent/opportunities 30000",
		"POST /api/v1/agent/opportunities 30000",
		"GET /status 0",
		"GET /healthz 0",
	}
	// The live routes come first; the other rooms follow.
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("route table:\ngot:  %v\nwant first: %v", got, want)
	}
	if err := api.CheckTable(s.Operations()); err != nil {
		t.Fatal(err)
	}
	// The table is a copy.
	s.Operations()[0].Price = 1
	if s.Operations()[0].Price != 10_000 {
		t.Fatalf("Operations does not return a copy")
	}
	// Parameterized paths register after fixed ones.
	order := api.RegistrationOrder([]api.Operation{{Path: "/a/:x"}, {Path: "/a/b"}, {Path: "/c/*"}, {Path: "/d"}})
	var paths []string
	for _, r := range order {
		paths = append(paths, r.Path)
	}
	if g := strings.Join(paths, " "); g != "/a/b /d /a/:x /c/*" {
		t.Fatalf("registration order: %s", g)
	}
}
