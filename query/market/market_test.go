package market

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// mdoc returns a fresh 5m document for the market tests.
func mdoc(symbol string, trades int64, momentum, buyPressure float64, signal string) *schemas.IntelligenceDocument {
	d := smallDoc(symbol, "5m", trades, float64(trades)*10)
	d.MomentumScore, d.BuyPressure, d.Signal = momentum, buyPressure, signal
	d.EventType, d.SignalStrength = eventNormal, "LOW"
	d.LastTradeTimeNs = testNow.Add(-time.Second).UnixNano()
	return d
}

func TestShallowCopy(t *testing.T) {
	src := fullDoc()
	var dst schemas.IntelligenceDocument
	shallowCopy(&dst, src)
	if !proto.Equal(&dst, src) {
		t.Fatalf("shallowCopy misses fields:\ngot:  %v\nwant: %v", &dst, src)
	}
}

func TestPercentileRanks(t *testing.T) {
	f := func(trades []int64, want string) {
		t.Helper()
		var docs []*schemas.IntelligenceDocument
		for i, n := range trades {
			docs = append(docs, mdoc(fmt.Sprint("S", i), n, 50, 50, signalNeutral))
		}
		m := buildMarket("5m", docs, testNow)
		var got []string
		for i := range trades {
			d, _ := m.get(fmt.Sprint("S", i))
			got = append(got, fmt.Sprint(d.MarketPercentile))
		}
		if g := strings.Join(got, " "); g != want {
			t.Fatalf("trades %v: percentiles %s, want %s", trades, g, want)
		}
	}
	f([]int64{7}, "50")
	f([]int64{1, 2}, "0 100")
	f([]int64{3, 1, 2}, "100 0 50")
	f([]int64{1, 1, 1}, "50 50 50")
	f([]int64{5, 1, 5, 3, 2}, "87.5 0 87.5 50 25")
}

