package operators

import (
	"math"
	"strconv"

	"github.com/marketintel/mi/schemas"
)

// AlgorithmVersion names the version of the scores, event types, signals
// and lifecycle rules (docs/signals.md). It is stamped on every
// SignalChange; change it whenever a formula or threshold changes.
const AlgorithmVersion = "mi-signals/1.2.0"

// Score and classification rules (docs/signals.md).
const (
	momentumPriceWeight = 35       // points of momentum from the price move
	momentumFlowWeight  = 15       // points of momentum from buy pressure
	minTypicalMove      = 0.05     // percent: floor of a ready baseline's typical move
	anomalyZHalf        = 15.0 / 7 // |z| at which the z part of the anomaly reaches 70
	anomalyMultHalf     = 6.0 / 7  // multiple − 1 at which the multiple part reaches 70
	confidenceTradeHalf = 10       // trades at which the trade factor of the confidence is 1/2
	confidenceBase      = 0.4      // baseline factor of the confidence with no samples

	// UnusualAnomalyScore is the anomaly score from which activity is
	// unusual.
	UnusualAnomalyScore = 70
	// ElevatedAnomalyScore is the anomaly part from which volume or
	// activity is elevated: |z| ≥ 15/7 and multiple ≥ 13/7. Every
	// directional event type needs it (docs/signals.md).
	ElevatedAnomalyScore = 50

	strongMomentumHigh = 70 // momentum from which a move is strong upwards
	strongMomentumLow  = 30 // momentum up to which a move is strong downwards
	pressureHigh       = 60 // buy pressure from which buyers dominate an event
	pressureLow        = 40 // buy pressure up to which sellers dominate an event
	elevatedVolume     = 1.5
	// minDirectionalTrades is the least trade count of a window for a
	// directional event type: the buy pressure and move of fewer trades
	// are not a direction.
	minDirectionalTrades = 5
	flatMoveShare        = 0.25 // share of the typical move still counted as flat

	bullishMomentum = 60
	bearishMomentum = 40
	bullishPressure = 55
	bearishPressure = 45

	// Hysteresis: a signal, once entered, is left only when its exit
	// condition holds (docs/signals.md).
	bullishExitMomentum = 55 // BULLISH is left below this momentum
	bullishExitPressure = 50 // or below this buy pressure
	bearishExitMomentum = 45 // BEARISH is left above this momentum
	bearishExitPressure = 50 // or above this buy pressure

	// evidenceInterval is the event time (ns) after which a document carries
	// evidence again although neither its signal nor its event type changed.
	evidenceInterval = 60 * nsPerSecond
)

// minHold is, per window, the event time (ns) a new signal is kept before
// it may change again, unless it flips to the opposite direction with HIGH
// strength.
var minHold = [numWindows]int64{30 * nsPerSecond, 120 * nsPerSecond, 300 * nsPerSecond}

// defaultTypicalMove is the typical move (percent) of each window while
// the baseline is not ready.
var defaultTypicalMove = [numWindows]float64{0.25, 0.5, 1}

// Event types, in order of precedence.
const (
	EventBreakout        = "BREAKOUT"
	EventBreakdown       = "BREAKDOWN"
	EventDistribution    = "DISTRIBUTION"
	EventAccumulation    = "ACCUMULATION"
	EventUnusualActivity = "UNUSUAL_ACTIVITY"
	EventMomentum        = "MOMENTUM"
	EventNormal          = "NORMAL"
)

// Signals, strengths and lifecycle states.
const (
	SignalBullish    = "BULLISH"
	SignalBearish    = "BEARISH"
	SignalNeutral    = "NEUTRAL"
	StrengthLow      = "LOW"
	StrengthMedium   = "MEDIUM"
	StrengthHigh     = "HIGH"
	LifecycleNew     = "NEW_SIGNAL"
	LifecyclePersist = "PERSISTING"
)

// signalNames maps the encoded signal code to its name; code 0 is "none".
var signalNames = [...]string{"", SignalNeutral, SignalBullish, SignalBearish}

func signalCode(s string) uint8 { return nameCode(signalNames[:], s) }

// eventNames maps the encoded event type code to its name; code 0 is
// "none".
var eventNames = [...]string{"", EventBreakout, EventBreakdown, EventDistribution, EventAccumulation,
	EventUnusualActivity, EventMomentum, EventNormal}

func eventCode(s string) uint8 { return nameCode(eventNames[:], s) }

func nameCode(names []string, s string) uint8 {
	for i, n := range names {
		if n == s {
			return uint8(i)
		}
	}
	panic("BUG: unknown name " + s)
}

