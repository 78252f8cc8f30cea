package operators

import (
	"cmp"
	"slices"

	"github.com/marketintel/mi/schemas"
)

// candleNs is the candle interval: 1 minute, UTC-aligned.
const candleNs = int64(60e9)

// candle is an open 1-minute candle of one series. Sums are accumulated in
// arrival order with plain float64 addition, so that summing the same trades
// in the same order elsewhere (DuckDB sum()) gives the identical float.
type candle struct {
	startNs int64
	openNs  int64 // event time of the trade that set open
	closeNs int64 // event time of the trade that set close

	open, high, low, close float64
	volume, volumeUSD      float64 // base units; sum of notional_usd
	buyVolume, sellVolume  float64 // base units by aggressor side
	buyUSD, sellUSD        float64
	quote                  float64 // sum of price*size, for vwap

	count, buyCount, sellCount, unknownCount uint32
}

// add folds one trade into c.
func (c *candle) add(t *schemas.Trade) {
	p, ns := t.Price, t.EventTimeNs
	if c.count == 0 {
		c.openNs, c.closeNs = ns, ns
		c.open, c.high, c.low, c.close = p, p, p, p
	} else {
		// Open is the earliest event time, first arrival on ties; close the
		// latest event time, last arrival on ties.
		if ns < c.openNs {
			c.openNs, c.open = ns, p
		}
		if ns >= c.closeNs {
			c.closeNs, c.close = ns, p
		}
		c.high = max(c.high, p)
		c.low = min(c.low, p)
	}
	c.volume += t.Size
	c.volumeUSD += t.NotionalUsd
	c.quote += p * t.Size
	c.count++
	switch t.Side {
	case schemas.Side_SIDE_BUY:
		c.buyVolume += t.Size
		c.buyUSD += t.NotionalUsd
		c.buyCount++
	case schemas.Side_SIDE_SELL:
		c.sellVolume += t.Size
		c.sellUSD += t.NotionalUsd
		c.sellCount++
	default:
		c.unknownCount++
	}
}

// series is the candle series of one symbol on one venue, chain and venue
// kind. Its open candles are sorted by start.
type series struct {
	venue, chain string
	kind         schemas.VenueKind
	venueSlot    int // cached slot of venue in the symbol's venue table, or -1
	candles      []candle
}

// candleFor returns the open candle of the minute starting at startNs,
// creating it if needed, and whether it was created.
func (s *series) candleFor(startNs int64) (*candle, bool) {
	// Trades mostly land in the newest candle: search from the back.
	i := len(s.candles)
	for i > 0 && s.candles[i-1].startNs > startNs {
		i--
	}
	if i > 0 && s.candles[i-1].startNs == startNs {
		return &s.candles[i-1], false
	}
	s.candles = slices.Insert(s.candles, i, candle{startNs: startNs})
	return &s.candles[i], true
}

// seriesFor returns the candle series of t in sym, creating it if needed.
func (sym *symbol) seriesFor(t *schemas.Trade) *series {
	for _, s := range sym.series {
		if s.venue == t.Venue && s.chain == t.Chain && s.kind == t.VenueKind {
			return s
		}
	}
	s := &series{
		venue:     cloneString(t.Venue),
		chain:     cloneString(t.Chain),
		kind:      t.VenueKind,
		venueSlot: -1,
	}
	sym.series = append(sym.series, s)
	return s
}

// closingCandle is a candle being closed, with what orders it in the output.
type closingCandle struct {
	sym *symbol
	s   *series
	c   candle
}

// closeCandles emits, in order of start, symbol, venue, chain, every open
// candle of venue kind k whose minute ended at or before the watermark wNs,
// and recomputes the earliest end of the candles of kind k still open.
func (e *Engine) closeCandles(k schemas.VenueKind, wNs int64) {
	next := int64(maxNs)
	closing := e.closing[:0]
	for _, sym := range e.sorted {
		dropped := false
		for _, s := range sym.series {
			if s.kind != k {
				continue
			}
			n := 0
			for n < len(s.candles) && s.candles[n].startNs+candleNs <= wNs {
				closing = append(closing, closingCandle{sym: sym, s: s, c: s.candles[n]})
				n++
			}
			if n > 0 {
				s.candles = slices.Delete(s.candles, 0, n)
				e.markDirty(sym)
				dropped = dropped || len(s.candles) == 0
			}
			if len(s.candles) > 0 {
				next = min(next, s.candles[0].startNs+candleNs)
			}
		}
		if dropped {
			// Forget series with nothing open; they come back with their
			// next trade.
			sym.series = slices.DeleteFunc(sym.series, func(s *series) bool { return len(s.candles) == 0 })
		}
	}
	e.nextClose[k] = next
	slices.SortFunc(closing, func(a, b closingCandle) int {
		return cmp.Or(
			cmp.Compare(a.c.startNs, b.c.startNs),
			cmp.Compare(a.sym.name, b.sym.name),
			cmp.Compare(a.s.venue, b.s.venue),
			cmp.Compare(a.s.chain, b.s.chain),
			cmp.Compare(a.s.kind, b.s.kind),
		)
	})
	for i := range closing {
		e.emitCandle(&closing[i])
		closing[i] = closingCandle{}
	}
	e.closing = closing[:0]
}

// emitCandle fills the reused Candle of the engine and emits it.
func (e *Engine) emitCandle(cc *closingCandle) {
	c := &cc.c
	out := &e.candleOut
	*out = schemas.Candle{
		Venue:            cc.s.venue,
		VenueKind:        cc.s.kind,
		Symbol:           cc.sym.name,
		StartNs:          c.startNs,
		IntervalNs:       candleNs,
		Open:             c.open,
		High:             c.high,
		Low:              c.low,
		Close:            c.close,
		Volume:           c.volume,
		VolumeUsd:        c.volumeUSD,
		BuyVolume:        c.buyVolume,
		SellVolume:       c.sellVolume,
		BuyVolumeUsd:     c.buyUSD,
		SellVolumeUsd:    c.sellUSD,
		BuyPressure:      pressure(c.buyUSD, c.sellUSD),
		Vwap:             ratioOrZero(c.quote, c.volume),
		TradeCount:       c.count,
		BuyCount:         c.buyCount,
		SellCount:        c.sellCount,
		UnknownSideCount: c.unknownCount,
		Chain:            cc.s.chain,
	}
	e.emit.Candle(out)
}

// pressure returns 100*buy/(buy+sell), or 50 when both are 0. It divides
// first, so that rounding never takes it outside [0, 100].
func pressure(buy, sell float64) float64 {
	if buy+sell == 0 {
		return 50
	}
	return 100 * (buy / (buy + sell))
}

// ratioOrZero returns a/b, or 0 when b is 0.
func ratioOrZero(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
