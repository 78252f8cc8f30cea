package query

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgartest"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/sec"
	"github.com/marketintel/mi/sinks/newsview"
)

// newSECNewsServer is a server whose SEC routes read the real EDGAR
// captures through the EDGAR client (insiders computed as of 2022-06-01,
// the date of the captured Apple Form 4) and whose news routes read a
// view of the captured feeds and the ADBE 8-K.
func newSECNewsServer(t *testing.T, pw Paywall) *Server {
	t.Helper()
	srv := edgartest.New(t)
	hosts := poll.NewHosts(nil, sources.HTTPConfig{Hosts: map[string]sources.Limit{"127.0.0.1": {Rate: 500, Burst: 50}}})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := edgar.New(edgar.Config{Endpoints: edgar.Endpoints{WWW: srv.URL, Data: srv.URL}, CacheDir: t.TempDir(), Logger: quiet,
		HTTP: poll.NewClient(sources.HTTPConfig{UserAgent: "mi-tests tests@example.com"}, poll.Options{Hosts: hosts})})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := sec.New(sec.Config{Client: c, Logger: quiet, InsidersAsOf: time.Date(2022, 6, 1, 15, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	dir := fixtures.Dir(t)
	dict, err := newsreplay.Dictionary(dir)
	if err != nil {
		t.Fatal(err)
	}
	items, err := newsreplay.Items(dir, time.Date(2026, 9, 26, 0, 0, 0, 0, time.UTC).UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	nv := newsview.New(dict, 10*365*24*time.Hour)
	for _, n := range items {
		if err := nv.Apply(n); err != nil {
			t.Fatal(err)
		}
	}
	return New(Deps{Version: "0.1.0-test", Now: func() time.Time { return testNow }, Paywall: pw, SEC: svc, News: nv})
}

// TestOpenAPISECAndNewsResponses validates live answers of the SEC and
// news routes of the assembled server against the document it serves,
// strictly, and the document's request checks against the server's.
func TestOpenAPISECAndNewsResponses(t *testing.T) {
	s := newSECNewsServer(t, nil)
	_, _, doc := get(t, s, openapi.Path, "")
	document, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(document, config.WithStrictMode(), config.WithFormatAssertions(),
		config.WithStrictIgnorePaths("$.body.financials.*", "$.body.derivedIntelligence.nullReasons.*", "$.body.derivedIntelligence.scoreComponents.*",
			"$.body.billingPolicy.*"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	check := func(target string, want int) []byte {
		t.Helper()
		req, resp, body := get(t, s, target, "")
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %.400s", target, resp.StatusCode, want, body)
		}
		if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %.400s\ndoes not match the document:%s", target, body, describeErrors(errs))
		}
		if ok, errs := v.ValidateHttpRequest(httptest.NewRequest(http.MethodGet, target, nil)); ok != (want != 400) {
			t.Fatalf("GET %s answers %d but the document says valid=%v:%s", target, want, ok, describeErrors(errs))
		}
		return body
	}
	check("/api/v1/fundamentals/AAPL", 200)
	check("/api/v1/fundamentals/BTCUSD", 404)
	check("/api/v1/fundamentals/-X", 400)
	check("/api/v1/insiders/AAPL?days=365", 200)
	check("/api/v1/insiders/AAPL?days=400", 400)
	check("/api/v1/news?category=filings", 200)
	check("/api/v1/news?query=bitcoin&limit=5", 200)
	check("/api/v1/news?category=bonds", 400)
	body := check("/api/v1/news/symbol?symbol=ADBE", 200)
	if !strings.Contains(string(body), `{"item":"2.02","description":"Results of Operations and Financial Condition","earnings":true}`) {
		t.Fatalf("ADBE: %s", body)
	}
	check("/api/v1/news/symbol?symbol=NOPEX", 404)
	check("/transparency", 200)
}

// TestMCPSECAndNewsTools calls the SEC and news tools through POST /mcp:
// they answer what the routes answer and are charged their routes' prices
// (errors are not).
func TestMCPSECAndNewsTools(t *testing.T) {
	pw := &chargingPaywall{charged: map[string]int64{}}
	s := newSECNewsServer(t, pw)
	url := serveMCP(t, s)
	ctx := context.Background()
	paid := connectMCP(t, url, "good")
	call := func(name string, args map[string]any, wantErr bool, wantCharged int64) string {
		t.Helper()
		before := pw.total()
		res, err := paid.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		if res.IsError != wantErr {
			t.Fatalf("%s %v: isError %v: %s", name, args, res.IsError, text(res))
		}
		if got := pw.total() - before; got != wantCharged {
			t.Fatalf("%s %v: charged %d, want %d", name, args, got, wantCharged)
		}
		return text(res)
	}
	var fund struct {
		Financials map[string]struct {
			Value           float64 `json:"value"`
			Concept         string  `json:"concept"`
			AccessionNumber string  `json:"accessionNumber"`
		} `json:"financials"`
	}
	if err := json.Unmarshal([]byte(call("get_fundamental_intelligence", map[string]any{"symbol": "aapl"}, false, 5_000)), &fund); err != nil {
		t.Fatal(err)
	}
	// Apple's 10-K for fiscal 2025 (0000320193-25-000079).
	if r := fund.Financials["revenue"]; r.Value != 416161000000 || r.AccessionNumber != "0000320193-25-000079" ||
		r.Concept != "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" {
		t.Fatalf("revenue %+v", r)
	}
	var ins struct {
		Signal  string `json:"signal"`
		Summary struct {
			PlannedSales struct {
				Count int `json:"count"`
			} `json:"plannedSales"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(call("get_insider_activity", map[string]any{"symbol": "AAPL", "days": 365}, false, 10_000)), &ins); err != nil {
		t.Fatal(err)
	}
	if ins.Signal != "PLANNED_SELLING" || ins.Summary.PlannedSales.Count != 7 {
		t.Fatalf("insiders %+v", ins)
	}
	if out := call("get_market_news", map[string]any{"query": "ADBE", "category": "filings"}, false, 3_000); !strings.Contains(out, `"earnings":true`) {
		t.Fatalf("news: %s", out)
	}
	call("get_fundamental_intelligence", map[string]any{"symbol": "BTCUSD"}, true, 0)
	call("get_insider_activity", map[string]any{"symbol": "AAPL", "days": 0}, true, 0)
	call("get_market_news", map[string]any{"category": "forex"}, true, 0)
}

func init() {
	featureOperations["get /api/v1/fundamentals/{symbol}"] = "0.005 5000 symbol:path"
	featureOperations["get /api/v1/insiders/{symbol}"] = "0.01 10000 symbol:path days:query"
	featureOperations["get /api/v1/news"] = "0.003 3000 category:query query:query limit:query"
	featureOperations["get /api/v1/news/symbol"] = "0.003 3000 symbol:query limit:query"
}