// lifecycle is the signal lifecycle of one symbol and window.
type lifecycle struct {
	signal     uint8 // code of the last document's signal; 0 before the first
	previous   uint8 // code of the signal before the current run; 0 if none
	event      uint8 // code of the last document's event type; 0 before the first
	changedNs  int64 // timestamp of the document where the current run began
	evidenceNs int64 // timestamp of the last document with evidence
}

// scoreInputs are the document fields the scores are computed from.
type scoreInputs struct {
	window                int
	count                 float64
	volume                float64
	change, buyPressure   float64
	largeBuy, largeSell   float64
	ready                 bool
	samples               int
	stats                 baselineStats
	activityMult, volMult float64
	activityZ, volZ       float64
}

// scores are the derived values of a document.
type scores struct {
	typicalMove                             float64
	momentum, activity, anomaly, confidence float64
	volumeAnomaly, activityAnomaly          float64
	eventType, signal, strength             string
}

// clamp100 bounds x to [0, 100].
func clamp100(x float64) float64 { return max(0, min(100, x)) }

// saturate returns 100 × x/(x + half) for x ≥ 0, 0 below: 50 at x = half.
func saturate(x, half float64) float64 {
	if x <= 0 {
		return 0
	}
	return 100 * x / (x + half)
}

// typicalMove returns the scale of price moves of window w: the median
// aligned-window range of a ready baseline over its samples with at least
// two trades (at least minTypicalMove), else, and when fewer than half the
// ready minimum of samples have two trades, the window's default.
func typicalMove(w int, ready bool, stats *baselineStats) float64 {
	if !ready || stats.rngSamples < BaselineReadySamples/2 {
		return defaultTypicalMove[w]
	}
	return max(stats.rngMedian, minTypicalMove)
}

// momentumScore is 50 + 35·tanh(change/typical) + 15·(buyPressure − 50)/50,
// clamped to [0, 100]: 50 is flat and balanced.
func momentumScore(change, typical, buyPressure float64) float64 {
	return clamp100(50 + momentumPriceWeight*math.Tanh(change/typical) + momentumFlowWeight*(buyPressure-50)/50)
}

// activityScore is 100·m/(m + 1) for the activity multiple m: 50 at 1×,
// 75 at 3×, 90 at 9×; 0 when the baseline is not ready.
func activityScore(ready bool, m float64) float64 {
	if !ready {
		return 0
	}
	return saturate(m, 1)
}

// anomalyPart scores one measure: the smaller of 100·|z|/(|z| + 15/7) and
// 100·(m − 1)/(m − 1 + 6/7), so that it reaches 70 exactly when |z| ≥ 5 and
// m ≥ 3.
func anomalyPart(z, m float64) float64 {
	return min(saturate(math.Abs(z), anomalyZHalf), saturate(m-1, anomalyMultHalf))
}

// confidenceScore is 100 · n/(n + 10) · (0.4 + 0.6 · samples/48).
func confidenceScore(count float64, samples int) float64 {
	return 100 * count / (count + confidenceTradeHalf) * (confidenceBase + (1-confidenceBase)*float64(samples)/baselineSize)
}

// computeScores derives scores, event type, and the entry signal and its
// strength (fillSignals applies hysteresis and the minimum hold).
func computeScores(in *scoreInputs) scores {
	var s scores
	s.typicalMove = typicalMove(in.window, in.ready, &in.stats)
	s.momentum = momentumScore(in.change, s.typicalMove, in.buyPressure)
	s.activity = activityScore(in.ready, in.activityMult)
	if in.ready {
		s.volumeAnomaly = anomalyPart(in.volZ, in.volMult)
		s.activityAnomaly = anomalyPart(in.activityZ, in.activityMult)
		s.anomaly = max(s.volumeAnomaly, s.activityAnomaly)
	}
	s.confidence = confidenceScore(in.count, in.samples)
	s.eventType = eventType(in, &s)
	s.signal = signalOf(in.ready, s.momentum, in.buyPressure)
	s.strength = strengthOf(s.signal, s.momentum, s.confidence)
	return s
}

