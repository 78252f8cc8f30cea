package query

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/perps"
	"github.com/marketintel/mi/pipeline/sources/perps/perpsreplay"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// positioningViewOfCaptures polls the real perps captures (perpsreplay:
// Binance, Bybit, Hyperliquid at their own paths) twice, five minutes
// apart, with the live pollers, and applies every record, encoded for
// mi.positioning.v1 and decoded as FollowSide does, to a view.
func positioningViewOfCaptures(t testing.TB, clk *clock.Fake) *views.Positioning {
	t.Helper()
	routes, err := perpsreplay.Routes(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := pubreplay.New(routes)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hc := sources.HTTPConfig{UserAgent: "mi-test/1", DefaultLimit: &sources.Limit{Rate: 0}}
	client := poll.NewClient(hc, poll.Options{Clock: clk, Hosts: poll.NewHosts(clk, hc)})
	var pollers []*perps.Poller
	for _, c := range []perps.Config{
		{Venue: perps.VenueBinance, URL: ln.URL, Symbols: []string{"BTCUSDT"}},
		{Venue: perps.VenueBybit, URL: ln.URL, Symbols: []string{"BTCUSDT"}},
		{Venue: perps.VenueHyperliquid, URL: ln.URL, Dexes: []string{"", "xyz"}},
	} {
		c.Clock, c.Client = clk, client
		p, err := perps.New(c)
		if err != nil {
			t.Fatal(err)
		}
		pollers = append(pollers, p)
	}
	v := views.NewPositioning()
	for round := range 2 {
		if round > 0 {
			clk.Advance(5 * time.Minute)
		}
		for _, p := range pollers {
			out, err := p.Poll(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			for _, s := range out.Snapshots {
				r := sidetopic.Positioning.Record(s)
				got, err := sidetopic.Positioning.Decode(r.Side.Value)
				if err != nil {
					t.Fatal(err)
				}
				if err := v.Apply(got); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return v
}

// GET /api/v1/intelligence/positioning/{symbol} over the view of two polls
// of the real captures: per-venue figures as the captures hold them, the
// 1 h change from the stored history, flags, the partial answers (perp
// only, spot only), 404 and 400, every answer valid against openapi.json.
func TestPositioningRoute(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	pv := positioningViewOfCaptures(t, clk)
	spot := views.New()
	// A spot document of ETHUSD (Hyperliquid lists ETH) and of SPY, which
	// no perp of the captures lists.
	spotAt := clk.Now().Add(-2 * time.Minute)
	spot.Apply(&schemas.IntelligenceDocument{Symbol: "ETHUSD", Window: "5m", TimestampNs: spotAt.UnixNano(), Price: 2500, Volume: 1.5e6, BuyPressure: 0.61, Signal: "BUY_PRESSURE"})
	spot.Apply(&schemas.IntelligenceDocument{Symbol: "SPY", Window: "5m", TimestampNs: spotAt.UnixNano(), Price: 1, Volume: 1000, BuyPressure: 0.5, Signal: "NEUTRAL"})
	s := New(Deps{Version: "0.1.0-test", Now: clk.Now, Views: spot, Positioning: pv})
	_, _, doc := querytest.Do(t, s.App(), http.MethodGet, openapi.Path)
	f := querytest.NewOpenAPI(t, []byte(doc), s.App())
	get := func(target string, status int, out any) string {
		t.Helper()
		req, resp, body := f.Send(t, http.MethodGet, target)
		if resp.StatusCode != status {
			t.Fatalf("GET %s: %d %s, want %d", target, resp.StatusCode, body, status)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s does not match openapi.json:%s\n%.3000s", target, querytest.DescribeErrors(errs), body)
		}
		if out != nil {
			if err := json.Unmarshal(body, out); err != nil {
				t.Fatal(err)
			}
		}
		return string(body)
	}

	var a views.PositioningAnswer
	get("/api/v1/intelligence/positioning/btcusd", 200, &a)
	rows := map[string]views.PositioningVenue{}
	for _, v := range a.Venues {
		rows[v.Venue] = v
	}
	// binance_usdm_openInterestHist_BTCUSDT_1h: 108833.193 BTC at 13:00,
	// −0.0345 % against 12:00; globalLongShortAccountRatio longAccount
	// 0.6575; premiumIndex lastFundingRate × 3 × 365 = 10.0138 %/yr (8 h
	// default: fundingInfo was not captured). Bybit's BTCUSDT ticker:
	// openInterestValue 3899996265.01, 8 h interval, no share (account
	// ratio not captured). Hyperliquid BTC: 22727.78266 coins, 1 h funding.
	b, y, h := rows["binance"], rows["bybit"], rows["hyperliquid"]
	if len(a.Venues) != 3 || b.OpenInterest != 108833.193 || b.Change1hPercent == nil || *b.Change1hPercent != -0.0345 ||
		b.LongShort == nil || b.LongShort.LongShare != 0.6575 || b.LongShort.Kind != "global_account" ||
		b.Funding.AnnualizedPercent != 10.0138 || b.Funding.IntervalSource != "default" || b.Source != "poll:binance" {
		t.Fatalf("binance %+v", b)
	}
	if y.OpenInterestUSD != 3899996265.01 || y.Funding.IntervalHours != 8 || y.LongShort != nil ||
		h.OpenInterest != 22727.78266 || h.Funding.IntervalHours != 1 || !h.ObservedAt.Equal(perpsreplay.HyperliquidRecorded) {
		t.Fatalf("bybit %+v hyperliquid %+v", y, h)
	}
	// Old captures of three days: every row stale with its age; only the
	// newest day's (Bybit) is summed, the others listed as excluded.
	if !a.Stale || !b.Stale || h.AgeSeconds < 86400*290 || a.Totals == nil || a.Totals.Venues != 1 || len(a.Totals.Excluded) != 2 ||
		a.Flag != "NONE" || b.ReadAt.IsZero() || a.SpotFlow != nil || !a.Coverage.Partial {
		t.Fatalf("answer %+v totals %+v", a, a.Totals)
	}
	t.Logf("change %+v %+v", a.Change.OpenInterest1h, a.Change.OpenInterest24h)

	// A perp-only symbol: Hyperliquid's kPEPE (1,000 PEPE a contract).
	var kp views.PositioningAnswer
	get("/api/v1/intelligence/positioning/KPEPEUSD", 200, &kp)
	if !kp.PerpOnly || !kp.Coverage.Partial || !strings.Contains(kp.Coverage.Note, "perp-only") || len(kp.Venues) != 1 || kp.Venues[0].VenueSymbol != "kPEPE" {
		t.Fatalf("KPEPEUSD %+v", kp)
	}
	// ETH: Hyperliquid's perp and the spot flow of the intelligence view.
	var eth views.PositioningAnswer
	get("/api/v1/intelligence/positioning/ETHUSD", 200, &eth)
	if eth.SpotFlow == nil || eth.SpotFlow.BuyPressure != 0.61 || eth.SpotFlow.AgeSeconds != 120 || eth.Coverage.Partial || len(eth.Venues) == 0 {
		t.Fatalf("ETHUSD %+v", eth)
	}
	// Spot only (SPY: no perp in the captures): a partial answer without
	// venues.
	var so views.PositioningAnswer
	get("/api/v1/intelligence/positioning/SPY", 200, &so)
	if len(so.Venues) != 0 || so.SpotFlow == nil || !so.Coverage.Partial || so.Totals != nil {
		t.Fatalf("SPOTONLY %+v", so)
	}
	// A covered symbol with neither perp nor spot: 404 no_data, not
	// charged. A path segment that names no symbol is no route (404
	// not_found, api.Symbol).
	if body := get("/api/v1/intelligence/positioning/QQQ", 404, nil); body != `{"error":"no_data","message":"no perp or spot data for QQQ","charged":false}` {
		t.Fatal(body)
	}
	if body := get("/api/v1/intelligence/positioning/NOSUCHUSD", 404, nil); !strings.Contains(body, `"error":"no_data"`) {
		t.Fatal(body)
	}
	// (No route: not an answer of the operation, so not validated
	// against its responses.)
	if _, resp, body := f.Send(t, http.MethodGet, "/api/v1/intelligence/positioning/BTC$USD"); resp.StatusCode != 404 || !strings.Contains(string(body), `"error":"not_found"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	// A server without the view: 404.
	f.App = New(Deps{Version: "0.1.0-test", Now: clk.Now}).App()
	get("/api/v1/intelligence/positioning/BTCUSD", 404, nil)
}

// BenchmarkPositioningRoute: GET /api/v1/intelligence/positioning/BTCUSD
// through the router (validation, handler, rendering) over the view of two
// polls of the real captures.
func BenchmarkPositioningRoute(b *testing.B) {
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	app := New(Deps{Version: "bench", Now: clk.Now, Positioning: positioningViewOfCaptures(b, clk)}).App()
	benchP50(b, app, "/api/v1/intelligence/positioning/BTCUSD")
}
