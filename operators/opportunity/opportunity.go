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

// Candidate is one kept symbol. Flow is the symbol's document when it has
// one (zero otherwise: HasFlow tells).
type Candidate struct {
	Symbol            string
	Direction         string
	Score             int
	ConfirmingSources []string
	Supporting        []Evidence
	Conflicting       []Evidence
	Risks             []Risk
	Flow              Flow
	HasFlow           bool
	Positioning       *Positioning
	SmartMoney        *SmartMoney

	size    float64 // second ranking key
	primary string  // the source of the objective's rule
	reading Reading
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

// Reading is what the scan knows of one symbol, one field per independent
// source; a nil field means that source holds nothing for the symbol.
type Reading struct {
	Symbol      string
	Flow        *Flow        // spot_dex_flow: the fresh document of the window
	Positioning *Positioning // perp_positioning
	SmartMoney  *SmartMoney  // smart_money
}

// Positioning is a symbol's perp positioning (source perp_positioning):
// the totals of the positioning view.
type Positioning struct {
	OpenInterestUSD float64
	// HasShare is false when no venue publishes a long/short share.
	HasShare bool
	// LongShare and ShortShare are fractions 0..1 (0.65 = 65 %).
	LongShare, ShortShare    float64
	FundingAnnualizedPercent float64
	// Flag is the view's flag: CROWDED_LONG, CROWDED_SHORT, THIN or NONE.
	Flag string
	// Stale is true when a summed venue row is older than the view's
	// staleness bound; a stale reading neither qualifies nor confirms.
	Stale bool
}

// SmartMoney is the net flow of a symbol's most profitable wallets over
// the last two UTC days (source smart_money, docs/smart-money.md).
type SmartMoney struct {
	// Direction is the top decile's: BUYING, SELLING or FLAT.
	Direction                      string
	TopDecileWallets               int
	TopDecileBuyUSD                float64
	TopDecileSellUSD               float64
	TopDecileNetUSD, AllWalletsNet float64
	// Stale is true when the ranking is older than the freshness bound of
	// the reader; a stale reading neither qualifies nor confirms.
	Stale bool
}

// Flag values of Positioning (the view's, spec §2.11).
const (
	FlagCrowdedLong  = "CROWDED_LONG"
	FlagCrowdedShort = "CROWDED_SHORT"
)

// Smart-money directions.
const (
	SmartBuying  = "BUYING"
	SmartSelling = "SELLING"
)

// FlowConfirmPressure is the side pressure (%) from which a fresh document
// with at least MinTrades trades confirms a direction it is not the rule
// of (crowded_positioning, smart money).
const FlowConfirmPressure = 55

// Scan applies objective o with constraints c to the readings of the
// universe (one per symbol, any order). The candidates are ranked by
// score, then volume USD (open interest for crowded_positioning, top
// decile gross flow for smart money), then symbol.
func Scan(o Objective, c Constraints, readings []Reading) Result {
	r := Result{FilteredOut: make(map[string]int, len(Reasons))}
	for _, reason := range Reasons {
		r.FilteredOut[reason] = 0
	}
	var kept []Candidate
	for _, rd := range readings {
		cand, reason := judgeReading(o, c, rd)
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
		if x := cmp.Compare(b.size, a.size); x != 0 {
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
		finish(&kept[i])
	}
	r.Candidates = kept
	return r
}

// judgeReading applies o's rule to its primary source, then the filters
// and the count of confirming sources.
func judgeReading(o Objective, c Constraints, rd Reading) (Candidate, string) {
	var cand Candidate
	switch o.Source() {
	case SourceSpotFlow:
		if rd.Flow == nil {
			return Candidate{}, ReasonNoFreshData
		}
		var reason string
		if cand, reason = judge(o, c, *rd.Flow); reason != "" {
			return Candidate{}, reason
		}
	case SourcePositioning:
		p := rd.Positioning
		switch {
		case p == nil:
			return Candidate{}, ReasonSourceUnavailable
		case p.Stale:
			return Candidate{}, ReasonNoFreshData
		case p.Flag != FlagCrowdedLong && p.Flag != FlagCrowdedShort:
			return Candidate{}, ReasonRuleNotMet
		}
		cand = Candidate{Direction: positioningDirection(p), Score: CrowdingScore(*p), size: p.OpenInterestUSD}
		if rd.Flow != nil {
			cand.Flow = *rd.Flow
		}
	case SourceSmartMoney:
		m := rd.SmartMoney
		switch {
		case m == nil:
			return Candidate{}, ReasonSourceUnavailable
		case m.Stale:
			return Candidate{}, ReasonNoFreshData
		case smartDirection(m) != o.Direction():
			return Candidate{}, ReasonRuleNotMet
		}
		cand = Candidate{Direction: o.Direction(), Score: SmartMoneyScore(*m), size: m.TopDecileBuyUSD + m.TopDecileSellUSD}
		if rd.Flow != nil {
			cand.Flow = *rd.Flow
		}
	}
	if o.Source() != SourceSpotFlow && rd.Flow != nil {
		// The document's filters apply when the symbol has one; a symbol
		// without spot trades (a perp-only instrument) has nothing to
		// compare them with (docs/decisions.md).
		if rd.Flow.VolumeUsd < c.MinVolumeUsd {
			return Candidate{}, ReasonBelowVolumeUsd
		}
		if rd.Flow.Confidence < c.MinConfidence {
			return Candidate{}, ReasonBelowConfidence
		}
	}
	cand.Symbol = rd.Symbol
	cand.reading = rd
	cand.primary = o.Source()
	cand.ConfirmingSources = confirming(cand.Direction, o.Source(), rd)
	if len(cand.ConfirmingSources) < c.MinIndependentSources {
		return Candidate{}, ReasonTooFewSources
	}
	return cand, ""
}

// confirming returns the independent sources whose reading argues for dir,
// in the order of Sources; the primary source (whose rule the candidate
// met) always confirms.
func confirming(dir, primary string, rd Reading) []string {
	out := make([]string, 0, len(Sources))
	for _, s := range Sources {
		if s == primary || sourceDirection(s, rd) == dir {
			out = append(out, s)
		}
	}
	return out
}

// sourceDirection is the direction source s argues for in rd, "" when it
// has no fresh reading or none: the document by side pressure ≥
// FlowConfirmPressure with at least MinTrades trades; positioning against
// a crowd; smart money with its top decile's net flow.
func sourceDirection(s string, rd Reading) string {
	switch s {
	case SourceSpotFlow:
		if f := rd.Flow; f != nil && f.TradeCount >= MinTrades {
			switch {
			case f.BuyPressure >= FlowConfirmPressure:
				return Bullish
			case 100-f.BuyPressure >= FlowConfirmPressure:
				return Bearish
			}
		}
	case SourcePositioning:
		if p := rd.Positioning; p != nil && !p.Stale {
			return positioningDirection(p)
		}
	case SourceSmartMoney:
		if m := rd.SmartMoney; m != nil && !m.Stale {
			return smartDirection(m)
		}
	}
	return ""
}

// positioningDirection is against the crowd: BEARISH for a crowded long,
// BULLISH for a crowded short, "" otherwise.
func positioningDirection(p *Positioning) string {
	switch p.Flag {
	case FlagCrowdedLong:
		return Bearish
	case FlagCrowdedShort:
		return Bullish
	}
	return ""
}

// smartDirection is BULLISH when the top decile is net buying, BEARISH
// when net selling, "" when flat.
func smartDirection(m *SmartMoney) string {
	switch m.Direction {
	case SmartBuying:
		return Bullish
	case SmartSelling:
		return Bearish
	}
	return ""
}

// CrowdingScore is the 0–100 score of a crowded_positioning opportunity:
// round(100 × (0.5 S + 0.25 O + 0.25 F)) with S = clamp((crowd share −
// 0.65) / 0.20) (the crowd's share, long or short), O = clamp(log10(open
// interest / 50,000) / 3) (0 at $50k, 1 at $50M), F = clamp(funding in the
// crowd's favour, annualized % / 50) (longs paying positive funding, shorts
// negative: the crowd pays to stay in).
func CrowdingScore(p Positioning) int {
	share, fund := p.LongShare, p.FundingAnnualizedPercent
	if p.Flag == FlagCrowdedShort {
		share, fund = p.ShortShare, -fund
	}
	o := 0.0
	if p.OpenInterestUSD > 0 {
		o = clamp(math.Log10(p.OpenInterestUSD/50_000) / 3)
	}
	s := 0.5*clamp((share-0.65)/0.20) + 0.25*o + 0.25*clamp(fund/50)
	return int(math.Round(100 * s))
}

// SmartMoneyScore is the 0–100 score of a smart-money opportunity:
// round(100 × (0.5 N + 0.3 G + 0.2 W)) with N = clamp((|net| / gross −
// 0.05) / 0.45) (how one-sided the top decile's flow is; 0.05 is the FLAT
// bound, 0.5 and over counts full), G = clamp(log10(gross / 10,000) / 2)
// (0 at $10k, 1 at $1M) and W = clamp(top-decile wallets / 10).
func SmartMoneyScore(m SmartMoney) int {
	gross := m.TopDecileBuyUSD + m.TopDecileSellUSD
	n, g := 0.0, 0.0
	if gross > 0 {
		n = clamp((math.Abs(m.TopDecileNetUSD)/gross - 0.05) / 0.45)
		g = clamp(math.Log10(gross/10_000) / 2)
	}
	s := 0.5*n + 0.3*g + 0.2*clamp(float64(m.TopDecileWallets)/10)
	return int(math.Round(100 * s))
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
	return Candidate{Symbol: f.Symbol, Direction: dir, Flow: f, Score: Score(dir, f), size: f.VolumeUsd}, ""
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

// FundingEvidencePercent is the annualized funding (%) from which funding
// is evidence against the side that pays it.
const FundingEvidencePercent = 20

// finish sets the evidence and the risk factors of a kept candidate.
func finish(cand *Candidate) {
	rd := cand.reading
	cand.Supporting, cand.Conflicting, cand.Risks = []Evidence{}, []Evidence{}, []Risk{}
	if rd.Flow != nil {
		cand.Flow, cand.HasFlow = *rd.Flow, true
	}
	cand.Positioning, cand.SmartMoney = rd.Positioning, rd.SmartMoney
	evidence(cand)
	if cand.HasFlow {
		cand.Risks = risks(cand.Flow)
	} else {
		cand.Risks = append(cand.Risks, Risk{"no_spot_flow", "low", "no fresh spot trade-flow document in the window: judged on " + cand.primary + " alone"})
	}
	switch cand.primary {
	case SourcePositioning:
		cand.Risks = append(cand.Risks, Risk{"crowd_can_persist", "low", "a crowded side can stay crowded: the reversal has no timing"})
	case SourceSmartMoney:
		if cand.SmartMoney.TopDecileWallets < 3 {
			cand.Risks = append(cand.Risks, Risk{"few_smart_wallets", "medium",
				strconv.Itoa(cand.SmartMoney.TopDecileWallets) + " wallets in the top decile"})
		}
	}
}

// evidence fills the supporting and conflicting evidence of cand, in a
// fixed order: the document's buy pressure, momentum, price change,
// volume and event; the positioning's crowd and funding; the smart-money
// net flow. Readings that argue for no direction are left out.
func evidence(cand *Candidate) {
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
	rd := cand.reading
	if f := rd.Flow; f != nil {
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
	if p := rd.Positioning; p != nil && !p.Stale {
		switch p.Flag {
		case FlagCrowdedLong:
			add(Evidence{SourcePositioning, "crowded_long", Bearish, pctOf(p.LongShare), "percent",
				"open-interest-weighted long share of the perp venues that publish one, at least 65%: against the crowd"})
		case FlagCrowdedShort:
			add(Evidence{SourcePositioning, "crowded_short", Bullish, pctOf(p.ShortShare), "percent",
				"open-interest-weighted short share of the perp venues that publish one, at least 65%: against the crowd"})
		}
		switch fd := p.FundingAnnualizedPercent; {
		case fd >= FundingEvidencePercent:
			add(Evidence{SourcePositioning, "funding", Bearish, fd, "percent_per_year", "longs pay annualized funding of 20% or more"})
		case fd <= -FundingEvidencePercent:
			add(Evidence{SourcePositioning, "funding", Bullish, fd, "percent_per_year", "shorts pay annualized funding of 20% or more"})
		}
	}
	if m := rd.SmartMoney; m != nil && !m.Stale {
		add(Evidence{SourceSmartMoney, "top_decile_net_flow", smartDirection(m), m.TopDecileNetUSD, "usd",
			"net flow (buy - sell) of the top decile of wallets by PnL since midnight UTC yesterday, " + m.Direction})
	}
}

// pctOf turns a 0..1 share into a percentage rounded to 2 decimals.
func pctOf(share float64) float64 { return math.Round(share*1e4) / 100 }

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
