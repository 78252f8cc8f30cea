package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

var updatePositioning = flag.Bool("update", false, "rewrite golden files under testdata/")

// The figures of these snapshots are the real captures' (read by hand):
// Binance BTCUSDT 2026-08-02 (openInterestHist 12:00 and 13:00, premiumIndex
// 13:12:36, globalLongShortAccountRatio 13:00), Bybit BTCUSDT tickers
// 2026-08-09 21:26:57 (placed at 13:05 on 2026-08-02 here so that the
// venues share an hour) and Hyperliquid BTC 2026-02-06.
var pT = time.Date(2026, 8, 2, 13, 0, 0, 0, time.UTC)

func ns(d time.Duration) int64 { return pT.Add(d).UnixNano() }

func binanceBTC() []*schemas.PerpSnapshot {
	return []*schemas.PerpSnapshot{
		{Venue: "binance", VenueSymbol: "BTCUSDT", Symbol: "BTCUSD", AssetClass: "crypto", History: true,
			ObservedNs: ns(-time.Hour), ReadNs: ns(15 * time.Minute), OpenInterest: 109026.205, OpenInterestUsd: 6869451556.047107, Source: "poll:binance-usdm"},
		{Venue: "binance", VenueSymbol: "BTCUSDT", Symbol: "BTCUSD", AssetClass: "crypto",
			ObservedNs: ns(0), ReadNs: ns(15 * time.Minute), OpenInterest: 108833.193, OpenInterestUsd: 6867080628.6789,
			MarkPrice: 63086.4, IndexPrice: 63112.9123913, FundingRate: 0.00009145, FundingIntervalHours: 8, FundingIntervalSource: "default",
			NextFundingNs: ns(3 * time.Hour), Source: "poll:binance-usdm",
			LongShort: &schemas.LongShort{Kind: "global_account", LongShare: 0.6575, ShortShare: 0.3425, Ratio: 1.9197, Period: "5m", ObservedNs: ns(0)}},
	}
}

func bybitBTC() *schemas.PerpSnapshot {
	return &schemas.PerpSnapshot{Venue: "bybit", VenueSymbol: "BTCUSDT", Symbol: "BTCUSD", AssetClass: "crypto",
		ObservedNs: ns(5 * time.Minute), ReadNs: ns(5*time.Minute + time.Second), OpenInterest: 59891.732, OpenInterestUsd: 3899996265.01,
		MarkPrice: 65117.44, IndexPrice: 65137.76, FundingRate: 0.0001, FundingIntervalHours: 8, FundingIntervalSource: "venue",
		NextFundingNs: ns(3 * time.Hour), DayVolumeUsd: 1142118412.9021, Source: "poll:bybit-linear"}
}

func hyperliquidBTC() *schemas.PerpSnapshot {
	at := time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC).UnixNano()
	return &schemas.PerpSnapshot{Venue: "hyperliquid", VenueSymbol: "BTC", Symbol: "BTCUSD", AssetClass: "crypto",
		ObservedNs: at, ReadNs: at + 1e9, OpenInterest: 22727.78266, OpenInterestUsd: 22727.78266 * 66344, MarkPrice: 66344, IndexPrice: 66383,
		FundingRate: -0.000003688, FundingIntervalHours: 1, FundingIntervalSource: "default", Source: "poll:hyperliquid"}
}

func applyAll(t *testing.T, p *Positioning, snaps ...*schemas.PerpSnapshot) {
	t.Helper()
	for _, s := range snaps {
		if err := p.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
}

type fakeSpot map[string]*schemas.IntelligenceDocument

func (f fakeSpot) Get(symbol, window string) (*schemas.IntelligenceDocument, bool) {
	d, ok := f[symbol+"|"+window]
	return d, ok
}

func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := "testdata/" + name
	if *updatePositioning {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\n%s", path, got)
	}
}

