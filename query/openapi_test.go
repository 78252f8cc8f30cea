package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
)

// The tests below check live answers of the server against the document it
// serves at /openapi.json, with github.com/pb33f/libopenapi-validator (OpenAPI
// 3.0/3.1, JSON Schema 2020-12 through santhosh-tekuri/jsonschema), in strict
// mode (undeclared properties are errors) with format assertions on.

// openAPIFixture is a server with populated views and stats, the document it
// serves, and a validator built from that document.
type openAPIFixture struct {
	app   *fiber.App
	doc   []byte
	model *v3.Document
	v     validator.Validator
	loose validator.Validator
}

func newOpenAPIFixture(t *testing.T) *openAPIFixture {
	t.Helper()
	btc := fullDoc()
	// A document without an earlier signal: previousSignal and
	// signalChangedAt render as null.
	eth := fullDoc()
	eth.Id, eth.Symbol, eth.Window = "ETHUSD|1m|1", "ETHUSD", "1m"
	eth.PreviousSignal, eth.SignalChangedAtNs = "", 0
	eth.DominantSide, eth.SignalStrength, eth.LifecycleState = "SELL", "LOW", "NEW_SIGNAL"
	eth.Evidence, eth.Observations.Quality.Gaps, eth.Observations.Quality.Venues = nil, nil, nil
	btc1m := fullDoc()
	btc1m.Id, btc1m.Window, btc1m.TradeCount = "BTCUSD|1m|1", "1m", 9999
	nan := fullDoc()
	nan.Id, nan.Symbol, nan.Volume, nan.Price = "NANUSD|5m|1", "NANUSD", zero/zero, 1/zero

	st := stats.New()
	st.SetState("replay:b", "running", nil)
	st.Trade("replay:b", testNow.Add(-3*time.Second).UnixNano(), testNow.Add(-1500*time.Millisecond).UnixNano())
	st.Reject("replay:b", "bad price: -1")
	st.SetState("ws:a", "failed", errors.New("cannot dial"))
	proc := fixedOps{Trades: 10}
	st.AttachOperators(proc)

	s := newTestServer(st, nil, btc, eth, btc1m, nan)
	f := &openAPIFixture{app: s.App()}
	status, ct, body := do(t, f.app, http.MethodGet, openapi.Path)
	if status != 200 || ct != "application/json" {
		t.Fatalf("GET %s: %d %s %s", openapi.Path, status, ct, body)
	}
	f.doc = []byte(body)
	document, err := libopenapi.NewDocument(f.doc)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %s", err)
	}
	if v := document.GetSpecInfo().VersionNumeric; v != 3.1 {
		t.Fatalf("libopenapi reads the document as OpenAPI %v, want 3.1", v)
	}
	m, err := document.BuildV3Model()
	if err != nil {
		t.Fatalf("libopenapi cannot build the model: %s", err)
	}
	f.model = &m.Model
	v, errs := validator.NewValidator(document, config.WithStrictMode(), config.WithFormatAssertions(),
		// Strict mode flags the keys of a map (additionalProperties with a
		// schema); the values are still checked against that schema.
		config.WithStrictIgnorePaths("$.body.deadLetters.*", "$.body.sources[*].rejectedByReason.*"))
	if len(errs) > 0 {
		t.Fatalf("cannot build the validator: %v", errs)
	}
	f.v = v
	// /openapi.json itself is described loosely (it is OpenAPI, checked by
	// ValidateDocument); strict mode would flag every key under paths.
	f.loose, errs = validator.NewValidator(document, config.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatalf("cannot build the validator: %v", errs)
	}
	return f
}

var zero float64

