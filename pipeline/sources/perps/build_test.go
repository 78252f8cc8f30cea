package perps

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares v, as indented JSON, with testdata/name (rewritten with
// -update). Snapshots marshal through their JSON tags (the protobuf field
// names); protojson is avoided because its output varies on purpose.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the output:\n%s", path, got)
	}
}

func validAll(t *testing.T, snaps []*schemas.PerpSnapshot) {
	t.Helper()
	for _, s := range snaps {
		if err := schemas.ValidatePerpSnapshot(s); err != nil {
			t.Fatalf("%s %s: %v", s.Venue, s.VenueSymbol, err)
		}
	}
}

var readAt = time.Date(2026, 8, 15, 19, 4, 0, 0, time.UTC).UnixNano()

func TestBuildBinance(t *testing.T) {
	prem, _, err := ParseBinancePremiumIndex(fixture(t, "binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json"))
	if err != nil {
		t.Fatal(err)
	}
	hist, _, err := ParseBinanceOpenInterestHist(fixture(t, "binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json"))
	if err != nil {
		t.Fatal(err)
	}
	ls, _, err := ParseBinanceLongShort(fixture(t, "binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json"))
	if err != nil {
		t.Fatal(err)
	}
	in := BinanceInput{
		ReadNs: time.Date(2026, 8, 2, 13, 15, 0, 0, time.UTC).UnixNano(), Source: "poll:binance-usdm", Period: "5m",
		Premium: map[string]BinancePremium{"BTCUSDT": prem[0]},
		OIHist:  map[string][]OIPoint{"BTCUSDT": hist},
		Ratios:  map[string]LongShortPoint{"BTCUSDT": ls[len(ls)-1]},
	}
	snaps, rej := BuildBinance(in, []string{"BTCUSDT", "ETHUSDT", "BTCUSDT_250328"})
	validAll(t, snaps)
	if len(rej) != 1 || rej[0].VenueSymbol != "BTCUSDT_250328" {
		t.Fatalf("rejects %+v", rej)
	}
	// BTCUSDT: the 12:00 point is history; the snapshot holds the 13:00 open
	// interest (108,833.193 BTC, $6,867,080,628.68), observed at 13:00 (the
	// older of the open interest and the premium index at 13:12:36), the
	// fixture's mark 63,086.4 and rate 0.00009145 every 8 h (default: not in
	// fundingInfo), and the 13:00 account shares 65.75 % / 34.25 %.
	// ETHUSDT is not in premiumIndex: delisted.
	if len(snaps) != 3 || !snaps[0].History || snaps[1].OpenInterest != 108833.193 ||
		snaps[1].ObservedNs != ms(1785675600000) || snaps[1].LongShort.LongShare != 0.6575 || !snaps[2].Delisted {
		t.Fatalf("%+v", snaps)
	}
	golden(t, "build_binance.golden.json", snaps)

	// A current open interest newer than the history values its contracts at
	// the mark price; an adjusted interval comes from fundingInfo.
	in.OICurrent = map[string]OIPoint{"BTCUSDT": {VenueSymbol: "BTCUSDT", OpenInterest: 100000, ObservedNs: ms(1785676000000)}}
	in.Intervals = map[string]float64{"BTCUSDT": 4}
	snaps, _ = BuildBinance(in, []string{"BTCUSDT"})
	validAll(t, snaps)
	s := snaps[len(snaps)-1]
	if len(snaps) != 3 || !near(s.OpenInterestUsd, 100000*63086.4) || s.FundingIntervalHours != 4 || s.FundingIntervalSource != "venue" ||
		s.ObservedNs != ms(1785676000000) {
		t.Fatalf("%+v", s)
	}
	// premiumIndex failed: history only, nothing reported delisted.
	in.Premium = nil
	snaps, _ = BuildBinance(in, []string{"BTCUSDT", "ETHUSDT"})
	for _, s := range snaps {
		if !s.History {
			t.Fatalf("snapshot without premium index: %+v", s)
		}
	}
}

