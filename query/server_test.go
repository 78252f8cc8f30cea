package query

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/schemas"
)

func TestIntelligenceSymbol(t *testing.T) {
	btc := fullDoc()
	btc1m := smallDoc("BTCUSD", "1m", 5, 10)
	brk := smallDoc("BRK.B", "15m", 1, 1)
	s := newTestServer(nil, nil, btc, btc1m, brk, smallDoc("ETHUSD", "5m", 2, 2))
	app := s.App()

	f := func(target string, wantStatus int, wantBody string) {
		t.Helper()
		status, ct, body := do(t, app, http.MethodGet, target)
		if status != wantStatus || body != wantBody {
			t.Fatalf("GET %s:\ngot:  %d %s\nwant: %d %s", target, status, body, wantStatus, wantBody)
		}
		if ct != "application/json" {
			t.Fatalf("GET %s: Content-Type %q, want application/json", target, ct)
		}
	}
	// Covered symbols are served from the market step: percentiles and
	// relative strength among the window's symbols (BTCUSD leads ETHUSD).
	fromMarket := func(symbol, window string) string {
		d, ok := s.market(window).get(symbol)
		if !ok || d.MarketPercentile+d.RelativeMomentumPercentile == 0 && window == "5m" {
			t.Fatalf("%s %s not covered or without percentiles", symbol, window)
		}
		return string(appendSymbolDetail(nil, d, testNow))
	}
	btcBody := fromMarket("BTCUSD", "5m")
	if !strings.Contains(btcBody, `"marketPercentile":100,`) || !strings.Contains(btcBody, `"relativeStrength":"leader"`) {
		t.Fatalf("BTCUSD without its market fields: %s", btcBody)
	}
	f("/api/v1/intelligence/BTCUSD", 200, btcBody)
	f("/api/v1/intelligence/btcusd", 200, btcBody)
	f("/api/v1/intelligence/BtcUsd?window=5m", 200, btcBody)
	f("/api/v1/intelligence/BTCUSD?window=", 200, btcBody)
	f("/api/v1/intelligence/BTCUSD?foo=bar&window=5m&limit=nonsense", 200, btcBody)
	f("/api/v1/intelligence/BTCUSD?window=1m", 200, fromMarket("BTCUSD", "1m"))
	f("/api/v1/intelligence/brk.b?window=15m", 200, fromMarket("BRK.B", "15m"))

	noData := func(symbol, window string) string {
		return `{"error":"no_data","message":"no ` + window + ` intelligence for ` + symbol +
			`; coveredSymbols lists the symbols with data","symbol":"` + symbol +
			`","coveredSymbols":["BRK.B","BTCUSD","ETHUSD"],"charged":false}`
	}
	f("/api/v1/intelligence/DOGEUSD", 404, noData("DOGEUSD", "5m"))
	f("/api/v1/intelligence/dogeusd?window=1m", 404, noData("DOGEUSD", "1m"))
	f("/api/v1/intelligence/ETHUSD?window=15m", 404, noData("ETHUSD", "15m"))
}

func TestIntelligenceSymbolNoData(t *testing.T) {
	// With no data at all, coveredSymbols is an empty array, never null.
	status, _, body := do(t, newTestServer(nil, nil).App(), http.MethodGet, "/api/v1/intelligence/BTCUSD")
	want := `{"error":"no_data","message":"no 5m intelligence for BTCUSD; coveredSymbols lists the symbols with data","symbol":"BTCUSD","coveredSymbols":[],"charged":false}`
	if status != 404 || body != want {
		t.Fatalf("got %d %s\nwant 404 %s", status, body, want)
	}
}

