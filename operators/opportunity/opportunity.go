// Package opportunity is the opportunity scan of spec §4.2: given an
// objective, constraints and the trade-flow measurements of a universe of
// symbols, it keeps the symbols that meet the objective's rule, scores and
// ranks them, and counts the others by the reason they were left out.
// Pure: no I/O, no clock, no model; the same inputs give the same result
// (docs/decisions.md, "Opportunity scan").
package opportunity

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// Objective is what the caller looks for.
type Objective string

// The seven objectives of spec §4.2.
const (
	UnusualBuying          Objective = "unusual_buying"
	UnusualSelling         Objective = "unusual_selling"
	Breakout               Objective = "breakout"
	Breakdown              Objective = "breakdown"
	CrowdedPositioning     Objective = "crowded_positioning"
	SmartMoneyAccumulation Objective = "smart_money_accumulation"
	SmartMoneyDistribution Objective = "smart_money_distribution"
)

// Objectives are the accepted objective names, in the spec's order.
var Objectives = []string{string(UnusualBuying), string(UnusualSelling), string(Breakout), string(Breakdown),
	string(CrowdedPositioning), string(SmartMoneyAccumulation), string(SmartMoneyDistribution)}

// Independent sources, counted by data source and never by metric (spec
// §2.9): buy pressure, momentum, volume and events all come from the same
// swaps and count once as SourceSpotFlow.
const (
	SourceSpotFlow    = "spot_dex_flow"
	SourcePositioning = "perp_positioning"
	SourceSmartMoney  = "smart_money"
)

// Sources are the independent sources in a fixed order.
var Sources = []string{SourceSpotFlow, SourcePositioning, SourceSmartMoney}

// Direction of an opportunity or of a piece of evidence.
const (
	Bullish  = "BULLISH"
	Bearish  = "BEARISH"
	Activity = "ACTIVITY" // unusual volume, no direction of its own
)

// Reasons a symbol is left out, the keys of Result.FilteredOut, in a fixed
// order.
const (
	ReasonNoFreshData         = "no_fresh_data"
	ReasonSourceUnavailable   = "source_unavailable"
	ReasonTooFewTrades        = "too_few_trades"
	ReasonNoBaseline          = "no_baseline"
	ReasonRuleNotMet          = "rule_not_met"
	ReasonBelowBuyPressure    = "below_min_buy_pressure"
	ReasonBelowVolumeMultiple = "below_min_volume_multiple"
	ReasonBelowVolumeUsd      = "below_min_volume_usd"
	ReasonBelowConfidence     = "below_min_confidence"
	ReasonTooFewSources       = "too_few_sources"
	ReasonBeyondMaxResults    = "beyond_max_results"
)

// Reasons lists every reason in the order of the filteredOut block.
var Reasons = []string{ReasonNoFreshData, ReasonSourceUnavailable, ReasonTooFewTrades, ReasonNoBaseline, ReasonRuleNotMet,
	ReasonBelowBuyPressure, ReasonBelowVolumeMultiple, ReasonBelowVolumeUsd, ReasonBelowConfidence, ReasonTooFewSources,
	ReasonBeyondMaxResults}

// Thresholds of the rules (spec §4.2 and docs/decisions.md).
const (
	// MinTrades is the fewest trades a flow reading needs to be judged.
	MinTrades = 3
	// BreakoutMomentum and BreakdownMomentum are the momentum bounds of
	// the breakout and breakdown objectives.
	BreakoutMomentum  = 65
	BreakdownMomentum = 35
	// ThinTrades is the trade count under which a result carries the
	// thin_trading risk factor.
	ThinTrades = 20
	// ExtendedMovePercent is the absolute price change from which a
	// result carries the extended_move risk factor.
	ExtendedMovePercent = 5
)

// Constraints are the caller's limits; Defaults holds spec §4.2's.
type Constraints struct {
	MinBuyPressure        float64 // 50–100: pressure on the objective's side, %
	MinVolumeMultiple     float64 // volume ÷ the symbol's own baseline
	MinVolumeUsd          float64 // notional traded in the window, USD
	MinConfidence         float64 // 0–100: the document's confidence score
	MinIndependentSources int     // 1–3
	MaxResults            int     // 1–50
}

// Defaults are the constraints of spec §4.2 when the caller sets none.
var Defaults = Constraints{MinBuyPressure: 60, MinVolumeMultiple: 1.5, MinVolumeUsd: 0, MinConfidence: 50,
	MinIndependentSources: 1, MaxResults: 10}

// Flow is a symbol's trade-flow measurements of the window (source
// spot_dex_flow): the fields of its intelligence document the rules read.
type Flow struct {
	Symbol             string
	BuyPressure        float64 // %, 0–100
	MomentumScore      float64 // 0–100, 50 flat
	PriceChangePercent float64
	VolumeMultiple     float64 // volume ÷ baseline
	BaselineReady      bool
	VolumeUsd          float64
	Confidence         float64 // 0–100
	TradeCount         int64
	EventType          string
}

