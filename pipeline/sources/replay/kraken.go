package replay

import (
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// krakenParser decodes Kraken WebSocket v2 trade entries (the data[] items
// of {"channel":"trade","type":"snapshot"|"update","data":[...]}):
// {symbol "BTC/USD", side "buy"/"sell" (the taker's side, so the aggressor),
// price, qty (numbers), ord_type, trade_id (sequential per pair), timestamp
// RFC 3339}. No capture of Kraken exists in the fixtures, so this parser is
// only reached through MessageParser (live messages); it is tested on
// messages written by hand from Kraken's documentation.
type krakenParser struct {
	base
}

func (p *krakenParser) trade(obj []byte, ingest int64, out []sources.Record) []sources.Record {
	var sym, side, price, qty, id, tm []byte
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "symbol":
			sym, _, _ = jsonString(v, nil)
		case "side":
			side, _, _ = jsonString(v, nil)
		case "price":
			price, _ = numOrString(v)
		case "qty":
			qty, _ = numOrString(v)
		case "trade_id":
			id, _ = numOrString(v)
		case "timestamp":
			tm, _, _ = jsonString(v, nil)
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{Venue: "kraken", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, IngestTimeNs: ingest}
	var ok bool
	if t.Price, ok = parseDecimal(price); !ok {
		return append(out, reject(obj, "bad price: price is not a decimal"))
	}
	if t.Size, ok = parseDecimal(qty); !ok {
		return append(out, reject(obj, "bad size: qty is not a decimal"))
	}
	if t.EventTimeNs, ok = rfc3339Ns(tm); !ok {
		return append(out, reject(obj, "bad timestamp: timestamp is not RFC 3339"))
	}
	switch string(side) {
	case "buy":
		t.Side = schemas.Side_SIDE_BUY
	case "sell":
		t.Side = schemas.Side_SIDE_SELL
	default:
		return append(out, reject(obj, "bad side: "+string(side)))
	}
	if _, ok := parseInt(id); !ok {
		return append(out, reject(obj, "bad trade id: trade_id is not an integer"))
	}
	t.TradeId = string(id)
	t.NotionalUsd = t.Price * t.Size
	s := p.symbol("kraken", sym)
	t.Market = s.venueSymbol
	return p.emit(out, obj, t, s)
}