func TestValidation(t *testing.T) {
	app := newTestServer(nil, nil, fullDoc()).App()
	const (
		badWindow = `{"error":"invalid_parameter","parameter":"window","message":"window must be one of 1m, 5m, 15m","accepted":["1m","5m","15m"],"charged":false}`
		badLimit  = `{"error":"invalid_parameter","parameter":"limit","message":"limit must be an integer 1 to 100","accepted":"integer 1 to 100","charged":false}`
		badSymbol = `{"error":"invalid_parameter","parameter":"symbol","message":"symbol must be 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)","accepted":"1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)","charged":false}`
	)
	f := func(target, wantBody string) {
		t.Helper()
		status, ct, body := do(t, app, http.MethodGet, target)
		if status != 400 || body != wantBody {
			t.Fatalf("GET %s:\ngot:  %d %s\nwant: 400 %s", target, status, body, wantBody)
		}
		if ct != "application/json" {
			t.Fatalf("GET %s: Content-Type %q", target, ct)
		}
	}
	for _, w := range []string{"1h", "5M", "5", "1m,5m", "%20", "15m%00", "x"} {
		f("/api/v1/intelligence/BTCUSD?window="+w, badWindow)
		f("/api/v1/intelligence?window="+w, badWindow)
	}
	for _, l := range []string{"0", "101", "-1", "+5", "1.5", "abc", "1e2", "00000020", "99999999999999999999", "%20"} {
		f("/api/v1/intelligence?limit="+l, badLimit)
	}
	// The window is checked before the limit.
	f("/api/v1/intelligence?window=2m&limit=0", badWindow)
	f("/api/v1/intelligence/"+strings.Repeat("A", 33), badSymbol)
	f("/api/v1/intelligence/BTC%20USD", badSymbol)
	f("/api/v1/intelligence/BTC$", badSymbol)
	f("/api/v1/intelligence/%C3%A9", badSymbol)
}

var percentileRe = regexp.MustCompile(`"(market|relativeMomentum|relativeBuyPressure)Percentile":[0-9.e+-]+`)

func TestIntelligenceList(t *testing.T) {
	docs := []*schemas.IntelligenceDocument{
		smallDoc("AAA", "5m", 10, 100),
		smallDoc("BBB", "5m", 30, 1),
		smallDoc("CCC", "5m", 10, 500),
		smallDoc("DDD", "5m", 10, 100),
		smallDoc("EEE", "1m", 99, 99),
	}
	for i := 0; i < 120; i++ {
		docs = append(docs, smallDoc("Z"+strings.Repeat("X", i%7)+string(rune('A'+i%26))+string(rune('A'+i/26)), "15m", int64(i), 0))
	}
	app := newTestServer(nil, nil, docs...).App()

	f := func(target string, wantSymbols ...string) {
		t.Helper()
		status, ct, body := do(t, app, http.MethodGet, target)
		if status != 200 || ct != "application/json" {
			t.Fatalf("GET %s: %d %s %s", target, status, ct, body)
		}
		var want []*schemas.IntelligenceDocument
		for _, s := range wantSymbols {
			for _, d := range docs {
				if d.Symbol == s && strings.Contains(target, "window="+d.Window) || d.Symbol == s && d.Window == "5m" && !strings.Contains(target, "window=") {
					want = append(want, d)
				}
			}
		}
		// Percentiles are the market's (TestMarket); compared as 0 here.
		body = percentileRe.ReplaceAllString(body, `"${1}Percentile":0`)
		body = relativeStrengthRe.ReplaceAllString(body, `"relativeStrength":""`)
		if wantBody := string(appendDocuments(nil, want)); body != wantBody {
			t.Fatalf("GET %s:\ngot:  %s\nwant: %s", target, body, wantBody)
		}
	}
	// Trade count desc, then volume desc, then symbol.
	f("/api/v1/intelligence", "BBB", "CCC", "AAA", "DDD")
	if _, _, body := do(t, app, http.MethodGet, "/api/v1/intelligence"); !strings.Contains(body, `"marketPercentile":100,`) ||
		strings.Count(body, `"marketPercentile":16.666666666666668,`) != 2 {
		t.Fatalf("the list route does not set marketPercentile: %s", body)
	}
	f("/api/v1/intelligence?window=5m&limit=2", "BBB", "CCC")
	f("/api/v1/intelligence?limit=1&unknown=1", "BBB")
	f("/api/v1/intelligence?window=1m", "EEE")

	// Default limit 20 and maximum 100.
	count := func(target string) int {
		t.Helper()
		status, _, body := do(t, app, http.MethodGet, target)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", target, status, body)
		}
		return strings.Count(body, `"id":`)
	}
	if n := count("/api/v1/intelligence?window=15m"); n != 20 {
		t.Fatalf("default limit returned %d documents, want 20", n)
	}
	if n := count("/api/v1/intelligence?window=15m&limit=100"); n != 100 {
		t.Fatalf("limit=100 returned %d documents, want 100", n)
	}

	// An empty window is an empty array, not null.
	status, _, body := do(t, newTestServer(nil, nil).App(), http.MethodGet, "/api/v1/intelligence")
	if status != 200 || body != "[]" {
		t.Fatalf("empty list: %d %s, want 200 []", status, body)
	}
}