// eventType applies the event rules in order of precedence; every event
// but NORMAL needs a ready baseline and at least one trade.
func eventType(in *scoreInputs, s *scores) string {
	if !in.ready || in.count == 0 {
		return EventNormal
	}
	if in.count < minDirectionalTrades {
		if s.anomaly >= UnusualAnomalyScore {
			return EventUnusualActivity
		}
		return EventNormal
	}
	flat := flatMoveShare * s.typicalMove
	up, down := in.change >= s.typicalMove, in.change <= -s.typicalMove
	elevated := s.anomaly >= ElevatedAnomalyScore
	volUnusual := s.volumeAnomaly >= UnusualAnomalyScore
	switch {
	case elevated && up && s.momentum >= strongMomentumHigh && in.buyPressure >= pressureHigh:
		return EventBreakout
	case elevated && down && s.momentum <= strongMomentumLow && in.buyPressure <= pressureLow:
		return EventBreakdown
	case volUnusual && in.buyPressure <= pressureLow && in.change <= flat && in.largeSell > in.largeBuy:
		return EventDistribution
	case volUnusual && in.buyPressure >= pressureHigh && in.change >= -flat && in.largeBuy > in.largeSell:
		return EventAccumulation
	case s.anomaly >= UnusualAnomalyScore:
		return EventUnusualActivity
	case s.activityAnomaly >= ElevatedAnomalyScore && (up && s.momentum >= strongMomentumHigh || down && s.momentum <= strongMomentumLow):
		return EventMomentum
	}
	return EventNormal
}

// heldSignal applies hysteresis and the minimum hold to the entry signal
// of a document at ts of window w, given the lifecycle so far: the current
// signal stays while its exit condition does not hold, and a signal younger
// than minHold[w] changes only to the opposite direction with HIGH
// strength. Without a ready baseline the signal is NEUTRAL at once.
func heldSignal(lc *lifecycle, w int, ready bool, momentum, buyPressure, confidence float64, ts int64) string {
	entry := signalOf(ready, momentum, buyPressure)
	if lc.signal == 0 || !ready {
		return entry
	}
	cur := signalNames[lc.signal]
	next := entry
	switch {
	case cur == SignalBullish && momentum >= bullishExitMomentum && buyPressure >= bullishExitPressure:
		next = cur
	case cur == SignalBearish && momentum <= bearishExitMomentum && buyPressure <= bearishExitPressure:
		next = cur
	}
	if next == cur || ts-lc.changedNs >= minHold[w] {
		return next
	}
	opposite := (cur == SignalBullish && next == SignalBearish) || (cur == SignalBearish && next == SignalBullish)
	if opposite && strengthOf(next, momentum, confidence) == StrengthHigh {
		return next
	}
	return cur
}

// signalOf is BULLISH when momentum ≥ 60 and buy pressure ≥ 55, BEARISH
// when momentum ≤ 40 and buy pressure ≤ 45, NEUTRAL otherwise or while the
// baseline is not ready.
func signalOf(ready bool, momentum, buyPressure float64) string {
	switch {
	case !ready:
		return SignalNeutral
	case momentum >= bullishMomentum && buyPressure >= bullishPressure:
		return SignalBullish
	case momentum <= bearishMomentum && buyPressure <= bearishPressure:
		return SignalBearish
	}
	return SignalNeutral
}

// strengthOf is HIGH when |momentum − 50| ≥ 30 and confidence ≥ 60, MEDIUM
// when |momentum − 50| ≥ 20 and confidence ≥ 40, LOW otherwise and always
// for NEUTRAL.
func strengthOf(signal string, momentum, confidence float64) string {
	d := math.Abs(momentum - 50)
	switch {
	case signal == SignalNeutral:
		return StrengthLow
	case d >= 30 && confidence >= 60:
		return StrengthHigh
	case d >= 20 && confidence >= 40:
		return StrengthMedium
	}
	return StrengthLow
}

// Interpretation values.
func momentumWord(m float64) string {
	switch {
	case m >= 75:
		return "strong_up"
	case m >= 60:
		return "up"
	case m <= 25:
		return "strong_down"
	case m <= 40:
		return "down"
	}
	return "flat"
}

func activityWord(ready bool, m float64) string {
	switch {
	case !ready:
		return "warming_up"
	case m >= 3:
		return "very_high"
	case m >= elevatedVolume:
		return "high"
	case m >= 2.0/3:
		return "normal"
	case m > 0:
		return "low"
	}
	return "none"
}

func buyingWord(count, bp float64) string {
	switch {
	case count == 0:
		return "no_trades"
	case bp >= 65:
		return "strong_buying"
	case bp >= bullishPressure:
		return "buying"
	case bp <= 35:
		return "strong_selling"
	case bp <= bearishPressure:
		return "selling"
	}
	return "balanced"
}

// relativeStrengthNA is the relative strength until cross-symbol
// percentiles exist.
const relativeStrengthNA = "n/a"

