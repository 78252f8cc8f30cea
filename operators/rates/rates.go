// Package rates holds the formulas and rules of the rates routes
// (docs/rates.md), as pure functions: Aave's ray rates to APR and APY,
// curve slopes and their inversion, breakeven inflation, the DeFi spread
// against the 3-month bill and its signal, tokenized fund supply changes
// and their gauge, auction bidder shares and the series an auction belongs
// to. No I/O, no clock.
package rates

import (
	"math"
	"math/big"
	"strconv"
)

// SecondsPerYear is the year Aave's rates compound over: 365 days.
const SecondsPerYear = 31_536_000

// percentRay is 1e25: a rate in ray divided by it is in percent (ray is
// 1e27, the unit of Aave's rates and indexes).
var percentRay = new(big.Float).SetPrec(200).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil))

// RayToAPRPercent converts a rate in ray (a decimal integer, 1e27 = 100 %)
// to an annual percentage rate in percent: 100 × rate / 1e27. Aave's
// currentLiquidityRate and currentVariableBorrowRate are APRs in ray. ok
// is false for a string that is not a non-negative decimal integer.
func RayToAPRPercent(rateRay string) (apr float64, ok bool) {
	v, ok := new(big.Int).SetString(rateRay, 10)
	if !ok || v.Sign() < 0 {
		return 0, false
	}
	f := new(big.Float).SetPrec(200).SetInt(v)
	f.Quo(f, percentRay)
	r, _ := f.Float64()
	return r, true
}

// APYPercent compounds an APR (percent) every second for a year, as Aave's
// interface does:
//
//	APY = (1 + APR/SECONDS_PER_YEAR)^SECONDS_PER_YEAR − 1
//
// computed as expm1(SECONDS_PER_YEAR × log1p(APR/SECONDS_PER_YEAR)) so
// small rates keep their precision. Returns percent.
func APYPercent(aprPercent float64) float64 {
	r := aprPercent / 100
	return 100 * math.Expm1(SecondsPerYear*math.Log1p(r/SecondsPerYear))
}

// Slope is a curve spread between two tenors.
type Slope struct {
	Name        string // "2s10s"
	Short, Long string // tenors, e.g. "2Y", "10Y"
}

// Slopes are the four slopes the curve route reports.
var Slopes = []Slope{
	{"2s10s", "2Y", "10Y"},
	{"3m10y", "3M", "10Y"},
	{"5s30s", "5Y", "30Y"},
	{"3m2y", "3M", "2Y"},
}

// SlopeBp is the slope long − short in basis points: 100 × (long − short)
// with yields in percent. The slope is inverted when it is below zero.
func SlopeBp(shortPercent, longPercent float64) float64 {
	return roundTo(100*(longPercent-shortPercent), 9)
}

// ChangeBp is the change from one yield or rate to another in basis
// points: 100 × (to − from), both in percent.
func ChangeBp(fromPercent, toPercent float64) float64 {
	return roundTo(100*(toPercent-fromPercent), 9)
}

// DiffBp is the difference of two basis-point figures, to − from, without
// the binary noise of the subtraction.
func DiffBp(fromBp, toBp float64) float64 { return roundTo(toBp-fromBp, 9) }

// BreakevenPercent is the breakeven inflation of a maturity: the nominal
// par yield minus the real (TIPS) par yield of the same maturity and day,
// in percent (FRED's T10YIE is DGS10 − DFII10).
func BreakevenPercent(nominalPercent, realPercent float64) float64 {
	return roundTo(nominalPercent-realPercent, 9)
}

// BillDays is the term of the 3-month bill the DeFi spread compares with:
// 13 weeks.
const BillDays = 91

// BillAPYPercent turns a bill's bond-equivalent yield (percent, as
// Treasury's par curve and investment rates quote bills: simple interest on
// a 365-day year) into an annual percentage yield, compounding at the
// bill's term so that it compares with a lending APY:
//
//	APY = (1 + y × days/365)^(365/days) − 1
func BillAPYPercent(bondEquivalentPercent float64, days int) float64 {
	y := bondEquivalentPercent / 100
	t := float64(days) / 365
	return 100 * math.Expm1(math.Log1p(y*t)/t)
}

// SpreadBp is a lending APY minus the bill's APY, in basis points.
func SpreadBp(lendingAPYPercent, billAPYPercent float64) float64 {
	return roundTo(100*(lendingAPYPercent-billAPYPercent), 9)
}

// DeFi spread signals (spec §2.11).
const (
	DefiPremium     = "DEFI_PREMIUM"
	InLine          = "IN_LINE"
	TreasuryPremium = "TREASURY_PREMIUM"
)

// SpreadThresholdBp is the ±50 basis points of the DeFi spread signal.
const SpreadThresholdBp = 50

// SpreadSignal classifies the average spread: DEFI_PREMIUM at +50 bp or
// more, TREASURY_PREMIUM at −50 bp or less, IN_LINE between.
func SpreadSignal(averageBp float64) string {
	switch {
	case averageBp >= SpreadThresholdBp:
		return DefiPremium
	case averageBp <= -SpreadThresholdBp:
		return TreasuryPremium
	}
	return InLine
}

// Tokenized treasury gauge values (spec §2.11).
const (
	RiskOffInflow  = "RISK_OFF_INFLOW"
	Neutral        = "NEUTRAL"
	RiskOnOutflow  = "RISK_ON_OUTFLOW"
	GaugeThreshold = 0.5 // percent per day
)

// Gauge classifies the aggregate daily supply change (percent per day):
// RISK_OFF_INFLOW at +0.5 % or more (money moving into tokenized
// treasuries), RISK_ON_OUTFLOW at −0.5 % or less, NEUTRAL between.
func Gauge(dailyChangePercent float64) string {
	switch {
	case dailyChangePercent >= GaugeThreshold:
		return RiskOffInflow
	case dailyChangePercent <= -GaugeThreshold:
		return RiskOnOutflow
	}
	return Neutral
}

// ChangePercent is 100 × (now − then) / then; ok is false when then is
// not positive.
func ChangePercent(now, then float64) (float64, bool) {
	if !(then > 0) {
		return 0, false
	}
	return roundTo(100*(now-then)/then, 12), true
}

// TokenAmount is a raw integer amount (a decimal string) in whole tokens:
// raw / 10^decimals. ok is false for a string that is not a non-negative
// decimal integer.
func TokenAmount(raw string, decimals uint32) (float64, bool) {
	v, ok := new(big.Int).SetString(raw, 10)
	if !ok || v.Sign() < 0 || decimals > 77 {
		return 0, false
	}
	f := new(big.Float).SetPrec(200).SetInt(v)
	f.Quo(f, new(big.Float).SetPrec(200).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	r, _ := f.Float64()
	return r, true
}

// SharePercent is 100 × part / whole; ok is false when whole is not
// positive.
func SharePercent(part, whole int64) (float64, bool) {
	if whole <= 0 {
		return 0, false
	}
	return 100 * float64(part) / float64(whole), true
}

// roundTo rounds v to the given number of decimals, removing the binary
// noise of a difference of decimals (4.09 − 3.98 = 0.10999999999999988):
// the result is the float64 nearest the rounded decimal.
func roundTo(v float64, decimals int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals, 64), 64)
	return r
}
