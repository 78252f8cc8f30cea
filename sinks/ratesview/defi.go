package ratesview

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/operators/rates"
	"github.com/marketintel/mi/schemas"
)

// DefiSpreadAnswer is the answer of /api/v1/rates/defi-spread.
type DefiSpreadAnswer struct {
	AsOf string `json:"asOf"`
	// Bill3M is the 3-month bill the lending rates are compared with: the
	// 3-month yield of the latest Treasury par curve; null before the
	// first curve.
	Bill3M *BillFigure `json:"bill3m"`
	// Chains has one entry per configured reserve, in order.
	Chains []ChainRate `json:"chains"`
	// AverageSpreadBp is the mean SpreadBp of the chains that are not
	// stale; null when none is, or without a bill.
	AverageSpreadBp *float64 `json:"averageSpreadBp"`
	ChainsAveraged  int      `json:"chainsAveraged"`
	// Signal is DEFI_PREMIUM, IN_LINE or TREASURY_PREMIUM (at ±ThresholdBp);
	// null without an average.
	Signal      *string `json:"signal"`
	ThresholdBp float64 `json:"thresholdBp"`
	Method      string  `json:"method"`
}

// BillFigure is the 3-month bill's yield.
type BillFigure struct {
	Date    string `json:"date"`
	AgeDays int    `json:"ageDays"`
	// Yield is the published bond-equivalent yield, percent; APY the same
	// compounded at the bill's 91-day term (operators/rates.BillAPYPercent).
	Yield  float64 `json:"yield"`
	APY    float64 `json:"apy"`
	Days   int     `json:"days"`
	Source Source  `json:"source"`
}

// ChainRate is one reserve's rates and spread.
type ChainRate struct {
	Protocol string `json:"protocol"`
	Chain    string `json:"chain"`
	ChainID  int64  `json:"chainId"`
	Pool     string `json:"pool"`
	Asset    string `json:"asset"`
	Symbol   string `json:"symbol"`
	// Rates in percent: the APRs as the Pool reports them, the APYs
	// compounded per second.
	SupplyAPR *float64 `json:"supplyApr"`
	SupplyAPY *float64 `json:"supplyApy"`
	BorrowAPR *float64 `json:"borrowApr"`
	BorrowAPY *float64 `json:"borrowApy"`
	// SpreadBp is SupplyAPY minus the bill's APY, basis points.
	SpreadBp *float64 `json:"spreadBp"`
	// The block the reserve was read at and the reserve's last update.
	BlockNumber      *uint64 `json:"blockNumber"`
	BlockTime        *string `json:"blockTime"`
	ReserveUpdatedAt *string `json:"reserveUpdatedAt"`
	Active           *bool   `json:"active"`
	Frozen           *bool   `json:"frozen"`
	Paused           *bool   `json:"paused"`
	// Stale is true when the chain's last read failed or is older than
	// the staleness limit; its figures (if any) are the last ones read and
	// it is left out of the average.
	Stale       bool    `json:"stale"`
	StaleReason string  `json:"staleReason,omitempty"`
	StaleSince  *string `json:"staleSince"`
	Source      *Source `json:"source"`
}

// DefiMethod documents the spread.
const DefiMethod = "spreadBp = 100 x (supply APY - 3-month bill APY); APY = (1 + APR/31536000)^31536000 - 1 from the Pool's currentLiquidityRate (ray); " +
	"bill APY = (1 + y x 91/365)^(365/91) - 1 from the par curve's 3-month bond-equivalent yield y; the average is over chains that are not stale; " +
	"signal DEFI_PREMIUM at +50 bp or more, TREASURY_PREMIUM at -50 bp or less, else IN_LINE"

// billSearch bounds how many curves, newest first, are searched for a
// 3-month yield.
const billSearch = 10

