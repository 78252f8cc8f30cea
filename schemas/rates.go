package schemas

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// TopicRates carries RatesRecord values (rates.proto, docs/rates.md), key =
// RatesKey.
const TopicRates = "mi.rates.v1"

// Tenor is a maturity of a Treasury yield curve.
type Tenor struct {
	// Name is the record and API spelling: "1M", "1.5M", ..., "30Y".
	Name string
	// Months is the maturity in months (1.5 for the 6-week bill).
	Months float64
}

// Tenors are the maturities of the nominal and real par yield curves,
// shortest first. The nominal curve has 1M..30Y (1.5M since 2025, 4M since
// October 2022, 2M since October 2018); the real curve 5Y..30Y.
var Tenors = []Tenor{
	{"1M", 1}, {"1.5M", 1.5}, {"2M", 2}, {"3M", 3}, {"4M", 4}, {"6M", 6},
	{"1Y", 12}, {"2Y", 24}, {"3Y", 36}, {"5Y", 60}, {"7Y", 84}, {"10Y", 120},
	{"20Y", 240}, {"30Y", 360},
}

// TenorIndex returns the position of a tenor name in Tenors, or -1.
func TenorIndex(name string) int {
	for i, t := range Tenors {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// ErrInvalidRates is wrapped by every error ValidateRates returns.
var ErrInvalidRates = errors.New("invalid rates record")

// ValidateRates reports why a rates record cannot enter the pipeline, or
// nil. The error text is the dead-letter reason: a short stable phrase
// first ("bad date", "bad rate", ...), then details.
func ValidateRates(r *RatesRecord) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidRates}, a...)...)
	}
	if r == nil {
		return bad("missing")
	}
	if r.Source == "" {
		return bad("missing source")
	}
	if r.ReadTimeNs < MinEventTimeNs || r.ReadTimeNs >= MaxEventTimeNs {
		return bad("bad read time %d", r.ReadTimeNs)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch b := r.Body.(type) {
	case *RatesRecord_Curve:
		c := b.Curve
		if c.Kind != CurveKind_CURVE_KIND_PAR_NOMINAL && c.Kind != CurveKind_CURVE_KIND_PAR_REAL {
			return bad("bad curve kind %d", c.Kind)
		}
		if !isDate(c.Date) {
			return bad("bad date %q", c.Date)
		}
		if len(c.Points) == 0 {
			return bad("empty curve of %s", c.Date)
		}
		last := -1
		for _, p := range c.Points {
			i := TenorIndex(p.Tenor)
			if i < 0 {
				return bad("unknown tenor %q", p.Tenor)
			}
			if i <= last {
				return bad("tenors out of order at %q", p.Tenor)
			}
			last = i
			if !finite(p.Percent) || p.Percent < -20 || p.Percent > 50 {
				return bad("bad rate %v at %s", p.Percent, p.Tenor)
			}
		}
	case *RatesRecord_Overnight:
		o := b.Overnight
		if o.Kind < OvernightRateKind_OVERNIGHT_RATE_SOFR || o.Kind > OvernightRateKind_OVERNIGHT_RATE_ESTR {
			return bad("bad overnight rate kind %d", o.Kind)
		}
		if !isDate(o.Date) {
			return bad("bad date %q", o.Date)
		}
		if !finite(o.Percent) || o.Percent < -20 || o.Percent > 50 {
			return bad("bad rate %v", o.Percent)
		}
		for _, v := range []*float64{o.Percentile_1, o.Percentile_25, o.Percentile_75, o.Percentile_99, o.Volume, o.TargetFrom, o.TargetTo} {
			if v != nil && !finite(*v) {
				return bad("bad rate detail %v", *v)
			}
		}
	case *RatesRecord_Lending:
		l := b.Lending
		if l.Protocol == "" || l.Chain == "" || l.Asset == "" {
			return bad("missing reserve identity")
		}
		for _, s := range []string{l.LiquidityRateRay, l.VariableBorrowRateRay, l.LiquidityIndexRay, l.VariableBorrowIndexRay} {
			if !isUint(s) {
				return bad("bad ray %q", s)
			}
		}
		if l.BlockTime <= 0 {
			return bad("bad block time %d", l.BlockTime)
		}
	case *RatesRecord_FundSupply:
		f := b.FundSupply
		if f.Symbol == "" || f.Chain == "" || f.Token == "" {
			return bad("missing fund identity")
		}
		if !isUint(f.TotalSupplyRaw) {
			return bad("bad total supply %q", f.TotalSupplyRaw)
		}
		if f.Decimals > 36 {
			return bad("bad decimals %d", f.Decimals)
		}
		if f.SnapshotTime <= 0 || f.SnapshotTime%3600 != 0 {
			return bad("bad snapshot time %d", f.SnapshotTime)
		}
	case *RatesRecord_Auction:
		a := b.Auction
		if a.Cusip == "" || a.SecurityType == "" || a.SecurityTerm == "" {
			return bad("missing security")
		}
		if !isDate(a.AuctionDate) {
			return bad("bad date %q", a.AuctionDate)
		}
		if a.Status != AuctionStatus_AUCTION_STATUS_ANNOUNCED && a.Status != AuctionStatus_AUCTION_STATUS_AUCTIONED {
			return bad("bad auction status %d", a.Status)
		}
		for _, v := range []*float64{a.HighYield, a.HighDiscountRate, a.HighInvestmentRate, a.HighDiscountMargin, a.PricePer_100, a.BidToCover} {
			if v != nil && !finite(*v) {
				return bad("bad auction figure %v", *v)
			}
		}
	case *RatesRecord_Fault:
		if b.Fault.Scope == "" || b.Fault.Reason == "" {
			return bad("fault without scope or reason")
		}
	default:
		return bad("no body")
	}
	return nil
}

