package market

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/schemas"
)

// Cross-symbol rules of the market routes (docs/api.md, "Market rules").
const (
	// unusualAnomalyScore is the anomaly score from which a symbol counts
	// as unusual (spec §2.4, docs/signals.md).
	unusualAnomalyScore = 70
	// highConfidenceScore is the confidence score from which a BULLISH or
	// BEARISH signal counts as high-confidence (spec §2.5).
	highConfidenceScore = 75
	// regimeMinBreadth is the breadth in percent one side needs for a
	// BULLISH or BEARISH regime, and regimeDominance how many times the
	// other side's breadth it must reach.
	regimeMinBreadth = 30
	regimeDominance  = 2
	// marketListLen is the length of the lists inside the summary and the
	// regime.
	marketListLen = 5
	// defaultSource is the source of a summary without venues.
	defaultSource = "mi-pipeline"
)

// Regimes of the market (spec §2.5).
const (
	regimeBullish = "BULLISH"
	regimeBearish = "BEARISH"
	regimeMixed   = "MIXED"
	regimeNoData  = "NO_DATA"
)

// Signals of a document (docs/signals.md).
const (
	signalBullish = "BULLISH"
	signalBearish = "BEARISH"
	signalNeutral = "NEUTRAL"
)

// eventNormal is the event type of a document without an event.
const eventNormal = "NORMAL"

// staleAfter returns how long after its last trade a symbol stops being
// covered in window: 10 minutes for 1m, 20 for 5m, 45 for 15m (3 windows
// and a margin); 20 minutes for any other window.
func staleAfter(window string) time.Duration {
	switch window {
	case "1m":
		return 10 * time.Minute
	case "15m":
		return 45 * time.Minute
	}
	return 20 * time.Minute
}

// market is the cross-symbol view of one window at one instant: the covered
// (fresh) symbols' documents with their percentiles set, and the aggregates
// of the summary and regime routes. It is immutable once built.
type market struct {
	window string
	now    time.Time
	// docs are copies of the fresh documents, sorted by symbol, with
	// marketPercentile, relativeMomentumPercentile and
	// relativeBuyPressurePercentile set, and their own interpretation with
	// relativeStrength set. They share their observations and evidence with
	// the views' documents, which are never modified.
	docs []*schemas.IntelligenceDocument
	// stale is the number of documents of the window left out as stale.
	stale int
	// freshestMs and oldestMs are the ages (now − last trade) of the
	// freshest and the oldest covered symbol; 0 without covered symbols.
	freshestMs, oldestMs int64

	bullish, bearish               int
	bullishBreadth, bearishBreadth float64
	avgBuyPressure, avgPriceChange float64
	avgMomentum                    float64
	unusual, highConfidence        int
	regime                         string
	source                         string

	memos marketMemos // rendered summary and regime bodies (market_cache.go)
}

// lastTradeNs returns the time of the newest trade of d, or its timestamp
// when the document does not carry one.
func lastTradeNs(d *schemas.IntelligenceDocument) int64 {
	if d.LastTradeTimeNs != 0 {
		return d.LastTradeTimeNs
	}
	return d.TimestampNs
}