// send sends one request through the app and returns it with its response,
// whose body can be read again.
func (f *openAPIFixture) send(t *testing.T, method, target string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	resp, err := f.app.Test(httptest.NewRequest(method, target, nil))
	if err != nil {
		t.Fatalf("cannot send %s %s: %s", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("cannot read the body of %s %s: %s", method, target, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return req, resp, body
}

func describeErrors(errs []*valerrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  - " + e.Error())
		for _, se := range e.SchemaValidationErrors {
			b.WriteString("\n      " + se.FieldPath + " (" + se.KeywordLocation + "): " + se.Reason)
		}
	}
	return b.String()
}

func TestOpenAPIDocument(t *testing.T) {
	f := newOpenAPIFixture(t)
	if ok, errs := f.v.ValidateDocument(); !ok {
		t.Fatalf("the document is not valid OpenAPI 3.1:%s", describeErrors(errs))
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]struct {
			PriceUSD      string `json:"x-price-usd"`
			PriceMicroUSD *int64 `json:"x-price-micro-usd"`
			Parameters    []struct {
				Name   string         `json:"name"`
				In     string         `json:"in"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(f.doc, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.3.0" {
		t.Fatalf("openapi %q, info.version %q", doc.OpenAPI, doc.Info.Version)
	}
	want := map[string]string{
		"get /api/v1/intelligence":                   "0.01 10000 window:query limit:query",
		"get /api/v1/intelligence/{symbol}":          "0.005 5000 window:query symbol:path",
		"get /api/v1/intelligence/summary":           "0.01 10000 window:query",
		"get /api/v1/intelligence/top-momentum":      "0.005 5000 window:query limit:query",
		"get /api/v1/intelligence/top-activity":      "0.005 5000 window:query limit:query",
		"get /api/v1/intelligence/unusual":           "0.01 10000 window:query limit:query minAnomaly:query minTrades:query",
		"get /api/v1/intelligence/events":            "0.01 10000 window:query limit:query",
		"get /api/v1/intelligence/buying":            "0.005 5000 window:query limit:query minBuyPressure:query",
		"get /api/v1/intelligence/selling":           "0.005 5000 window:query limit:query maxBuyPressure:query",
		"get /api/v1/intelligence/compare":           "0.01 10000 window:query symbols:query",
		"get /api/v1/intelligence/regime":            "0.005 5000 window:query",
		"get /api/v1/intelligence/snapshot/{symbol}": "0.001 1000 window:query symbol:path",
		"get /status":         "0 0",
		"get /healthz":        "0 0",
		"get /openapi.json":   "0 0",
		"get /api/v1/preview": "0 0 symbol:query",
		"get /coverage":       "0 0",
		"get /metrics":        "0 0",
		// credits.go
		"post /api/v1/credits/buy/5":      "5 5000000 X-API-Key:header",
		"post /api/v1/credits/buy/20":     "20 20000000 X-API-Key:header",
		"post /api/v1/credits/buy/50":     "50 50000000 X-API-Key:header",
		"post /api/v1/credits/buy/{pack}": "0 0 pack:path",
		"get /api/v1/credits/balance":     "0 0 X-API-Key:header",
	}
	// Pricing routes (pricing.go).
	want["get /pricing"] = "0 0 format:query"
	want["get /transparency"] = "0 0"
	want["get /.well-known/x402-resources"] = "0 0"
	want["get /x402-resources"] = "0 0"
	want["get /.well-known/security.txt"] = "0 0"
	// History routes (query/candles.go, datasets.go, history_query.go, backtest.go, trackrecord.go).
	want["get /api/v1/intelligence/candles/{symbol}"] = "0.005 5000 symbol:path interval:query limit:query Accept:header"
	want["get /api/v1/datasets"] = "0 0"
	want["get /api/v1/datasets/{symbol}"] = "0.02 20000 symbol:path date:query interval:query format:query Accept:header"
	want["get /api/v1/intelligence/query"] = "0.05 50000 symbols:query from:query to:query signals:query Accept:header"
	want["get /api/v1/intelligence/backtest"] = "0.05 50000 window:query minConfidence:query minBaselineSamples:query end:query start:query symbols:query persist:query"
	want["get /api/v1/intelligence/backtest/{id}"] = "0 0 id:path"
	want["get /api/v1/intelligence/track-record"] = "0.005 5000 days:query window:query symbol:query"
	want["get /track-record"] = "0 0"
	for k, v := range featureOperations {
		want[k] = v
	}
	got := map[string]string{}
	for p, item := range doc.Paths {
		for m, o := range item {
			if o.PriceMicroUSD == nil {
				t.Fatalf("%s %s has no x-price-micro-usd", m, p)
			}
			s := o.PriceUSD + " " + strconv.FormatInt(*o.PriceMicroUSD, 10)
			for _, prm := range o.Parameters {
				s += " " + prm.Name + ":" + prm.In
			}
			got[m+" "+p] = s
		}
	}
	// Every route of the table is an operation, at the table's price; the
	// intelligence routes also have exactly the parameters above.
	routes := newTestServer(nil, nil).Operations()
	if len(got) != len(routes) {
		t.Fatalf("operations:\ngot:  %v\nwant the %d routes of the table", got, len(routes))
	}
	for _, r := range routes {
		k := strings.ToLower(r.Method) + " " + r.OpenAPIPath()
		if !strings.HasPrefix(got[k], api.PriceUSD(r.Price)+" "+strconv.FormatInt(r.Price, 10)) {
			t.Fatalf("%s: operation %q, want the table price %d", k, got[k], r.Price)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("%s: got %q, want %q", k, got[k], w)
		}
	}
	// Deterministic: the same table renders the same bytes.
	if again := openapi.Build(newTestServer(nil, nil).Operations(), paywall.Responses()); !bytes.Equal(again, f.doc) {
		t.Fatalf("the document differs between two builds")
	}
}

// featureOperations are the operations of feature files (method, OpenAPI
// path → price and parameters, as in TestOpenAPIDocument), added by their
// tests in an init function.
var featureOperations = map[string]string{}

func TestOpenAPIPrices(t *testing.T) {
	for micro, want := range map[int64]string{0: "0", 1: "0.000001", 1000: "0.001", 5000: "0.005",
		10_000: "0.01", 500_000: "0.5", 1_000_000: "1", 1_250_000: "1.25"} {
		if got := api.PriceUSD(micro); got != want {
			t.Errorf("api.PriceUSD(%d) = %q, want %q", micro, got, want)
		}
	}
}

func TestOpenAPILiveResponses(t *testing.T) {
	f := newOpenAPIFixture(t)
	check := func(target string, wantStatus int) {
		t.Helper()
		req, resp, body := f.send(t, http.MethodGet, target)
		if resp.StatusCode != wantStatus {
			t.Fatalf("GET %s: status %d, want %d: %s", target, resp.StatusCode, wantStatus, body)
		}
		v := f.v
		if target == openapi.Path {
			v = f.loose
		}
		if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %d %s\ndoes not match the document:%s", target, resp.StatusCode, body, describeErrors(errs))
		}
		// The document rejects a request exactly when the server does.
		ok, errs := f.v.ValidateHttpRequest(httptest.NewRequest(http.MethodGet, target, nil))
		if ok != (wantStatus != 400) {
			t.Fatalf("GET %s answers %d but the document says the request is valid=%v:%s", target, wantStatus, ok, describeErrors(errs))
		}
	}
	check("/api/v1/intelligence/BTCUSD", 200)
	check("/api/v1/intelligence/btcusd?window=5m", 200)
	check("/api/v1/intelligence/ETHUSD?window=1m", 200) // null previousSignal, signalChangedAt
	check("/api/v1/intelligence/NANUSD", 200)           // non-finite numbers render as 0
	check("/api/v1/intelligence", 200)
	check("/api/v1/intelligence?window=1m&limit=100", 200)
	check("/api/v1/intelligence?window=15m&limit=1", 200)         // []
	for _, w := range []string{"", "?window=1m", "?window=15m"} { // 15m: no data
		check("/api/v1/intelligence/summary"+w, 200)
		check("/api/v1/intelligence/regime"+w, 200)
	}
	check("/api/v1/intelligence/top-momentum", 200)
	check("/api/v1/intelligence/top-activity?window=1m&limit=1", 200)
	check("/api/v1/intelligence/unusual?minAnomaly=0&minTrades=0", 200)
	check("/api/v1/intelligence/unusual", 200) // []
	check("/api/v1/intelligence/events", 200)
	check("/api/v1/intelligence/buying?minBuyPressure=0.5", 200)
	check("/api/v1/intelligence/selling?maxBuyPressure=100", 200)
	check("/api/v1/intelligence/selling", 200)
	check("/api/v1/intelligence/compare?symbols=btcusd,DOGEUSD,ETHUSD,BTCUSD", 200)
	check("/api/v1/intelligence/compare?symbols=ETHUSD&window=1m", 200)
	check("/api/v1/intelligence/snapshot/BTCUSD", 200)
	check("/api/v1/intelligence/snapshot/nanusd", 200)
	check("/status", 200)
	check("/healthz", 200)
	check("/openapi.json", 200)

	check("/api/v1/intelligence?window=1h", 400)
	check("/api/v1/intelligence?limit=0", 400)
	check("/api/v1/intelligence?limit=101", 400)
	check("/api/v1/intelligence/BTCUSD?window=5M", 400)
	// A path segment that is no symbol makes the path no route: 404
	// not_found like any unknown path (not the route's 400 or 402).
	noRoute := func(target string) {
		t.Helper()
		_, resp, body := f.send(t, http.MethodGet, target)
		if resp.StatusCode != 404 || !strings.Contains(string(body), `"error":"not_found"`) {
			t.Fatalf("GET %s: %d %s, want 404 not_found", target, resp.StatusCode, body)
		}
	}
	noRoute("/api/v1/intelligence/" + strings.Repeat("A", 33))
	noRoute("/api/v1/intelligence/BTC%2BUSD")
	check("/api/v1/intelligence/opportunities", 400) // a route (issue 16): objective is required
	noRoute("/api/v1/intelligence/snapshot/premium")

	check("/api/v1/intelligence/summary?window=1", 400)
	check("/api/v1/intelligence/top-momentum?limit=-1", 400)
	check("/api/v1/intelligence/unusual?minAnomaly=101", 400)
	check("/api/v1/intelligence/unusual?minTrades=-1", 400)
	check("/api/v1/intelligence/unusual?minTrades=1.5", 400)
	check("/api/v1/intelligence/buying?minBuyPressure=1e3", 400) // NaN crashes the validator; see TestMarketRoutesOddParams
	check("/api/v1/intelligence/selling?maxBuyPressure=-0.1", 400)
	check("/api/v1/intelligence/compare", 400)
	check("/api/v1/intelligence/compare?symbols=BTC%2BUSD", 400)
	check("/api/v1/intelligence/compare?symbols=A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P,Q,R,S,T,U", 400)
	noRoute("/api/v1/intelligence/snapshot/" + strings.Repeat("A", 33))

	check("/api/v1/intelligence/snapshot/DOGEUSD", 404)
	check("/api/v1/intelligence/DOGEUSD", 404)
	check("/api/v1/intelligence/ETHUSD?window=15m", 404)

	// Status without stats: no sources, operators null.
	g := *f
	g.app = newTestServer(nil, nil).App()
	req, resp, body := g.send(t, http.MethodGet, "/status")
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("GET /status %s:%s", body, describeErrors(errs))
	}
	// Status with freshness: a chain that answered, a source failing.
	reg := sources.NewRegistry(nil, nil)
	h := reg.Register("chain:base", "chain", "https://base.example")
	h.Attempt()
	h.Success(time.Now())
	h = reg.Register("news:rss:coindesk", "news", "https://www.coindesk.com/arc/outboundfeeds/rss/")
	h.SetMaxAge(time.Hour)
	h.Attempt()
	h.Failure(errors.New("offline"))
	g.app = New(Deps{Version: "0.1.0-test", Now: func() time.Time { return testNow }, Freshness: reg}).App()
	req, resp, body = g.send(t, http.MethodGet, "/status")
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok || !strings.Contains(string(body), `"chain:base"`) {
		t.Fatalf("GET /status %s:%s", body, describeErrors(errs))
	}
	// No data at all: coveredSymbols is [].
	req, resp, body = g.send(t, http.MethodGet, "/api/v1/intelligence/BTCUSD")
	if ok, errs := f.v.ValidateHttpResponse(req, resp); resp.StatusCode != 404 || !ok {
		t.Fatalf("GET /api/v1/intelligence/BTCUSD %d %s:%s", resp.StatusCode, body, describeErrors(errs))
	}
}

// TestOpenAPIErrorBodies checks the bodies of unknown routes, wrong methods
// and server errors, which belong to no operation, against the Error schema.
func TestOpenAPIErrorBodies(t *testing.T) {
	f := newOpenAPIFixture(t)
	s := newTestServer(nil, nil)
	s.App().Get("/boom", func(fiber.Ctx) error { panic("boom") })
	f.app = s.App()
	sv := schema_validation.NewSchemaValidator(config.WithFormatAssertions())
	errSchema := f.model.Components.Schemas.GetOrZero("Error").Schema()
	for _, c := range []struct {
		method, target string
		status         int
	}{
		{"GET", "/nope", 404},
		{"GET", "/api/v1/intelligence/BTCUSD/extra", 404},
		{"POST", "/healthz", 405},
		{"GET", "/boom", 500},
	} {
		_, resp, body := f.send(t, c.method, c.target)
		if resp.StatusCode != c.status {
			t.Fatalf("%s %s: %d %s, want %d", c.method, c.target, resp.StatusCode, body, c.status)
		}
		if ok, errs := sv.ValidateSchemaBytes(errSchema, body); !ok {
			t.Fatalf("%s %s: %s does not match the Error schema:%s", c.method, c.target, body, describeErrors(errs))
		}
	}
}

// TestOpenAPIRejectsWrongBodies shows the validation can fail: bodies that
// drift from the document are rejected.
func TestOpenAPIRejectsWrongBodies(t *testing.T) {
	f := newOpenAPIFixture(t)
	_, _, served := f.send(t, "GET", "/api/v1/intelligence/BTCUSD")
	good := string(served)
	wrong := map[string]string{
		"enum":          strings.Replace(good, `"dominantSide":"BUY"`, `"dominantSide":"UP"`, 1),
		"type":          strings.Replace(good, `"tradeCount":600`, `"tradeCount":"600"`, 1),
		"missing field": strings.Replace(good, `"price":61234.5,`, ``, 1),
		"extra field":   strings.Replace(good, `"price":61234.5,`, `"price":61234.5,"bonus":1,`, 1),
		"extra nested":  strings.Replace(good, `"windowSeconds":300`, `"windowSeconds":300,"bonus":1`, 1),
		"date-time":     strings.Replace(good, `"timestamp":"2024-08-08T11:59:58.500Z"`, `"timestamp":"yesterday"`, 1),
		"null":          strings.Replace(good, `"signal":"BULLISH"`, `"signal":null`, 1),
		"charged":       `{"error":"no_data","message":"m","symbol":"X","coveredSymbols":[],"charged":true}`,
	}
	for name, body := range wrong {
		if body == good {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		target := "/api/v1/intelligence/BTCUSD"
		status := 200
		if name == "charged" {
			status = 404
		}
		req := httptest.NewRequest(http.MethodGet, target, nil)
		resp := &http.Response{
			StatusCode: status,
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       io.NopCloser(strings.NewReader(body)),
			Request:    req,
		}
		if ok, _ := f.v.ValidateHttpResponse(req, resp); ok {
			t.Errorf("%s: the validator accepts a wrong body: %s", name, body)
		}
	}
	// The unchanged body passes, so the rejections above are about the edits.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/intelligence/BTCUSD", nil)
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(good)), Request: req}
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("the unchanged document is rejected:%s", describeErrors(errs))
	}
}
