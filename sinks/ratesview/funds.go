package ratesview

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/operators/rates"
	"github.com/marketintel/mi/schemas"
)

// TokenizedAnswer is the answer of /api/v1/rates/tokenized-treasuries.
type TokenizedAnswer struct {
	AsOf string `json:"asOf"`
	// Funds has one entry per configured fund, in order.
	Funds []FundFigure `json:"funds"`
	// Aggregate is the equal-weight mean of the funds' changes (funds
	// that are not stale and have the base snapshot).
	Aggregate Aggregate `json:"aggregate"`
	// Gauge is RISK_OFF_INFLOW, NEUTRAL or RISK_ON_OUTFLOW from the
	// aggregate 24-hour change at ±ThresholdPercentPerDay; null without
	// one.
	Gauge                  *string `json:"gauge"`
	ThresholdPercentPerDay float64 `json:"thresholdPercentPerDay"`
	Method                 string  `json:"method"`
}

// Aggregate is the mean change of the funds.
type Aggregate struct {
	Change24hPercent *float64 `json:"change24hPercent"`
	Funds24h         int      `json:"funds24h"`
	Change7dPercent  *float64 `json:"change7dPercent"`
	Funds7d          int      `json:"funds7d"`
}

// FundFigure is one fund's latest hourly snapshot and its changes.
type FundFigure struct {
	Symbol string `json:"symbol"`
	Name   string `json:"name"`
	Issuer string `json:"issuer"`
	Chain  string `json:"chain"`
	Token  string `json:"token"`
	// Supply is the total supply in whole tokens (SupplyRaw / 10^Decimals,
	// decimals as read from the token).
	Supply       *float64 `json:"supply"`
	SupplyRaw    *string  `json:"supplyRaw"`
	Decimals     *uint32  `json:"decimals"`
	SnapshotTime *string  `json:"snapshotTime"`
	BlockNumber  *uint64  `json:"blockNumber"`
	BlockTime    *string  `json:"blockTime"`
	// Changes against the snapshots 24 hours and 7 days before (or the
	// latest up to 2 and 6 hours earlier than that); null without one.
	Change24hPercent *float64 `json:"change24hPercent"`
	Base24hTime      *string  `json:"base24hTime"`
	Change7dPercent  *float64 `json:"change7dPercent"`
	Base7dTime       *string  `json:"base7dTime"`
	Stale            bool     `json:"stale"`
	StaleReason      string   `json:"staleReason,omitempty"`
	Source           *Source  `json:"source"`
}

// TokenizedMethod documents the changes and the gauge.
const TokenizedMethod = "each fund's totalSupply() is snapshotted hourly; change = 100 x (supply - base) / base against the snapshot 24 h (7 d) earlier, " +
	"or the latest within 2 h (6 h) before it; the aggregate is the mean of the funds' changes, each fund weighted equally " +
	"(token units differ in price, so supplies are not added); funds that are stale are left out; " +
	"gauge RISK_OFF_INFLOW at +0.5 % per day or more, RISK_ON_OUTFLOW at -0.5 % or less, else NEUTRAL"

// Base windows of the changes, seconds: the target offset and how much
// earlier a base may be.
const (
	day, dayTolerance   = 24 * 3600, 2 * 3600
	week, weekTolerance = 7 * 24 * 3600, 6 * 3600
)

