package perps

import (
	"errors"
	"math"
	"testing"
)

// Every decoder of venue answers is fuzzed, seeded with the real captures
// (and the hand-made inputs where no capture exists). A decoder must never
// panic; it returns an error wrapping ErrParse whose text starts with a
// dead-letter phrase, or values that are finite and in range.

func checkParseErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrParse) || (pe.Reason != ReasonMalformedJSON && pe.Reason != ReasonVenueError) {
		t.Fatalf("error %v is not a *ParseError with a dead-letter reason", err)
	}
}

func finite(t *testing.T, what string, vs ...float64) {
	t.Helper()
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e18 {
			t.Fatalf("%s: value %v", what, v)
		}
	}
}

func FuzzBinance(f *testing.F) {
	for _, n := range []string{
		"binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-15.json", "binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json",
		"binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json", "binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json",
		"binance_usdm_BTCUSDT_fundingRate_2026-08-15.json", "binance_usdm_BTCUSDT_takerlongshortRatio_1h_2026-08-02.json",
	} {
		f.Add(fixture(f, n))
	}
	f.Add([]byte(`{"openInterest":"10659.509","symbol":"BTCUSDT","time":1589437530011}`))
	f.Add([]byte(`[{"symbol":"BLZUSDT","fundingIntervalHours":4}]`))
	f.Add([]byte(`{"code":-1121,"msg":"Invalid symbol."}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		pts, _, err := ParseBinanceOpenInterestHist(b)
		checkParseErr(t, err)
		for i, p := range pts {
			finite(t, "open interest", p.OpenInterest, p.OpenInterestUSD)
			if p.OpenInterest < 0 || p.OpenInterestUSD < 0 || (i > 0 && pts[i-1].ObservedNs > p.ObservedNs) {
				t.Fatalf("point %+v", p)
			}
		}
		p, err := ParseBinanceOpenInterest(b)
		checkParseErr(t, err)
		finite(t, "open interest", p.OpenInterest)
		ps, _, err := ParseBinancePremiumIndex(b)
		checkParseErr(t, err)
		for _, p := range ps {
			finite(t, "premium", p.Mark, p.Index, p.FundingRate)
		}
		m, _, err := ParseBinanceFundingInfo(b)
		checkParseErr(t, err)
		for _, h := range m {
			if !(h > 0) {
				t.Fatalf("interval %v", h)
			}
		}
		ls, _, err := ParseBinanceLongShort(b)
		checkParseErr(t, err)
		for _, l := range ls {
			if l.Long < 0 || l.Long > 1 || l.Short < 0 || l.Short > 1 {
				t.Fatalf("shares %+v", l)
			}
		}
	})
}

func FuzzBybit(f *testing.F) {
	f.Add(fixture(f, "bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json"))
	f.Add(fixture(f, "bybit_v5_linear_BTCUSDT_funding_history_2026-08-15.json"))
	f.Add(bybitRESTTickers(f, 1786310820000))
	f.Add([]byte(`{"retCode":0,"retMsg":"OK","result":{"list":[{"symbol":"BTCUSDT","buyRatio":"0.5777","sellRatio":"0.4223","timestamp":"1695772800000"}]},"retExtInfo":{},"time":1695785131028}`))
	f.Add([]byte(`{"retCode":0,"retMsg":"OK","result":{"category":"linear","list":[{"symbol":"BTCUSDT","contractType":"LinearPerpetual","status":"Trading","fundingInterval":480}],"nextPageCursor":""},"time":1}`))
	f.Add([]byte(`{"retCode":10006,"retMsg":"Too many visits!","result":{},"time":1786820638506}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, _, _, err := ParseBybitTickers(b)
		checkParseErr(t, err)
		for _, x := range ts {
			finite(t, "ticker", x.Mark, x.Index, x.OpenInterest, x.OpenInterestUSD, x.FundingRate, x.IntervalHours, x.Turnover24h)
			if x.Mark < 0 || x.OpenInterest < 0 || x.OpenInterestUSD < 0 || x.IntervalHours < 0 {
				t.Fatalf("ticker %+v", x)
			}
		}
		pts, _, err := ParseBybitOpenInterest(b)
		checkParseErr(t, err)
		for _, p := range pts {
			finite(t, "open interest", p.OpenInterest)
		}
		ls, _, err := ParseBybitAccountRatio(b)
		checkParseErr(t, err)
		for _, l := range ls {
			finite(t, "ratio", l.Long, l.Short, l.Rate)
		}
		_, _, _, err = ParseBybitInstruments(b)
		checkParseErr(t, err)
	})
}

func FuzzHyperliquid(f *testing.F) {
	for _, n := range []string{
		"hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json", "hyperliquid_info_allMids_2023-07-17.json",
		"hyperliquid_info_candleSnapshot_kPEPE_1h_2023-05-21.json", "hyperliquid_info_meta_2023-07-17.json",
		"hyperliquid_info_fundingHistory_BTC_2023-05-12_2023-05-23_endTime.json",
	} {
		f.Add(fixture(f, n))
	}
	for _, n := range []string{"outcomeMeta_handmade.json", "allMids_outcomes_handmade.json", "candleSnapshot_outcome_handmade.json"} {
		f.Add(handmade(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		as, _, err := ParseHyperliquidMetaAndAssetCtxs(b)
		checkParseErr(t, err)
		for _, a := range as {
			finite(t, "asset", a.OpenInterest, a.Mark, a.Oracle, a.Funding, a.DayNtlVlm)
			if a.OpenInterest < 0 || a.Mark < 0 {
				t.Fatalf("asset %+v", a)
			}
		}
		snaps := BuildHyperliquid(HyperliquidInput{ReadNs: readAt, Assets: as})
		for _, s := range snaps {
			finite(t, "snapshot", s.OpenInterestUsd)
		}
		outs, qs, _, err := ParseHyperliquidOutcomeMeta(b)
		checkParseErr(t, err)
		mids, _, err := ParseHyperliquidAllMids(b)
		checkParseErr(t, err)
		cs, _, err := ParseHyperliquidCandles(b)
		checkParseErr(t, err)
		finite(t, "volume", CandleVolumeUSD(cs, readAt))
		for _, q := range BuildOutcomeQuotes(OutcomeInput{ReadNs: readAt, Outcomes: outs, Questions: qs, Mids: mids}) {
			if q.Probability < 0 || q.Probability > 1 || q.Question == "" {
				t.Fatalf("quote %+v", q)
			}
		}
	})
}