func TestPositioningAnswer(t *testing.T) {
	p := NewPositioning()
	applyAll(t, p, binanceBTC()...)
	applyAll(t, p, bybitBTC(), hyperliquidBTC())
	now := pT.Add(14 * time.Minute)
	spot := fakeSpot{"BTCUSD|5m": {Symbol: "BTCUSD", Window: "5m", Price: 63090, Volume: 1.5e6, BuyPressure: 58.2,
		PriceChangePercent: 0.12, Signal: "BULLISH", TimestampNs: ns(13 * time.Minute)}}
	a, err := p.Answer("BTCUSD", now, spot)
	if err != nil {
		t.Fatal(err)
	}
	// Hyperliquid's row (February) is shown but not summed; Binance and
	// Bybit are.
	if len(a.Venues) != 3 || a.Totals.Venues != 2 || len(a.Totals.Excluded) != 1 || a.Totals.Excluded[0].Venue != "hyperliquid" ||
		a.Venues[2].InTotals || !a.Venues[2].Stale {
		t.Fatalf("%+v", a)
	}
	if got, want := a.Totals.OpenInterestUSD, 6867080628.6789+3899996265.01; got != want {
		t.Fatalf("total %v, want %v", got, want)
	}
	// Only Binance publishes a share here: 65.75 % long → CROWDED_LONG.
	if a.Flag != operators.FlagCrowdedLong || *a.Totals.LongShare != 0.6575 || len(a.Totals.LongShareVenues) != 1 {
		t.Fatalf("flag %s share %v", a.Flag, a.Totals.LongShare)
	}
	// 1 h change: Binance alone has a point an hour back:
	// 6,867,080,628.68 / 6,869,451,556.05 − 1 = −0.0345 %.
	c := a.Change.OpenInterest1h
	if c == nil || c.Percent != -0.0345 || !c.Incomplete || len(c.Venues) != 1 || a.Venues[0].Change1hPercent == nil || *a.Venues[0].Change1hPercent != -0.0345 {
		t.Fatalf("change %+v", c)
	}
	if a.Change.OpenInterest24h != nil {
		t.Fatalf("24h change without data: %+v", a.Change.OpenInterest24h)
	}
	// Funding: 0.00009145 × 1095 = 10.0138 %/yr on Binance.
	if a.Venues[0].Funding.AnnualizedPercent != 10.0138 || a.Venues[1].Funding.AnnualizedPercent != 10.95 {
		t.Fatalf("%+v %+v", a.Venues[0].Funding, a.Venues[1].Funding)
	}
	if a.SpotFlow == nil || a.SpotFlow.BuyPressure != 58.2 || a.SpotFlow.AgeSeconds != 60 || a.Coverage.Partial {
		t.Fatalf("spot %+v coverage %+v", a.SpotFlow, a.Coverage)
	}
	if a.Stale || a.AsOf == nil || !a.AsOf.Equal(pT) {
		t.Fatalf("stale %v asOf %v", a.Stale, a.AsOf)
	}
	goldenJSON(t, "positioning_btcusd.golden.json", a)

	// Five minutes later nothing new has come: Binance's row (19 min old)
	// is stale, with its age, Bybit's (14 min) is not, and the answer says so.
	a, _ = p.Answer("BTCUSD", pT.Add(19*time.Minute), spot)
	if !a.Stale || !a.Venues[0].Stale || a.Venues[0].AgeSeconds != 19*60 || a.Venues[1].Stale {
		t.Fatalf("stale %v rows %+v", a.Stale, a.Venues[:2])
	}

	c2, ok := p.Crowding("BTCUSD", now)
	if !ok || c2.Flag != operators.FlagCrowdedLong || !c2.HasShare || c2.LongShare != 0.6575 || len(c2.RatioKinds) != 1 ||
		c2.RatioKinds[0] != "global_account" || c2.OpenInterestUSD != a.Totals.OpenInterestUSD || !c2.ObservedAt.Equal(pT) ||
		!c2.ReadAt.Equal(pT.Add(15*time.Minute)) || c2.FundingAnnualizedPercent != a.Totals.FundingAnnualizedPercent {
		t.Fatalf("%+v", c2)
	}
	if _, ok := p.Crowding("ETHUSD", now); ok {
		t.Fatal("crowding of an unknown symbol")
	}
}

