package query

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesreplay"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	_ "github.com/marketintel/mi/pipeline/sources/aave"
	_ "github.com/marketintel/mi/pipeline/sources/fred"
	_ "github.com/marketintel/mi/pipeline/sources/nyfed"
	_ "github.com/marketintel/mi/pipeline/sources/treasury"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/sinks/ratesview"
)

// ratesNow is the time of the questions: long after every capture.
var ratesNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// ratesRecords is what the replayed rates sources emit on their first
// poll: 196 par curves (2024 CSV), 275 DFII10 curves (400 days), 4 €STR,
// 4 SOFR, 108 EFFR, 25 + 90 auctions, the WETH reserve.
const ratesRecords = 196 + 275 + 4 + 4 + 108 + 25 + 90 + 1

// ratesViewOfCaptures runs the rates sources of the offline demo
// (ratesreplay: the real captures at the publishers' paths, the recorded
// Aave reserve on a simulated Polygon) through their live clients and
// parsers, and applies their records to a view, as FollowSide would.
func ratesViewOfCaptures(t testing.TB) *ratesview.View {
	t.Helper()
	dir := fixtures.Dir(t)
	srv, err := pubreplay.New(ratesreplay.Routes(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch, err := ratesreplay.StartChain(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	doc := map[string]any{
		"http":    map[string]any{"default_limit": map[string]int{"rate": 1000, "burst": 1000}},
		"chains":  []map[string]any{{"chain": ratesreplay.Chain, "rpc": ch.URL, "limit": map[string]int{"rate": 1000, "burst": 1000}}},
		"sources": ratesreplay.Entries(ln.URL),
	}
	b, _ := json.Marshal(doc)
	cfg, err := sources.ParseConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := cfg.Open(sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	v := ratesview.New(ratesview.Config{Notice: "The SOFR and EFFR data are subject to the Terms of Use posted at newyorkfed.org.",
		Reserves: []ratesview.Reserve{{Protocol: "aave-v3", Chain: "polygon", ChainID: 137, Pool: "0x794a61358d6845594f94dc1db02a252b5b4814ad",
			Asset: strings.ToLower(ratesreplay.WETH.Hex()), Symbol: "WETH"}}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			for {
				r, err := s.Next(ctx)
				if err != nil {
					return
				}
				if r.Side == nil {
					t.Errorf("%s: dead letter %s", s.Name(), r.Reason)
					continue
				}
				rec, err := sidetopic.Rates.Decode(r.Side.Value)
				if err != nil {
					t.Error(err)
					continue
				}
				mu.Lock()
				err = v.Apply(rec)
				if v.Applied() >= ratesRecords {
					cancel()
				}
				mu.Unlock()
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if v.Applied() != ratesRecords {
		t.Fatalf("the view holds %d records, want %d", v.Applied(), ratesRecords)
	}
	return v
}

// The four rates routes through the server, answered from the real
// captures read by the live clients: every figure checked is the
// fixture's value it came from, every answer (200, 404, 400) is valid
// against openapi.json in strict mode.
func TestRatesRoutes(t *testing.T) {
	v := ratesViewOfCaptures(t)
	s := New(Deps{Version: "0.1.0-test", Now: func() time.Time { return ratesNow }, Rates: v})
	_, _, doc := querytest.Do(t, s.App(), http.MethodGet, openapi.Path)
	f := querytest.NewOpenAPI(t, []byte(doc), s.App())
	get := func(target string, status int, out any) string {
		t.Helper()
		req, resp, body := f.Send(t, http.MethodGet, target)
		if resp.StatusCode != status {
			t.Fatalf("GET %s: %d %s, want %d", target, resp.StatusCode, body, status)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s does not match openapi.json:%s\n%.2000s", target, querytest.DescribeErrors(errs), body)
		}
		if out != nil {
			if err := json.Unmarshal(body, out); err != nil {
				t.Fatal(err)
			}
		}
		return string(body)
	}

	var cu ratesview.CurveAnswer
	get("/api/v1/rates/curve", 200, &cu)
	// daily_treasury_par_yield_curve_2024_asPublished.csv, rows 10/10/2024
	// (3 Mo 4.75, 2 Yr 3.98, 5 Yr 3.91, 10 Yr 4.09, 30 Yr 4.38) and
	// 10/09/2024 (2 Yr 3.99, 10 Yr 4.06).
	n := cu.Nominal
	if n.Date != "2024-10-10" || *n.PreviousDate != "2024-10-09" || n.AgeDays != 777 || n.Source.Name != "treasury:par" {
		t.Fatalf("nominal %+v", n)
	}
	pts := map[string]ratesview.CurvePoint{}
	for _, p := range n.Points {
		pts[p.Tenor] = p
	}
	if *pts["10Y"].Yield != 4.09 || *pts["10Y"].Previous != 4.06 || *pts["10Y"].ChangeBp != 3 || *pts["3M"].Yield != 4.75 ||
		pts["1.5M"].Yield != nil || *pts["30Y"].Yield != 4.38 {
		t.Fatalf("points %+v", n.Points)
	}
	slope := map[string]ratesview.SlopeFigure{}
	for _, sl := range cu.Slopes {
		slope[sl.Name] = sl
	}
	// 2s10s 4.09 − 3.98 = +11 bp (09/10: 4.06 − 3.99 = +7: change +4),
	// 3m10y 4.09 − 4.75 = −66 bp inverted, 5s30s 4.38 − 3.91 = +47,
	// 3m2y 3.98 − 4.75 = −77 inverted.
	if *slope["2s10s"].Bp != 11 || *slope["2s10s"].Inverted || *slope["2s10s"].ChangeBp != 4 ||
		*slope["3m10y"].Bp != -66 || !*slope["3m10y"].Inverted || *slope["5s30s"].Bp != 47 || *slope["5s30s"].Inverted ||
		*slope["3m2y"].Bp != -77 || !*slope["3m2y"].Inverted {
		t.Fatalf("slopes %+v", cu.Slopes)
	}
	// Breakeven: the CSV's 10 Yr of 07/30/2024 (4.15) minus DFII10 of
	// 2024-07-30 (1.9).
	if b := cu.Breakeven10Y; b.Date != "2024-07-30" || b.Percent != 2.25 || b.NominalYield != 4.15 || b.RealYield != 1.9 || cu.Real.Source.Publisher != "Federal Reserve Bank of St. Louis (FRED)" {
		t.Fatalf("breakeven %+v real %+v", b, cu.Real)
	}
	// nyfed_sofr_search: 2024-06-06 5.33, percentiles 5.29/5.32/5.40/5.44,
	// $2,008 bn; nyfed_effr_search: 2023-06-06 5.08, target 5.00–5.25,
	// $144 bn; FRED ECBESTRVOLWGTTRMDMNRT 2024-06-06 3.911 (06-05:
	// 3.9130000000000003 → −0.2 bp).
	o := cu.Overnight
	if o.SOFR.Date != "2024-06-06" || o.SOFR.Percent != 5.33 || *o.SOFR.Percentile1 != 5.29 || *o.SOFR.Percentile99 != 5.44 || *o.SOFR.Volume != 2008 ||
		o.EFFR.Date != "2023-06-06" || o.EFFR.Percent != 5.08 || *o.EFFR.TargetFrom != 5 || *o.EFFR.TargetTo != 5.25 || *o.EFFR.Volume != 144 ||
		o.ESTR.Date != "2024-06-06" || o.ESTR.Percent != 3.911 || *o.ESTR.ChangeBp != -0.2 {
		t.Fatalf("overnight %+v %+v %+v", o.SOFR, o.EFFR, o.ESTR)
	}
	if !strings.Contains(cu.Notice, "Terms of Use posted at newyorkfed.org") {
		t.Fatalf("notice %q", cu.Notice)
	}

	// Asked right after the read (the question time of the other routes is
	// hours after it, when every read is stale by its own age).
	var ds ratesview.DefiSpreadAnswer
	f.App = New(Deps{Version: "0.1.0-test", Rates: v}).App()
	get("/api/v1/rates/defi-spread", 200, &ds)
	f.App = s.App()
	// The recorded reserve (currentLiquidityRate 2815387323021300469652266
	// ray, variable borrow 22059241931586727924925162), read on the
	// simulated Polygon whose only block is dated the reserve's
	// lastUpdateTimestamp 0x63e965ca: stale by its block's age, so no
	// average and no signal; the bill is the 3 Mo of 10/10/2024.
	p := ds.Chains[0]
	if len(ds.Chains) != 1 || p.Symbol != "WETH" || *p.SupplyAPR != 0.2815387323021300469652266 || *p.BorrowAPR != 2.2059241931586727924925162 ||
		*p.BlockTime != "2023-02-12T22:18:50.000Z" || *p.ReserveUpdatedAt != "2023-02-12T22:18:50.000Z" || !p.Stale ||
		!strings.HasPrefix(p.StaleReason, "the block read was ") || *p.SpreadBp > -455 || *p.SpreadBp < -456 {
		t.Fatalf("polygon %+v", p)
	}
	if ds.Bill3M.Yield != 4.75 || ds.Bill3M.Date != "2024-10-10" || ds.Signal != nil || ds.AverageSpreadBp != nil || ds.ChainsAveraged != 0 {
		t.Fatalf("defi %+v", ds)
	}

	// No tokenized fund supply was ever captured: the route says so.
	if body := get("/api/v1/rates/tokenized-treasuries", 404, nil); body != `{"error":"no_data","message":"no snapshot yet for treasury supply","charged":false}` {
		t.Fatal(body)
	}

	// fiscaldata_auctions_query_bills_2026-01.json: the newest result is of
	// 2026-01-29; 912797SL2 (auctioned 2026-01-20 or so) at a 3.540 high
	// discount rate, bid-to-cover 2.84, $86 bn offered.
	var au ratesview.AuctionsAnswer
	get("/api/v1/rates/auctions", 200, &au)
	if au.Days != 14 || au.DataAsOf != "2026-01-29" || au.From != "2026-01-16" || len(au.Recent) == 0 {
		t.Fatalf("auctions %+v", au)
	}
	get("/api/v1/rates/auctions?days=60", 200, &au)
	found := false
	for _, x := range au.Recent {
		if x.Cusip == "912797SL2" {
			found = *x.HighDiscountRate == 3.54 && *x.BidToCover == 2.84 && *x.OfferingAmount == 86_000_000_000 && x.Status == "AUCTIONED"
		}
	}
	if !found {
		t.Fatal("912797SL2 not shown with the fixture's figures (discount 3.540, bid-to-cover 2.84, $86 bn)")
	}
	for _, bad := range []string{"days=0", "days=61", "days=abc", "days=1.5"} {
		if body := get("/api/v1/rates/auctions?"+bad, 400, nil); !strings.Contains(body, `"parameter":"days"`) {
			t.Fatalf("%s: %s", bad, body)
		}
	}

	// A server without the view: 404 no_data on every route, valid too.
	empty := New(Deps{Version: "0.1.0-test", Now: func() time.Time { return ratesNow }})
	f.App = empty.App()
	for _, r := range []string{"curve", "defi-spread", "tokenized-treasuries", "auctions"} {
		get("/api/v1/rates/"+r, 404, nil)
	}
}

// BenchmarkRatesRoutes: each rates route through the router (validation,
// handler, rendering) over the view of the real captures.
func BenchmarkRatesRoutes(b *testing.B) {
	v := ratesViewOfCaptures(b)
	app := New(Deps{Version: "bench", Now: func() time.Time { return ratesNow }, Rates: v}).App()
	for _, target := range []string{"/api/v1/rates/curve", "/api/v1/rates/defi-spread", "/api/v1/rates/auctions?days=60"} {
		b.Run(strings.TrimPrefix(target, "/api/v1/rates/"), func(b *testing.B) {
			benchP50(b, app, target)
		})
	}
}

// benchP50 serves target through the app's handler (router, validation,
// handler, rendering; no network) and reports the median as p50-µs.
func benchP50(b *testing.B, app *fiber.App, target string) {
	b.Helper()
	h := app.Handler()
	var ctx fasthttp.RequestCtx
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(target)
		t0 := time.Now()
		h(&ctx)
		lat = append(lat, time.Since(t0))
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("GET %s: %d %s", target, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
}