// fillSignals completes the engine's document for window w of sym with the
// baseline fields, scores, classification, lifecycle, interpretation and
// evidence (when due), and emits a SignalChange when the signal changed. It
// returns whether the symbol's lifecycle state changed.
func (e *Engine) fillSignals(sym *symbol, w int) bool {
	d := &e.docOut
	b := &sym.base[w]
	in := scoreInputs{
		window:      w,
		count:       float64(d.TradeCount),
		volume:      d.Volume,
		change:      d.PriceChangePercent,
		buyPressure: d.BuyPressure,
		largeBuy:    d.LargeBuyVolume,
		largeSell:   d.LargeSellVolume,
		ready:       b.ready(),
		samples:     int(b.n),
		stats:       b.stats,
	}
	if in.ready {
		st := &b.stats
		in.activityMult = multiple(in.count, st.cntMedian)
		in.volMult = multiple(in.volume, st.volMedian)
		in.activityZ = zScore(in.count, st.cntMedian, st.cntSigma)
		in.volZ = zScore(in.volume, st.volMedian, st.volSigma)
	}
	s := computeScores(&in)

	d.BaselineSamples = int64(b.n)
	d.BaselineReady = in.ready
	d.ActivityMultiple, d.VolumeMultiple = in.activityMult, in.volMult
	d.ActivityZScore, d.VolumeZScore = in.activityZ, in.volZ
	d.MomentumScore, d.ActivityScore, d.AnomalyScore, d.ConfidenceScore = s.momentum, s.activity, s.anomaly, s.confidence
	d.EventType, d.Signal, d.SignalStrength = s.eventType, s.signal, s.strength
	e.obsOut.BaselineVolumeMedian = b.stats.volMedian
	e.obsOut.BaselineTradeCountMedian = b.stats.cntMedian

	// Lifecycle: hysteresis and minimum hold on the entry signal.
	lc := &sym.life[w]
	s.signal = heldSignal(lc, w, in.ready, s.momentum, in.buyPressure, s.confidence, d.TimestampNs)
	s.strength = strengthOf(s.signal, s.momentum, s.confidence)
	d.Signal, d.SignalStrength = s.signal, s.strength
	code := signalCode(s.signal)
	changed := lc.signal != code
	first := lc.signal == 0
	ev := eventCode(s.eventType)
	withEvidence := changed || lc.event != ev || d.TimestampNs-lc.evidenceNs >= evidenceInterval
	dirty := withEvidence || lc.event != ev
	lc.event = ev
	if withEvidence {
		lc.evidenceNs = d.TimestampNs
	}
	if changed {
		if !first {
			lc.previous = lc.signal
		}
		lc.signal, lc.changedNs = code, d.TimestampNs
		d.LifecycleState = LifecycleNew
	} else {
		d.LifecycleState = LifecyclePersist
	}
	d.PreviousSignal = signalNames[lc.previous]
	d.SignalChangedAtNs = lc.changedNs
	d.SignalAgeSeconds = (d.TimestampNs - lc.changedNs) / nsPerSecond

	e.interpOut = schemas.Interpretation{
		Momentum:         momentumWord(s.momentum),
		Activity:         activityWord(in.ready, in.activityMult),
		Buying:           buyingWord(in.count, in.buyPressure),
		RelativeStrength: relativeStrengthNA,
	}
	d.Interpretation = &e.interpOut
	d.Evidence = nil
	if withEvidence {
		d.Evidence = e.appendEvidence(e.evidence[:0], &in, &s, b)
		e.evidence = d.Evidence
	}

	if changed && !first {
		c := &e.changeOut
		*c = schemas.SignalChange{
			Symbol:           d.Symbol,
			Window:           d.Window,
			AlgorithmVersion: AlgorithmVersion,
			PreviousSignal:   d.PreviousSignal,
			Signal:           d.Signal,
			ChangedAtNs:      d.TimestampNs,
			DocumentId:       d.Id,
			Price:            d.Price,
			MomentumScore:    d.MomentumScore,
			ActivityScore:    d.ActivityScore,
			AnomalyScore:     d.AnomalyScore,
			ConfidenceScore:  d.ConfidenceScore,
			BuyPressure:      d.BuyPressure,
			EventType:        d.EventType,
			SignalStrength:   d.SignalStrength,
			Volume:           d.Volume,
			TradeCount:       d.TradeCount,
			BaselineSamples:  d.BaselineSamples,
		}
		e.pendingChange = true
	}
	return dirty
}