// buildMarket computes the market of window from the views' documents of
// that window at now. It never modifies docs or the documents in it.
//
// A document is stale, and left out of everything, when its last trade is
// more than staleAfter(window) older than the newest last trade of any
// document (or than now, when that is earlier). Percentiles are percentile
// ranks among the covered symbols (see percentileRanks); breadth counts
// BULLISH and BEARISH signals; the regime follows regimeOf.
func buildMarket(window string, docs []*schemas.IntelligenceDocument, now time.Time) *market {
	m := &market{window: window, now: now, source: defaultSource}
	// Staleness is measured against the market's own clock: the newest last
	// trade of any symbol, or now when that is later. Live, the two agree;
	// on a replay of old captures the replayed symbols stay comparable with
	// each other instead of all being stale. dataFreshness still reports
	// ages against now.
	ref := int64(0)
	for _, d := range docs {
		if d != nil && lastTradeNs(d) > ref {
			ref = lastTradeNs(d)
		}
	}
	if nowNs := now.UnixNano(); ref == 0 || ref > nowNs {
		ref = nowNs
	}
	cutoff := ref - int64(staleAfter(window))
	nowNs := now.UnixNano()
	fresh := make([]schemas.IntelligenceDocument, 0, len(docs))
	for _, d := range docs {
		if d == nil {
			continue
		}
		if lastTradeNs(d) < cutoff {
			m.stale++
			continue
		}
		fresh = append(fresh, schemas.IntelligenceDocument{})
		shallowCopy(&fresh[len(fresh)-1], d)
	}
	n := len(fresh)
	m.docs = make([]*schemas.IntelligenceDocument, n)
	for i := range fresh {
		m.docs[i] = &fresh[i]
	}
	if n == 0 {
		m.regime = regimeNoData
		return m
	}

	setPercentiles(m.docs)
	setRelativeStrength(m.docs)

	var sumBP, sumPC, sumMom float64
	var venues []string
	m.freshestMs, m.oldestMs = math.MaxInt64, 0
	for _, d := range m.docs {
		age := max((nowNs-lastTradeNs(d))/int64(time.Millisecond), 0)
		m.freshestMs, m.oldestMs = min(m.freshestMs, age), max(m.oldestMs, age)
		switch d.Signal {
		case signalBullish:
			m.bullish++
			if d.ConfidenceScore >= highConfidenceScore {
				m.highConfidence++
			}
		case signalBearish:
			m.bearish++
			if d.ConfidenceScore >= highConfidenceScore {
				m.highConfidence++
			}
		}
		if d.AnomalyScore >= unusualAnomalyScore {
			m.unusual++
		}
		sumBP += finite(d.BuyPressure)
		sumPC += finite(d.PriceChangePercent)
		sumMom += finite(d.MomentumScore)
		for _, v := range d.GetObservations().GetQuality().GetVenues() {
			if v != "" && !slices.Contains(venues, v) {
				venues = append(venues, v)
			}
		}
	}
	fn := float64(n)
	m.bullishBreadth = 100 * float64(m.bullish) / fn
	m.bearishBreadth = 100 * float64(m.bearish) / fn
	m.avgBuyPressure, m.avgPriceChange, m.avgMomentum = sumBP/fn, sumPC/fn, sumMom/fn
	m.regime = regimeOf(n, m.bullishBreadth, m.bearishBreadth)
	if len(venues) > 0 {
		slices.Sort(venues)
		m.source = strings.Join(venues, ",")
	}
	return m
}

// regimeOf is the regime rule: NO_DATA without covered symbols; BULLISH when
// the bullish breadth is at least regimeMinBreadth percent and at least
// regimeDominance times the bearish breadth; BEARISH the other way round;
// MIXED otherwise.
func regimeOf(covered int, bullishBreadth, bearishBreadth float64) string {
	switch {
	case covered == 0:
		return regimeNoData
	case bullishBreadth >= regimeMinBreadth && bullishBreadth >= regimeDominance*bearishBreadth:
		return regimeBullish
	case bearishBreadth >= regimeMinBreadth && bearishBreadth >= regimeDominance*bullishBreadth:
		return regimeBearish
	}
	return regimeMixed
}

// finite returns v, or 0 when v is NaN or infinite, so one broken document
// cannot poison an average.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// sortKey maps v to a value that orders NaN lowest and -0 equal to 0.
func sortKey(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v + 0
}

// setPercentiles sets the three percentile fields of every document of docs
// (which it owns) from its rank among docs (see percentileRanks).
func setPercentiles(docs []*schemas.IntelligenceDocument) {
	keys := make([]rankKey, len(docs))
	p := make([]float64, len(docs))
	fill := func(key func(d *schemas.IntelligenceDocument) (float64, float64),
		set func(d *schemas.IntelligenceDocument, p float64)) {
		for i, d := range docs {
			k1, k2 := key(d)
			keys[i] = rankKey{k1: sortKey(k1), k2: sortKey(k2), i: int32(i)}
		}
		percentileRanks(keys, p)
		for i, d := range docs {
			set(d, p[i])
		}
	}
	fill(func(d *schemas.IntelligenceDocument) (float64, float64) { return float64(d.TradeCount), d.Volume },
		func(d *schemas.IntelligenceDocument, p float64) { d.MarketPercentile = p })
	fill(func(d *schemas.IntelligenceDocument) (float64, float64) { return d.MomentumScore, 0 },
		func(d *schemas.IntelligenceDocument, p float64) { d.RelativeMomentumPercentile = p })
	fill(func(d *schemas.IntelligenceDocument) (float64, float64) { return d.BuyPressure, 0 },
		func(d *schemas.IntelligenceDocument, p float64) { d.RelativeBuyPressurePercentile = p })
}

// Relative strength words (docs/signals.md), from relativeMomentumPercentile.
const (
	strengthLeader          = "leader"
	strengthOutperforming   = "outperforming"
	strengthInLine          = "in_line"
	strengthUnderperforming = "underperforming"
	strengthLaggard         = "laggard"
	strengthNA              = "n/a"
)

