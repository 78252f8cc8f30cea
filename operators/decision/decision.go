// Package decision holds the pre-trade assessment (spec §2.11, §4.4): from
// what the views hold about one symbol — trade flow, candles, market
// regime, news and on-chain liquidity — it scores an order on one side with
// weighted checks and a verdict FAVORABLE, CAUTION or UNFAVORABLE. It is
// pure: no I/O, no clock; the same inputs give the same assessment. A
// source that is missing makes its check UNKNOWN, never a failure.
// docs/decisions.md states every weight and threshold.
package decision

import (
	"fmt"
	"math"
)

// Side is the side of the order assessed.
type Side string

// The sides.
const (
	Buy  Side = "buy"
	Sell Side = "sell"
)

// Sides lists the accepted sides.
var Sides = []string{string(Buy), string(Sell)}

// Result is the outcome of one check.
type Result string

// The results. UNKNOWN means the check's source was missing: the check is
// left out of the score and named in the answer's data quality.
const (
	Pass    Result = "PASS"
	Warn    Result = "WARN"
	Fail    Result = "FAIL"
	Unknown Result = "UNKNOWN"
)

// Verdict is the pre-trade verdict.
type Verdict string

// The verdicts (spec §2.11).
const (
	Favorable   Verdict = "FAVORABLE"
	Caution     Verdict = "CAUTION"
	Unfavorable Verdict = "UNFAVORABLE"
)

// Names of the checks, in answer order.
const (
	CheckOrderFlow  = "order_flow"
	CheckMomentum   = "momentum"
	CheckVolatility = "volatility"
	CheckEvents     = "adverse_events"
	CheckRegime     = "market_regime"
	CheckNews       = "news_24h"
	CheckSlippage   = "slippage"
)

// Weights of the checks; they sum to 100.
var Weights = map[string]int{
	CheckOrderFlow:  20,
	CheckMomentum:   15,
	CheckVolatility: 15,
	CheckEvents:     15,
	CheckRegime:     10,
	CheckNews:       10,
	CheckSlippage:   15,
}

// Thresholds (docs/decisions.md).
const (
	// MinTrades is the fewest trades in the window for the order-flow check
	// to be judged.
	MinTrades = 3
	// Side pressure (the buy pressure for a buy, 100 − buy pressure for a
	// sell): PASS at or above FlowPass, FAIL below FlowFail.
	FlowPass, FlowFail = 55.0, 40.0
	// Side momentum (the momentum score for a buy, 100 − it for a sell):
	// PASS at or above MomentumPass, FAIL below MomentumFail.
	MomentumPass, MomentumFail = 55.0, 35.0
	// Volatility, the standard deviation of log returns scaled to one
	// minute, in percent: PASS at or below VolPass, FAIL above VolFail.
	VolPass, VolFail = 0.3, 1.0
	// MinReturns is the fewest bar returns the volatility is judged on.
	MinReturns = 5
	// Cost of a $10k market order on the side, in basis points: PASS at or
	// below SlipPass, FAIL above SlipFail or when the order would move the
	// price more than 1% (no estimate).
	SlipPass, SlipFail = 30.0, 100.0
	// SlippageSize is the order size, in USD, the slippage check judges.
	SlippageSize = 10_000
	// Score bounds of the verdicts.
	FavorableScore, UnfavorableScore = 70, 40
	// FavorableCoverage is the least known weight (of 100) a FAVORABLE
	// verdict needs.
	FavorableCoverage = 60
	// MaterialNews is the materiality (of 5) from which an adverse news
	// item fails the news check.
	MaterialNews = 4
)

// Flow is what the trade-flow document of the symbol says.
type Flow struct {
	BuyPressure   float64
	MomentumScore float64
	TradeCount    int64
	// EventType is the document's event (docs/signals.md): NORMAL,
	// BREAKOUT, BREAKDOWN, ACCUMULATION, DISTRIBUTION, UNUSUAL_ACTIVITY,
	// MOMENTUM.
	EventType string
}

// Volatility is the candles' measure over the window.
type Volatility struct {
	// Closes are the bar closes, oldest first.
	Closes []float64
	// BarMinutes is the bar width.
	BarMinutes int
}

// News counts the symbol's news items and filings of the last 24 hours.
type News struct {
	// Positive and Negative count items by sentiment.
	Positive, Negative int
	// MaterialPositive and MaterialNegative count those of materiality at
	// least MaterialNews.
	MaterialPositive, MaterialNegative int
}

// Slippage is the on-chain cost of market orders on the side.
type Slippage struct {
	// CostBps maps an order size in USD to its cost in basis points, or nil
	// when the order would move the price more than 1%.
	CostBps map[int]*float64
}

// Inputs are what the assessment reads; a nil source is missing.
type Inputs struct {
	Side       Side
	Flow       *Flow
	Volatility *Volatility
	// Regime is the market regime (BULLISH, BEARISH, MIXED); "" or NO_DATA
	// is missing.
	Regime   string
	News     *News
	Slippage *Slippage
}

