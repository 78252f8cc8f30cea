package query

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
	"github.com/marketintel/mi/query/market"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// scanNow is the clock of the scan fixture.
var scanNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// newScanServer writes a history for SCANUSD — 1m candles of the last six
// hours, price rising a cent a minute; a BULLISH change 5 hours ago (a hit
// 1 hour later) and a BEARISH one 3 hours ago (a miss); on-chain wallet
// trades of yesterday and today whose top wallet is net buying — and
// serves it with a fresh 5m document (strong buying) and a crowded short
// on the perps.
func newScanServer(t testing.TB) (*Server, *history.Store) {
	t.Helper()
	root := t.TempDir()
	w := histtest.New(t, root)
	var cs []datasets.Candle
	for m := range 360 {
		ts := scanNow.Add(time.Duration(m-360) * time.Minute)
		cs = append(cs, histtest.Flat("SCANUSD", "uniswap_v3_base", ts, 100+0.01*float64(m)+0.05*float64(m%3), 2))
	}
	w.Candles("1m", true, cs)
	ch := func(ago time.Duration, sig string, price float64) history.Change {
		return history.Change{ChangedAt: scanNow.Add(-ago), Symbol: "SCANUSD", Window: "5m", PreviousSignal: "NEUTRAL", Signal: sig,
			EventType: "NORMAL", Confidence: 70, Price: price}
	}
	w.Changes(true, []history.Change{ch(5*time.Hour, "BULLISH", 100.6), ch(3*time.Hour, "BEARISH", 101.8)})
	trade := func(at time.Time, wallet, side string, size, price float64, id string) histtest.Trade {
		return histtest.Trade{Time: at, Symbol: "SCANUSD", Venue: "uniswap_v3", VenueKind: "onchain_dex", Chain: "base", Market: "0xpool",
			VenueSymbol: "SCAN/USDC", Price: price, Size: size, NotionalUSD: price * size, Side: side, TradeID: id, LogIndex: 1, Wallet: wallet}
	}
	y := scanNow.Add(-25 * time.Hour)
	w.Trades(false, []histtest.Trade{trade(y, "0xW1", "BUY", 10, 100, "0x01")})
	w.Trades(true, []histtest.Trade{trade(scanNow.Add(-time.Hour), "0xW1", "SELL", 4, 150, "0x02"),
		trade(scanNow.Add(-50*time.Minute), "0xW2", "BUY", 5, 130, "0x03")})
	st, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return scanNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	v := views.New()
	d := querytest.SmallDoc("SCANUSD", "5m", 40, 400)
	d.Price, d.BuyPressure, d.MomentumScore, d.PriceChangePercent = 100, 80, 70, 2
	d.VolumeMultiple, d.BaselineReady, d.ConfidenceScore, d.EventType = 3, true, 70, "ACCUMULATION"
	d.TimestampNs, d.LastTradeTimeNs = scanNow.Add(-time.Minute).UnixNano(), scanNow.Add(-time.Minute).UnixNano()
	d.DominantSide, d.SignalStrength, d.LifecycleState, d.Signal = "BUY", "HIGH", "PERSISTING", "BULLISH"
	v.Apply(d)
	other := querytest.SmallDoc("NOCANDLEUSD", "5m", 40, 400)
	other.Price, other.BuyPressure, other.TimestampNs, other.LastTradeTimeNs = 10, 50, d.TimestampNs, d.LastTradeTimeNs
	v.Apply(other)
	p := views.NewPositioning()
	at := scanNow.Add(-2 * time.Minute)
	if err := p.Apply(&schemas.PerpSnapshot{Venue: "binance", VenueSymbol: "SCANUSDT", Symbol: "SCANUSD", AssetClass: "crypto",
		ObservedNs: at.UnixNano(), ReadNs: at.UnixNano(), OpenInterest: 1e5, OpenInterestUsd: 1e7, MarkPrice: 100, IndexPrice: 100,
		FundingRate: -0.0001, FundingIntervalHours: 8, FundingIntervalSource: "default", Source: "poll:binance-usdm",
		LongShort: &schemas.LongShort{Kind: "global_account", LongShare: 0.3, ShortShare: 0.7, Ratio: 0.3 / 0.7, Period: "5m", ObservedNs: at.UnixNano()}}); err != nil {
		t.Fatal(err)
	}
	return New(Deps{Now: func() time.Time { return scanNow }, History: st, Views: v, Positioning: p}), st
}

