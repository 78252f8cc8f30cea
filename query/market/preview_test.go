package market

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// previewBody is the decoded body of GET /api/v1/preview.
type previewBody struct {
	Symbol     string
	Interval   string
	MarketTime *time.Time
	AsOf       *time.Time
	Candles    []struct {
		Start, End  time.Time
		Close       *float64
		VolumeUsd   float64
		BuyPressure float64
		TradeCount  int
	}
	PaidRoutes []struct{ Method, Path, PriceUsd, Summary string }
}

// previewCandle returns a closed 1m candle of symbol on venue starting at
// start.
func previewCandle(symbol, venue string, start time.Time, close, buyUSD, sellUSD float64) *schemas.Candle {
	return &schemas.Candle{Symbol: symbol, Venue: venue, StartNs: start.UnixNano(), IntervalNs: int64(time.Minute),
		Close: close, VolumeUsd: buyUSD + sellUSD, BuyVolumeUsd: buyUSD, SellVolumeUsd: sellUSD, TradeCount: 3}
}

func TestPreview(t *testing.T) {
	f := newOpenAPIFixture(t)
	s := newTestServer()
	f.app = s.App()
	get := func(target string, wantStatus int) []byte {
		t.Helper()
		req, resp, body := f.send(t, http.MethodGet, target)
		if resp.StatusCode != wantStatus {
			t.Fatalf("GET %s: %d, want %d: %s", target, resp.StatusCode, wantStatus, body)
		}
		if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %s\ndoes not match the document:%s", target, body, describeErrors(errs))
		}
		if ok, errs := f.v.ValidateHttpRequest(httptest.NewRequest(http.MethodGet, target, nil)); ok != (wantStatus != 400) {
			t.Fatalf("GET %s answers %d but the document says valid=%v:%s", target, wantStatus, ok, describeErrors(errs))
		}
		return body
	}
	decode := func(body []byte) previewBody {
		t.Helper()
		var p previewBody
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %s", body, err)
		}
		return p
	}

	// Before any candle: no market clock, no candles, links all the same.
	p := decode(get("/api/v1/preview", 200))
	if p.Symbol != "ETHUSD" || p.MarketTime != nil || p.AsOf != nil || len(p.Candles) != 0 || len(p.PaidRoutes) != len(previewLinks) {
		t.Fatalf("empty preview: %+v", p)
	}
	if p.PaidRoutes[0].Path != "/api/v1/intelligence/ETHUSD" || p.PaidRoutes[0].PriceUsd != "0.005" {
		t.Fatalf("first link %+v", p.PaidRoutes[0])
	}

	// A market an hour before the test clock, so the delay cannot come
	// from the wall clock: ETHUSD trades on two venues 10:00–10:59; the
	// newest candle (any symbol) ends at 11:02:00.
	base := time.Date(2024, 8, 8, 10, 0, 0, 0, time.UTC)
	c := s.views.Candles()
	for m := range 60 {
		at := base.Add(time.Duration(m) * time.Minute)
		c.Apply(previewCandle("ETHUSD", "binance", at, 3000+float64(m), 300, 100))
		c.Apply(previewCandle("ETHUSD", "coinbase", at, 3000+float64(m), 100, 100))
	}
	c.Apply(previewCandle("DOGEUSD", "binance", base.Add(61*time.Minute), 0.1, 1, 1))
	for _, target := range []string{"/api/v1/preview", "/api/v1/preview?symbol=ETHUSD"} {
		p = decode(get(target, 200))
		if !p.MarketTime.Equal(base.Add(62*time.Minute)) || !p.AsOf.Equal(base.Add(47*time.Minute)) {
			t.Fatalf("market %v as of %v", p.MarketTime, p.AsOf)
		}
		// Bars end at or before 10:47: 10:15 … 10:45.
		if len(p.Candles) != 6 || !p.Candles[0].Start.Equal(base.Add(15*time.Minute)) || !p.Candles[5].End.Equal(base.Add(45*time.Minute)) {
			t.Fatalf("candles %+v", p.Candles)
		}
		last := p.Candles[5]
		if *last.Close != 3044 || last.VolumeUsd != 5*600 || last.BuyPressure != 200.0/3 || last.TradeCount != 30 {
			t.Fatalf("last candle %+v", last)
		}
	}
	p = decode(get("/api/v1/preview?symbol=TSLA", 200))
	if len(p.Candles) != 6 || p.Candles[0].Close != nil || p.Candles[0].BuyPressure != 50 || p.PaidRoutes[1].Path != "/api/v1/intelligence/snapshot/TSLA" {
		t.Fatalf("TSLA without trades: %+v", p)
	}
	get("/api/v1/preview?symbol=BTCUSD", 200)

	for _, bad := range []string{"DOGEUSD", "ethusd", "ETHUSD,BTCUSD", "%00"} {
		body := get("/api/v1/preview?symbol="+bad, 400)
		var e struct {
			Error, Parameter string
			Accepted         []string
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Parameter != "symbol" || !slices.Equal(e.Accepted, []string{"ETHUSD", "BTCUSD", "TSLA"}) {
			t.Fatalf("symbol=%s: %s", bad, body)
		}
	}
}
