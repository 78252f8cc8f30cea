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

// krakenFields are the raw fields of a trade entry.
type krakenFields struct {
	sym, side, price, qty, id, tm []byte
}

func (p *krakenParser) trade(obj []byte, ingest int64, out []sources.Record) []sources.Record {
	if !p.generalOnly {
		var f krakenFields
		if j, ok := krakenScan(obj, 0, 1, &f); ok && trailing(obj, j) == nil {
			if res, ok := p.tradeFast(&f, ingest, out); ok {
				return res
			}
		}
	}
	var f krakenFields
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "symbol":
			f.sym, _, _ = jsonString(v, nil)
		case "side":
			f.side, _, _ = jsonString(v, nil)
		case "price":
			f.price, _ = numOrString(v)
		case "qty":
			f.qty, _ = numOrString(v)
		case "trade_id":
			f.id, _ = numOrString(v)
		case "timestamp":
			f.tm, _, _ = jsonString(v, nil)
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{}
	s, reason := p.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, reject(obj, reason))
	}
	return p.emit(out, obj, t, s)
}

// tradeFast is the fast path's end of trade: the trade of f, or false.
func (p *krakenParser) tradeFast(f *krakenFields, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := p.newTrade()
	s, reason := p.build(f, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return p.emitFast(out, t, s)
}

// krakenScan reads the trade entry at b[i] into f in one pass (the fast
// path); depth is the entry's nesting in its message.
func krakenScan(b []byte, i, depth int, f *krakenFields) (int, bool) {
	i, empty, ok := objOpen(b, i)
	if !ok || empty {
		return 0, false
	}
	var seen uint8
	for {
		key, v, ok := objKey(b, i)
		if !ok {
			return 0, false
		}
		var bit uint8
		switch string(key) {
		case "symbol":
			bit = 1
			f.sym, i, ok = strRaw(b, v)
		case "side":
			bit = 2
			f.side, i, ok = strRaw(b, v)
		case "price":
			bit = 4
			f.price, i, ok = numOrStr(b, v)
		case "qty":
			bit = 8
			f.qty, i, ok = numOrStr(b, v)
		case "trade_id":
			bit = 16
			f.id, i, ok = numOrStr(b, v)
		case "timestamp":
			bit = 32
			f.tm, i, ok = strRaw(b, v)
		default:
			var err error
			i, err = skipValue(b, v, depth+1)
			ok = err == nil
		}
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		var more bool
		if i, more, ok = objNext(b, i); !ok {
			return 0, false
		}
		if !more {
			return i, true
		}
	}
}

// build fills t from the fields of a trade entry, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (p *krakenParser) build(f *krakenFields, ingest int64, t *schemas.Trade, fast bool) (symEntry, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = "kraken", schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = parseDecimal(f.price); !ok {
		return symEntry{}, "bad price: price is not a decimal"
	}
	if t.Size, ok = parseDecimal(f.qty); !ok {
		return symEntry{}, "bad size: qty is not a decimal"
	}
	if t.EventTimeNs, ok = rfc3339Ns(f.tm); !ok {
		return symEntry{}, "bad timestamp: timestamp is not RFC 3339"
	}
	switch string(f.side) {
	case "buy":
		t.Side = schemas.Side_SIDE_BUY
	case "sell":
		t.Side = schemas.Side_SIDE_SELL
	default:
		return symEntry{}, "bad side: " + string(f.side)
	}
	if _, ok := parseInt(f.id); !ok {
		return symEntry{}, "bad trade id: trade_id is not an integer"
	}
	t.TradeId = p.keep(fast, f.id)
	t.NotionalUsd = t.Price * t.Size
	s := p.symbolOf(fast, "kraken", f.sym)
	t.Market = s.venueSymbol
	return s, ""
}
