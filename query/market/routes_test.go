package market

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

func TestIntelligenceSymbol(t *testing.T) {
	btc := fullDoc()
	btc1m := smallDoc("BTCUSD", "1m", 5, 10)
	spy := smallDoc("SPY", "15m", 1, 1)
	s := newTestServer(btc, btc1m, spy, smallDoc("ETHUSD", "5m", 2, 2))
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
	f("/api/v1/intelligence/spy?window=15m", 200, fromMarket("SPY", "15m"))
	f("/api/v1/intelligence/SPY-USD?window=15m", 200, fromMarket("SPY", "15m"))   // a venue spelling reads the canonical symbol
	f("/api/v1/intelligence/xbt-usdt?window=1m", 200, fromMarket("BTCUSD", "1m")) // an alias too

	noData := func(symbol, window string) string {
		return `{"error":"no_data","message":"no ` + window + ` intelligence for ` + symbol +
			`; coveredSymbols lists the symbols with data","symbol":"` + symbol +
			`","coveredSymbols":["BTCUSD","ETHUSD","SPY"],"charged":false}`
	}
	f("/api/v1/intelligence/DOGEUSD", 404, noData("DOGEUSD", "5m"))
	f("/api/v1/intelligence/dogeusd?window=1m", 404, noData("DOGEUSD", "1m"))
	f("/api/v1/intelligence/ETHUSD?window=15m", 404, noData("ETHUSD", "15m"))
}

func TestIntelligenceSymbolNoData(t *testing.T) {
	// With no data at all, coveredSymbols is an empty array, never null.
	status, _, body := do(t, newTestServer().App(), http.MethodGet, "/api/v1/intelligence/BTCUSD")
	want := `{"error":"no_data","message":"no 5m intelligence for BTCUSD; coveredSymbols lists the symbols with data","symbol":"BTCUSD","coveredSymbols":[],"charged":false}`
	if status != 404 || body != want {
		t.Fatalf("got %d %s\nwant 404 %s", status, body, want)
	}
}

func TestValidation(t *testing.T) {
	app := newTestServer(fullDoc()).App()
	const (
		badWindow = `{"error":"invalid_parameter","parameter":"window","message":"window must be one of 1m, 5m, 15m","accepted":["1m","5m","15m"],"charged":false}`
		badLimit  = `{"error":"invalid_parameter","parameter":"limit","message":"limit must be an integer 1 to 100","accepted":"integer 1 to 100","charged":false}`
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
	// A path segment that is no symbol is no route: 404 (the server's
	// error handler writes the not_found body; this app has Fiber's).
	for _, target := range []string{"/api/v1/intelligence/" + strings.Repeat("A", 33), "/api/v1/intelligence/BTC%20USD",
		"/api/v1/intelligence/BTC$", "/api/v1/intelligence/%C3%A9", "/api/v1/intelligence/premium"} {
		if status, _, body := do(t, app, http.MethodGet, target); status != 404 {
			t.Fatalf("GET %s: %d %s, want 404", target, status, body)
		}
	}
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
	app := newTestServer(docs...).App()

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
	status, _, body := do(t, newTestServer().App(), http.MethodGet, "/api/v1/intelligence")
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
