package market

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/opportunity"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// oppDoc is a fresh 5m document of symbol with the fields the scan reads.
func oppDoc(symbol string, buyPressure, momentum, change, volMultiple float64, event string) *schemas.IntelligenceDocument {
	d := smallDoc(symbol, "5m", 40, 400)
	d.Price, d.BuyPressure, d.MomentumScore, d.PriceChangePercent = 100, buyPressure, momentum, change
	d.VolumeMultiple, d.BaselineReady, d.ConfidenceScore, d.EventType = volMultiple, true, 70, event
	d.TimestampNs, d.LastTradeTimeNs = testNow.Add(-time.Minute).UnixNano(), testNow.Add(-time.Minute).UnixNano()
	d.DominantSide, d.SignalStrength, d.LifecycleState, d.Signal = "BALANCED", "LOW", "PERSISTING", signalNeutral
	return d
}

func oppViews() *views.Views {
	v := views.New()
	v.Apply(oppDoc("ETHUSD", 80, 70, 2, 3, "ACCUMULATION")) // strong buying
	v.Apply(oppDoc("SOLUSD", 65, 55, 0.5, 1.6, "NORMAL"))   // buying, weaker
	v.Apply(oppDoc("BTCUSD", 20, 25, -3, 2.5, "BREAKDOWN")) // selling
	v.Apply(oppDoc("DOGEUSD", 62, 45, -1, 1.2, "NORMAL"))   // pressure but volume below 1.5×
	return v
}

func sendBody(t *testing.T, app *fiber.App, method, target, body string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	mk := func() *http.Request {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		return r
	}
	resp, err := app.Test(mk(), fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return mk(), resp, b
}

func TestOpportunities(t *testing.T) {
	f := newOpenAPIFixture(t)
	s := newServer(Config{Views: oppViews(), Now: func() time.Time { return testNow }})
	f.app = s.App()
	req, resp, body := f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?objective=unusual_buying")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("%s:%s", body, describeErrors(errs))
	}
	var a OpportunityAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range a.Results {
		got = append(got, fmt.Sprintf("%d %s %s", r.Rank, r.Symbol, r.Direction))
	}
	if want := "[1 ETHUSD BULLISH 2 SOLUSD BULLISH]"; fmt.Sprint(got) != want {
		t.Fatalf("results %v, want %s", got, want)
	}
	top := a.Results[0]
	if top.Metrics == nil || top.Metrics.BuyPressure != 80 || top.Metrics.VolumeUsd != 40_000 || top.SupportingEvidence == nil ||
		len(*top.SupportingEvidence) != 5 || !strings.Contains(string(body), `"signalTrackRecord1h":null`) ||
		fmt.Sprint(top.ConfirmingSources) != "[spot_dex_flow]" || len(top.NextCalls) != 2 ||
		top.NextCalls[0] != "/api/v1/intelligence/pre-trade?symbol=ETHUSD&side=buy&window=5m" {
		t.Fatalf("top result %s", body)
	}
	if a.FilteredOut["below_min_buy_pressure"] != 1 || a.FilteredOut["below_min_volume_multiple"] != 1 || a.MarketContext == nil ||
		a.DataQuality.SymbolsScanned != 4 || a.DataQuality.Sources[1].Status != statusMissing {
		t.Fatalf("filteredOut / quality %s", body)
	}

	// Same inputs → same bytes, and the agent alias answers the same.
	_, _, again := f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?objective=unusual_buying")
	_, _, alias := f.send(t, http.MethodGet, "/api/v1/agent/opportunities?objective=unusual_buying")
	if !bytes.Equal(body, again) || !bytes.Equal(body, alias) {
		t.Fatalf("not byte-identical:\n%s\n%s\n%s", body, again, alias)
	}

	// include selects blocks; the POST form gives the GET's answer.
	req, resp, body = f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?objective=breakdown&include=metrics&universe=btcusd,ETHUSD,NOPEUSD")
	if ok, errs := f.v.ValidateHttpResponse(req, resp); resp.StatusCode != 200 || !ok {
		t.Fatalf("%d %s:%s", resp.StatusCode, body, describeErrors(errs))
	}
	if strings.Contains(string(body), "supportingEvidence") || strings.Contains(string(body), "marketContext") ||
		!strings.Contains(string(body), `"symbol":"BTCUSD","direction":"BEARISH"`) || !strings.Contains(string(body), `"no_fresh_data":1`) {
		t.Fatalf("breakdown with include=metrics: %s", body)
	}
	preq, presp, pbody := sendBody(t, s.App(), http.MethodPost, "/api/v1/agent/opportunities",
		`{"objective":"breakdown","universe":["btcusd","ETHUSD","NOPEUSD"],"include":["metrics"]}`)
	if ok, errs := f.v.ValidateHttpResponse(preq, presp); presp.StatusCode != 200 || !ok || !bytes.Equal(pbody, body) {
		t.Fatalf("POST %d %s:%s\nGET %s", presp.StatusCode, pbody, describeErrors(errs), body)
	}

	// Nothing qualifies but data is fresh: 200 with an empty list.
	_, resp, body = f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?objective=crowded_positioning")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"results":[]`) || !strings.Contains(string(body), `"source_unavailable":4`) {
		t.Fatalf("empty: %d %s", resp.StatusCode, body)
	}
	// No fresh data at all: 404.
	_, resp, body = f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?objective=unusual_buying&window=15m")
	if resp.StatusCode != 404 || !strings.Contains(string(body), "no_data") {
		t.Fatalf("no data: %d %s", resp.StatusCode, body)
	}
}