func TestPositioningCoverage(t *testing.T) {
	p := NewPositioning()
	now := pT.Add(time.Minute)
	// No perp, no spot: the route's 404.
	if _, err := p.Answer("ETHUSD", now, nil); !errors.Is(err, ErrNoPositioning) {
		t.Fatal(err)
	}
	// Spot only: a partial answer.
	a, err := p.Answer("ETHUSD", now, fakeSpot{"ETHUSD|5m": {Symbol: "ETHUSD", TimestampNs: ns(0)}})
	if err != nil || !a.Coverage.Partial || a.SpotFlow == nil || len(a.Venues) != 0 || a.Flag != operators.FlagNone {
		t.Fatalf("%+v %v", a, err)
	}
	// A perp-only instrument: partial, with the reason.
	applyAll(t, p, &schemas.PerpSnapshot{Venue: "hyperliquid", VenueSymbol: "kPEPE", Symbol: "KPEPEUSD", AssetClass: "perp_only",
		ObservedNs: ns(0), ReadNs: ns(0), OpenInterest: 2847109066, OpenInterestUsd: 2847109066 * 0.003663, MarkPrice: 0.003663,
		FundingRate: -0.0000069587, FundingIntervalHours: 1, FundingIntervalSource: "default"})
	a, err = p.Answer("KPEPEUSD", now, fakeSpot{})
	if err != nil || !a.PerpOnly || !a.Coverage.Partial || a.Flag != operators.FlagNone || len(a.Notes) != 1 {
		t.Fatalf("%+v %v", a, err)
	}
	// Thin: below $50k.
	applyAll(t, p, &schemas.PerpSnapshot{Venue: "bybit", VenueSymbol: "TINYUSDT", Symbol: "TINYUSD",
		ObservedNs: ns(0), ReadNs: ns(0), OpenInterest: 10, OpenInterestUsd: 49_999, MarkPrice: 4999.9, FundingIntervalHours: 8,
		LongShort: &schemas.LongShort{Kind: "account", LongShare: 0.9, ShortShare: 0.1}})
	if a, _ := p.Answer("TINYUSD", now, nil); a.Flag != operators.FlagThin {
		t.Fatalf("flag %s", a.Flag)
	}
	// Delisted: listed apart, out of the totals; a relisting later wins.
	applyAll(t, p, bybitBTC())
	gone := bybitBTC()
	gone.ObservedNs, gone.Delisted = ns(10*time.Minute), true
	gone.OpenInterest, gone.OpenInterestUsd = 0, 0
	applyAll(t, p, gone)
	a, _ = p.Answer("BTCUSD", now, nil)
	if len(a.Venues) != 0 || len(a.Delisted) != 1 || a.Totals != nil || !a.Coverage.Partial {
		t.Fatalf("%+v", a)
	}
	back := bybitBTC()
	back.ObservedNs = ns(15 * time.Minute)
	applyAll(t, p, back)
	if a, _ = p.Answer("BTCUSD", now, nil); len(a.Venues) != 1 || len(a.Delisted) != 0 {
		t.Fatalf("%+v", a)
	}
	// Invalid records are refused with the dead-letter reason.
	bad := bybitBTC()
	bad.FundingRate = 2
	if err := p.Apply(bad); !errors.Is(err, schemas.ErrInvalidPositioning) {
		t.Fatal(err)
	}
}

