package market

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// equityDoc is a fresh 5m document of symbol with the fields the equities
// answer reads.
func equityDoc(symbol string, trades int64, buyPressure, change float64, signal string, lastTrade time.Time) *schemas.IntelligenceDocument {
	d := smallDoc(symbol, "5m", trades, float64(trades)*10)
	d.BuyPressure, d.PriceChangePercent, d.Signal = buyPressure, change, signal
	d.TimestampNs, d.LastTradeTimeNs = lastTrade.UnixNano(), lastTrade.UnixNano()
	d.DominantSide, d.SignalStrength, d.EventType, d.LifecycleState = "BALANCED", "LOW", "NORMAL", "PERSISTING"
	return d
}

func TestEquities(t *testing.T) {
	f := newOpenAPIFixture(t)
	// querytest.Now is Thursday 2024-08-08 12:00 UTC, 08:00 in New York.
	v := views.New()
	v.Apply(equityDoc("TSLA", 40, 70, 1.5, signalBullish, testNow.Add(-time.Minute)))
	v.Apply(equityDoc("NVDA", 90, 30, -2, signalBearish, testNow.Add(-2*time.Minute)))
	v.Apply(equityDoc("SPY", 10, 50, 0.1, signalNeutral, testNow.Add(-time.Minute)))
	v.Apply(equityDoc("AAPL", 5, 50, 0, signalNeutral, testNow.Add(-3*time.Hour))) // stale
	v.Apply(equityDoc("BTCUSD", 500, 90, 3, signalBullish, testNow))               // not an equity
	s := newServer(Config{Views: v, Now: func() time.Time { return testNow }})
	f.app = s.App()
	req, resp, body := f.send(t, http.MethodGet, "/api/v1/intelligence/equities?limit=2")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("%s:%s", body, describeErrors(errs))
	}
	var a struct {
		EquitiesAnswer
		Assets []struct{ Symbol string } `json:"assets"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Session.Label != "PRE_MARKET" || a.Session.NewYorkTime != "2024-08-08T08:00:00-04:00" || a.Session.Closure != nil {
		t.Fatalf("session %+v", a.Session)
	}
	if a.SymbolsCovered != 3 || a.BullishSymbols != 1 || a.BearishSymbols != 1 || a.NeutralSymbols != 1 {
		t.Fatalf("breadth %+v", a.EquitiesAnswer)
	}
	if a.AverageBuyPressure != 50 || math.Abs(a.AveragePriceChangePercent-(1.5-2+0.1)/3) > 1e-12 {
		t.Fatalf("averages %v %v", a.AverageBuyPressure, a.AveragePriceChangePercent)
	}
	if len(a.Assets) != 2 || a.Assets[0].Symbol != "NVDA" || a.Assets[1].Symbol != "TSLA" {
		t.Fatalf("assets (most active first, limit 2): %+v", a.Assets)
	}
	if !strings.Contains(a.PriceNotice, "not official exchange quotes") {
		t.Fatalf("notice %q", a.PriceNotice)
	}
	q := a.DataQuality
	if q.CoveredSymbols != 3 || len(q.StaleSymbols) != 1 || q.StaleSymbols[0] != "AAPL" ||
		q.RegisteredSymbols != len(equitySymbols) || len(q.WithoutData) != len(equitySymbols)-4 ||
		q.Sources[0].Source != sourceSpotFlow || q.Sources[0].Status != statusStale {
		t.Fatalf("dataQuality %+v", q)
	}
}

// The route is declared, so it is never taken for /api/v1/intelligence/{symbol}.
func TestEquitiesIsNotASymbol(t *testing.T) {
	s := newTestServer()
	code, _, body := do(t, s.App(), http.MethodGet, "/api/v1/intelligence/equities")
	if code != 404 || !strings.Contains(body, "no tokenized equity has fresh trades") {
		t.Fatalf("%d %s", code, body)
	}
	code, _, body = do(t, s.App(), http.MethodGet, "/api/v1/intelligence/equities?window=2h")
	if code != 400 || !strings.Contains(body, "window") || !strings.Contains(body, "15m") {
		t.Fatalf("bad window: %d %s", code, body)
	}
}

func TestEquitiesSession(t *testing.T) {
	f := func(at time.Time, want string) {
		t.Helper()
		v := views.New()
		v.Apply(equityDoc("TSLA", 40, 70, 1.5, signalBullish, at.Add(-time.Minute)))
		s := newServer(Config{Views: v, Now: func() time.Time { return at }})
		a, ok := s.Equities("5m", 20)
		if !ok || string(a.Session.Label) != want {
			t.Fatalf("%s: %v %+v", at, ok, a.Session)
		}
	}
	f(time.Date(2024, 8, 10, 15, 0, 0, 0, time.UTC), "WEEKEND") // a Saturday
	f(time.Date(2024, 8, 8, 15, 0, 0, 0, time.UTC), "REGULAR")
	f(time.Date(2024, 8, 8, 21, 0, 0, 0, time.UTC), "AFTER_HOURS")
	f(time.Date(2024, 8, 9, 2, 0, 0, 0, time.UTC), "OVERNIGHT")
	f(time.Date(2024, 11, 28, 15, 0, 0, 0, time.UTC), "WEEKEND") // Thanksgiving
}
