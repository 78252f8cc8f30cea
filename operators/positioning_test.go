package operators

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func TestAnnualizeFunding(t *testing.T) {
	f := func(rate, hours, want float64) {
		t.Helper()
		if got := AnnualizeFunding(rate, hours); math.Abs(got-want) > 1e-12 {
			t.Fatalf("AnnualizeFunding(%v, %v) = %v, want %v", rate, hours, got, want)
		}
	}
	f(0.0001, 8, 0.1095)            // Binance default 0.01 % per 8 h = 10.95 %/yr
	f(0.0000125, 1, 0.1095)         // Hyperliquid's hourly equivalent
	f(0.0001, 4, 0.219)             // a 4 h Binance symbol pays twice as often
	f(0.00009145, 8, 0.10013775)    // premiumIndex fixture: lastFundingRate 0.00009145
	f(-0.000003688, 1, -0.03230688) // Hyperliquid BTC fixture funding −0.000003688 per hour
	f(0.0005, 8, 0.5475)            // 0.05 % per 8 h: above the 50 % extreme
	f(0.01, 0, 0)                   // no interval: no rate
	f(0.01, -8, 0)
}

func TestPositioningFlag(t *testing.T) {
	f := func(oi, long, short float64, has bool, want string) {
		t.Helper()
		if got := PositioningFlag(oi, long, short, has); got != want {
			t.Fatalf("PositioningFlag(%v, %v, %v, %v) = %s, want %s", oi, long, short, has, got, want)
		}
	}
	f(7e9, 0.6575, 0.3425, true, FlagCrowdedLong) // the Binance BTC fixture's account shares
	f(7e9, 0.65, 0.35, true, FlagCrowdedLong)     // exactly 65 % is crowded
	f(7e9, 0.6499, 0.3501, true, FlagNone)
	f(7e9, 0.35, 0.65, true, FlagCrowdedShort)
	f(7e9, 0.5, 0.5, true, FlagNone)
	f(7e9, 0, 0, false, FlagNone)          // no venue publishes a share
	f(49_999.99, 0.9, 0.1, true, FlagThin) // thin beats crowded
	f(50_000, 0.9, 0.1, true, FlagCrowdedLong)
	f(0, 0, 0, false, FlagThin)
	f(math.NaN(), 0.9, 0.1, true, FlagThin)
}

var posT0 = time.Date(2026, 8, 15, 16, 0, 0, 0, time.UTC)

func perp(venue, vsym string, at time.Duration, rate, hours, oiUSD float64) *schemas.PerpSnapshot {
	ns := posT0.Add(at).UnixNano()
	return &schemas.PerpSnapshot{
		Venue: venue, VenueSymbol: vsym, Symbol: "BTCUSD", ObservedNs: ns, ReadNs: ns + int64(time.Second),
		FundingRate: rate, FundingIntervalHours: hours, OpenInterestUsd: oiUSD, OpenInterest: oiUSD / 60000, MarkPrice: 60000,
	}
}

