package market

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/operators/opportunity"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// perpSnap is a Binance-like snapshot of symbol observed at, with a long
// share (0..1) and an 8-hour funding rate.
func perpSnap(symbol, class string, long, oiUSD, funding float64, at time.Time) *schemas.PerpSnapshot {
	return &schemas.PerpSnapshot{Venue: "binance", VenueSymbol: symbol + "T", Symbol: symbol, AssetClass: class,
		ObservedNs: at.UnixNano(), ReadNs: at.Add(time.Second).UnixNano(), OpenInterest: oiUSD / 100, OpenInterestUsd: oiUSD,
		MarkPrice: 100, IndexPrice: 100, FundingRate: funding, FundingIntervalHours: 8, FundingIntervalSource: "default", Source: "poll:binance-usdm",
		LongShort: &schemas.LongShort{Kind: "global_account", LongShare: long, ShortShare: 1 - long, Ratio: long / (1 - long), Period: "5m", ObservedNs: at.UnixNano()}}
}

// oppPositioning: ETHUSD crowded short, BTCUSD crowded long, HYPEUSD a
// perp-only crowded long without spot trades, DOGEUSD crowded long but
// stale, SOLUSD no perp.
func oppPositioning(t testing.TB) *views.Positioning {
	p := views.NewPositioning()
	at := testNow.Add(-2 * time.Minute)
	for _, s := range []*schemas.PerpSnapshot{
		perpSnap("ETHUSD", "crypto", 0.30, 5e6, -0.0002, at),
		perpSnap("BTCUSD", "crypto", 0.72, 1e9, 0.0003, at),
		perpSnap("HYPEUSD", "perp_only", 0.70, 3e6, 0.0001, at),
		perpSnap("DOGEUSD", "crypto", 0.80, 2e6, 0.0001, testNow.Add(-30*time.Minute)),
	} {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// fixedSmartMoney is a SmartMoneySource holding fixed rankings; it records
// what the scan asks for.
type fixedSmartMoney struct {
	flows map[string]opportunity.SmartMoney
	asOf  time.Time
	mu    sync.Mutex
	want  []string
}

func (f *fixedSmartMoney) SmartMoney(symbol string, _ time.Time) (opportunity.SmartMoney, time.Time, bool) {
	m, ok := f.flows[symbol]
	return m, f.asOf, ok
}

func (f *fixedSmartMoney) SmartMoneySymbols() []string {
	var out []string
	for s := range f.flows {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (f *fixedSmartMoney) WantSmartMoney(symbols []string) {
	f.mu.Lock()
	f.want = append(f.want, symbols...)
	f.mu.Unlock()
}

func oppSmartMoney() *fixedSmartMoney {
	return &fixedSmartMoney{asOf: testNow.Add(-10 * time.Minute), flows: map[string]opportunity.SmartMoney{
		"ETHUSD": {Direction: opportunity.SmartBuying, TopDecileWallets: 4, TopDecileBuyUSD: 80_000, TopDecileSellUSD: 10_000, TopDecileNetUSD: 70_000, AllWalletsNet: 5_000},
		"BTCUSD": {Direction: opportunity.SmartSelling, TopDecileWallets: 6, TopDecileBuyUSD: 20_000, TopDecileSellUSD: 220_000, TopDecileNetUSD: -200_000, AllWalletsNet: 40_000},
		"SOLUSD": {Direction: opportunity.SmartBuying, TopDecileWallets: 2, TopDecileBuyUSD: 9_000, TopDecileSellUSD: 1_000, TopDecileNetUSD: 8_000, Stale: true},
	}}
}

// fixedTrackRecord answers the same hit rates for every window.
type fixedTrackRecord struct{}

func (fixedTrackRecord) HitRate1h(window, signal, symbol string) (TrackRecord1h, bool) {
	rate, avg := 58.5, 0.21
	tr := TrackRecord1h{Horizon: "1h", Window: window, Signal: signal, Days: 30, From: "2026-10-27T12:00:00Z", To: "2026-11-26T12:00:00Z",
		Samples: 200, HitRate: &rate, AverageReturnPercent: &avg, Source: "test"}
	if symbol == "ETHUSD" {
		r := 61.0
		tr.SymbolSamples, tr.SymbolHitRate, tr.SymbolAverageReturnPercent = 18, &r, &avg
	}
	return tr, true
}

func TestOpportunitiesSources(t *testing.T) {
	f := newOpenAPIFixture(t)
	sm := oppSmartMoney()
	s := newServer(Config{Views: oppViews(), Positioning: oppPositioning(t), SmartMoney: sm, TrackRecord: fixedTrackRecord{},
		Now: func() time.Time { return testNow }})
	f.app = s.App()
	scan := func(query string) (OpportunityAnswer, string) {
		t.Helper()
		req, resp, body := f.send(t, http.MethodGet, "/api/v1/intelligence/opportunities?"+query)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, body)
		}
		if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("%s: %s:%s", query, body, describeErrors(errs))
		}
		var a OpportunityAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		return a, string(body)
	}
	summary := func(a OpportunityAnswer) string {
		var out []string
		for _, r := range a.Results {
			out = append(out, fmt.Sprintf("%s %s %d %v", r.Symbol, r.Direction, r.Score, r.ConfirmingSources))
		}
		return strings.Join(out, "; ")
	}
	f2 := func(query, want string, wantOut map[string]int) {
		t.Helper()
		a, body := scan(query)
		if got := summary(a); got != want {
			t.Errorf("%s:\n got %s\nwant %s", query, got, want)
		}
		for k, v := range wantOut {
			if a.FilteredOut[k] != v {
				t.Errorf("%s: filteredOut[%s] = %d, want %d (%s)", query, k, a.FilteredOut[k], v, body)
			}
		}
	}
	// crowded_positioning: against the crowd; DOGEUSD's perp rows are stale,
	// SOLUSD has no perp.
	f2("objective=crowded_positioning",
		"BTCUSD BEARISH 59 [spot_dex_flow perp_positioning smart_money]; ETHUSD BULLISH 40 [spot_dex_flow perp_positioning smart_money]; HYPEUSD BEARISH 33 [perp_positioning]",
		map[string]int{"no_fresh_data": 1, "source_unavailable": 1})
	f2("objective=crowded_positioning&minIndependentSources=2",
		"BTCUSD BEARISH 59 [spot_dex_flow perp_positioning smart_money]; ETHUSD BULLISH 40 [spot_dex_flow perp_positioning smart_money]",
		map[string]int{"too_few_sources": 1})
	f2("objective=crowded_positioning&assetClass=perp_only", "HYPEUSD BEARISH 33 [perp_positioning]", nil)
	// Two and three independent sources agreeing on a flow objective.
	f2("objective=unusual_buying&minIndependentSources=2", "ETHUSD BULLISH 60 [spot_dex_flow perp_positioning smart_money]",
		map[string]int{"too_few_sources": 1})
	f2("objective=unusual_buying&minIndependentSources=3", "ETHUSD BULLISH 60 [spot_dex_flow perp_positioning smart_money]", nil)
	f2("objective=unusual_selling&minIndependentSources=3", "BTCUSD BEARISH 58 [spot_dex_flow perp_positioning smart_money]", nil)
	// Smart money: SOLUSD's ranking is stale and asked for again, as is
	// DOGEUSD's missing one.
	f2("objective=smart_money_accumulation", "ETHUSD BULLISH 72 [spot_dex_flow perp_positioning smart_money]",
		map[string]int{"no_fresh_data": 1, "source_unavailable": 1, "rule_not_met": 1})
	f2("objective=smart_money_distribution&minIndependentSources=2", "BTCUSD BEARISH 83 [spot_dex_flow perp_positioning smart_money]", nil)
	sm.mu.Lock()
	if got := fmt.Sprint(sm.want); got != "[DOGEUSD SOLUSD DOGEUSD SOLUSD]" {
		t.Errorf("asked for rankings %s", got)
	}
	sm.mu.Unlock()

	// The blocks of a result read from the three sources, and the track record.
	a, body := scan("objective=crowded_positioning&universe=ETHUSD,HYPEUSD")
	eth, hype := a.Results[0], a.Results[1]
	if eth.Metrics == nil || eth.Metrics.Positioning == nil || *eth.Metrics.Positioning.LongSharePercent != 30 ||
		eth.Metrics.Positioning.Flag != "CROWDED_SHORT" || eth.Metrics.SmartMoney == nil || eth.Metrics.SmartMoney.TopDecileNetFlowUsd != 70_000 ||
		eth.Metrics.FlowMetrics == nil || hype.Metrics.FlowMetrics != nil || strings.Contains(body, `"symbol":"HYPEUSD","direction":"BEARISH","score":33,"confirmingSources":["perp_positioning"],"metrics":{"buyPressure"`) {
		t.Errorf("metrics: %s", body)
	}
	if tr := *eth.SignalTrackRecord1h; tr == nil || *tr.HitRate != 58.5 || tr.Signal != "BULLISH" || *tr.SymbolHitRate != 61 ||
		a.DataQuality.TrackRecordNote != trackRecordNoteOK {
		t.Errorf("track record: %s", body)
	}
	if q := hype.DataQuality; q == nil || fmt.Sprint(q.Sources) != "[perp_positioning]" || q.AgeSeconds != 120 {
		t.Errorf("HYPEUSD data quality: %s", body)
	}
	var kinds []string
	for _, e := range *eth.SupportingEvidence {
		kinds = append(kinds, e.Source+":"+e.Type)
	}
	if got := strings.Join(kinds, " "); got != "spot_dex_flow:buy_pressure spot_dex_flow:momentum spot_dex_flow:price_change spot_dex_flow:volume_multiple spot_dex_flow:event perp_positioning:crowded_short perp_positioning:funding smart_money:top_decile_net_flow" {
		t.Errorf("ETHUSD evidence %s", got)
	}
	if !slices.ContainsFunc(*hype.RiskFactors, func(r opportunity.Risk) bool { return r.Type == "no_spot_flow" }) {
		t.Errorf("HYPEUSD risks %+v", *hype.RiskFactors)
	}
	for _, st := range a.DataQuality.Sources {
		if st.Status != statusOK {
			t.Errorf("source %+v", st)
		}
	}
	// Scores by hand (docs/decisions.md): BTCUSD crowded long 0.72, $1B,
	// funding 32.85%/yr: 0.5·0.35 + 0.25·1 + 0.25·0.657 = 0.589 → 59;
	// ETHUSD crowded short 0.70, $5M, shorts paying 21.9%/yr: 0.125 +
	// 0.1667 + 0.1095 → 40.
	// Same inputs, same bytes.
	_, again := scan("objective=crowded_positioning&universe=ETHUSD,HYPEUSD")
	if again != body {
		t.Errorf("not byte-identical:\n%s\n%s", body, again)
	}
	// Perp data alone is fresh data: no 404 in a window without documents.
	_, body = scan("objective=crowded_positioning&window=15m")
	if !strings.Contains(body, `"symbol":"HYPEUSD"`) {
		t.Errorf("15m crowded: %s", body)
	}
}
