package market

import (
	"math"
	"strconv"
	"time"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// liquidityMethodNone is the liquidity method while no pool state is kept;
// the venues issue replaces it with concentrated-liquidity estimates.
const liquidityMethodNone = "none: no pool state yet"

// appendSymbolDetail appends the response of the single-symbol route: the
// document followed by the symbol detail extension of spec §2.3 —
// liquidity (method and nulls saying there is no pool state yet), sources
// (one per venue in the window: status "ok", or "stale" once the symbol's
// last trade is older than the window's staleness limit at now; as_of the
// newest trade of the window, as per-venue times are not kept yet) and
// as_of (the document's time).
func appendSymbolDetail(b []byte, d *schemas.IntelligenceDocument, now time.Time) []byte {
	return appendSymbolDetailLiquidity(b, d, now, nil)
}

// appendSymbolDetailLiquidity is appendSymbolDetail with the liquidity block
// of liq (docs/liquidity.md); nil, or a report without pools, renders the
// "none" block.
func appendSymbolDetailLiquidity(b []byte, d *schemas.IntelligenceDocument, now time.Time, liq *operators.LiquidityReport) []byte {
	b = AppendDocument(b, d)
	b = b[:len(b)-1] // reopen the object
	b = appendLiquidity(b, liq)
	b = append(b, `,"sources":[`...)
	status := "ok"
	last := lastTradeNs(d)
	if now.UnixNano()-last > int64(staleAfter(d.Window)) {
		status = "stale"
	}
	var venues []string
	if d.Observations != nil && d.Observations.Quality != nil {
		venues = d.Observations.Quality.Venues
	}
	for i, v := range venues {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = jsonw.AppendString(b, v)
		b = append(b, `,"status":`...)
		b = jsonw.AppendString(b, status)
		b = append(b, `,"as_of":`...)
		b = jsonw.AppendTimeOrNull(b, last)
		b = append(b, '}')
	}
	b = append(b, `],"as_of":`...)
	b = jsonw.AppendTimeOrNull(b, d.TimestampNs)
	return append(b, '}')
}

// appendLiquidity appends `,"liquidity":{...}`.
func appendLiquidity(b []byte, r *operators.LiquidityReport) []byte {
	b = append(b, `,"liquidity":{"method":`...)
	if r == nil || len(r.Pools) == 0 {
		b = jsonw.AppendString(b, liquidityMethodNone)
		return append(b, `,"as_of":null,"liquidity_score":null,"slippage_bps":null,"estimates":[],"pools":[]}`...)
	}
	b = jsonw.AppendString(b, operators.LiquidityMethod)
	b = append(b, `,"as_of":`...)
	b = jsonw.AppendTimeOrNull(b, r.AsOfNs)
	b = append(b, `,"liquidity_score":`...)
	if r.Score == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.Score), 10)
	}
	b = append(b, `,"slippage_bps":`...)
	if len(r.Estimates) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, side := range []string{"buy", "sell"} {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, side)
			b = append(b, ":{"...)
			for j, size := range operators.OrderSizesUSD {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '"')
				b = strconv.AppendInt(b, int64(size), 10)
				b = append(b, `":`...)
				e, _ := r.Cost(side, size)
				b = appendCost(b, e.CostBps)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, `,"estimates":[`...)
	for i, e := range r.Estimates {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"side":`...)
		b = jsonw.AppendString(b, e.Side)
		b = append(b, `,"size_usd":`...)
		b = strconv.AppendInt(b, int64(e.SizeUSD), 10)
		b = append(b, `,"cost_bps":`...)
		b = appendCost(b, e.CostBps)
		b = append(b, `,"reason":`...)
		if e.CostBps != nil {
			b = append(b, "null"...)
		} else {
			b = jsonw.AppendString(b, e.Reason)
		}
		b = append(b, `,"chain":`...)
		b = jsonw.AppendStringOrNull(b, e.Chain)
		b = append(b, `,"pool":`...)
		b = jsonw.AppendStringOrNull(b, e.Pool)
		b = jsonw.AppendFloatField(b, "fee_bps", e.FeeBps)
		b = append(b, `,"ticks_crossed":`...)
		b = strconv.AppendInt(b, int64(e.TicksCrossed), 10)
		b = append(b, '}')
	}
	b = append(b, `],"pools":[`...)
	for i, p := range r.Pools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"chain":`...)
		b = jsonw.AppendString(b, p.Chain)
		b = append(b, `,"address":`...)
		b = jsonw.AppendString(b, p.Address)
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, p.Name)
		b = jsonw.AppendFloatField(b, "fee_bps", p.FeeBps)
		b = jsonw.AppendFloatField(b, "price_usd", p.PriceUSD)
		b = append(b, `,"sqrt_price_x96":`...)
		b = jsonw.AppendString(b, p.SqrtPriceX96)
		b = append(b, `,"liquidity":`...)
		b = jsonw.AppendString(b, p.Liquidity)
		b = append(b, `,"tick":`...)
		b = strconv.AppendInt(b, int64(p.Tick), 10)
		b = append(b, `,"known_ticks":`...)
		b = strconv.AppendInt(b, int64(p.KnownTicks), 10)
		b = append(b, `,"as_of":`...)
		b = jsonw.AppendTimeOrNull(b, p.UpdatedNs)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendCost appends a cost in bps rounded to 0.01, or null.
func appendCost(b []byte, c *float64) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	v := math.Round(*c*100) / 100
	if v == 0 {
		return append(b, "0"...)
	}
	return jsonw.AppendFloat(b, v)
}