func TestOpportunitiesBadInput(t *testing.T) {
	s := newServer(Config{Views: oppViews(), Now: func() time.Time { return testNow }})
	universe := strings.Repeat("AUSD,", 100) + "BUSD"
	f := func(method, target, body, wantParam, wantText string) {
		t.Helper()
		_, resp, b := sendBody(t, s.App(), method, target, body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), `"parameter":"`+wantParam+`"`) || !strings.Contains(string(b), wantText) ||
			!strings.Contains(string(b), `"charged":false`) {
			t.Errorf("%s %s %s: %d %s; want 400 on %s with %q", method, target, body, resp.StatusCode, b, wantParam, wantText)
		}
	}
	const p = "/api/v1/intelligence/opportunities"
	f("GET", p, "", "objective", "unusual_buying")
	f("GET", p+"?objective=moon", "", "objective", "smart_money_distribution")
	f("GET", p+"?objective=breakout&universe="+universe, "", "universe", "1 to 100")
	f("GET", p+"?objective=breakout&minBuyPressure=49", "", "minBuyPressure", "50 to 100")
	f("GET", p+"?objective=breakout&minIndependentSources=4", "", "minIndependentSources", "1 to 3")
	f("GET", p+"?objective=breakout&maxResults=51", "", "maxResults", "1 to 50")
	f("GET", p+"?objective=breakout&include=metrics,charts", "", "include", "market_context")
	f("GET", p+"?objective=breakout&assetClass=bonds", "", "assetClass", "us_equity")
	f("POST", p, `{"objective":`, "body", "objective, universe, constraints, include, maxResults")
	f("POST", p, `{"objective":"breakout","foo":1}`, "body", "constraints")
	f("POST", p, `{"objective":"moon"}`, "objective", "unusual_buying")
	f("POST", p, `{"objective":"breakout","universe":[`+strings.TrimSuffix(strings.Repeat(`"AUSD",`, 101), ",")+`]}`, "universe", "1 to 100")
	f("POST", "/api/v1/agent/opportunities", `{"objective":"breakout","constraints":{"minBuyPressure":101}}`, "minBuyPressure", "50 to 100")
	f("POST", p, `{"objective":"breakout","constraints":{"window":"1h"}}`, "window", "15m")
	f("POST", p, `{"objective":"breakout","maxResults":2.5}`, "maxResults", "1 to 50")
	f("POST", p, `{"objective":"breakout","include":["evidence","x"]}`, "include", "track_record")
}