// relativeStrengthOf names the relative strength of a symbol whose momentum
// ranks at percentile p among covered covered symbols: leader (p ≥ 80),
// outperforming (≥ 60), in_line (> 40), underperforming (> 20), laggard;
// n/a with fewer than two covered symbols, when there is nothing to be
// relative to.
func relativeStrengthOf(p float64, covered int) string {
	switch {
	case covered < 2:
		return strengthNA
	case p >= 80:
		return strengthLeader
	case p >= 60:
		return strengthOutperforming
	case p > 40:
		return strengthInLine
	case p > 20:
		return strengthUnderperforming
	}
	return strengthLaggard
}

// setRelativeStrength gives every document of docs (which it owns) its own
// interpretation, a copy of the shared one with relativeStrength set from
// its relativeMomentumPercentile. A document without an interpretation gets
// one with only relativeStrength.
func setRelativeStrength(docs []*schemas.IntelligenceDocument) {
	interps := make([]schemas.Interpretation, len(docs))
	for i, d := range docs {
		in := &interps[i]
		if src := d.Interpretation; src != nil {
			in.Momentum, in.Activity, in.Buying = src.Momentum, src.Activity, src.Buying
		}
		in.RelativeStrength = relativeStrengthOf(d.RelativeMomentumPercentile, len(docs))
		d.Interpretation = in
	}
}

// rankKey is the sort key of document i: k1, then k2 (both through
// sortKey). It holds no pointer, so sorting keys is cheap for the GC.
type rankKey struct {
	k1, k2 float64
	i      int32
}

func compareRankKeys(a, b rankKey) int {
	if c := cmp.Compare(a.k1, b.k1); c != 0 {
		return c
	}
	return cmp.Compare(a.k2, b.k2)
}

// percentileRanks sorts keys ascending and sets p[k.i] to the percentile
// rank of every key: 100 × (below + (equal − 1)/2) / (n − 1), where below
// counts the keys that are lower and equal those that are equal (itself
// included). The lowest gets 0, the highest 100, ties share the mean of
// their ranks; a single key gets 50.
func percentileRanks(keys []rankKey, p []float64) {
	n := len(keys)
	if n == 1 {
		p[keys[0].i] = 50
		return
	}
	slices.SortFunc(keys, compareRankKeys)
	for i := 0; i < n; {
		j := i + 1
		for j < n && compareRankKeys(keys[i], keys[j]) == 0 {
			j++
		}
		v := 100 * (float64(i) + float64(j-i-1)/2) / float64(n-1)
		for k := i; k < j; k++ {
			p[keys[k].i] = v
		}
		i = j
	}
}

// compareActivity orders by activity ascending: trade count, then volume
// (NaN lowest).
func compareActivity(a, b *schemas.IntelligenceDocument) int {
	if c := cmp.Compare(a.TradeCount, b.TradeCount); c != 0 {
		return c
	}
	return cmp.Compare(sortKey(a.Volume), sortKey(b.Volume))
}

// mostActiveFirst orders by activity descending, then symbol ascending: the
// tie-break of every ranking.
func mostActiveFirst(a, b *schemas.IntelligenceDocument) int {
	if c := compareActivity(b, a); c != 0 {
		return c
	}
	return cmp.Compare(a.Symbol, b.Symbol)
}

// ranking is one ranked list of the market routes: keep selects the
// documents, by orders them before the activity tie-break.
type ranking struct {
	keep func(d *schemas.IntelligenceDocument) bool
	by   func(a, b *schemas.IntelligenceDocument) int
}

// rank returns at most limit covered documents that r keeps, in r's order,
// and how many r keeps in all. The documents are the market's; callers must
// not modify them.
func (m *market) rank(r ranking, limit int) ([]*schemas.IntelligenceDocument, int) {
	out := make([]*schemas.IntelligenceDocument, 0, min(len(m.docs), 64))
	for _, d := range m.docs {
		if r.keep == nil || r.keep(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *schemas.IntelligenceDocument) int {
		if r.by != nil {
			if c := r.by(a, b); c != 0 {
				return c
			}
		}
		return mostActiveFirst(a, b)
	})
	total := len(out)
	if total > limit {
		out = out[:limit]
	}
	return out, total
}

// The rankings of the market routes.
func byActivity() ranking { return ranking{} }

func byMomentum() ranking {
	return ranking{by: func(a, b *schemas.IntelligenceDocument) int {
		return cmp.Compare(sortKey(b.MomentumScore), sortKey(a.MomentumScore))
	}}
}

func unusualRanking(minAnomaly float64, minTrades int64) ranking {
	return ranking{
		keep: func(d *schemas.IntelligenceDocument) bool {
			return d.AnomalyScore >= minAnomaly && d.TradeCount >= minTrades
		},
		by: func(a, b *schemas.IntelligenceDocument) int {
			return cmp.Compare(sortKey(b.AnomalyScore), sortKey(a.AnomalyScore))
		},
	}
}