// Check is one judged check.
type Check struct {
	Name   string `json:"name"`
	Result Result `json:"result"`
	Weight int    `json:"weight"`
	// Observed is the measured value, nil when unknown.
	Observed *float64 `json:"observedValue"`
	Unit     string   `json:"unit"`
	Detail   string   `json:"detail"`
}

// Assessment is the outcome.
type Assessment struct {
	Verdict Verdict `json:"verdict"`
	// Score is 0 to 100: the weighted mean of the known checks' points
	// (PASS 100, WARN 50, FAIL 0); 50 when no check is known.
	Score int `json:"score"`
	// KnownWeight is the weight of the known checks, 0 to 100.
	KnownWeight int     `json:"knownWeight"`
	Checks      []Check `json:"checks"`
	// Reasons says what decided the verdict.
	Reasons []string `json:"reasons"`
}

func points(r Result) float64 {
	switch r {
	case Pass:
		return 100
	case Warn:
		return 50
	}
	return 0
}

func ptr(v float64) *float64 { v += 0; return &v }

// Assess judges in. It panics on a side other than buy or sell: the caller
// validates the side.
func Assess(in Inputs) Assessment {
	if in.Side != Buy && in.Side != Sell {
		panic("BUG: pre-trade side " + string(in.Side))
	}
	checks := []Check{
		orderFlow(in), momentum(in), volatility(in), events(in), regime(in), news(in), slippage(in),
	}
	var a Assessment
	var sum float64
	fails := map[string]bool{}
	flowPass := false
	for i := range checks {
		c := &checks[i]
		c.Weight = Weights[c.Name]
		if c.Result == Unknown {
			continue
		}
		a.KnownWeight += c.Weight
		sum += float64(c.Weight) * points(c.Result)
		if c.Result == Fail {
			fails[c.Name] = true
		}
		if c.Name == CheckOrderFlow && c.Result == Pass {
			flowPass = true
		}
	}
	a.Checks = checks
	a.Score = 50
	if a.KnownWeight > 0 {
		a.Score = int(math.Round(sum / float64(a.KnownWeight)))
	}
	switch {
	case fails[CheckSlippage]:
		a.Verdict = Unfavorable
		a.Reasons = append(a.Reasons, "the on-chain cost of the order is too high (slippage FAIL)")
	case fails[CheckEvents]:
		a.Verdict = Unfavorable
		a.Reasons = append(a.Reasons, "a market event runs against the order (adverse_events FAIL)")
	case a.KnownWeight > 0 && a.Score < UnfavorableScore:
		a.Verdict = Unfavorable
		a.Reasons = append(a.Reasons, fmt.Sprintf("score %d below %d", a.Score, UnfavorableScore))
	case a.Score >= FavorableScore && len(fails) == 0 && a.KnownWeight >= FavorableCoverage && flowPass:
		a.Verdict = Favorable
		a.Reasons = append(a.Reasons, fmt.Sprintf("score %d at least %d, order flow on the %s side, no failed check", a.Score, FavorableScore, in.Side))
	default:
		a.Verdict = Caution
		switch {
		case len(fails) > 0:
			a.Reasons = append(a.Reasons, "at least one check failed")
		case a.KnownWeight < FavorableCoverage:
			a.Reasons = append(a.Reasons, fmt.Sprintf("only %d of 100 weight known", a.KnownWeight))
		case !flowPass && a.Score >= FavorableScore:
			a.Reasons = append(a.Reasons, "the order flow does not favour the "+string(in.Side)+" side")
		default:
			a.Reasons = append(a.Reasons, fmt.Sprintf("score %d between %d and %d", a.Score, UnfavorableScore, FavorableScore))
		}
	}
	return a
}

// onSide returns v for a buy and 100 − v for a sell.
func onSide(s Side, v float64) float64 {
	if s == Sell {
		return 100 - v
	}
	return v
}

// band judges v: PASS at or above pass, FAIL below fail, WARN between.
func band(v, pass, fail float64) Result {
	switch {
	case v >= pass:
		return Pass
	case v < fail:
		return Fail
	}
	return Warn
}

func orderFlow(in Inputs) Check {
	c := Check{Name: CheckOrderFlow, Unit: "percent"}
	switch {
	case in.Flow == nil:
		c.Result, c.Detail = Unknown, "no trade-flow document for the symbol"
		return c
	case in.Flow.TradeCount < MinTrades:
		c.Result, c.Detail = Unknown, fmt.Sprintf("%d trades in the window, fewer than %d", in.Flow.TradeCount, MinTrades)
		return c
	}
	v := onSide(in.Side, in.Flow.BuyPressure)
	c.Observed, c.Result = ptr(v), band(v, FlowPass, FlowFail)
	c.Detail = fmt.Sprintf("%.1f%% of the volume taken on the %s side", v, in.Side)
	return c
}

func momentum(in Inputs) Check {
	c := Check{Name: CheckMomentum, Unit: "score"}
	if in.Flow == nil {
		c.Result, c.Detail = Unknown, "no trade-flow document for the symbol"
		return c
	}
	v := onSide(in.Side, in.Flow.MomentumScore)
	c.Observed, c.Result = ptr(v), band(v, MomentumPass, MomentumFail)
	c.Detail = fmt.Sprintf("momentum %.1f in the direction of the %s (50 is flat)", v, in.Side)
	return c
}

