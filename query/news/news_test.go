package news

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/sinks/newsview"
)

// fetched is when the test "read" the captures.
var fetched = time.Date(2026, 9, 26, 0, 0, 0, 0, time.UTC).UnixNano()

// newView is a view over the captured feeds and the ADBE 8-K, as the
// offline demo serves them.
func newView(tb testing.TB) *newsview.View {
	tb.Helper()
	dir := fixtures.Dir(tb)
	dict, err := newsreplay.Dictionary(dir)
	if err != nil {
		tb.Fatal(err)
	}
	items, err := newsreplay.Items(dir, fetched)
	if err != nil {
		tb.Fatal(err)
	}
	v := newsview.New(dict, 10*365*24*time.Hour)
	for _, n := range items {
		if err := v.Apply(n); err != nil {
			tb.Fatal(err)
		}
	}
	return v
}

// mount serves the news routes as the server does: every parameter
// validated before its handler.
func mount(v *newsview.View) (*fiber.App, []api.Operation) {
	ops := New(v).Operations()
	app := fiber.New()
	api.Mount(app, ops, func() time.Time { return querytest.Now }, nil)
	return app, ops
}

// TestNewsRoutesMatchOpenAPI checks live answers over the real feeds
// against the document the table renders, strictly, and that the document
// rejects a request exactly when the server does.
func TestNewsRoutesMatchOpenAPI(t *testing.T) {
	app, ops := mount(newView(t))
	f := querytest.NewOpenAPI(t, openapi.Build(ops, paywall.Responses()), app)
	check := func(target string, want int) []byte {
		t.Helper()
		req, resp, body := f.Send(t, http.MethodGet, target)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", target, resp.StatusCode, want, body)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %.600s\ndoes not match the document:%s", target, body, querytest.DescribeErrors(errs))
		}
		ok, errs := f.V.ValidateHttpRequest(httptest.NewRequest(http.MethodGet, target, nil))
		if ok != (want != 400) {
			t.Fatalf("GET %s answers %d but the document says the request is valid=%v:%s", target, want, ok, querytest.DescribeErrors(errs))
		}
		if want == 200 && resp.Header.Get(NoticeHeader) != newsview.Disclaimer {
			t.Fatalf("GET %s: %s %q, want the disclaimer", target, NoticeHeader, resp.Header.Get(NoticeHeader))
		}
		return body
	}
	for _, target := range []string{"/api/v1/news", "/api/v1/news?limit=100", "/api/v1/news?category=crypto&limit=1",
		"/api/v1/news?category=filings", "/api/v1/news?query=bitcoin", "/api/v1/news?query=Adobe",
		"/api/v1/news?query=ADBE&category=filings", "/api/v1/news?query=" + url.QueryEscape("Fed rate"),
		"/api/v1/news/symbol?symbol=ADBE", "/api/v1/news/symbol?symbol=btc&limit=3", "/api/v1/news/symbol?symbol=BTCUSD"} {
		check(target, 200)
	}
	for _, target := range []string{"/api/v1/news?category=forex", "/api/v1/news?category=CRYPTO", "/api/v1/news?limit=0",
		"/api/v1/news?limit=101", "/api/v1/news?limit=ten", "/api/v1/news?query=" + strings.Repeat("a", 201),
		"/api/v1/news?query=" + url.QueryEscape(strings.Repeat("é", 201)),
		"/api/v1/news/symbol", "/api/v1/news/symbol?symbol=" + strings.Repeat("A", 33), "/api/v1/news/symbol?symbol=A%2BB",
		"/api/v1/news/symbol?symbol=ADBE&limit=0"} {
		check(target, 400)
	}
	// 200 characters of two bytes each are accepted: the bound counts
	// characters, as maxLength does.
	check("/api/v1/news?query="+url.QueryEscape(strings.Repeat("é", 200)), 404)
	check("/api/v1/news?query=zzqqxxnothing", 404)
	check("/api/v1/news/symbol?symbol=ZZZZZZ", 404) // no such symbol
	check("/api/v1/news/symbol?symbol=MSFT", 404)   // a known issuer without news
	check("/api/v1/news?category=stocks&query=ADBE", 404)

	// Without a view every route answers 404, never charged.
	app2, _ := mount(nil)
	f.App = app2
	check("/api/v1/news", 404)
	check("/api/v1/news/symbol?symbol=ADBE", 404)
}

// TestNewsSymbolADBE: the "Done when" on the route — the ADBE 8-K
// shows item 2.02 as earnings, from the real filing header.
func TestNewsSymbolADBE(t *testing.T) {
	app, _ := mount(newView(t))
	status, _, body := querytest.Do(t, app, http.MethodGet, "/api/v1/news/symbol?symbol=adbe")
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var docs []newsview.Document
	if err := json.Unmarshal([]byte(body), &docs); err != nil {
		t.Fatal(err)
	}
	d := docs[0]
	// sec/8k_0000796343-23-000044_ADBE_item2.02.txt: ACCEPTANCE-DATETIME
	// 20230315160636 (Eastern), ITEM INFORMATION: Results of Operations
	// and Financial Condition, Financial Statements and Exhibits.
	if len(docs) != 1 || d.Category != "filings" || d.Filing == nil || d.Filing.Form != "8-K" || !d.Filing.Earnings ||
		d.Filing.Accession != "0000796343-23-000044" || len(d.Filing.Items) != 2 || d.Filing.Items[0].Item != "2.02" ||
		!d.Filing.Items[0].Earnings || d.Filing.Items[1].Item != "9.01" || d.Filing.Items[1].Earnings ||
		!d.PublishedAt.Equal(time.Date(2023, 3, 15, 20, 6, 36, 0, time.UTC)) || !strings.Contains(d.Summary, "2.02") ||
		len(d.Symbols) == 0 || d.Symbols[0] != "ADBE" {
		t.Fatalf("ADBE: %s", body)
	}
}

// TestNewsDeclarations: prices of spec §8, the tool, the parameters.
func TestNewsDeclarations(t *testing.T) {
	ops := New(nil).Operations()
	if err := api.CheckTable(ops); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"GET /api/v1/news": "get_market_news", "GET /api/v1/news/symbol": ""}
	for _, op := range ops {
		tool, ok := want[op.Key()]
		if !ok || op.Price != 3_000 || (op.Tool != nil) != (tool != "") || op.Tool != nil && op.Tool.Name != tool {
			t.Errorf("%s: price %d, tool %+v", op.Key(), op.Price, op.Tool)
		}
		if op.Tool != nil && !strings.Contains(op.Tool.Description, "not investment advice") {
			t.Errorf("%s: the tool description does not say sentiment is not investment advice", op.Key())
		}
	}
}
