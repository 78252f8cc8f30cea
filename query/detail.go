package query

import (
	"time"

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
	b = AppendDocument(b, d)
	b = b[:len(b)-1] // reopen the object
	b = append(b, `,"liquidity":{"method":`...)
	b = appendString(b, liquidityMethodNone)
	b = append(b, `,"as_of":null,"liquidity_score":null,"slippage_bps":null,"estimates":[],"pools":[]},"sources":[`...)
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
		b = appendString(b, v)
		b = append(b, `,"status":`...)
		b = appendString(b, status)
		b = append(b, `,"as_of":`...)
		b = appendTimeOrNull(b, last)
		b = append(b, '}')
	}
	b = append(b, `],"as_of":`...)
	b = appendTimeOrNull(b, d.TimestampNs)
	return append(b, '}')
}
