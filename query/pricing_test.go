package query

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"

	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
)

// newPricedServer is a server with a paywall quoting Base, Polygon,
// Arbitrum and Solana USDC; its settlement backend is never reached.
func newPricedServer(t testing.TB, unpaidPerMinute int) *Server {
	t.Helper()
	store, err := ledger.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	payTo := "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	var offers []x402.Offer
	for _, n := range []string{x402.NetworkBase, x402.NetworkPolygon, x402.NetworkArbitrum} {
		offers = append(offers, x402.Offer{Network: n, Asset: x402.KnownAssets[n][0], PayTo: payTo})
	}
	offers = append(offers, x402.Offer{Network: x402.NetworkSolana, Asset: x402.KnownAssets[x402.NetworkSolana][0],
		PayTo: "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5", FeePayer: "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5"})
	pw, err := paywall.New(paywall.Config{Store: store, Offers: offers, Settler: &x402.Facilitator{URL: "http://127.0.0.1:1"},
		PublicURL: "https://api.example.com", UnpaidPerMinute: unpaidPerMinute,
		Operator: paywall.Operator{Name: "Example Markets", URL: "https://example.com", SecurityContact: "mailto:security@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(nil, pw, fullDoc())
}

// TestPricingRoutesMatchOpenAPI: the pricing routes, the 402 of a paid
// route and the 429 of the unpaid limit match openapi.json (strict), and
// the prices shown are the route table's.
func TestPricingRoutesMatchOpenAPI(t *testing.T) {
	s := newPricedServer(t, 3)
	app := s.App()
	status, _, doc := do(t, app, http.MethodGet, openapi.Path)
	if status != 200 {
		t.Fatal(status)
	}
	document, err := libopenapi.NewDocument([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(document, config.WithStrictMode(), config.WithFormatAssertions(),
		config.WithStrictIgnorePaths("$.body.billingPolicy.*", "$.body.extensions.*", "$.body.accepts[*].extra.*",
			"$.body.resources[*].accepts[*].extra.*"))
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	check := func(target string, want int) map[string]any {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, target, nil)
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, target, nil))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", target, resp.StatusCode, want, body)
		}
		if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %s\ndoes not match the document:%s", target, body, describeErrors(errs))
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		return m
	}
	pricing := check("/pricing?format=json", 200)
	check("/pricing?format=xml", 400)
	routes := pricing["routes"].([]any)
	prices := map[string]float64{}
	for _, r := range routes {
		e := r.(map[string]any)
		prices[e["method"].(string)+" "+e["path"].(string)] = e["priceMicroUsd"].(float64)
	}
	for _, r := range s.Operations() {
		if got := prices[r.Method+" "+r.OpenAPIPath()]; got != float64(r.Price) {
			t.Errorf("/pricing %s %s: %v, want %d", r.Method, r.Path, got, r.Price)
		}
	}
	tr := check("/transparency", 200)
	if tr["operator"].(map[string]any)["name"] != "Example Markets" || len(tr["prices"].([]any)) != len(routes) {
		t.Fatalf("transparency %v", tr)
	}
	// The statement that news sentiment is a lightweight keyword measure,
	// not investment advice (issue 22).
	if ns, _ := tr["notices"].([]any); len(ns) != 2 || !strings.Contains(ns[0].(string), "lightweight keyword measure") ||
		!strings.Contains(ns[0].(string), "not investment advice") {
		t.Fatalf("transparency notices %v", tr["notices"])
	}
	res := check("/.well-known/x402-resources", 200)
	check("/x402-resources", 200)
	items := res["resources"].([]any)
	first := items[0].(map[string]any)
	if len(first["accepts"].([]any)) != 4 || first["resource"] != "https://api.example.com/api/v1/intelligence" {
		t.Fatalf("x402-resources %v", first)
	}
	status, ct, txt := do(t, app, http.MethodGet, "/.well-known/security.txt")
	if status != 200 || !strings.HasPrefix(ct, "text/plain") || !strings.Contains(txt, "Contact: mailto:security@example.com\n") ||
		!strings.Contains(txt, "Expires: ") || !strings.Contains(txt, "Canonical: https://api.example.com/.well-known/security.txt") {
		t.Fatalf("security.txt %d %s %q", status, ct, txt)
	}
	// The 402 of a paid route, header and body; then the unpaid limit.
	q := check("/api/v1/intelligence/BTCUSD", 402)
	nets := []string{}
	for _, a := range q["accepts"].([]any) {
		nets = append(nets, a.(map[string]any)["network"].(string))
	}
	if strings.Join(nets, ",") != "eip155:8453,eip155:137,eip155:42161,"+x402.NetworkSolana {
		t.Fatalf("networks %v", nets)
	}
	check("/api/v1/intelligence/BTCUSD", 402)
	check("/api/v1/intelligence", 402)
	check("/api/v1/intelligence/BTCUSD", 429)
}

// TestMCPPriced: /pricing and openapi.json price POST /mcp as the spec does
// (§4.8: 0.01 for the route as listed) and list what it serves free:
// initialize, tools/list and the free tools get_market_preview,
// get_signal_track_record_summary and get_data_coverage.
func TestMCPPriced(t *testing.T) {
	s := newPricedServer(t, 3)
	want := []string{"initialize", "tools/list", "tools/call get_market_preview", "tools/call get_signal_track_record_summary", "tools/call get_data_coverage"}
	hasAll := func(where string, got []any) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(got, any(w)) {
				t.Errorf("%s: free calls %v lack %q", where, got, w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g.(string)) {
				t.Errorf("%s: free call %v is not free in the spec", where, g)
			}
		}
	}
	_, _, body := do(t, s.App(), http.MethodGet, "/pricing")
	var pricing struct {
		Routes []map[string]any `json:"routes"`
	}
	if err := json.Unmarshal([]byte(body), &pricing); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range pricing.Routes {
		if r["method"] == "POST" && r["path"] == "/mcp" {
			found = true
			if r["priceUsd"] != "0.01" || r["priceMicroUsd"] != 10_000.0 {
				t.Errorf("/pricing: POST /mcp at %v (%v), want 0.01", r["priceUsd"], r["priceMicroUsd"])
			}
			fc, _ := r["freeCalls"].([]any)
			hasAll("/pricing", fc)
		}
	}
	if !found {
		t.Fatalf("/pricing has no POST /mcp: %s", body)
	}
	_, _, doc := do(t, s.App(), http.MethodGet, openapi.Path)
	var d struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	op := d.Paths["/mcp"]["post"]
	if op["x-price-usd"] != "0.01" || op["x-price-micro-usd"] != 10_000.0 {
		t.Errorf("openapi.json: POST /mcp at %v (%v), want 0.01", op["x-price-usd"], op["x-price-micro-usd"])
	}
	fc, _ := op["x-free-calls"].([]any)
	hasAll("openapi.json", fc)
}