func TestMarket(t *testing.T) {
	docs := []*schemas.IntelligenceDocument{
		mdoc("AAAUSD", 10, 80, 70, signalBullish),
		mdoc("BBBUSD", 20, 20, 30, signalBearish),
		mdoc("CCCUSD", 30, 65, 60, signalBullish),
		mdoc("DDDUSD", 40, 50, 50, signalNeutral),
	}
	docs[0].ConfidenceScore, docs[1].ConfidenceScore, docs[2].ConfidenceScore = 80, 90, 10
	docs[3].AnomalyScore, docs[3].BuyPressure = 70, math.NaN()
	docs[0].Observations = &schemas.Observations{Quality: &schemas.Quality{Venues: []string{"kraken", "binance"}}}
	docs[1].Observations = &schemas.Observations{Quality: &schemas.Quality{Venues: []string{"binance"}}}
	// Stale: last trade 20m01s before the newest one (now − 1s) in 5m;
	// without last_trade_time_ns the timestamp counts.
	stale := mdoc("OLDUSD", 99, 99, 99, signalBullish)
	stale.LastTradeTimeNs = testNow.Add(-20*time.Minute - 2*time.Second).UnixNano()
	noLast := mdoc("TS", 1, 50, 50, signalNeutral)
	noLast.LastTradeTimeNs, noLast.TimestampNs = 0, testNow.Add(-21*time.Minute).UnixNano()
	edge := mdoc("EDGE", 1, 50, 50, signalNeutral)
	edge.LastTradeTimeNs = testNow.Add(-20*time.Minute - time.Second).UnixNano()
	in := append(docs, stale, noLast, edge, nil)
	before := make([]*schemas.IntelligenceDocument, len(docs))
	for i, d := range docs {
		before[i] = proto.Clone(d).(*schemas.IntelligenceDocument)
	}

	m := buildMarket("5m", in, testNow)
	for i, d := range docs {
		if !proto.Equal(d, before[i]) {
			t.Fatalf("buildMarket modified the view document %s", d.Symbol)
		}
	}
	var syms []string
	for _, d := range m.docs {
		syms = append(syms, d.Symbol)
	}
	if g := strings.Join(syms, " "); g != "AAAUSD BBBUSD CCCUSD DDDUSD EDGE" || m.stale != 2 {
		t.Fatalf("covered %s, stale %d; want AAAUSD BBBUSD CCCUSD DDDUSD EDGE, 2", g, m.stale)
	}
	got := fmt.Sprintf("bull %d bear %d breadth %v/%v avgBP %v avgPC %v avgMom %v unusual %d highConf %d regime %s source %s fresh %d..%d",
		m.bullish, m.bearish, m.bullishBreadth, m.bearishBreadth, m.avgBuyPressure, m.avgPriceChange, m.avgMomentum,
		m.unusual, m.highConfidence, m.regime, m.source, m.freshestMs, m.oldestMs)
	want := "bull 2 bear 1 breadth 40/20 avgBP 42 avgPC 0 avgMom 53 unusual 1 highConf 2 regime BULLISH source binance,kraken fresh 1000..1201000"
	if got != want {
		t.Fatalf("market:\ngot:  %s\nwant: %s", got, want)
	}
	f := func(symbol string, want string) {
		t.Helper()
		d, ok := m.get(symbol)
		if !ok {
			t.Fatalf("%s not covered", symbol)
		}
		got := fmt.Sprint(d.MarketPercentile, " ", d.RelativeMomentumPercentile, " ", d.RelativeBuyPressurePercentile)
		if got != want {
			t.Fatalf("%s percentiles %s, want %s", symbol, got, want)
		}
	}
	// Activity: EDGE 1 < AAAUSD 10 < BBBUSD 20 < CCCUSD 30 < DDDUSD 40. Momentum: BBBUSD 20
	// < DDDUSD = EDGE 50 < CCCUSD 65 < AAAUSD 80. Buy pressure: DDDUSD NaN < BBBUSD 30 <
	// EDGE 50 < CCCUSD 60 < AAAUSD 70.
	f("AAAUSD", "25 100 100")
	f("BBBUSD", "50 0 25")
	f("CCCUSD", "75 75 75")
	f("DDDUSD", "100 37.5 0")
	f("EDGE", "0 37.5 50")

	// The 1m and 15m rules.
	for w, age := range map[string]time.Duration{"1m": 10 * time.Minute, "15m": 45 * time.Minute} {
		d := mdoc("X", 1, 50, 50, signalNeutral)
		d.Window = w
		d.LastTradeTimeNs = testNow.Add(-age).UnixNano()
		now := mdoc("NOW", 1, 50, 50, signalNeutral) // sets the market's clock
		now.Window, now.LastTradeTimeNs = w, testNow.UnixNano()
		if m := buildMarket(w, []*schemas.IntelligenceDocument{d, now}, testNow); len(m.docs) != 2 {
			t.Fatalf("%s: a symbol %s old is stale", w, age)
		}
		d.LastTradeTimeNs--
		if m := buildMarket(w, []*schemas.IntelligenceDocument{d, now}, testNow); len(m.docs) != 1 || m.stale != 1 {
			t.Fatalf("%s: a symbol older than %s is covered", w, age)
		}
		if m := buildMarket(w, []*schemas.IntelligenceDocument{d}, testNow.Add(time.Hour)); len(m.docs) != 1 {
			t.Fatalf("%s: alone, a symbol is judged by its own clock and covered", w)
		}
	}
}

func TestRegimeOf(t *testing.T) {
	f := func(covered int, bull, bear float64, want string) {
		t.Helper()
		if got := regimeOf(covered, bull, bear); got != want {
			t.Fatalf("regimeOf(%d, %v, %v) = %s, want %s", covered, bull, bear, got, want)
		}
	}
	f(0, 0, 0, regimeNoData)
	f(10, 0, 0, regimeMixed)
	f(10, 30, 15, regimeBullish)
	f(10, 30, 15.1, regimeMixed)
	f(10, 29.9, 0, regimeMixed)
	f(10, 10, 30, regimeBearish)
	f(10, 50, 50, regimeMixed)
}