// TestOpportunityScanFromHistory runs the scan on a real history store: the
// first smart-money scan asks for the ranking, which the background worker
// computes; the track record's 1h hit rates come from the logged changes
// scored on the stored candles; then three independent sources agree on
// SCANUSD, and every answer matches the OpenAPI document.
func TestOpportunityScanFromHistory(t *testing.T) {
	s, st := newScanServer(t)
	_, _, doc := get(t, s, openapi.Path, "")
	f := querytest.NewOpenAPI(t, doc, s.App())
	scan := func(q string) market.OpportunityAnswer {
		t.Helper()
		req, resp, body := f.Send(t, "GET", "/api/v1/intelligence/opportunities?"+q)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, body)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("%s: %s:%s", q, body, describeErrors(errs))
		}
		var a market.OpportunityAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := scan("objective=smart_money_accumulation")
	if len(a.Results) != 0 || a.FilteredOut["source_unavailable"] != 2 {
		t.Fatalf("before the ranking: %+v", a)
	}
	waitUntil(t, "the smart-money ranking", st.SmartMoneyIdle)
	waitUntil(t, "the hit rates", func() bool { _, ok := st.CachedHitRates("5m"); return ok })
	a = scan("objective=smart_money_accumulation")
	if len(a.Results) != 1 || a.Results[0].Symbol != "SCANUSD" || a.Results[0].Metrics.SmartMoney.TopDecileDirection != "BUYING" {
		t.Fatalf("smart money: %+v", a)
	}
	a = scan("objective=unusual_buying&minIndependentSources=3")
	if len(a.Results) != 1 {
		t.Fatalf("three sources: %+v", a)
	}
	r := a.Results[0]
	if strings.Join(r.ConfirmingSources, ",") != "spot_dex_flow,perp_positioning,smart_money" {
		t.Errorf("confirming %v", r.ConfirmingSources)
	}
	tr := *r.SignalTrackRecord1h
	if tr == nil || tr.Samples != 1 || *tr.HitRate != 100 || tr.SymbolSamples != 1 || *tr.SymbolHitRate != 100 || tr.Signal != "BULLISH" {
		t.Fatalf("track record %+v", tr)
	}
	if a.DataQuality.TrackRecordNote != "signalTrackRecord1h: share of the logged changes to the result's direction in the scan's window over the last 30 days whose return 1 hour later was positive in that direction (GET /api/v1/intelligence/track-record); recomputed every 5 minutes" {
		t.Errorf("note %q", a.DataQuality.TrackRecordNote)
	}
	// A BEARISH result would read the BEARISH changes: one sample, a miss.
	if x, ok := (storeTrackRecord{st}).HitRate1h("5m", "BEARISH", "SCANUSD"); !ok || x.Samples != 1 || *x.HitRate != 0 {
		t.Errorf("BEARISH %+v", x)
	}
}

// TestPreTradeVolatilityFromHistory: SCANUSD is not one of the live candle
// view's symbols, so its volatility comes from the history store's 1m
// candles; a symbol without candles stays UNKNOWN.
func TestPreTradeVolatilityFromHistory(t *testing.T) {
	s, _ := newScanServer(t)
	check := func(symbol, window string) market.PreTradeAnswer {
		t.Helper()
		_, _, body := get(t, s, "/api/v1/intelligence/pre-trade?symbol="+symbol+"&window="+window, "")
		var a market.PreTradeAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: %s", body, err)
		}
		return a
	}
	vol := func(a market.PreTradeAnswer) string {
		for _, c := range a.Checks {
			if c.Name == "volatility" {
				return string(c.Result)
			}
		}
		return "absent"
	}
	for _, w := range []string{"5m", "1h", "4h"} {
		if a := check("SCANUSD", w); vol(a) == "UNKNOWN" || vol(a) == "absent" || a.DataQuality.Sources[1].Status != "ok" {
			t.Errorf("SCANUSD %s: volatility %s, %+v", w, vol(a), a.DataQuality)
		}
	}
	if a := check("NOCANDLEUSD", "5m"); vol(a) != "UNKNOWN" {
		t.Errorf("NOCANDLEUSD: volatility %s", vol(a))
	}
}

// waitUntil polls cond until it holds or a minute passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
