package operators

import (
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/marketintel/mi/schemas"
)

// Document rules.
const (
	ratioCap          = 1000 // cap of buy_sell_ratio and the accelerations
	dominantBuyFrom   = 55   // buy_pressure from which dominant_side is BUY
	dominantSellUntil = 45   // buy_pressure up to which dominant_side is SELL
)

// emitDocuments emits the documents as of the second boundary sec (Unix
// seconds), which the trade being pushed is the first to cross: for every
// symbol with trades accepted since the previous documents and, when a
// minute boundary was crossed, every symbol whose 15m window holds a trade.
// Symbols go in name order, windows shortest first.
func (e *Engine) emitDocuments(sec int64) {
	asOf := sec * nsPerSecond
	if floorDiv(sec, 60) > floorDiv(e.docSec, 60) {
		hi := floorDiv(asOf-1, bucketNs(numWindows-1))
		for _, sym := range e.sorted {
			if sym.touched || sym.win[numWindows-1].hasTrades(hi) {
				e.emitSymbolDocuments(sym, sec, true)
			}
		}
	} else {
		slices.SortFunc(e.touched, bySymbolName)
		for _, sym := range e.touched {
			e.emitSymbolDocuments(sym, sec, false)
		}
	}
	for _, sym := range e.touched {
		sym.touched = false
		e.markDirty(sym)
	}
	clear(e.touched)
	e.touched = e.touched[:0]
}

// emitSymbolDocuments emits the 1m, 5m and 15m documents of sym as of sec;
// minuteClose says sec is the partition's first boundary in its minute.
func (e *Engine) emitSymbolDocuments(sym *symbol, sec int64, minuteClose bool) {
	if len(sym.gaps) > 0 && sym.expireGaps(sec) {
		e.markDirty(sym)
	}
	for w := range numWindows {
		e.fillDocument(sym, w, sec)
		if e.fillSignals(sym, w) {
			e.markDirty(sym)
		}
		e.emit.Document(&e.docOut)
		if e.pendingChange {
			e.pendingChange = false
			e.emit.SignalChange(&e.changeOut)
		}
		if minuteClose {
			e.emit.MinuteClose(&e.docOut)
		}
	}
}

// fillDocument fills the engine's reused document for window w of sym as of
// the second boundary sec.
func (e *Engine) fillDocument(sym *symbol, w int, sec int64) {
	asOf := sec * nsPerSecond
	width := bucketNs(w)
	hi := floorDiv(asOf-1, width)
	a := sym.win[w].aggregate(hi)

	volume := a.buy + a.sell + a.unknown
	start := max((hi-(bucketsPerWindow-1))*width, floorDiv(e.coverageNs, nsPerSecond)*nsPerSecond)
	windowSeconds := max(float64(asOf-start)/1e9, 0)
	minutes := windowSeconds / 60
	var first, change float64
	if a.count > 0 {
		first = a.firstPrice
		change = 100 * (sym.lastPrice - first) / first
	}
	buyPressure := pressure(a.buy, a.sell)

	q := &e.qualOut
	venues := q.Venues[:0]
	for _, i := range sym.venueOrder {
		if a.venues&(1<<i) != 0 {
			venues = append(venues, sym.venues[i])
		}
	}
	*q = schemas.Quality{
		LateTrades:       a.late,
		DuplicateTrades:  a.dup,
		UnknownSideShare: ratioOrZero(a.unknown, volume),
		Venues:           venues,
		VenueCount:       uint32(len(venues)),
	}
	if len(sym.gaps) > 0 {
		e.fillGaps(q, sym, (hi-(bucketsPerWindow-1))*width, asOf)
	}
	o := &e.obsOut
	*o = schemas.Observations{
		Quality:                q,
		WindowSeconds:          windowSeconds,
		PreviousVolume:         a.prevVolume,
		PreviousTradeCount:     uint32(min(a.prevCount, math.MaxUint32)),
		FirstPrice:             first,
		LargeTradeThresholdUsd: sym.hist.threshold(),
		High:                   a.high,
		Low:                    a.low,
		Vwap:                   ratioOrZero(a.quote, a.size),
	}
	e.docOut = schemas.IntelligenceDocument{
		Id:                   e.ids.id(sym.name, windowNames[w], sec),
		Symbol:               sym.name,
		Window:               windowNames[w],
		Price:                sym.lastPrice,
		Volume:               volume,
		BuyVolume:            a.buy,
		SellVolume:           a.sell,
		BuyPressure:          buyPressure,
		BuySellRatio:         cappedRatio(a.buy, a.sell),
		BuySellImbalance:     100 * ratioOrZero(a.buy-a.sell, volume),
		PriceChangePercent:   change,
		VolumeAcceleration:   cappedRatio(volume, a.prevVolume),
		TradeAcceleration:    cappedRatio(float64(a.count), float64(a.prevCount)),
		AverageTradeSize:     ratioOrZero(volume, float64(a.count)),
		TradeRatePerMinute:   ratioOrZero(float64(a.count), minutes),
		VolumeRatePerMinute:  ratioOrZero(volume, minutes),
		PriceChangePerMinute: ratioOrZero(change, minutes),
		TradeCount:           int64(a.count),
		LargeTradeCount:      int64(a.large),
		LargeBuyVolume:       a.largeBuy,
		LargeSellVolume:      a.largeSell,
		MaxTradeSize:         a.maxSize,
		MaxTradeNotional:     a.maxNotional,
		DominantSide:         dominantSide(buyPressure),
		TimestampNs:          asOf,
		Observations:         o,
		LastTradeTimeNs:      sym.lastNs,
	}
}

// cappedRatio returns a/b capped at ratioCap: 0 when a is 0, ratioCap when
// b is 0 and a is not. Both are non-negative.
func cappedRatio(a, b float64) float64 {
	switch {
	case a == 0:
		return 0
	case b == 0:
		return ratioCap
	}
	return min(a/b, ratioCap)
}

// dominantSide names the side that dominates a buy pressure.
func dominantSide(buyPressure float64) string {
	switch {
	case buyPressure >= dominantBuyFrom:
		return "BUY"
	case buyPressure <= dominantSellUntil:
		return "SELL"
	}
	return "BALANCED"
}

// idArena makes document ids without an allocation per id: ids are carved
// from a large byte block that is only ever appended to, so every id string
// stays immutable and valid for as long as anyone holds it.
type idArena struct {
	buf []byte
}

const idArenaSize = 64 << 10

// str returns a string with the bytes of b, carved from the arena.
func (a *idArena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(idArenaSize, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// id returns symbol+"-"+window+"-"+unix seconds.
func (a *idArena) id(symbol, window string, sec int64) string {
	need := len(symbol) + len(window) + 2 + 20
	if cap(a.buf)-len(a.buf) < need {
		a.buf = make([]byte, 0, max(idArenaSize, need))
	}
	start := len(a.buf)
	a.buf = append(a.buf, symbol...)
	a.buf = append(a.buf, '-')
	a.buf = append(a.buf, window...)
	a.buf = append(a.buf, '-')
	a.buf = strconv.AppendInt(a.buf, sec, 10)
	return unsafe.String(&a.buf[start], len(a.buf)-start)
}