// RatesKey is the natural key of the observation a record carries, the
// Kafka key on mi.rates.v1: two records with the same key are the same
// observation read twice (or a revision of it).
//
//	curve|<kind>|<date>             e.g. curve|par_nominal|2024-10-10
//	overnight|<kind>|<date>         e.g. overnight|sofr|2024-06-06
//	lending|<protocol>|<chain>|<asset>
//	fund|<chain>|<symbol>|<snapshot unix seconds>
//	auction|<cusip>|<auction date>
//	fault|<scope>
func RatesKey(r *RatesRecord) string {
	switch b := r.Body.(type) {
	case *RatesRecord_Curve:
		return "curve|" + CurveKindName(b.Curve.Kind) + "|" + b.Curve.Date
	case *RatesRecord_Overnight:
		return "overnight|" + OvernightRateName(b.Overnight.Kind) + "|" + b.Overnight.Date
	case *RatesRecord_Lending:
		return "lending|" + b.Lending.Protocol + "|" + b.Lending.Chain + "|" + b.Lending.Asset
	case *RatesRecord_FundSupply:
		return fmt.Sprintf("fund|%s|%s|%d", b.FundSupply.Chain, b.FundSupply.Symbol, b.FundSupply.SnapshotTime)
	case *RatesRecord_Auction:
		return "auction|" + b.Auction.Cusip + "|" + b.Auction.AuctionDate
	case *RatesRecord_Fault:
		return "fault|" + b.Fault.Scope
	}
	return ""
}

// Fault scopes of the on-chain rates sources (RatesFault.scope): the
// producer and the view agree on them here.

// LendingScope is the scope of a chain's reserve reads, e.g. "aave-v3:base".
func LendingScope(protocol, chain string) string { return protocol + ":" + chain }

// FundScope is the scope of a chain's fund reads ("tokenfunds:<chain>") or
// of one fund's ("tokenfunds:<chain>:<symbol>").
func FundScope(chain, symbol string) string {
	if symbol == "" {
		return "tokenfunds:" + chain
	}
	return "tokenfunds:" + chain + ":" + symbol
}

// CurveKindName is the key and dataset spelling of a curve kind:
// par_nominal, par_real or unknown.
func CurveKindName(k CurveKind) string {
	switch k {
	case CurveKind_CURVE_KIND_PAR_NOMINAL:
		return "par_nominal"
	case CurveKind_CURVE_KIND_PAR_REAL:
		return "par_real"
	}
	return "unknown"
}

// OvernightRateName is the key and dataset spelling of an overnight rate:
// sofr, effr, estr or unknown.
func OvernightRateName(k OvernightRateKind) string {
	switch k {
	case OvernightRateKind_OVERNIGHT_RATE_SOFR:
		return "sofr"
	case OvernightRateKind_OVERNIGHT_RATE_EFFR:
		return "effr"
	case OvernightRateKind_OVERNIGHT_RATE_ESTR:
		return "estr"
	}
	return "unknown"
}

func isDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func isUint(s string) bool {
	if s == "" || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