func eventsRanking() ranking {
	return ranking{
		keep: func(d *schemas.IntelligenceDocument) bool { return d.EventType != "" && d.EventType != eventNormal },
		by: func(a, b *schemas.IntelligenceDocument) int {
			return cmp.Compare(sortKey(b.ConfidenceScore), sortKey(a.ConfidenceScore))
		},
	}
}

func buyingRanking(minBuyPressure float64) ranking {
	return ranking{
		keep: func(d *schemas.IntelligenceDocument) bool { return d.BuyPressure >= minBuyPressure },
		by: func(a, b *schemas.IntelligenceDocument) int {
			return cmp.Compare(sortKey(b.BuyPressure), sortKey(a.BuyPressure))
		},
	}
}

func sellingRanking(maxBuyPressure float64) ranking {
	return ranking{
		keep: func(d *schemas.IntelligenceDocument) bool { return d.BuyPressure <= maxBuyPressure },
		by: func(a, b *schemas.IntelligenceDocument) int {
			return cmp.Compare(sortKey(a.BuyPressure), sortKey(b.BuyPressure))
		},
	}
}

// get returns the covered document of symbol, if any.
func (m *market) get(symbol string) (*schemas.IntelligenceDocument, bool) {
	i, ok := slices.BinarySearchFunc(m.docs, symbol, func(d *schemas.IntelligenceDocument, s string) int {
		return strings.Compare(d.Symbol, s)
	})
	if !ok {
		return nil, false
	}
	return m.docs[i], true
}

// shallowCopy sets every field of dst to the field of src. The
// observations, interpretation and evidence are shared, not copied: the
// views never modify a document, and neither may the caller.
// TestShallowCopy checks it copies every field.
func shallowCopy(dst, src *schemas.IntelligenceDocument) {
	dst.Id = src.Id
	dst.Symbol = src.Symbol
	dst.Window = src.Window
	dst.Price = src.Price
	dst.Volume = src.Volume
	dst.BuyVolume = src.BuyVolume
	dst.SellVolume = src.SellVolume
	dst.BuyPressure = src.BuyPressure
	dst.BuySellRatio = src.BuySellRatio
	dst.BuySellImbalance = src.BuySellImbalance
	dst.PriceChangePercent = src.PriceChangePercent
	dst.VolumeAcceleration = src.VolumeAcceleration
	dst.TradeAcceleration = src.TradeAcceleration
	dst.MomentumScore = src.MomentumScore
	dst.ActivityScore = src.ActivityScore
	dst.AnomalyScore = src.AnomalyScore
	dst.ConfidenceScore = src.ConfidenceScore
	dst.AverageTradeSize = src.AverageTradeSize
	dst.TradeRatePerMinute = src.TradeRatePerMinute
	dst.VolumeRatePerMinute = src.VolumeRatePerMinute
	dst.PriceChangePerMinute = src.PriceChangePerMinute
	dst.TradeCount = src.TradeCount
	dst.LargeTradeCount = src.LargeTradeCount
	dst.LargeBuyVolume = src.LargeBuyVolume
	dst.LargeSellVolume = src.LargeSellVolume
	dst.MaxTradeSize = src.MaxTradeSize
	dst.MaxTradeNotional = src.MaxTradeNotional
	dst.DominantSide = src.DominantSide
	dst.Signal = src.Signal
	dst.SignalStrength = src.SignalStrength
	dst.TimestampNs = src.TimestampNs
	dst.PreviousSignal = src.PreviousSignal
	dst.SignalChangedAtNs = src.SignalChangedAtNs
	dst.SignalAgeSeconds = src.SignalAgeSeconds
	dst.ActivityMultiple = src.ActivityMultiple
	dst.VolumeMultiple = src.VolumeMultiple
	dst.ActivityZScore = src.ActivityZScore
	dst.VolumeZScore = src.VolumeZScore
	dst.BaselineSamples = src.BaselineSamples
	dst.BaselineReady = src.BaselineReady
	dst.MarketPercentile = src.MarketPercentile
	dst.RelativeMomentumPercentile = src.RelativeMomentumPercentile
	dst.RelativeBuyPressurePercentile = src.RelativeBuyPressurePercentile
	dst.EventType = src.EventType
	dst.LifecycleState = src.LifecycleState
	dst.Observations = src.Observations
	dst.Interpretation = src.Interpretation
	dst.Evidence = src.Evidence
	dst.LastTradeTimeNs = src.LastTradeTimeNs
}