func TestMarketRoutes(t *testing.T) {
	a := mdoc("AAAUSD", 10, 80, 70, signalBullish)
	a.AnomalyScore, a.EventType, a.ConfidenceScore = 75, "BREAKOUT", 60
	b := mdoc("BBBUSD", 20, 20, 30, signalBearish)
	b.AnomalyScore, b.EventType, b.ConfidenceScore = 90, "BREAKDOWN", 80
	c := mdoc("CCCUSD", 2, 65, 60, signalBullish)
	c.AnomalyScore = 99
	d := mdoc("DDDUSD", 40, 50, 40, signalNeutral)
	old := mdoc("OLDUSD", 99, 99, 99, signalBullish)
	old.LastTradeTimeNs = testNow.Add(-time.Hour).UnixNano()
	app := newTestServer(a, b, c, d, old).App()

	symbols := func(target string, want string) {
		t.Helper()
		status, _, body := do(t, app, http.MethodGet, target)
		var docs []struct{ Symbol string }
		if err := json.Unmarshal([]byte(body), &docs); status != 200 || err != nil {
			t.Fatalf("GET %s: %d %s (%v)", target, status, body, err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Symbol)
		}
		if g := strings.Join(got, " "); g != want {
			t.Fatalf("GET %s: %s, want %s", target, g, want)
		}
	}
	symbols("/api/v1/intelligence", "DDDUSD BBBUSD AAAUSD CCCUSD")
	symbols("/api/v1/intelligence/top-activity?limit=2", "DDDUSD BBBUSD")
	symbols("/api/v1/intelligence/top-momentum", "AAAUSD CCCUSD DDDUSD BBBUSD")
	symbols("/api/v1/intelligence/unusual", "BBBUSD AAAUSD")
	symbols("/api/v1/intelligence/unusual?minTrades=0&minAnomaly=76", "CCCUSD BBBUSD")
	symbols("/api/v1/intelligence/events", "BBBUSD AAAUSD")
	symbols("/api/v1/intelligence/buying", "AAAUSD CCCUSD")
	symbols("/api/v1/intelligence/buying?minBuyPressure=0&limit=3", "AAAUSD CCCUSD DDDUSD")
	symbols("/api/v1/intelligence/top-activity?window=1m", "")

	body := func(target string, wantStatus int, want string) {
		t.Helper()
		status, _, got := do(t, app, http.MethodGet, target)
		if status != wantStatus || got != want {
			t.Fatalf("GET %s:\ngot:  %d %s\nwant: %d %s", target, status, got, wantStatus, want)
		}
	}
	body("/api/v1/intelligence/snapshot/aaausd", 200, `{"symbol":"AAAUSD","window":"5m","price":0,"priceChangePercent":0,"buyPressure":70,"signal":"BULLISH","signalStrength":"LOW","confidenceScore":60,"timestamp":"2024-08-08T12:00:00.000Z"}`)
	body("/api/v1/intelligence/snapshot/OLDUSD", 200, `{"symbol":"OLDUSD","window":"5m","price":0,"priceChangePercent":0,"buyPressure":99,"signal":"BULLISH","signalStrength":"LOW","confidenceScore":0,"timestamp":"2024-08-08T12:00:00.000Z"}`)
	body("/api/v1/intelligence/snapshot/OLDUSD?window=1m", 404, `{"error":"no_data","message":"no 1m intelligence for OLDUSD; coveredSymbols lists the symbols with data","symbol":"OLDUSD","coveredSymbols":["AAAUSD","BBBUSD","CCCUSD","DDDUSD","OLDUSD"],"charged":false}`)
	body("/api/v1/intelligence/selling?limit=1", 200, `{"window":"5m","maxBuyPressure":40,"symbolsCovered":4,"sellingSymbols":2,"results":[{"symbol":"BBBUSD","price":0,"priceChangePercent":0,"buyPressure":30,"volume":200,"tradeCount":20,"signal":"BEARISH","confidenceScore":80,"eventType":"BREAKDOWN","relativeBuyPressurePercentile":0}],"timestamp":"2024-08-08T12:00:00.000Z"}`)
	body("/api/v1/intelligence/compare?symbols=nope,oldusd", 200, `{"window":"5m","results":[{"symbol":"NOPE","status":"no_data","message":"no 5m intelligence for NOPE"},{"symbol":"OLDUSD","status":"no_data","message":"no fresh 5m intelligence for OLDUSD: its last trade is older than 20m0s"}]}`)
	body("/api/v1/intelligence/regime?window=15m", 200, `{"window":"15m","regime":"NO_DATA","symbolsCovered":0,"bullishBreadthPercent":0,"bearishBreadthPercent":0,"averageBuyPressure":0,"averagePriceChangePercent":0,"averageMomentumScore":0,"highConfidenceSignals":0,"unusualActivity":0,"topLeaders":[],"topActivityConcentration":[],"timestamp":"2024-08-08T12:00:00.000Z"}`)
	body("/api/v1/intelligence/summary?window=1m", 200, `{"window":"1m","symbolsCovered":0,"bullishSymbols":0,"bearishSymbols":0,"neutralSymbols":0,"bullishBreadthPercent":0,"bearishBreadthPercent":0,"averageBuyPressure":0,"averagePriceChangePercent":0,"unusualActivitySymbols":0,"regime":"NO_DATA","topMomentum":[],"topActivity":[],"topBuying":[],"topSelling":[],"events":[],"dataFreshness":{"freshestMs":0,"oldestMs":0},"staleSymbols":0,"source":"mi-pipeline","timestamp":"2024-08-08T12:00:00.000Z"}`)

	// Compare: compact documents in request order, a repeat answered once.
	_, _, got := do(t, app, http.MethodGet, "/api/v1/intelligence/compare?symbols=cccusd,AAAUSD,cccusd")
	m := buildMarket("5m", []*schemas.IntelligenceDocument{a, b, c, d}, testNow)
	mc, _ := m.get("CCCUSD")
	ma, _ := m.get("AAAUSD")
	want := `{"window":"5m","results":[{"symbol":"CCCUSD","status":"ok","data":` + string(AppendCompactDocument(nil, mc)) +
		`},{"symbol":"AAAUSD","status":"ok","data":` + string(AppendCompactDocument(nil, ma)) + `}]}`
	if got != want {
		t.Fatalf("compare:\ngot:  %s\nwant: %s", got, want)
	}

	// Summary: the aggregates and lists of the covered symbols.
	_, _, got = do(t, app, http.MethodGet, "/api/v1/intelligence/summary")
	var sum struct {
		SymbolsCovered, BullishSymbols, BearishSymbols, NeutralSymbols, UnusualActivitySymbols, StaleSymbols int
		Regime, Source                                                                                       string
		TopMomentum, TopActivity, TopBuying, TopSelling, Events                                              []map[string]any
		DataFreshness                                                                                        struct{ FreshestMs, OldestMs int64 }
	}
	if err := json.Unmarshal([]byte(got), &sum); err != nil {
		t.Fatalf("summary %s: %s", got, err)
	}
	names := func(l []map[string]any) string {
		var s []string
		for _, d := range l {
			s = append(s, d["symbol"].(string))
			if _, ok := d["id"]; ok {
				t.Fatalf("summary list item is not compact: %v", d)
			}
		}
		return strings.Join(s, " ")
	}
	g := fmt.Sprintf("%d %d %d %d %d %d %s %s | %s | %s | %s | %s | %s | %d %d", sum.SymbolsCovered, sum.BullishSymbols,
		sum.BearishSymbols, sum.NeutralSymbols, sum.UnusualActivitySymbols, sum.StaleSymbols, sum.Regime, sum.Source,
		names(sum.TopMomentum), names(sum.TopActivity), names(sum.TopBuying), names(sum.TopSelling), names(sum.Events),
		sum.DataFreshness.FreshestMs, sum.DataFreshness.OldestMs)
	if w := "4 2 1 1 3 1 BULLISH mi-pipeline | AAAUSD CCCUSD DDDUSD BBBUSD | DDDUSD BBBUSD AAAUSD CCCUSD | AAAUSD CCCUSD | BBBUSD DDDUSD | BBBUSD AAAUSD | 1000 1000"; g != w {
		t.Fatalf("summary:\ngot:  %s\nwant: %s", g, w)
	}
}