func TestRankByActivity(t *testing.T) {
	f := func(in []*schemas.IntelligenceDocument, want string) {
		t.Helper()
		slices.SortFunc(in, mostActiveFirst)
		var got []string
		for _, d := range in {
			got = append(got, d.Symbol)
		}
		if g := strings.Join(got, " "); g != want {
			t.Fatalf("ranking: got %s, want %s", g, want)
		}
	}
	f(nil, "")
	f([]*schemas.IntelligenceDocument{smallDoc("B", "5m", 1, 1), smallDoc("A", "5m", 1, 1)}, "A B")
	f([]*schemas.IntelligenceDocument{smallDoc("A", "5m", 1, 1), smallDoc("B", "5m", 2, 0)}, "B A")
	f([]*schemas.IntelligenceDocument{smallDoc("A", "5m", 1, 1), smallDoc("B", "5m", 1, 2)}, "B A")
	nan := smallDoc("N", "5m", 1, 0)
	nan.Volume = nan.Volume / nan.Volume // NaN
	f([]*schemas.IntelligenceDocument{nan, smallDoc("A", "5m", 1, 1), smallDoc("Z", "5m", 1, 0)}, "A Z N")
}

func TestStatus(t *testing.T) {
	f := func(stats *pipeline.Stats, want string) {
		t.Helper()
		app := newTestServer(stats, nil, smallDoc("BTCUSD", "5m", 1, 1), smallDoc("BTCUSD", "1m", 1, 1), smallDoc("ETHUSD", "5m", 1, 1)).App()
		status, ct, body := do(t, app, http.MethodGet, "/status")
		if status != 200 || ct != "application/json" || body != want {
			t.Fatalf("GET /status:\ngot:  %d %s %s\nwant: 200 %s", status, ct, body, want)
		}
	}
	const views = `"views":{"documents":3,"symbols":2,"windows":{"15m":0,"1m":1,"5m":2}}`
	f(nil, `{"service":"mi","version":"0.1.0-test","generatedAt":"2024-08-08T12:00:00.000Z","sources":[],"deadLetters":{},`+views+`,"operators":null}`)

	st := pipeline.NewStats()
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
		`{"source":"replay:b","state":"running","trades":2,"rejected":1,"lastEventAt":"2024-08-08T11:59:57.000Z","lastIngestAt":"2024-08-08T11:59:58.750Z","freshnessMs":1250,"reconnects":0,"error":null,"lagMs":2750,"gaps":0,"lastGap":null},`+
		`{"source":"ws:a","state":"failed","trades":0,"rejected":0,"lastEventAt":null,"lastIngestAt":null,"freshnessMs":null,"reconnects":2,"error":"cannot dial","lagMs":null,"gaps":1,"lastGap":"disconnected"},`+
		`{"source":"ws:future","state":"starting","trades":1,"rejected":0,"lastEventAt":"2024-08-08T12:00:00.000Z","lastIngestAt":"2024-08-08T12:00:01.000Z","freshnessMs":0,"reconnects":0,"error":null,"lagMs":1000,"gaps":0,"lastGap":null}],`+
		`"deadLetters":{"bad price":1,"late":1},`+views+`,"operators":null}`)

	proc := &pipeline.ProcessStats{}
	proc.Trades.Add(10)
	proc.Candles.Add(2)
	proc.Transactions.Add(1)
	st = pipeline.NewStats()
	st.AttachOperators(proc)
	f(st, `{"service":"mi","version":"0.1.0-test","generatedAt":"2024-08-08T12:00:00.000Z","sources":[],"deadLetters":{},`+views+
		`,"operators":{"trades":10,"gaps":0,"candles":2,"documents":0,"signalChanges":0,"rejected":0,"transactions":1,"aborts":0,"restores":0}}`)
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
		"GET /status 0",
		"GET /healthz 0",
	}
	// The intelligence routes come first; feature groups follow.
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
