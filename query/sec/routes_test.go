package sec

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/fundamentals"
	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgartest"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/querytest"
)

// mount serves the SEC routes over s as the server does: every parameter
// validated before its handler.
func mount(s *Service) (*fiber.App, []api.Operation) {
	ops := NewRoutes(s).Operations()
	app := fiber.New()
	api.Mount(app, ops, time.Now, nil)
	return app, ops
}

// strictIgnore are the maps of the answers (their keys are data).
var strictIgnore = []string{"$.body.financials.*", "$.body.derivedIntelligence.nullReasons.*", "$.body.derivedIntelligence.scoreComponents.*"}

// TestSECRoutesMatchOpenAPI checks live answers built from the real EDGAR
// captures against the document the table renders, strictly, and that the
// document rejects a request exactly when the server does.
func TestSECRoutesMatchOpenAPI(t *testing.T) {
	srv := edgartest.New(t)
	clk := &at{t: time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)}
	s := service(t, srv, clk.now, nil)
	s.cfg.InsidersAsOf = time.Date(2022, 6, 1, 15, 0, 0, 0, time.UTC)
	app, ops := mount(s)
	f := querytest.NewOpenAPI(t, openapi.Build(ops, paywall.Responses()), app, strictIgnore...)
	check := func(target string, want int) []byte {
		t.Helper()
		req, resp, body := f.Send(t, http.MethodGet, target)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %.500s", target, resp.StatusCode, want, body)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %.800s\ndoes not match the document:%s", target, body, querytest.DescribeErrors(errs))
		}
		ok, errs := f.V.ValidateHttpRequest(httptest.NewRequest(http.MethodGet, target, nil))
		if ok != (want != 400) {
			t.Fatalf("GET %s answers %d but the document says the request is valid=%v:%s", target, want, ok, querytest.DescribeErrors(errs))
		}
		return body
	}

	// Apple's FY2025 revenue as its 10-K (0000320193-25-000079) reports
	// it: companyfacts_CIK0000320193_AAPL.json,
	// RevenueFromContractWithCustomerExcludingAssessedTax, frame CY2025
	// 416,161,000,000.
	var fund struct {
		Symbol     string    `json:"symbol"`
		AsOf       time.Time `json:"asOf"`
		Financials map[string]struct {
			Value           *float64 `json:"value"`
			Concept         string   `json:"concept"`
			PeriodEnd       string   `json:"periodEnd"`
			FY              int      `json:"fy"`
			FP              string   `json:"fp"`
			Form            string   `json:"form"`
			AccessionNumber string   `json:"accessionNumber"`
		} `json:"financials"`
		Derived struct {
			Signal string `json:"fundamentalSignal"`
		} `json:"derivedIntelligence"`
	}
	if err := json.Unmarshal(check("/api/v1/fundamentals/aapl", 200), &fund); err != nil {
		t.Fatal(err)
	}
	r := fund.Financials["revenue"]
	if fund.Symbol != "AAPL" || r.Value == nil || *r.Value != 416161000000 ||
		r.Concept != "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" || r.AccessionNumber != "0000320193-25-000079" ||
		r.Form != "10-K" || r.FY != 2025 || r.FP != "FY" || r.PeriodEnd != "2025-09-27" || fund.Derived.Signal != fundamentals.SignalStrong {
		t.Fatalf("revenue %+v, signal %s", r, fund.Derived.Signal)
	}
	if !fund.AsOf.Equal(clk.now()) {
		t.Errorf("fundamentals asOf %s, want the clock %s (the insiders date applies to insiders only)", fund.AsOf, clk.now())
	}

	// The insiders window of 365 days ending 2022-06-01 holds the Adams
	// Form 4 of 2022-05-06 (form4_0000320193-22-000061): seven S rows
	// under a Rule 10b5-1 plan (footnote F1).
	var ins insiders.Analysis
	if err := json.Unmarshal(check("/api/v1/insiders/AAPL?days=365", 200), &ins); err != nil {
		t.Fatal(err)
	}
	if ins.Signal != insiders.SignalPlannedSelling || ins.Summary.PlannedSales.Count != 7 || ins.Days != 365 ||
		!ins.AsOf.Equal(s.cfg.InsidersAsOf) || ins.WindowEnd != "2022-06-01" ||
		!strings.Contains(strings.Join(ins.Methodology, " "), "a fixed date set by the operator") {
		t.Fatalf("insiders: %s %+v asOf %s %v", ins.Signal, ins.Summary.PlannedSales, ins.AsOf, ins.Methodology)
	}
	for _, tx := range ins.Transactions {
		if tx.Code != "S" || !tx.TenB51 || tx.AccessionNumber != "0000320193-22-000061" {
			t.Fatalf("transaction %+v", tx)
		}
	}
	check("/api/v1/insiders/AAPL", 200) // days 90
	check("/api/v1/insiders/aapl?days=1", 200)
	// An empty value is the parameter left out (docs/api.md): 90 days.
	var def insiders.Analysis
	if _, _, body := f.Send(t, http.MethodGet, "/api/v1/insiders/AAPL?days="); json.Unmarshal(body, &def) != nil || def.Days != insiders.DefaultDays {
		t.Fatalf("default days: %s", body)
	}

	for _, target := range []string{"/api/v1/fundamentals/-AAPL", "/api/v1/fundamentals/" + strings.Repeat("A", 13),
		"/api/v1/fundamentals/A_B", "/api/v1/fundamentals/A%24B", "/api/v1/fundamentals/%C3%84PL", "/api/v1/fundamentals/.A",
		"/api/v1/insiders/AAPL?days=0", "/api/v1/insiders/AAPL?days=366", "/api/v1/insiders/AAPL?days=x",
		"/api/v1/insiders/AAPL?days=-1", "/api/v1/insiders/AAPL?days=1.5", "/api/v1/insiders/A%20B"} {
		check(target, 400)
	}
	// No SEC filings (a crypto symbol), no companyfacts (MSFT's are not
	// among the captures), a share class EDGAR does not list.
	for _, target := range []string{"/api/v1/fundamentals/BTCUSD", "/api/v1/fundamentals/MSFT", "/api/v1/fundamentals/BRK.Z",
		"/api/v1/insiders/ETHUSD?days=30"} {
		body := check(target, 404)
		if !strings.Contains(string(body), `"charged":false`) {
			t.Fatalf("GET %s: %s", target, body)
		}
	}

	// EDGAR unreachable and nothing cached: 503 with Retry-After.
	down := edgartest.New(t)
	sd := service(t, down, clk.now, nil)
	down.Close()
	app3, _ := mount(sd)
	f.App = app3
	for _, target := range []string{"/api/v1/fundamentals/AAPL", "/api/v1/insiders/AAPL"} {
		check(target, 503)
		_, resp, _ := f.Send(t, http.MethodGet, target)
		if resp.Header.Get("Retry-After") != "30" {
			t.Fatalf("GET %s: Retry-After %q", target, resp.Header.Get("Retry-After"))
		}
	}

	// Without a service: 404, not configured.
	app2, _ := mount(nil)
	f.App = app2
	if body := check("/api/v1/fundamentals/AAPL", 404); !strings.Contains(string(body), "not configured") {
		t.Fatalf("%s", body)
	}
	check("/api/v1/insiders/AAPL?days=7", 404)
}