func TestMarketParams(t *testing.T) {
	f := func(target, param, accepted string) {
		t.Helper()
		status, _, body := do(t, newTestServer().App(), http.MethodGet, target)
		var e struct{ Error, Parameter string }
		if err := json.Unmarshal([]byte(body), &e); status != 400 || err != nil || e.Parameter != param ||
			!strings.Contains(body, `"accepted":`+accepted+`,`) {
			t.Fatalf("GET %s: %d %s, want 400 on %s accepting %s", target, status, body, param, accepted)
		}
	}
	f("/api/v1/intelligence/unusual?minAnomaly=abc", "minAnomaly", `"number 0 to 100"`)
	f("/api/v1/intelligence/unusual?minAnomaly=Inf", "minAnomaly", `"number 0 to 100"`)
	f("/api/v1/intelligence/unusual?minAnomaly=0x10", "minAnomaly", `"number 0 to 100"`)
	f("/api/v1/intelligence/unusual?minTrades=+1", "minTrades", `"integer 0 to 1000000000"`)
	f("/api/v1/intelligence/unusual?minTrades=1000000001", "minTrades", `"integer 0 to 1000000000"`)
	f("/api/v1/intelligence/unusual?minTrades=x&minAnomaly=x&window=x", "window", `["1m","5m","15m"]`)
	f("/api/v1/intelligence/unusual?minTrades=x&minAnomaly=x&limit=0", "limit", `"integer 1 to 100"`)
	f("/api/v1/intelligence/unusual?minTrades=x&minAnomaly=x", "minAnomaly", `"number 0 to 100"`)
	f("/api/v1/intelligence/buying?minBuyPressure=nan", "minBuyPressure", `"number 0 to 100"`)
	f("/api/v1/intelligence/selling?maxBuyPressure=100.0001", "maxBuyPressure", `"number 0 to 100"`)
	const syms = `"1 to 20 comma-separated symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"`
	f("/api/v1/intelligence/compare", "symbols", syms)
	f("/api/v1/intelligence/compare?symbols=A,,B", "symbols", syms)
	f("/api/v1/intelligence/compare?symbols=A,", "symbols", syms)
	f("/api/v1/intelligence/compare?symbols="+strings.Repeat("A,", 20)+"A", "symbols", syms)
	f("/api/v1/intelligence/compare?symbols=%C3%A9", "symbols", syms)

	// Accepted edge values.
	for _, target := range []string{
		"/api/v1/intelligence/unusual?minAnomaly=0&minTrades=0",
		"/api/v1/intelligence/unusual?minAnomaly=100&minTrades=1000000000",
		"/api/v1/intelligence/unusual?minAnomaly=1e1&minTrades=007",
		"/api/v1/intelligence/buying?minBuyPressure=-0",
		"/api/v1/intelligence/compare?symbols=" + strings.Repeat("A,", 19) + "A",
	} {
		if status, _, body := do(t, newTestServer().App(), http.MethodGet, target); status != 200 {
			t.Fatalf("GET %s: %d %s", target, status, body)
		}
	}
}