func TestFundingExtremeDetector(t *testing.T) {
	d := NewFundingExtremeDetector()
	step := 0
	f := func(s *schemas.PerpSnapshot, want string) {
		t.Helper()
		step++
		got := d.Push(s, nil)
		if want == "" {
			if len(got) != 0 {
				t.Fatalf("step %d: fired %s", step, got[0].Data)
			}
			return
		}
		if len(got) != 1 {
			t.Fatalf("step %d: fired %d events, want one %s", step, len(got), want)
		}
		e := got[0]
		var data FundingExtremeData
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatal(err)
		}
		if e.Event != AlertFundingExtreme || e.Symbol != s.Symbol || !e.OccurredAt.Equal(time.Unix(0, s.ObservedNs)) ||
			data.Side != want || data.Venue != s.Venue || data.VenueSymbol != s.VenueSymbol ||
			math.Abs(data.AnnualizedFundingPercent-100*AnnualizeFunding(s.FundingRate, s.FundingIntervalHours)) > 1e-9 {
			t.Fatalf("step %d: event %+v data %+v", step, e, data)
		}
	}
	// 0.0005 per 8 h = 54.75 %/yr; 0.000457 per 8 h = 50.04 %; 0.00045 = 49.3 %.
	f(perp("binance", "BTCUSDT", 0, 0.0001, 8, 7e9), "")                                   // normal
	f(perp("binance", "BTCUSDT", 5*time.Minute, 0.0005, 8, 7e9), FundingLongsCrowded)      // enters
	f(perp("binance", "BTCUSDT", 10*time.Minute, 0.0006, 8, 7e9), "")                      // stays: no repeat
	f(perp("binance", "BTCUSDT", 15*time.Minute, 0.00045, 8, 7e9), "")                     // 49.3 %: inside the band, stays
	f(perp("binance", "BTCUSDT", 20*time.Minute, 0.0005, 8, 7e9), "")                      // still the same episode
	f(perp("binance", "BTCUSDT", 25*time.Minute, 0.0004, 8, 7e9), "")                      // 43.8 %: leaves silently
	f(perp("binance", "BTCUSDT", 30*time.Minute, 0.000457, 8, 7e9), FundingLongsCrowded)   // re-enters: fires again
	f(perp("binance", "BTCUSDT", 30*time.Minute, 0.0001, 8, 7e9), "")                      // same time again: ignored
	f(perp("binance", "BTCUSDT", 29*time.Minute, 0.0001, 8, 7e9), "")                      // older: ignored
	f(perp("binance", "BTCUSDT", 35*time.Minute, -0.0003, 8, 7e9), FundingShortsCrowded)   // flips: −32.9 %
	f(perp("binance", "BTCUSDT", 40*time.Minute, -0.0002, 8, 7e9), "")                     // −21.9 %: leaves (band −22.5 %)
	f(perp("binance", "BTCUSDT", 45*time.Minute, -0.000229, 8, 7e9), FundingShortsCrowded) // −25.08 % enters
	// Open interest: exactly $5M is not above it; the rate alone never fires.
	f(perp("bybit", "BTCUSDT", 0, 0.001, 8, 5e6), "")
	f(perp("bybit", "BTCUSDT", 5*time.Minute, 0.001, 8, 5e6+1), FundingLongsCrowded)
	f(perp("bybit", "BTCUSDT", 10*time.Minute, 0.001, 8, 4e6), "") // OI falls: leaves
	f(perp("bybit", "BTCUSDT", 15*time.Minute, 0.001, 8, 6e6), FundingLongsCrowded)
	// The interval matters: 0.0001 per hour is 87.6 %/yr, per 8 h only 10.95 %.
	f(perp("hyperliquid", "ETH", 0, 0.0001, 1, 1e8), FundingLongsCrowded)
	f(perp("hyperliquid", "SOL", 0, 0.0001, 8, 1e8), "")
	// Delisting leaves silently; history points and unnamed snapshots are ignored.
	del := perp("hyperliquid", "ETH", 5*time.Minute, 0.0001, 1, 1e8)
	del.Delisted = true
	f(del, "")
	f(perp("hyperliquid", "ETH", 10*time.Minute, 0.0001, 1, 1e8), FundingLongsCrowded)
	h := perp("okx", "BTC-USDT-SWAP", 0, 0.01, 8, 1e9)
	h.History = true
	f(h, "")
	n := perp("okx", "BTC-USDT-SWAP", 0, 0.01, 8, 1e9)
	n.Symbol = ""
	f(n, "")
}

