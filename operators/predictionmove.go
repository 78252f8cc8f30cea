package operators

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/marketintel/mi/schemas"
)

// prediction_market_move thresholds (spec §6;
// docs/positioning.md#prediction_market_move).
const (
	// PredictionMoveMinPoints is the least move, in probability points
	// (0.10 = 10 points), that fires.
	PredictionMoveMinPoints = 0.10
	// PredictionMoveWindow is how far back a move is measured.
	PredictionMoveWindow = time.Hour
	// PredictionMoveMinVolumeUSD is the least 24 h volume of a market that
	// fires.
	PredictionMoveMinVolumeUSD = 5_000
	// PredictionMoveCooldown is the least time between two events of one
	// market in the same direction; a move in the other direction (a
	// reversal) may fire sooner.
	PredictionMoveCooldown = 6 * time.Hour
	// predictionMaxPoints bounds the quotes kept per market (polls every
	// 15 minutes keep 4 within the hour; faster pollers keep the newest).
	predictionMaxPoints = 64
)

// Directions of a prediction market move.
const (
	MoveUp   = "up"
	MoveDown = "down"
)

// PredictionMoveData is the data of a prediction_market_move event (spec §6:
// question, option, from-probability, to-probability, category).
type PredictionMoveData struct {
	Venue    string `json:"venue"`
	MarketID string `json:"marketId"`
	Question string `json:"question"`
	Option   string `json:"option"`
	Category string `json:"category"`
	// FromProbability and ToProbability are fractions 0..1: the option's
	// implied probability at FromAt (the quote within the hour before ToAt
	// farthest from the new price) and at ToAt.
	FromProbability float64   `json:"fromProbability"`
	ToProbability   float64   `json:"toProbability"`
	FromAt          time.Time `json:"fromAt"`
	ToAt            time.Time `json:"toAt"`
	// MovePoints is 100 × (ToProbability − FromProbability), signed;
	// Direction is up or down.
	MovePoints   float64 `json:"movePoints"`
	Direction    string  `json:"direction"`
	Volume24hUSD float64 `json:"volume24hUsd"`
	// Coin is the venue's instrument of the option; Underlying the asset of
	// a price market; ExpiresAt when the market resolves (omitted when not
	// published).
	Coin       string     `json:"coin,omitempty"`
	Underlying string     `json:"underlying,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
}

// PredictionMoveDetector fires prediction_market_move. It is a pure operator
// (time from the quotes).
//
// For each quote of a market with at least $5,000 of 24 h volume, the
// reference is the quote of the same market within the hour before it
// (inclusive of exactly one hour) whose probability is farthest from the new
// one (the earliest on ties). When they differ by 10 points or more the
// market moved: the event fires unless the market fired in the same
// direction less than 6 hours earlier. A move in the opposite direction (a
// reversal) fires even within the 6 hours. Quotes not newer than the newest
// seen for the market are ignored.
type PredictionMoveDetector struct {
	markets map[string]*predictionMarket
	// nextForget is the record time of the next Forget that Push runs
	// (not state: forgetting changes no event, only memory).
	nextForget int64
}

// predictionForgetEvery is how often, in record time, Push forgets the
// markets quiet for longer than the cooldown.
const predictionForgetEvery = 15 * time.Minute

type predictionPoint struct {
	Ns int64   `json:"ns"`
	P  float64 `json:"p"`
}

type predictionMarket struct {
	Points []predictionPoint `json:"points"` // ascending time, within the window of the newest
	FireNs int64             `json:"fireNs,omitempty"`
	FireUp bool              `json:"fireUp,omitempty"`
	Fired  bool              `json:"fired,omitempty"`
}

// NewPredictionMoveDetector returns a detector with no history.
func NewPredictionMoveDetector() *PredictionMoveDetector {
	return &PredictionMoveDetector{markets: map[string]*predictionMarket{}}
}

func predictionKey(venue, market string) string { return venue + "|" + market }

// Push runs one quote through the detector and appends the event it fires,
// if any, to out.
func (d *PredictionMoveDetector) Push(q *schemas.PredictionQuote, out []AlertEvent) []AlertEvent {
	if q == nil || q.Venue == "" || q.MarketId == "" || !(q.Probability >= 0 && q.Probability <= 1) {
		return out
	}
	k := predictionKey(q.Venue, q.MarketId)
	m := d.markets[k]
	if m == nil {
		m = &predictionMarket{}
		d.markets[k] = m
	} else if n := len(m.Points); n > 0 && q.ObservedNs <= m.Points[n-1].Ns {
		return out
	}
	// The reference: the quote within the hour farthest from the new price.
	from := -1
	best := 0.0
	for i, pt := range m.Points {
		if q.ObservedNs-pt.Ns > int64(PredictionMoveWindow) {
			continue
		}
		if d := math.Abs(q.Probability - pt.P); d > best {
			from, best = i, d
		}
	}
	var fired *AlertEvent
	// Probabilities are fractions with float error: 0.55 − 0.45 is
	// 0.09999999999999998. A move is compared in whole points, rounded to
	// 1e-9 of a point.
	if from >= 0 && q.DayVolumeUsd >= PredictionMoveMinVolumeUSD && math.Round(best*1e11) >= PredictionMoveMinPoints*1e11 {
		ref := m.Points[from]
		up := q.Probability > ref.P
		if !m.Fired || q.ObservedNs-m.FireNs >= int64(PredictionMoveCooldown) || up != m.FireUp {
			m.Fired, m.FireNs, m.FireUp = true, q.ObservedNs, up
			dir := MoveDown
			if up {
				dir = MoveUp
			}
			data := PredictionMoveData{
				Venue: q.Venue, MarketID: q.MarketId, Question: q.Question, Option: q.Option, Category: q.Category,
				FromProbability: ref.P, ToProbability: q.Probability,
				FromAt: time.Unix(0, ref.Ns).UTC(), ToAt: time.Unix(0, q.ObservedNs).UTC(),
				MovePoints: 100 * (q.Probability - ref.P), Direction: dir, Volume24hUSD: q.DayVolumeUsd,
				Coin: q.Coin, Underlying: q.Underlying,
			}
			if q.ExpiryNs > 0 {
				t := time.Unix(0, q.ExpiryNs).UTC()
				data.ExpiresAt = &t
			}
			sym := q.Underlying
			if sym != "" {
				sym += "USD"
			}
			e := newAlertEvent(AlertPredictionMarketMove, sym, q.ObservedNs, k+"|"+dir, data)
			fired = &e
		}
	}
	// Keep the quotes within the window of the newest, at most
	// predictionMaxPoints.
	m.Points = append(m.Points, predictionPoint{q.ObservedNs, q.Probability})
	cut := 0
	for cut < len(m.Points) && q.ObservedNs-m.Points[cut].Ns > int64(PredictionMoveWindow) {
		cut++
	}
	cut = max(cut, len(m.Points)-predictionMaxPoints)
	m.Points = append(m.Points[:0], m.Points[cut:]...)
	if q.ObservedNs >= d.nextForget {
		d.Forget(q.ObservedNs - int64(PredictionMoveCooldown))
		d.nextForget = q.ObservedNs + int64(predictionForgetEvery)
	}
	if fired != nil {
		out = append(out, *fired)
	}
	return out
}

// Forget drops the history of markets whose newest quote is older than
// beforeNs and whose last event is older than the cooldown at beforeNs:
// resolved and delisted markets stop taking memory. Time comes from the
// caller (a record's time), never the clock. Push calls it every 15
// minutes of record time with beforeNs one cooldown before the quote: a
// market forgotten then has no quote within the hour and no cooldown
// running, so its next quote fires what it would have fired anyway.
func (d *PredictionMoveDetector) Forget(beforeNs int64) {
	for k, m := range d.markets {
		n := len(m.Points)
		if (n == 0 || m.Points[n-1].Ns < beforeNs) && (!m.Fired || beforeNs-m.FireNs >= int64(PredictionMoveCooldown)) {
			delete(d.markets, k)
		}
	}
}

// MarshalState returns the detector state as JSON, sorted by market.
func (d *PredictionMoveDetector) MarshalState() []byte {
	keys := make([]string, 0, len(d.markets))
	for k := range d.markets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		Key string `json:"key"`
		predictionMarket
	}
	es := make([]entry, len(keys))
	for i, k := range keys {
		es[i] = entry{k, *d.markets[k]}
	}
	b, err := json.Marshal(es)
	if err != nil {
		panic("BUG: cannot marshal prediction detector state: " + err.Error())
	}
	return b
}

// RestoreState replaces the detector state with one MarshalState returned.
func (d *PredictionMoveDetector) RestoreState(b []byte) error {
	var es []struct {
		Key string `json:"key"`
		predictionMarket
	}
	if err := json.Unmarshal(b, &es); err != nil {
		return fmt.Errorf("cannot restore prediction detector state: %w", err)
	}
	m := make(map[string]*predictionMarket, len(es))
	for _, e := range es {
		pm := e.predictionMarket
		if !sort.SliceIsSorted(pm.Points, func(i, j int) bool { return pm.Points[i].Ns < pm.Points[j].Ns }) {
			return fmt.Errorf("cannot restore prediction detector state: market %q has unsorted quotes", e.Key)
		}
		m[e.Key] = &pm
	}
	d.markets = m
	return nil
}
