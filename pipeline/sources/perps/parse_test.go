package perps

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/perps/perpsreplay"
	"github.com/marketintel/mi/schemas"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "perps/"+name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func handmade(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ms(v int64) int64 { return v * 1e6 }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestNormalize(t *testing.T) {
	f := func(venue, vs, want, wantClass string) {
		t.Helper()
		got, class, ok := Normalize(venue, vs)
		if want == "" {
			if ok {
				t.Fatalf("Normalize(%s, %s) = %s, want no symbol", venue, vs, got)
			}
			return
		}
		if !ok || got != want || class != wantClass {
			t.Fatalf("Normalize(%s, %s) = %s %q %v, want %s %q", venue, vs, got, class, ok, want, wantClass)
		}
	}
	f(VenueBinance, "BTCUSDT", "BTCUSD", "crypto")
	f(VenueBinance, "1000PEPEUSDT", "KPEPEUSD", "perp_only")
	f(VenueBinance, "BTCUSDT_250328", "", "") // dated future
	f(VenueBybit, "ETHUSDT", "ETHUSD", "crypto")
	f(VenueBybit, "SKLUSDT", "SKLUSD", "") // maps, not covered by the registry
	f(VenueBybit, "BTCPERP", "", "")       // USDC perp spelled without its quote
	f(VenueHyperliquid, "BTC", "BTCUSD", "crypto")
	f(VenueHyperliquid, "kPEPE", "KPEPEUSD", "perp_only")
	f(VenueHyperliquid, "xyz:TSLA", "TSLA", "us_equity") // HIP-3 stock perp: the bare ticker
	f(VenueHyperliquid, "xyz:XYZ100", "XYZ100USD", "")   // index perp: maps, not covered
	f(VenueHyperliquid, "@107", "", "")                  // spot pair
	f(VenueHyperliquid, "#22430", "", "")                // outcome side
	f(VenueHyperliquid, ":TSLA", "", "")
	f(VenueHyperliquid, "XYZ:TSLA", "", "") // dex names are lower case
	f(VenueHyperliquid, "xyz:", "", "")
}

// Figures below are read by hand from the fixture files named in each test.
func TestParseBinanceOpenInterestHist(t *testing.T) {
	// binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-15.json: 18:00 and 19:00 UTC.
	pts, rej, err := ParseBinanceOpenInterestHist(fixture(t, "binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-15.json"))
	if err != nil || len(rej) != 0 || len(pts) != 2 {
		t.Fatalf("%d points, %v, %v", len(pts), rej, err)
	}
	want := []OIPoint{
		{"BTCUSDT", 111856.664, 7051831069.120872, ms(1786816800000)},
		{"BTCUSDT", 111688.14, 7039340891.315014, ms(1786820400000)},
	}
	for i, w := range want {
		g := pts[i]
		if g.VenueSymbol != w.VenueSymbol || !near(g.OpenInterest, w.OpenInterest) || !near(g.OpenInterestUSD, w.OpenInterestUSD) || g.ObservedNs != w.ObservedNs {
			t.Fatalf("point %d = %+v, want %+v", i, g, w)
		}
	}
	// binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json: 12:00 and 13:00.
	pts, _, err = ParseBinanceOpenInterestHist(fixture(t, "binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json"))
	if err != nil || len(pts) != 2 || !near(pts[0].OpenInterest, 109026.205) || !near(pts[1].OpenInterestUSD, 6867080628.6789) {
		t.Fatalf("%+v %v", pts, err)
	}
}

func TestParseBinancePremiumIndex(t *testing.T) {
	// binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json (one object: asked with symbol=BTCUSDT).
	ps, rej, err := ParseBinancePremiumIndex(fixture(t, "binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json"))
	if err != nil || len(rej) != 0 || len(ps) != 1 {
		t.Fatalf("%+v %v %v", ps, rej, err)
	}
	p := ps[0]
	if p.VenueSymbol != "BTCUSDT" || p.Mark != 63086.4 || !near(p.Index, 63112.9123913) || p.FundingRate != 0.00009145 ||
		p.NextFundingNs != ms(1785686400000) || p.ObservedNs != ms(1785676356000) {
		t.Fatalf("%+v", p)
	}
	// Without a symbol Binance answers an array; delivery contracts have an
	// empty lastFundingRate (hand-made array around the fixture's object).
	arr := `[` + strings.TrimSpace(string(fixture(t, "binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json"))) +
		`,{"symbol":"BTCUSDT_260925","markPrice":"64000.1","indexPrice":"63112.9","estimatedSettlePrice":"63129.3","lastFundingRate":"","interestRate":"","nextFundingTime":0,"time":1785676356000}` +
		`,{"symbol":"BADUSDT","markPrice":"NaN","indexPrice":"1","lastFundingRate":"0.0001","nextFundingTime":0,"time":1785676356000}]`
	ps, rej, err = ParseBinancePremiumIndex([]byte(arr))
	if err != nil || len(ps) != 2 || len(rej) != 1 || rej[0].VenueSymbol != "BADUSDT" || !strings.HasPrefix(rej[0].Reason, ReasonBadValue) {
		t.Fatalf("%+v %+v %v", ps, rej, err)
	}
}

func TestParseBinanceLongShort(t *testing.T) {
	// binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json.
	ls, rej, err := ParseBinanceLongShort(fixture(t, "binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json"))
	if err != nil || len(rej) != 0 || len(ls) != 2 {
		t.Fatalf("%+v %v %v", ls, rej, err)
	}
	if l := ls[1]; l.Long != 0.6575 || l.Short != 0.3425 || l.Rate != 1.9197 || l.ObservedNs != ms(1785675600000) {
		t.Fatalf("%+v", l)
	}
	if l := ls[0]; l.Long != 0.6561 || l.Short != 0.3439 || l.Rate != 1.9078 {
		t.Fatalf("%+v", l)
	}
	// Shares that do not sum to one are refused.
	_, rej, err = ParseBinanceLongShort([]byte(`[{"symbol":"X","longAccount":"0.9","longShortRatio":"1","shortAccount":"0.9","timestamp":1785675600000}]`))
	if err != nil || len(rej) != 1 {
		t.Fatalf("%v %v", rej, err)
	}
}

func TestParseBinanceFundingInfoAndOpenInterest(t *testing.T) {
	// A live fundingInfo answer quoted in GitHub issue asterdex/api-docs#1
	// ("like this: https://fapi.binance.com/fapi/v1/fundingInfo …"), wrapped
	// in its array brackets; not a fixture file.
	quoted := `[{"symbol":"BLZUSDT","adjustedFundingRateCap":"0.03000000","adjustedFundingRateFloor":"-0.03000000","fundingIntervalHours":4,"disclaimer":false},{"symbol":"GTCUSDT","adjustedFundingRateCap":"0.03000000","adjustedFundingRateFloor":"-0.03000000","fundingIntervalHours":8,"disclaimer":false},{"symbol":"LPTUSDT","adjustedFundingRateCap":"0.02000000","adjustedFundingRateFloor":"-0.02000000","fundingIntervalHours":4,"disclaimer":false},{"symbol":"UNFIUSDT","adjustedFundingRateCap":"0.03000000","adjustedFundingRateFloor":"-0.03000000","fundingIntervalHours":4,"disclaimer":false}]`
	m, rej, err := ParseBinanceFundingInfo([]byte(quoted))
	if err != nil || len(rej) != 0 || len(m) != 4 || m["BLZUSDT"] != 4 || m["GTCUSDT"] != 8 {
		t.Fatalf("%v %v %v", m, rej, err)
	}
	// /fapi/v1/openInterest: hand-made from Binance's documented example
	// (no recorded answer exists in any public repository we could find).
	p, err := ParseBinanceOpenInterest([]byte(`{"openInterest":"10659.509","symbol":"BTCUSDT","time":1589437530011}`))
	if err != nil || p.OpenInterest != 10659.509 || p.ObservedNs != ms(1589437530011) || p.OpenInterestUSD != 0 {
		t.Fatalf("%+v %v", p, err)
	}
	// Binance's error object is a venue error on every endpoint.
	for _, parse := range []func([]byte) error{
		func(b []byte) error { _, _, err := ParseBinanceOpenInterestHist(b); return err },
		func(b []byte) error { _, err := ParseBinanceOpenInterest(b); return err },
		func(b []byte) error { _, _, err := ParseBinancePremiumIndex(b); return err },
		func(b []byte) error { _, _, err := ParseBinanceFundingInfo(b); return err },
		func(b []byte) error { _, _, err := ParseBinanceLongShort(b); return err },
	} {
		err := parse([]byte(`{"code":-1121,"msg":"Invalid symbol."}`))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Reason != ReasonVenueError || !strings.HasPrefix(err.Error(), "venue error: binance") || !errors.Is(err, ErrParse) {
			t.Fatalf("venue error answer: %v", err)
		}
		err = parse([]byte(`[{"symbol":"BTCUSDT","sumOpenInterest":`))
		if !errors.As(err, &pe) || pe.Reason != ReasonMalformedJSON || !strings.HasPrefix(err.Error(), "malformed json: binance") {
			t.Fatalf("truncated answer: %v", err)
		}
	}
}

func TestParseBybit(t *testing.T) {
	// bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json: newest first in the file.
	pts, rej, err := ParseBybitOpenInterest(fixture(t, "bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json"))
	if err != nil || len(rej) != 0 || len(pts) != 2 {
		t.Fatalf("%+v %v %v", pts, rej, err)
	}
	if pts[0].OpenInterest != 65041.568 || pts[0].ObservedNs != ms(1786816800000) || pts[1].OpenInterest != 64992.054 || pts[1].ObservedNs != ms(1786820400000) {
		t.Fatalf("%+v", pts)
	}
	// The funding history envelope parses as an envelope but is not an
	// open-interest answer: no symbol in its result.
	if _, _, err := ParseBybitOpenInterest(fixture(t, "bybit_v5_linear_BTCUSDT_funding_history_2026-08-15.json")); err == nil {
		t.Fatal("funding history accepted as open interest")
	}
	// Account ratio: the example answer of Bybit's API documentation
	// (bybit-exchange.github.io/docs/v5/market/long-short-ratio), not a capture.
	doc := `{"retCode":0,"retMsg":"OK","result":{"list":[{"symbol":"BTCUSDT","buyRatio":"0.5777","sellRatio":"0.4223","timestamp":"1695772800000"}]},"retExtInfo":{},"time":1695785131028}`
	ls, rej, err := ParseBybitAccountRatio([]byte(doc))
	if err != nil || len(rej) != 0 || len(ls) != 1 || ls[0].Long != 0.5777 || ls[0].Short != 0.4223 || ls[0].ObservedNs != ms(1695772800000) || !near(ls[0].Rate, 0.5777/0.4223) {
		t.Fatalf("%+v %v %v", ls, rej, err)
	}
	// retCode ≠ 0 is a venue error.
	_, _, err = ParseBybitAccountRatio([]byte(`{"retCode":10001,"retMsg":"params error: symbol invalid","result":{},"retExtInfo":{},"time":1695785131028}`))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Reason != ReasonVenueError || !strings.Contains(err.Error(), "10001") {
		t.Fatalf("%v", err)
	}
	// Instruments: hand-made from the documented shape (status, contractType,
	// fundingInterval in minutes).
	inst := `{"retCode":0,"retMsg":"OK","result":{"category":"linear","list":[` +
		`{"symbol":"BTCUSDT","contractType":"LinearPerpetual","status":"Trading","fundingInterval":480},` +
		`{"symbol":"MYROUSDT","contractType":"LinearPerpetual","status":"Trading","fundingInterval":240},` +
		`{"symbol":"OLDUSDT","contractType":"LinearPerpetual","status":"Closed","fundingInterval":480},` +
		`{"symbol":"BTCUSDT-26SEP26","contractType":"LinearFutures","status":"Trading","fundingInterval":0}],"nextPageCursor":"abc"},"retExtInfo":{},"time":1786820638506}`
	im, cur, rej, err := ParseBybitInstruments([]byte(inst))
	if err != nil || len(rej) != 0 || cur != "abc" || len(im) != 3 || im["MYROUSDT"].IntervalHours != 4 || !im["OLDUSDT"].Delisted() || im["BTCUSDT"].Delisted() {
		t.Fatalf("%+v %q %v %v", im, cur, rej, err)
	}
}

// bybitWSSnapshots reads the data objects of the last linear "snapshot"
// message of each ticker in the capture (perpsreplay.BybitSnapshots).
func bybitWSSnapshots(t testing.TB) []json.RawMessage {
	t.Helper()
	objs, _, err := perpsreplay.BybitSnapshots(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// bybitRESTTickers wraps the capture's ticker objects in the REST envelope
// (hand-made envelope, real ticker objects): no REST tickers capture exists.
func bybitRESTTickers(t testing.TB, timeMs int64) []byte {
	t.Helper()
	return perpsreplay.TickersEnvelope(bybitWSSnapshots(t), timeMs)
}

func TestParseBybitTickers(t *testing.T) {
	// bybit_linear_tickers_ws_BTC_ETH_SOL_DOGE.jsonl: the linear BTCUSDT
	// snapshot, ts 1786310817583 (2026-08-09 21:26:57 UTC).
	objs := bybitWSSnapshots(t)
	if len(objs) != 4 {
		t.Fatalf("%d snapshots in the capture, want 4 (BTC, ETH, SOL, DOGE)", len(objs))
	}
	var f BybitTickerFields
	if err := json.Unmarshal(objs[0], &f); err != nil {
		t.Fatal(err)
	}
	tk, err := f.Ticker()
	if err != nil {
		t.Fatal(err)
	}
	if tk.VenueSymbol != "BTCUSDT" || tk.Mark != 65117.44 || tk.Index != 65137.76 || tk.OpenInterest != 59891.732 ||
		tk.OpenInterestUSD != 3899996265.01 || tk.FundingRate != 0.0001 || tk.IntervalHours != 8 ||
		tk.NextFundingNs != ms(1786320000000) || tk.Turnover24h != 1142118412.9021 {
		t.Fatalf("%+v", tk)
	}
	ts, ns, rej, err := ParseBybitTickers(bybitRESTTickers(t, 1786310817583))
	if err != nil || len(rej) != 0 || len(ts) != 4 || ns != ms(1786310817583) {
		t.Fatalf("%d tickers, time %d, %v, %v", len(ts), ns, rej, err)
	}
}

func TestParseHyperliquidMetaAndAssetCtxs(t *testing.T) {
	// hyperliquid_info_metaAndAssetCtxs_2026-02-06.json: 228 perps, 38 delisted.
	as, rej, err := ParseHyperliquidMetaAndAssetCtxs(fixture(t, "hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"))
	if err != nil || len(rej) != 0 || len(as) != 228 {
		t.Fatalf("%d assets, %v, %v", len(as), rej, err)
	}
	btc := as[0]
	if btc.Name != "BTC" || btc.Dex != "" || btc.OpenInterest != 22727.78266 || btc.Mark != 66344 || btc.Oracle != 66383 ||
		btc.Funding != -0.000003688 || !near(btc.DayNtlVlm, 12377419030.3486595154) || btc.Delisted {
		t.Fatalf("%+v", btc)
	}
	if as[3].Name != "MATIC" || !as[3].Delisted {
		t.Fatalf("%+v", as[3])
	}
	delisted := 0
	for _, a := range as {
		if a.Delisted {
			delisted++
		}
	}
	if delisted != 38 {
		t.Fatalf("%d delisted, want 38", delisted)
	}
	// hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json: 43 HIP-3 markets.
	xs, rej, err := ParseHyperliquidMetaAndAssetCtxs(fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json"))
	if err != nil || len(rej) != 0 || len(xs) != 43 {
		t.Fatalf("%d assets, %v, %v", len(xs), rej, err)
	}
	if x := xs[1]; x.Name != "xyz:TSLA" || x.Dex != "xyz" || x.Mark != 399.52 || x.OpenInterest != 39552.404 || x.Funding != 0.00000625 {
		t.Fatalf("%+v", x)
	}
	// The spot answer has the same shape but no funding or open interest:
	// every pair is refused, none is taken for a perp.
	ss, rej, err := ParseHyperliquidMetaAndAssetCtxs(fixture(t, "hyperliquid_info_spotMetaAndAssetCtxs_2025-11-09.json"))
	if err == nil && len(ss) != 0 {
		t.Fatalf("spot answer gave %d perps (%d rejects)", len(ss), len(rej))
	}
	// Universe and contexts of different lengths, and truncation, are malformed.
	for _, bad := range []string{
		`[{"universe":[{"name":"BTC"}]},[]]`,
		`[{"universe":[]}]`,
		`[{"universe":[{"name":"BTC"}]},[{"funding":"0.1","openInterest":"1","markPx":"1"`,
	} {
		var pe *ParseError
		if _, _, err := ParseHyperliquidMetaAndAssetCtxs([]byte(bad)); !errors.As(err, &pe) || pe.Reason != ReasonMalformedJSON {
			t.Fatalf("%s: %v", bad, err)
		}
	}
}

func TestParseHyperliquidOutcomes(t *testing.T) {
	outs, qs, rej, err := ParseHyperliquidOutcomeMeta(handmade(t, "outcomeMeta_handmade.json"))
	if err != nil || len(rej) != 0 || len(outs) != 6 || len(qs) != 1 {
		t.Fatalf("%+v %+v %v %v", outs, qs, rej, err)
	}
	if qs[0].Fallback != 13 || len(qs[0].Named) != 3 || outs[0].Sides[0] != "Hypurr" {
		t.Fatalf("%+v %+v", qs[0], outs[0])
	}
	// hyperliquid_info_allMids_2023-07-17.json: 28 mids, ARB 1.28895.
	mids, rej, err := ParseHyperliquidAllMids(fixture(t, "hyperliquid_info_allMids_2023-07-17.json"))
	if err != nil || len(rej) != 0 || len(mids) != 28 || mids["ARB"] != 1.28895 {
		t.Fatalf("%d mids %v %v", len(mids), rej, err)
	}
	// hyperliquid_info_candleSnapshot_kPEPE_1h_2023-05-21.json: 24 hourly
	// candles from 2023-05-21 20:00; the first o 0.001601 c 0.001604 v 520665683.
	cs, rej, err := ParseHyperliquidCandles(fixture(t, "hyperliquid_info_candleSnapshot_kPEPE_1h_2023-05-21.json"))
	if err != nil || len(rej) != 0 || len(cs) != 24 {
		t.Fatalf("%d candles %v %v", len(cs), rej, err)
	}
	if c := cs[0]; c.StartNs != ms(1684699200000) || c.Open != 0.001601 || c.Close != 0.001604 || c.Volume != 520665683 || c.Trades != 709 {
		t.Fatalf("%+v", c)
	}
	// The 24 h volume counts the candles starting after at−24h, up to at.
	last := cs[23].StartNs
	if v := CandleVolumeUSD(cs, last); !near(v, sum(cs, func(c HLCandle) float64 { return c.Volume * c.Close })) {
		t.Fatalf("24h volume %v", v)
	}
	if v := CandleVolumeUSD(cs, last+int64(time.Hour)); near(v, sum(cs, func(c HLCandle) float64 { return c.Volume * c.Close })) {
		t.Fatal("an hour later the first candle still counts")
	}

	hmMids, _, err := ParseHyperliquidAllMids(handmade(t, "allMids_outcomes_handmade.json"))
	if err != nil {
		t.Fatal(err)
	}
	oc, _, err := ParseHyperliquidCandles(handmade(t, "candleSnapshot_outcome_handmade.json"))
	if err != nil {
		t.Fatal(err)
	}
	readNs := time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC).UnixNano()
	qts := BuildOutcomeQuotes(OutcomeInput{
		ReadNs: readNs, Source: "poll:hyperliquid-outcomes", Outcomes: outs, Questions: qs, Mids: hmMids,
		VolumeUSD: map[string]float64{"#22430": CandleVolumeUSD(oc, readNs), "#22431": 1000},
	})
	byID := map[string]*schemas.PredictionQuote{}
	for _, q := range qts {
		if err := schemas.ValidatePredictionQuote(q); err != nil {
			t.Fatal(err)
		}
		byID[q.MarketId] = q
	}
	if len(qts) != 5 || byID["12"] != nil { // 12 is settled
		t.Fatalf("%d quotes: %v", len(qts), byID)
	}
	if q := byID["9"]; q.Question != "Who will win the HL 100 meter dash?" || q.Option != "Hypurr" || q.Probability != 0.62 || q.Category != CategoryEvent {
		t.Fatalf("%+v", q)
	}
	if q := byID["10"]; q.Question != "What will Hypurr eat the most of in Feb 2026?" || q.Option != "Fish" || q.Probability != 0.41 {
		t.Fatalf("%+v", q)
	}
	// 12000 × 0.43 + 8000 × 0.455 on the Yes side, plus 1000 on the No side.
	if q := byID["2243"]; q.Question != "Is BTC above 71169 at 2026-03-27 03:00 UTC?" || q.Option != "Yes" || q.Probability != 0.455 ||
		q.Category != CategoryCryptoPrice || q.Underlying != "BTC" || q.Coin != "#22430" || !near(q.DayVolumeUsd, 12000*0.43+8000*0.455+1000) ||
		q.ExpiryNs != time.Date(2026, 3, 27, 3, 0, 0, 0, time.UTC).UnixNano() {
		t.Fatalf("%+v", q)
	}
}

func sum[T any](xs []T, f func(T) float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += f(x)
	}
	return s
}