func TestFundingExtremeEventIDsAndState(t *testing.T) {
	in := []*schemas.PerpSnapshot{
		perp("binance", "BTCUSDT", 0, 0.0005, 8, 7e9),
		perp("binance", "BTCUSDT", 5*time.Minute, 0.0001, 8, 7e9),
		perp("binance", "BTCUSDT", 10*time.Minute, 0.0005, 8, 7e9),
		perp("bybit", "ETHUSDT", 10*time.Minute, -0.001, 8, 7e9),
	}
	run := func(d *FundingExtremeDetector, in []*schemas.PerpSnapshot) []AlertEvent {
		var out []AlertEvent
		for _, s := range in {
			out = d.Push(s, out)
		}
		return out
	}
	a := run(NewFundingExtremeDetector(), in)
	b := run(NewFundingExtremeDetector(), in)
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d and %d events, want 3", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || string(a[i].Data) != string(b[i].Data) {
			t.Fatalf("event %d differs between runs", i)
		}
	}
	if a[0].ID == a[1].ID {
		t.Fatal("two episodes share an id")
	}
	// A checkpoint taken after the second snapshot continues like the original.
	d := NewFundingExtremeDetector()
	run(d, in[:2])
	st := d.MarshalState()
	r := NewFundingExtremeDetector()
	if err := r.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	if string(r.MarshalState()) != string(st) {
		t.Fatal("state does not round-trip")
	}
	rest := run(r, in[2:])
	if len(rest) != 2 || rest[0].ID != a[1].ID || rest[1].ID != a[2].ID {
		t.Fatalf("restored detector fired %d events", len(rest))
	}
	for _, bad := range []string{`{`, `[{"key":"a|b","state":"weird"}]`} {
		if err := NewFundingExtremeDetector().RestoreState([]byte(bad)); err == nil {
			t.Fatalf("RestoreState(%s) accepted", bad)
		}
	}
}

func quote(market string, at time.Duration, p, vol float64) *schemas.PredictionQuote {
	return &schemas.PredictionQuote{
		Venue: "hyperliquid", MarketId: market, Question: "Will BTC be at or above 78213 at 2026-05-04 06:00 UTC?",
		Option: "Yes", Category: "crypto_price", Probability: p, DayVolumeUsd: vol,
		ObservedNs: posT0.Add(at).UnixNano(), Coin: "#" + market + "0", Underlying: "BTC",
	}
}

func TestPredictionMoveDetector(t *testing.T) {
	d := NewPredictionMoveDetector()
	step := 0
	f := func(q *schemas.PredictionQuote, wantDir string, wantFrom float64) {
		t.Helper()
		step++
		got := d.Push(q, nil)
		if wantDir == "" {
			if len(got) != 0 {
				t.Fatalf("step %d: fired %s", step, got[0].Data)
			}
			return
		}
		if len(got) != 1 {
			t.Fatalf("step %d: fired %d events, want a move %s", step, len(got), wantDir)
		}
		var data PredictionMoveData
		if err := json.Unmarshal(got[0].Data, &data); err != nil {
			t.Fatal(err)
		}
		if got[0].Event != AlertPredictionMarketMove || data.Direction != wantDir || data.FromProbability != wantFrom ||
			data.ToProbability != q.Probability || data.Question != q.Question || data.Option != "Yes" ||
			data.Category != "crypto_price" || got[0].Symbol != "BTCUSD" ||
			math.Abs(data.MovePoints-100*(q.Probability-wantFrom)) > 1e-9 {
			t.Fatalf("step %d: event %+v data %+v", step, got[0], data)
		}
	}
	m := 15 * time.Minute
	f(quote("1", 0, 0.40, 10_000), "", 0)            // first quote: nothing to compare
	f(quote("1", m, 0.45, 10_000), "", 0)            // +5
	f(quote("1", 2*m, 0.50, 10_000), MoveUp, 0.40)   // +10 within the hour: fires, from the farthest quote
	f(quote("1", 3*m, 0.58, 10_000), "", 0)          // +18 but same direction within 6 h
	f(quote("1", 4*m, 0.47, 10_000), MoveDown, 0.58) // −11: a reversal fires at once
	f(quote("1", 5*m, 0.40, 10_000), "", 0)          // −18 down again: cooldown of the down event
	f(quote("1", 5*m, 0.10, 10_000), "", 0)          // same time: ignored
	// After 6 hours the same direction may fire again.
	f(quote("1", 4*m+6*time.Hour, 0.60, 10_000), "", 0) // nothing within the hour before it
	f(quote("1", 5*m+6*time.Hour, 0.45, 10_000), MoveDown, 0.60)

	// Exactly one hour back counts; more than an hour does not.
	f(quote("2", 0, 0.20, 5_000), "", 0)
	f(quote("2", time.Hour, 0.30, 5_000), MoveUp, 0.20) // exactly 10 points, exactly $5,000, exactly 1 h
	f(quote("3", 0, 0.20, 50_000), "", 0)
	f(quote("3", time.Hour+time.Nanosecond, 0.90, 50_000), "", 0)
	// Not enough volume; 9.99 points.
	f(quote("4", 0, 0.20, 4_999.99), "", 0)
	f(quote("4", m, 0.80, 4_999.99), "", 0)
	f(quote("5", 0, 0.2001, 1e6), "", 0)
	f(quote("5", m, 0.30, 1e6), "", 0)
	// A bad probability is ignored.
	f(quote("6", 0, 1.5, 1e6), "", 0)
	f(quote("6", m, math.NaN(), 1e6), "", 0)
}