// The same set of records in any order gives the same answer, duplicates
// included (at-least-once delivery), and the 24 h change comes from points
// 24 h back within the tolerance.
func TestPositioningOrderIndependent(t *testing.T) {
	var recs []*schemas.PerpSnapshot
	for i := 0; i <= 26*12; i++ { // every 5 minutes over 26 h
		at := time.Duration(i-26*12) * 5 * time.Minute
		s := bybitBTC()
		s.ObservedNs, s.ReadNs = ns(at), ns(at+time.Second)
		s.OpenInterestUsd = 3.9e9 * (1 + float64(i)/1000)
		recs = append(recs, s)
		if i%12 == 0 { // hourly history points too
			h := bybitBTC()
			h.History, h.ObservedNs, h.ReadNs = true, ns(at), ns(at+time.Second)
			h.OpenInterestUsd = 1 // loses against the snapshot of the same time
			recs = append(recs, h)
		}
	}
	recs = append(recs, binanceBTC()...)
	recs = append(recs, recs[5], recs[17]) // duplicates
	now := pT.Add(time.Minute)
	var first []byte
	r := rand.New(rand.NewPCG(7, 11))
	for run := 0; run < 6; run++ {
		p := NewPositioning()
		order := r.Perm(len(recs))
		for _, i := range order {
			if err := p.Apply(recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		a, err := p.Answer("BTCUSD", now, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(a)
		if first == nil {
			first = b
			if a.Change.OpenInterest24h == nil || a.Venues[1].Change24hPercent == nil {
				t.Fatalf("no 24h change: %s", b)
			}
			// Bybit's own change: i = 312 now, 24 h earlier i = 24.
			if got, want := *a.Venues[1].Change24hPercent, pct(100*((1+312.0/1000)/(1+24.0/1000)-1)); got != want {
				t.Fatalf("24h change %v, want %v", got, want)
			}
			continue
		}
		if !bytes.Equal(b, first) {
			t.Fatalf("order %d gives another answer:\n%s\n%s", run, b, first)
		}
	}
}

func BenchmarkPositioningAnswer(b *testing.B) {
	p := NewPositioning()
	for i := 0; i <= 25*12; i++ {
		at := time.Duration(i-25*12) * 5 * time.Minute
		for _, s := range append(binanceBTC()[1:], bybitBTC()) {
			s.ObservedNs, s.ReadNs = ns(at), ns(at)
			if err := p.Apply(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	spot := fakeSpot{"BTCUSD|5m": {Symbol: "BTCUSD", TimestampNs: ns(0)}}
	now := pT.Add(time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		a, err := p.Answer("BTCUSD", now, spot)
		if err != nil || a.Totals == nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(a); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCrowdingMatchesAnswer: the scan's lean read gives the answer's
// totals, flag and staleness — with a row left out of the totals (the
// Hyperliquid row of February), a row without a share, a perp-only symbol,
// a delisted one, and at times that make rows stale.
func TestCrowdingMatchesAnswer(t *testing.T) {
	p := NewPositioning()
	applyAll(t, p, binanceBTC()...)
	applyAll(t, p, bybitBTC(), hyperliquidBTC())
	applyAll(t, p, &schemas.PerpSnapshot{Venue: "hyperliquid", VenueSymbol: "kPEPE", Symbol: "KPEPEUSD", AssetClass: "perp_only",
		ObservedNs: ns(0), ReadNs: ns(0), OpenInterest: 2847109066, OpenInterestUsd: 2847109066 * 0.003663, MarkPrice: 0.003663,
		FundingRate: -0.0000069587, FundingIntervalHours: 1, FundingIntervalSource: "default",
		LongShort: &schemas.LongShort{Kind: "account", LongShare: 0.2, ShortShare: 0.8, Ratio: 0.25, ObservedNs: ns(0)}})
	applyAll(t, p, &schemas.PerpSnapshot{Venue: "bybit", VenueSymbol: "OLDUSDT", Symbol: "OLDUSD", ObservedNs: ns(0), ReadNs: ns(0), Delisted: true})
	for _, sym := range []string{"BTCUSD", "KPEPEUSD", "OLDUSD", "NONEUSD"} {
		for _, d := range []time.Duration{0, 14 * time.Minute, 19 * time.Minute, 3 * time.Hour} {
			now := pT.Add(d)
			c, ok := p.Crowding(sym, now)
			a, err := p.Answer(sym, now, nil)
			if err != nil || a.Totals == nil {
				if ok {
					t.Errorf("%s: crowding %+v without totals", sym, c)
				}
				continue
			}
			want := Crowding{Symbol: sym, AssetClass: a.AssetClass, OpenInterestUSD: a.Totals.OpenInterestUSD, Flag: a.Flag, Stale: a.Stale,
				FundingAnnualizedPercent: a.Totals.FundingAnnualizedPercent, ObservedAt: a.Totals.OldestObservedAt}
			if a.Totals.LongShare != nil {
				want.HasShare, want.LongShare, want.ShortShare = true, *a.Totals.LongShare, *a.Totals.ShortShare
			}
			got := c
			got.RatioKinds, got.ReadAt = nil, time.Time{}
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s at +%v:\n got %+v\nwant %+v", sym, d, got, want)
			}
		}
	}
}