// MinuteVolatility returns the standard deviation of the log returns of
// closes (sample, n−1) scaled to one minute (divided by √barMinutes), in
// percent, and the number of returns; closes ≤ 0 are skipped.
func MinuteVolatility(closes []float64, barMinutes int) (float64, int) {
	var rs []float64
	prev := 0.0
	for _, c := range closes {
		if !(c > 0) || math.IsInf(c, 0) {
			continue
		}
		if prev > 0 {
			rs = append(rs, math.Log(c/prev))
		}
		prev = c
	}
	n := len(rs)
	if n < 2 || barMinutes <= 0 {
		return 0, n
	}
	var mean float64
	for _, r := range rs {
		mean += r
	}
	mean /= float64(n)
	var ss float64
	for _, r := range rs {
		ss += (r - mean) * (r - mean)
	}
	return 100 * math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(barMinutes)), n
}

func volatility(in Inputs) Check {
	c := Check{Name: CheckVolatility, Unit: "percent_per_sqrt_minute"}
	if in.Volatility == nil {
		c.Result, c.Detail = Unknown, "no candles of the symbol for the window"
		return c
	}
	v, n := MinuteVolatility(in.Volatility.Closes, in.Volatility.BarMinutes)
	if n < MinReturns {
		c.Result, c.Detail = Unknown, fmt.Sprintf("%d returns in the window, fewer than %d", n, MinReturns)
		return c
	}
	c.Observed = ptr(v)
	switch {
	case v <= VolPass:
		c.Result = Pass
	case v > VolFail:
		c.Result = Fail
	default:
		c.Result = Warn
	}
	c.Detail = fmt.Sprintf("standard deviation of %d %dm returns, %.3f%% per √minute", n, in.Volatility.BarMinutes, v)
	return c
}

func events(in Inputs) Check {
	c := Check{Name: CheckEvents, Unit: "event"}
	if in.Flow == nil {
		c.Result, c.Detail = Unknown, "no trade-flow document for the symbol"
		return c
	}
	e := in.Flow.EventType
	against := map[Side][]string{Buy: {"BREAKDOWN", "DISTRIBUTION"}, Sell: {"BREAKOUT", "ACCUMULATION"}}
	c.Result, c.Detail = Pass, "no event against the "+string(in.Side)
	for _, x := range against[in.Side] {
		if e == x {
			c.Result, c.Detail = Fail, e+" runs against a "+string(in.Side)
			return c
		}
	}
	if e == "UNUSUAL_ACTIVITY" || e == "MOMENTUM" {
		c.Result, c.Detail = Warn, e+": unusual conditions, wider spreads likely"
	} else if e != "" && e != "NORMAL" {
		c.Detail = e + " is in the direction of the " + string(in.Side)
	}
	return c
}

func regime(in Inputs) Check {
	c := Check{Name: CheckRegime, Unit: "regime"}
	good, bad := "BULLISH", "BEARISH"
	if in.Side == Sell {
		good, bad = bad, good
	}
	switch in.Regime {
	case good:
		c.Result = Pass
	case bad:
		c.Result = Fail
	case "MIXED":
		c.Result = Warn
	default:
		c.Result, c.Detail = Unknown, "no market regime (no covered symbols)"
		return c
	}
	c.Detail = "market regime " + in.Regime
	return c
}

func news(in Inputs) Check {
	c := Check{Name: CheckNews, Unit: "items"}
	if in.News == nil {
		c.Result, c.Detail = Unknown, "no news or filings source on this server"
		return c
	}
	adverse, material := in.News.Negative, in.News.MaterialNegative
	if in.Side == Sell {
		adverse, material = in.News.Positive, in.News.MaterialPositive
	}
	c.Observed = ptr(float64(adverse))
	switch {
	case material > 0:
		c.Result = Fail
	case adverse > 0:
		c.Result = Warn
	default:
		c.Result = Pass
	}
	c.Detail = fmt.Sprintf("%d items against the %s in 24 hours, %d of them material", adverse, in.Side, material)
	return c
}

func slippage(in Inputs) Check {
	c := Check{Name: CheckSlippage, Unit: "bps"}
	if in.Slippage == nil {
		c.Result, c.Detail = Unknown, "no on-chain pool of the symbol"
		return c
	}
	cost, ok := in.Slippage.CostBps[SlippageSize]
	switch {
	case !ok:
		c.Result, c.Detail = Unknown, "no $10k estimate"
	case cost == nil:
		c.Result, c.Detail = Fail, "a $10k order would move the price more than 1%"
	default:
		c.Observed = ptr(*cost)
		switch {
		case *cost <= SlipPass:
			c.Result = Pass
		case *cost > SlipFail:
			c.Result = Fail
		default:
			c.Result = Warn
		}
		c.Detail = fmt.Sprintf("a $10k %s costs %.1f bps, fee included", in.Side, *cost)
	}
	return c
}