// TestSymbolParameter: the parameter's check accepts exactly what its
// pattern in openapi.json accepts, and everything it accepts is a ticker
// EDGAR's normalization takes.
func TestSymbolParameter(t *testing.T) {
	pat, _ := symbolSchema.Get("pattern")
	re := regexp.MustCompile(pat.(string))
	f := func(raw string, want bool) {
		t.Helper()
		ok := checkSymbol(raw) == nil
		if ok != want || re.MatchString(raw) != want {
			t.Errorf("%q: check %v, pattern %v, want %v", raw, ok, re.MatchString(raw), want)
		}
		if n, err := Symbol(raw); ok && (err != nil || n == "") {
			t.Errorf("%q: accepted but Symbol says %v", raw, err)
		}
	}
	f("AAPL", true)
	f("aapl", true)
	f("BRK.B", true)
	f("BRK-B", true)
	f("A", true)
	f("9", true)
	f("ABCDEFGHIJKL", true)
	f("ABCDEFGHIJKLM", false)
	f("", false)
	f("-A", false)
	f(".A", false)
	f("A_B", false)
	f("A B", false)
	f(" AAPL", false)
	f("ÄPL", false)
	f("A/B", false)
	f("A$", false)
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := "AZaz09.-_/ $é"
	for range 5000 {
		b := make([]byte, rng.IntN(15))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		raw := string(b)
		if ok := checkSymbol(raw) == nil; ok != re.MatchString(raw) {
			t.Fatalf("%q: check %v, pattern %v", raw, ok, !ok)
		} else if _, normal := edgar.NormalizeTicker(raw); ok && !normal {
			t.Fatalf("%q accepted but not a ticker for EDGAR", raw)
		}
	}
}

// TestSECDeclarations: prices of spec §8 and the tools.
func TestSECDeclarations(t *testing.T) {
	ops := NewRoutes(nil).Operations()
	if err := api.CheckTable(ops); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		price int64
		tool  string
	}{
		"GET /api/v1/fundamentals/:symbol": {5_000, "get_fundamental_intelligence"},
		"GET /api/v1/insiders/:symbol":     {10_000, "get_insider_activity"},
	}
	for _, op := range ops {
		w, ok := want[op.Key()]
		if !ok || op.Price != w.price || op.Tool == nil || op.Tool.Name != w.tool {
			t.Errorf("%s: price %d, tool %+v", op.Key(), op.Price, op.Tool)
		}
	}
}