// BenchmarkBuildMarket measures the cross-symbol step over 1,000 symbols.
func BenchmarkBuildMarket(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := make([]*schemas.IntelligenceDocument, 1000)
	for i := range docs {
		d := fullDoc()
		d.Symbol = fmt.Sprintf("SYM%04dUSD", i)
		d.TradeCount, d.Volume = rng.Int64N(500), rng.Float64()*1e6
		d.MomentumScore, d.BuyPressure = rng.Float64()*100, rng.Float64()*100
		docs[i] = d
	}
	b.ReportAllocs()
	for b.Loop() {
		m := buildMarket("5m", docs, testNow)
		if len(m.docs) != 1000 {
			b.Fatalf("%d covered", len(m.docs))
		}
	}
}

func TestAppendCompactDocument(t *testing.T) {
	d := fullDoc()
	d.Price, d.Volume = math.NaN(), math.Inf(1)
	var full, compact map[string]any
	if err := json.Unmarshal(AppendDocument(nil, d), &full); err != nil {
		t.Fatal(err)
	}
	b := AppendCompactDocument(nil, d)
	if err := json.Unmarshal(b, &compact); err != nil {
		t.Fatalf("%s: %s", b, err)
	}
	for _, k := range compactOmitted {
		delete(full, k)
	}
	if got, want := fmt.Sprint(compact), fmt.Sprint(full); got != want {
		t.Fatalf("compact document:\ngot:  %s\nwant: %s", got, want)
	}
	if compact["price"] != 0.0 || compact["volume"] != 0.0 {
		t.Fatalf("non-finite numbers: %s", b)
	}
	if !strings.HasPrefix(string(b), `{"symbol":"BTCUSD","window":"5m","price":0,"volume":0,"buyPressure":`) {
		t.Fatalf("compact document starts %.80s", b)
	}
	if got := string(AppendCompactDocument(nil, nil)); got != "null" {
		t.Fatalf("nil: %s", got)
	}
}