// DefiSpread answers /api/v1/rates/defi-spread as of now. It fails with
// ErrNoData when no reserve has been read yet.
func (v *View) DefiSpread(now time.Time) (*DefiSpreadAnswer, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	a := &DefiSpreadAnswer{AsOf: timestamp(now.UnixNano()), ThresholdBp: rates.SpreadThresholdBp, Method: DefiMethod, Chains: []ChainRate{}}
	a.Bill3M = v.bill3M(now)
	read := false
	sum := 0.0
	for _, r := range v.cfg.Reserves {
		c := ChainRate{Protocol: r.Protocol, Chain: r.Chain, ChainID: r.ChainID, Pool: r.Pool, Asset: r.Asset, Symbol: r.Symbol}
		s := v.lending[r.Protocol+"|"+r.Chain+"|"+r.Asset]
		scope := schemas.LendingScope(r.Protocol, r.Chain)
		if s != nil {
			read = true
			l := s.latest.rec.GetLending()
			supply, ok1 := rates.RayToAPRPercent(l.LiquidityRateRay)
			borrow, ok2 := rates.RayToAPRPercent(l.VariableBorrowRateRay)
			if !ok1 || !ok2 {
				panic("BUG: a validated ray does not parse")
			}
			c.SupplyAPR, c.SupplyAPY = ptr(supply), ptr(rates.APYPercent(supply))
			c.BorrowAPR, c.BorrowAPY = ptr(borrow), ptr(rates.APYPercent(borrow))
			bn, bt, ru := l.BlockNumber, unixTimestamp(l.BlockTime), unixTimestamp(l.LastUpdateTime)
			c.BlockNumber, c.BlockTime, c.ReserveUpdatedAt = &bn, &bt, &ru
			c.Active, c.Frozen, c.Paused = &l.Active, &l.Frozen, &l.Paused
			src := sourceOf(s.latest)
			src.ReadAt = timestamp(s.latest.rec.ReadTimeNs)
			c.Source = &src
			if a.Bill3M != nil {
				c.SpreadBp = ptr(rates.SpreadBp(*c.SupplyAPY, a.Bill3M.APY))
			}
		}
		c.Stale, c.StaleReason, c.StaleSince = v.staleness(scope, s, now)
		if !c.Stale && c.SpreadBp != nil {
			sum += *c.SpreadBp
			a.ChainsAveraged++
		}
		a.Chains = append(a.Chains, c)
	}
	if !read {
		return nil, ErrNoData
	}
	if a.ChainsAveraged > 0 {
		avg := sum / float64(a.ChainsAveraged)
		sig := rates.SpreadSignal(avg)
		a.AverageSpreadBp, a.Signal = &avg, &sig
	}
	return a, nil
}

// staleness says whether a reserve is stale as of now, why and since when.
func (v *View) staleness(scope string, s *lendingState, now time.Time) (bool, string, *string) {
	lastRead := int64(0)
	if s != nil {
		lastRead = s.lastReadNs
	}
	if f := v.faults[scope]; f != nil && f.rec.ReadTimeNs > lastRead {
		fault := f.rec.GetFault()
		since := timestamp(fault.FirstFailureNs)
		return true, fault.Reason, &since
	}
	if s == nil {
		return true, "not read yet", nil
	}
	if age := now.Sub(time.Unix(0, lastRead)); age > v.cfg.LendingStaleAfter {
		since := timestamp(lastRead)
		return true, fmt.Sprintf("last read %s ago, more than %s", age.Truncate(time.Second), v.cfg.LendingStaleAfter), &since
	}
	// A read answered from an old block (a node that stopped following its
	// chain, a replayed capture) is as old as its block.
	l := s.latest.rec
	if bt := l.GetLending().BlockTime; bt > 0 {
		if lag := time.Duration(l.ReadTimeNs - bt*1e9); lag > v.cfg.LendingStaleAfter {
			since := unixTimestamp(bt)
			return true, fmt.Sprintf("the block read was %s old when read, more than %s", lag.Truncate(time.Second), v.cfg.LendingStaleAfter), &since
		}
	}
	return false, "", nil
}

// bill3M is the 3-month yield of the latest nominal curve that has one.
func (v *View) bill3M(now time.Time) *BillFigure {
	d := v.curves[schemas.CurveKind_CURVE_KIND_PAR_NOMINAL]
	if d == nil {
		return nil
	}
	for i, n := len(d.dates)-1, 0; i >= 0 && n < billSearch; i, n = i-1, n+1 {
		date := d.dates[i]
		vs := d.byDate[date]
		if y, ok := pointsOf(vs.latest.rec.GetCurve())["3M"]; ok {
			return &BillFigure{Date: date, AgeDays: ageDays(date, now), Yield: y,
				APY: rates.BillAPYPercent(y, rates.BillDays), Days: rates.BillDays, Source: sourceOf(vs.latest)}
		}
	}
	return nil
}