// TokenizedTreasuries answers /api/v1/rates/tokenized-treasuries as of
// now. It fails with ErrNoSnapshot until a fund has a snapshot.
func (v *View) TokenizedTreasuries(now time.Time) (*TokenizedAnswer, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	a := &TokenizedAnswer{AsOf: timestamp(now.UnixNano()), ThresholdPercentPerDay: rates.GaugeThreshold, Method: TokenizedMethod, Funds: []FundFigure{}}
	read := false
	var sum24, sum7 float64
	for _, f := range v.cfg.Funds {
		ff := FundFigure{Symbol: f.Symbol, Name: f.Name, Issuer: f.Issuer, Chain: f.Chain, Token: f.Token}
		s := v.funds[f.Chain+"|"+f.Symbol]
		if s != nil && len(s.snaps) > 0 {
			read = true
			latest := s.snaps[s.newest]
			fs := latest.rec.GetFundSupply()
			supply, ok := rates.TokenAmount(fs.TotalSupplyRaw, fs.Decimals)
			if !ok {
				panic("BUG: a validated supply does not parse")
			}
			raw, dec, bn, bt, st := fs.TotalSupplyRaw, fs.Decimals, fs.BlockNumber, unixTimestamp(fs.BlockTime), unixTimestamp(fs.SnapshotTime)
			ff.Supply, ff.SupplyRaw, ff.Decimals, ff.BlockNumber, ff.BlockTime, ff.SnapshotTime = &supply, &raw, &dec, &bn, &bt, &st
			src := sourceOf(latest)
			ff.Source = &src
			ff.Change24hPercent, ff.Base24hTime = change(s, supply, day, dayTolerance)
			ff.Change7dPercent, ff.Base7dTime = change(s, supply, week, weekTolerance)
		}
		ff.Stale, ff.StaleReason = v.fundStaleness(f, s, now)
		if !ff.Stale {
			if ff.Change24hPercent != nil {
				sum24 += *ff.Change24hPercent
				a.Aggregate.Funds24h++
			}
			if ff.Change7dPercent != nil {
				sum7 += *ff.Change7dPercent
				a.Aggregate.Funds7d++
			}
		}
		a.Funds = append(a.Funds, ff)
	}
	if !read {
		return nil, ErrNoSnapshot
	}
	if a.Aggregate.Funds24h > 0 {
		c := sum24 / float64(a.Aggregate.Funds24h)
		g := rates.Gauge(c)
		a.Aggregate.Change24hPercent, a.Gauge = &c, &g
	}
	if a.Aggregate.Funds7d > 0 {
		a.Aggregate.Change7dPercent = ptr(sum7 / float64(a.Aggregate.Funds7d))
	}
	return a, nil
}

// change is the change of supply against the snapshot offset seconds
// before the newest, or the latest one up to tolerance earlier.
func change(s *fundState, supply float64, offset, tolerance int64) (*float64, *string) {
	target := s.newest - offset
	for t := target; t >= target-tolerance; t -= 3600 {
		base := s.snaps[t]
		if base == nil {
			continue
		}
		fs := base.rec.GetFundSupply()
		then, _ := rates.TokenAmount(fs.TotalSupplyRaw, fs.Decimals)
		c, ok := rates.ChangePercent(supply, then)
		if !ok {
			return nil, nil
		}
		bt := unixTimestamp(t)
		return &c, &bt
	}
	return nil, nil
}

// fundStaleness: a fund is stale without a snapshot, when the chain's
// last read failed after its last snapshot read, or when its newest
// snapshot is older than the limit.
func (v *View) fundStaleness(f Fund, s *fundState, now time.Time) (bool, string) {
	lastRead := int64(0)
	if s != nil {
		lastRead = s.lastReadNs
	}
	for _, scope := range []string{schemas.FundScope(f.Chain, ""), schemas.FundScope(f.Chain, f.Symbol)} {
		if fl := v.faults[scope]; fl != nil && fl.rec.ReadTimeNs > lastRead {
			return true, fl.rec.GetFault().Reason
		}
	}
	if s == nil || len(s.snaps) == 0 {
		return true, "no snapshot yet"
	}
	if age := now.Sub(time.Unix(s.newest, 0)); age > v.cfg.FundStaleAfter {
		return true, fmt.Sprintf("newest snapshot %s old, more than %s", age.Truncate(time.Second), v.cfg.FundStaleAfter)
	}
	return false, ""
}