// Evidence is one observation for or against a result.
type Evidence struct {
	Source        string  `json:"source"`
	Type          string  `json:"type"`
	Direction     string  `json:"direction"`
	ObservedValue float64 `json:"observedValue"`
	Unit          string  `json:"unit"`
	Detail        string  `json:"detail"`
}

// Risk is a risk factor of a result.
type Risk struct {
	Type     string `json:"type"`
	Severity string `json:"severity"`
	Detail   string `json:"detail"`
}

// Candidate is one kept symbol.
type Candidate struct {
	Symbol            string
	Direction         string
	Score             int
	ConfirmingSources []string
	Supporting        []Evidence
	Conflicting       []Evidence
	Risks             []Risk
	Flow              Flow
}

// Result is a scan: the ranked candidates (at most MaxResults) and the
// count of left-out symbols per reason (every reason present).
type Result struct {
	Candidates  []Candidate
	FilteredOut map[string]int
}

// Direction returns the direction an objective looks for; for
// crowded_positioning it depends on the crowd and is "" here.
func (o Objective) Direction() string {
	switch o {
	case UnusualBuying, Breakout, SmartMoneyAccumulation:
		return Bullish
	case UnusualSelling, Breakdown, SmartMoneyDistribution:
		return Bearish
	}
	return ""
}

// Source returns the independent source an objective's rule reads.
func (o Objective) Source() string {
	switch o {
	case CrowdedPositioning:
		return SourcePositioning
	case SmartMoneyAccumulation, SmartMoneyDistribution:
		return SourceSmartMoney
	}
	return SourceSpotFlow
}

// Scan applies objective o with constraints c to the universe: flows
// holds the symbols with a fresh document (any order), missing the number
// of universe symbols without one. The candidates are ranked by score,
// then volume USD, then symbol.
func Scan(o Objective, c Constraints, flows []Flow, missing int) Result {
	r := Result{FilteredOut: make(map[string]int, len(Reasons))}
	for _, reason := range Reasons {
		r.FilteredOut[reason] = 0
	}
	r.FilteredOut[ReasonNoFreshData] = missing
	if o.Source() != SourceSpotFlow {
		// The positioning and smart-money rules are not connected to the
		// scan yet (docs/decisions.md): every symbol is left out, named.
		r.FilteredOut[ReasonSourceUnavailable] += len(flows)
		r.Candidates = []Candidate{}
		return r
	}
	var kept []Candidate
	for _, f := range flows {
		cand, reason := judge(o, c, f)
		if reason != "" {
			r.FilteredOut[reason]++
			continue
		}
		kept = append(kept, cand)
	}
	slices.SortFunc(kept, func(a, b Candidate) int {
		if x := cmp.Compare(b.Score, a.Score); x != 0 {
			return x
		}
		if x := cmp.Compare(b.Flow.VolumeUsd, a.Flow.VolumeUsd); x != 0 {
			return x
		}
		return cmp.Compare(a.Symbol, b.Symbol)
	})
	if len(kept) > c.MaxResults {
		r.FilteredOut[ReasonBeyondMaxResults] = len(kept) - c.MaxResults
		kept = kept[:c.MaxResults]
	}
	if kept == nil {
		kept = []Candidate{}
	}
	// Evidence and risks only for the results returned.
	for i := range kept {
		evidence(&kept[i], kept[i].Flow)
		kept[i].Risks = risks(kept[i].Flow)
	}
	r.Candidates = kept
	return r
}

// judge applies the rule of a trade-flow objective to f: the candidate, or
// the first reason (in rule order) f is left out.
func judge(o Objective, c Constraints, f Flow) (Candidate, string) {
	dir := o.Direction()
	side := f.BuyPressure
	if dir == Bearish {
		side = 100 - f.BuyPressure
	}
	up := dir == Bullish
	if f.TradeCount < MinTrades {
		return Candidate{}, ReasonTooFewTrades
	}
	volumeConfirms := f.BaselineReady && f.VolumeMultiple >= c.MinVolumeMultiple
	switch o {
	case UnusualBuying, UnusualSelling:
		if !f.BaselineReady {
			return Candidate{}, ReasonNoBaseline
		}
		if side < c.MinBuyPressure {
			return Candidate{}, ReasonBelowBuyPressure
		}
		if f.VolumeMultiple < c.MinVolumeMultiple {
			return Candidate{}, ReasonBelowVolumeMultiple
		}
	case Breakout, Breakdown:
		moving := up && f.MomentumScore >= BreakoutMomentum && f.PriceChangePercent > 0 ||
			!up && f.MomentumScore <= BreakdownMomentum && f.PriceChangePercent < 0
		if !moving || !(eventDirection(f.EventType) == dir || volumeConfirms) {
			return Candidate{}, ReasonRuleNotMet
		}
	default:
		panic("BUG: judge called for " + string(o))
	}
	if f.VolumeUsd < c.MinVolumeUsd {
		return Candidate{}, ReasonBelowVolumeUsd
	}
	if f.Confidence < c.MinConfidence {
		return Candidate{}, ReasonBelowConfidence
	}
	if c.MinIndependentSources > 1 {
		return Candidate{}, ReasonTooFewSources // one source (spot_dex_flow) confirms a flow objective
	}
	cand := Candidate{Symbol: f.Symbol, Direction: dir, Flow: f, ConfirmingSources: []string{SourceSpotFlow},
		Supporting: []Evidence{}, Conflicting: []Evidence{}, Risks: []Risk{}}
	cand.Score = Score(dir, f)
	return cand, ""
}