// TestMarketStalenessFollowsTheData checks that a replay of old captures is
// judged by its own clock: symbols traded together a day ago are covered,
// and one 21 minutes behind the newest is stale.
func TestMarketStalenessFollowsTheData(t *testing.T) {
	day := testNow.Add(-24 * time.Hour)
	a, b, c := mdoc("AAAUSD", 10, 60, 60, signalBullish), mdoc("BBBUSD", 5, 40, 40, signalBearish), mdoc("OLDUSD", 1, 50, 50, signalNeutral)
	a.LastTradeTimeNs = day.UnixNano()
	b.LastTradeTimeNs = day.Add(-5 * time.Minute).UnixNano()
	c.LastTradeTimeNs = day.Add(-21 * time.Minute).UnixNano()
	m := buildMarket("5m", []*schemas.IntelligenceDocument{a, b, c}, testNow)
	if len(m.docs) != 2 || m.stale != 1 || m.regime == regimeNoData {
		t.Fatalf("covered %d, stale %d, regime %s; want 2 covered, 1 stale", len(m.docs), m.stale, m.regime)
	}
	if m.freshestMs < int64(24*time.Hour/time.Millisecond) {
		t.Fatalf("dataFreshness must still report ages against now: freshest %d ms", m.freshestMs)
	}
}

// relativeStrengthRe matches the market's relativeStrength, which tests of
// other fields compare as "".
var relativeStrengthRe = regexp.MustCompile(`"relativeStrength":"[a-z_/]*"`)

func TestRelativeStrength(t *testing.T) {
	f := func(p float64, covered int, want string) {
		t.Helper()
		if got := relativeStrengthOf(p, covered); got != want {
			t.Errorf("relativeStrengthOf(%v, %d) = %s, want %s", p, covered, got, want)
		}
	}
	f(50, 1, strengthNA)
	f(100, 0, strengthNA)
	f(100, 2, strengthLeader)
	f(80, 5, strengthLeader)
	f(79.9, 5, strengthOutperforming)
	f(60, 5, strengthOutperforming)
	f(59.9, 5, strengthInLine)
	f(40.1, 5, strengthInLine)
	f(40, 5, strengthUnderperforming)
	f(20.1, 5, strengthUnderperforming)
	f(20, 5, strengthLaggard)
	f(0, 2, strengthLaggard)

	// Through the market: the views' interpretation is not modified, each
	// copy gets its own, and a document without one gets one.
	hi, lo := fullDoc(), fullDoc()
	lo.Symbol, lo.MomentumScore = "LOWUSD", 10
	shared := hi.Interpretation
	lo.Interpretation = nil
	m := buildMarket("5m", []*schemas.IntelligenceDocument{hi, lo}, testNow)
	a, _ := m.get("BTCUSD")
	b, _ := m.get("LOWUSD")
	if a.Interpretation.RelativeStrength != strengthLeader || a.Interpretation.Momentum != shared.Momentum ||
		b.Interpretation.RelativeStrength != strengthLaggard || shared.RelativeStrength != "top decile" || lo.Interpretation != nil {
		t.Fatalf("leader %+v, laggard %+v, shared %+v", a.Interpretation, b.Interpretation, shared)
	}
	if one := buildMarket("5m", []*schemas.IntelligenceDocument{hi}, testNow); one.docs[0].Interpretation.RelativeStrength != strengthNA {
		t.Fatalf("single symbol: %s", one.docs[0].Interpretation.RelativeStrength)
	}
}