func TestPredictionMoveStateAndForget(t *testing.T) {
	in := []*schemas.PredictionQuote{
		quote("1", 0, 0.40, 1e4), quote("1", 15*time.Minute, 0.55, 1e4),
		quote("1", 30*time.Minute, 0.60, 1e4), quote("1", 45*time.Minute, 0.40, 1e4),
	}
	var all []AlertEvent
	d := NewPredictionMoveDetector()
	for _, q := range in {
		all = d.Push(q, all)
	}
	if len(all) != 2 {
		t.Fatalf("%d events, want 2", len(all))
	}
	r := NewPredictionMoveDetector()
	var part []AlertEvent
	for _, q := range in[:2] {
		part = r.Push(q, part)
	}
	c := NewPredictionMoveDetector()
	if err := c.RestoreState(r.MarshalState()); err != nil {
		t.Fatal(err)
	}
	for _, q := range in[2:] {
		part = c.Push(q, part)
	}
	if len(part) != 2 || part[0].ID != all[0].ID || part[1].ID != all[1].ID {
		t.Fatal("restored detector differs")
	}
	// Forget drops quiet markets once their cooldown is over.
	d.Forget(posT0.Add(time.Hour).UnixNano())
	if len(d.markets) != 1 {
		t.Fatal("forgot a market still in its cooldown")
	}
	d.Forget(posT0.Add(7 * time.Hour).UnixNano())
	if len(d.markets) != 0 {
		t.Fatal("kept a quiet market")
	}
	// Push forgets by itself, in record time: a market quiet for longer
	// than the cooldown leaves when another market's quote arrives.
	p := NewPredictionMoveDetector()
	p.Push(quote("quiet", 0, 0.5, 1e4), nil)
	p.Push(quote("busy", 5*time.Hour, 0.5, 1e4), nil)
	if len(p.markets) != 2 {
		t.Fatalf("%d markets within the cooldown, want 2", len(p.markets))
	}
	p.Push(quote("busy", 6*time.Hour+time.Minute, 0.5, 1e4), nil)
	if _, ok := p.markets[predictionKey("hyperliquid", "quiet")]; ok || len(p.markets) != 1 {
		t.Fatalf("the quiet market was not forgotten: %d markets", len(p.markets))
	}
	if err := NewPredictionMoveDetector().RestoreState([]byte(`[{"key":"a","points":[{"ns":2},{"ns":1}]}]`)); err == nil {
		t.Fatal("unsorted state accepted")
	}
}

// BenchmarkFundingExtremePush runs 500 perps' snapshots through the
// detector, one poll after another (one op = one snapshot).
func BenchmarkFundingExtremePush(b *testing.B) {
	d := NewFundingExtremeDetector()
	snaps := make([]*schemas.PerpSnapshot, 500)
	for i := range snaps {
		snaps[i] = perp("hyperliquid", "C"+strconv.Itoa(i), 0, float64(i%7-3)*0.00003, 1, 1e7)
	}
	var out []AlertEvent
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s := snaps[i%500]
		s.ObservedNs += int64(5 * time.Minute)
		out = d.Push(s, out[:0])
		i++
	}
}

// BenchmarkPredictionMovePush pushes quotes of 100 markets.
func BenchmarkPredictionMovePush(b *testing.B) {
	d := NewPredictionMoveDetector()
	qs := make([]*schemas.PredictionQuote, 100)
	for i := range qs {
		qs[i] = quote(strconv.Itoa(i), 0, 0.5, 1e4)
	}
	var out []AlertEvent
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := qs[i%100]
		q.ObservedNs += int64(15 * time.Minute)
		q.Probability = 0.3 + 0.4*float64((i/100)%2)
		out = d.Push(q, out[:0])
		i++
	}
}