func BenchmarkOpportunities1000(b *testing.B) {
	v := views.New()
	for i := range 1000 {
		v.Apply(oppDoc(fmt.Sprintf("S%04dUSD", i), 50+float64(i%50), float64(i%100), float64(i%11)-5, 1+float64(i%7)/2, "NORMAL"))
	}
	s := newServer(Config{Views: v, Now: func() time.Time { return testNow }})
	r := OpportunityRequest{Objective: "unusual_buying", Window: "5m", Constraints: defaultConstraintsForBench(), Include: OpportunityBlocks}
	if a, ok := s.Opportunities(r); !ok || len(a.Results) == 0 {
		b.Fatal("no results")
	}
	b.ReportAllocs()
	for b.Loop() {
		a, _ := s.Opportunities(r)
		if _, err := json.Marshal(a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpportunities1000Sources is BenchmarkOpportunities1000 with the
// three sources loaded: every symbol has perps (a third crowded) and a kept
// smart-money ranking, and the track record answers; objectives unusual_buying
// with minIndependentSources 2, and crowded_positioning.
func BenchmarkOpportunities1000Sources(b *testing.B) {
	v := views.New()
	p := views.NewPositioning()
	sm := &fixedSmartMoney{asOf: testNow.Add(-10 * time.Minute), flows: map[string]opportunity.SmartMoney{}}
	for i := range 1000 {
		sym := fmt.Sprintf("S%04dUSD", i)
		v.Apply(oppDoc(sym, 50+float64(i%50), float64(i%100), float64(i%11)-5, 1+float64(i%7)/2, "NORMAL"))
		if err := p.Apply(perpSnap(sym, "crypto", 0.2+float64(i%60)/100, 1e5*float64(1+i%50), 0.0001, testNow.Add(-2*time.Minute))); err != nil {
			b.Fatal(err)
		}
		dir := []string{opportunity.SmartBuying, opportunity.SmartSelling, "FLAT"}[i%3]
		sm.flows[sym] = opportunity.SmartMoney{Direction: dir, TopDecileWallets: 1 + i%9, TopDecileBuyUSD: 1e4 * float64(1+i%13), TopDecileSellUSD: 1e4 * float64(1+i%7)}
	}
	s := newServer(Config{Views: v, Positioning: p, SmartMoney: sm, TrackRecord: fixedTrackRecord{}, Now: func() time.Time { return testNow }})
	for _, c := range []struct {
		name string
		o    opportunity.Objective
		min  int
	}{{"unusual_buying_2_sources", opportunity.UnusualBuying, 2}, {"crowded_positioning", opportunity.CrowdedPositioning, 1}} {
		k := defaultConstraintsForBench()
		k.MinIndependentSources = c.min
		r := OpportunityRequest{Objective: c.o, Window: "5m", Constraints: k, Include: OpportunityBlocks}
		if a, ok := s.Opportunities(r); !ok || len(a.Results) == 0 {
			b.Fatalf("%s: no results", c.name)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a, _ := s.Opportunities(r)
				if _, err := json.Marshal(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func defaultConstraintsForBench() opportunity.Constraints { return opportunity.Defaults }

// FuzzOpportunityBody: any body gives a request or a 400 naming a field,
// never a panic; an accepted request holds values in their ranges.
func FuzzOpportunityBody(f *testing.F) {
	for _, s := range []string{`{"objective":"unusual_buying"}`, `{"objective":"breakdown","universe":["btcusd","ETHUSD"],"include":["metrics"]}`,
		`{"objective":"breakout","constraints":{"window":"15m","minBuyPressure":70,"minIndependentSources":2},"maxResults":5}`,
		`{"objective":`, `[]`, `{"objective":"breakout","maxResults":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, e := parseOpportunityBody(raw)
		if e != nil {
			if e.Param == "" || e.Message == "" {
				t.Fatalf("400 without a parameter: %+v", e)
			}
			return
		}
		c := r.Constraints
		if c.MinBuyPressure < 50 || c.MinBuyPressure > 100 || c.MaxResults < 1 || c.MaxResults > 50 ||
			c.MinIndependentSources < 1 || c.MinIndependentSources > 3 || len(r.Universe) > MaxUniverse || r.Window == "" {
			t.Fatalf("accepted out of range: %s → %+v", raw, r)
		}
	})
}