// appendEvidence appends the evidence sentences of a document, each citing
// its numbers, with strings carved from the engine's arena.
func (e *Engine) appendEvidence(ev []string, in *scoreInputs, s *scores, b *baseline) []string {
	win := windowNames[in.window]
	buf := e.scratch[:0]

	buf = append(buf, "Price moved "...)
	buf = appendSignedPercent(buf, in.change)
	buf = append(buf, " over the "...)
	buf = append(buf, win...)
	buf = append(buf, " window (typical move "...)
	buf = strconv.AppendFloat(buf, s.typicalMove, 'f', 2, 64)
	buf = append(buf, "%)."...)
	ev = append(ev, e.ids.str(buf))

	buf = append(buf[:0], "Buy pressure is "...)
	buf = strconv.AppendFloat(buf, in.buyPressure, 'f', 1, 64)
	buf = append(buf, "% across "...)
	buf = strconv.AppendInt(buf, int64(in.count), 10)
	buf = append(buf, " trades ("...)
	buf = appendUSD(buf, in.volume)
	buf = append(buf, ")."...)
	ev = append(ev, e.ids.str(buf))

	if in.ready {
		buf = append(buf[:0], "Volume is "...)
		buf = strconv.AppendFloat(buf, in.volMult, 'f', 1, 64)
		buf = append(buf, "× its "...)
		buf = strconv.AppendInt(buf, int64(b.n), 10)
		buf = append(buf, "-window median ("...)
		buf = appendUSD(buf, in.volume)
		buf = append(buf, " vs "...)
		buf = appendUSD(buf, b.stats.volMedian)
		buf = append(buf, ", z "...)
		buf = strconv.AppendFloat(buf, in.volZ, 'f', 1, 64)
		buf = append(buf, ")."...)
		ev = append(ev, e.ids.str(buf))

		buf = append(buf[:0], "Trade count is "...)
		buf = strconv.AppendFloat(buf, in.activityMult, 'f', 1, 64)
		buf = append(buf, "× its "...)
		buf = strconv.AppendInt(buf, int64(b.n), 10)
		buf = append(buf, "-window median ("...)
		buf = strconv.AppendInt(buf, int64(in.count), 10)
		buf = append(buf, " vs "...)
		buf = strconv.AppendFloat(buf, b.stats.cntMedian, 'f', -1, 64)
		buf = append(buf, ", z "...)
		buf = strconv.AppendFloat(buf, in.activityZ, 'f', 1, 64)
		buf = append(buf, ")."...)
		ev = append(ev, e.ids.str(buf))
	} else {
		buf = append(buf[:0], "Baseline is warming up: "...)
		buf = strconv.AppendInt(buf, int64(b.n), 10)
		buf = append(buf, " of "...)
		buf = strconv.AppendInt(buf, BaselineReadySamples, 10)
		buf = append(buf, " aligned "...)
		buf = append(buf, win...)
		buf = append(buf, " windows."...)
		ev = append(ev, e.ids.str(buf))
	}

	if in.largeBuy > 0 || in.largeSell > 0 {
		buf = append(buf[:0], "Large trades: "...)
		buf = appendUSD(buf, in.largeBuy)
		buf = append(buf, " bought vs "...)
		buf = appendUSD(buf, in.largeSell)
		buf = append(buf, " sold."...)
		ev = append(ev, e.ids.str(buf))
	}
	e.scratch = buf
	return ev
}

// appendSignedPercent appends x with a sign and two decimals and "%".
func appendSignedPercent(b []byte, x float64) []byte {
	if x >= 0 {
		b = append(b, '+')
	}
	b = strconv.AppendFloat(b, x, 'f', 2, 64)
	return append(b, '%')
}

// appendUSD appends a dollar amount: "$950", "$380k", "$1.2M", "$3.4B",
// "$5.6T" (one decimal from M up, none below).
func appendUSD(b []byte, x float64) []byte {
	b = append(b, '$')
	switch {
	case x >= 1e12:
		b = strconv.AppendFloat(b, x/1e12, 'f', 1, 64)
		return append(b, 'T')
	case x >= 1e9:
		b = strconv.AppendFloat(b, x/1e9, 'f', 1, 64)
		return append(b, 'B')
	case x >= 1e6:
		b = strconv.AppendFloat(b, x/1e6, 'f', 1, 64)
		return append(b, 'M')
	case x >= 1e3:
		b = strconv.AppendFloat(b, x/1e3, 'f', 0, 64)
		return append(b, 'k')
	}
	return strconv.AppendFloat(b, x, 'f', 0, 64)
}