// Score is the 0–100 score of a flow opportunity in direction dir:
// round(100 × (0.35 P + 0.25 V + 0.15 M + 0.15 C + 0.10 E)) with
// P = clamp((side pressure − 50) / 50), V = clamp((volume multiple − 1) / 4)
// (0 without a baseline), M = clamp(side momentum − 50) / 50),
// C = confidence / 100 and E = 1 when the event is in the direction.
func Score(dir string, f Flow) int {
	side, mom := f.BuyPressure, f.MomentumScore
	if dir == Bearish {
		side, mom = 100-side, 100-mom
	}
	v := 0.0
	if f.BaselineReady {
		v = clamp((f.VolumeMultiple - 1) / 4)
	}
	e := 0.0
	if eventDirection(f.EventType) == dir {
		e = 1
	}
	s := 0.35*clamp((side-50)/50) + 0.25*v + 0.15*clamp((mom-50)/50) + 0.15*clamp(f.Confidence/100) + 0.10*e
	return int(math.Round(100 * s))
}

func clamp(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	return min(x, 1)
}

// eventDirection maps a document's event type to the direction it argues
// for: BREAKOUT and ACCUMULATION bullish, BREAKDOWN and DISTRIBUTION
// bearish, UNUSUAL_ACTIVITY activity, others none.
func eventDirection(event string) string {
	switch event {
	case "BREAKOUT", "ACCUMULATION":
		return Bullish
	case "BREAKDOWN", "DISTRIBUTION":
		return Bearish
	case "UNUSUAL_ACTIVITY":
		return Activity
	}
	return ""
}

// evidence fills the supporting and conflicting evidence of cand, in a
// fixed order: buy pressure, momentum, price change, volume, event.
func evidence(cand *Candidate, f Flow) {
	dirOf := func(x, mid float64) string {
		switch {
		case x > mid:
			return Bullish
		case x < mid:
			return Bearish
		}
		return ""
	}
	add := func(e Evidence) {
		switch e.Direction {
		case cand.Direction, Activity:
			cand.Supporting = append(cand.Supporting, e)
		case "":
		default:
			cand.Conflicting = append(cand.Conflicting, e)
		}
	}
	add(Evidence{SourceSpotFlow, "buy_pressure", dirOf(f.BuyPressure, 50), f.BuyPressure, "percent",
		"share of the window's volume bought by takers"})
	add(Evidence{SourceSpotFlow, "momentum", dirOf(f.MomentumScore, 50), f.MomentumScore, "score",
		"momentum score of the window, 50 flat"})
	add(Evidence{SourceSpotFlow, "price_change", dirOf(f.PriceChangePercent, 0), f.PriceChangePercent, "percent",
		"price change over the window"})
	if f.BaselineReady && f.VolumeMultiple >= 1.5 {
		add(Evidence{SourceSpotFlow, "volume_multiple", Activity, f.VolumeMultiple, "multiple",
			"volume versus the symbol's own baseline"})
	}
	if d := eventDirection(f.EventType); d != "" {
		add(Evidence{SourceSpotFlow, "event", d, 1, "event", "market event " + f.EventType})
	}
}

// risks returns the risk factors of a flow reading, in a fixed order.
func risks(f Flow) []Risk {
	out := []Risk{}
	if f.TradeCount < ThinTrades {
		out = append(out, Risk{"thin_trading", "medium", strconv.FormatInt(f.TradeCount, 10) + " trades in the window"})
	}
	if !f.BaselineReady {
		out = append(out, Risk{"no_baseline", "low", "the symbol's volume baseline is not established yet"})
	}
	if math.Abs(f.PriceChangePercent) >= ExtendedMovePercent {
		out = append(out, Risk{"extended_move", "medium", "price already moved " +
			strconv.FormatFloat(f.PriceChangePercent, 'f', 2, 64) + "% in the window"})
	}
	if f.Confidence < 60 {
		out = append(out, Risk{"low_confidence", "low", "confidence score below 60"})
	}
	return out
}