func TestBuildBybit(t *testing.T) {
	ts, ns, _, err := ParseBybitTickers(bybitRESTTickers(t, 1786310820000))
	if err != nil {
		t.Fatal(err)
	}
	hist, _, err := ParseBybitOpenInterest(fixture(t, "bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json"))
	if err != nil {
		t.Fatal(err)
	}
	// History older than the tickers counts; these points (15 Aug) are
	// newer than the tickers capture (9 Aug) and are dropped: a history
	// point never stands in for a newer snapshot.
	snaps, rej := BuildBybit(BybitInput{
		ReadNs: ns + int64(time.Second), TimeNs: ns, Source: "poll:bybit-linear", Period: "5m", Tickers: ts,
		OIHist:  map[string][]OIPoint{"BTCUSDT": hist},
		Ratios:  map[string]LongShortPoint{"BTCUSDT": {Long: 0.5777, Short: 0.4223, Rate: 1.368, ObservedNs: ns}},
		Symbols: []string{"BTCUSDT", "GONEUSDT", "ETH-26SEP26"},
	})
	validAll(t, snaps)
	if len(rej) != 1 || rej[0].VenueSymbol != "ETH-26SEP26" {
		t.Fatalf("rejects %+v", rej)
	}
	// BTC, DOGE, ETH, SOL from the capture, then GONEUSDT delisted.
	if len(snaps) != 5 || snaps[0].VenueSymbol != "BTCUSDT" || snaps[0].OpenInterestUsd != 3899996265.01 ||
		snaps[0].FundingIntervalHours != 8 || snaps[0].FundingIntervalSource != "venue" || snaps[0].LongShort.Kind != "account" ||
		!snaps[4].Delisted || snaps[4].VenueSymbol != "GONEUSDT" {
		t.Fatalf("%+v", snaps)
	}
	golden(t, "build_bybit.golden.json", snaps)

	// Backfill: points older than the tickers become history, valued at the
	// poll's mark; instruments-info marks closed perps delisted.
	later := ms(1786820640000)
	snaps, _ = BuildBybit(BybitInput{
		ReadNs: later, TimeNs: later, Tickers: ts[:1], OIHist: map[string][]OIPoint{"BTCUSDT": hist},
		Instruments: map[string]BybitInstrument{"BTCUSDT": {Status: "Trading", IntervalHours: 8}},
	})
	validAll(t, snaps)
	if len(snaps) != 3 || !snaps[0].History || snaps[0].OpenInterest != 65041.568 || !near(snaps[0].OpenInterestUsd, 65041.568*65117.44) || snaps[2].History {
		t.Fatalf("%+v", snaps)
	}
	snaps, _ = BuildBybit(BybitInput{ReadNs: later, TimeNs: later, Tickers: ts[:1],
		Instruments: map[string]BybitInstrument{"BTCUSDT": {Status: "Closed"}}})
	if len(snaps) != 1 || !snaps[0].Delisted {
		t.Fatalf("%+v", snaps)
	}
	if snaps, _ := BuildBybit(BybitInput{ReadNs: later, Symbols: []string{"BTCUSDT"}}); len(snaps) != 0 {
		t.Fatal("tickers failed but snapshots were built")
	}
}

func TestBuildHyperliquid(t *testing.T) {
	main, _, err := ParseHyperliquidMetaAndAssetCtxs(fixture(t, "hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"))
	if err != nil {
		t.Fatal(err)
	}
	xyz, _, err := ParseHyperliquidMetaAndAssetCtxs(fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The cassette was recorded 2026-02-06 12:54:16 UTC: the Date header of
	// its answer.
	rec := time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC).UnixNano()
	snaps := BuildHyperliquid(HyperliquidInput{ReadNs: rec + int64(time.Second), ObservedNs: rec, Source: "poll:hyperliquid", Assets: append(main, xyz...)})
	validAll(t, snaps)
	by := map[string]*schemas.PerpSnapshot{}
	for _, s := range snaps {
		by[s.VenueSymbol] = s
	}
	// 228 + 43 perps, less the coins the registry does not map (kLUNC,
	// kDOGS, kNEIRO: 1,000-coin contracts it does not list).
	if len(snaps) != 228+43-3 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	if s := by["BTC"]; s.Symbol != "BTCUSD" || !near(s.OpenInterestUsd, 22727.78266*66344) || s.FundingRate != -0.000003688 ||
		s.FundingIntervalHours != 1 || s.ObservedNs != rec || s.NextFundingNs != time.Date(2026, 2, 6, 13, 0, 0, 0, time.UTC).UnixNano() {
		t.Fatalf("%+v", s)
	}
	if s := by["xyz:TSLA"]; s.Symbol != "TSLA" || s.AssetClass != "us_equity" || s.Dex != "xyz" || !near(s.OpenInterestUsd, 39552.404*399.52) {
		t.Fatalf("%+v", s)
	}
	if s := by["kPEPE"]; s.Symbol != "KPEPEUSD" || s.AssetClass != "perp_only" {
		t.Fatalf("%+v", s)
	}
	if s := by["MATIC"]; !s.Delisted || s.OpenInterest != 0 {
		t.Fatalf("%+v", s)
	}
	golden(t, "build_hyperliquid_first3.golden.json", snaps[:3])
}
