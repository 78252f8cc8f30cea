package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// coinbaseParser reads two Coinbase layouts:
//
//   - cryptofeed recordings of the Advanced Trade websocket: `recv` records
//     whose data is a `market_trades` message become trades (snapshot and
//     update events alike); every other record and channel is skipped;
//   - legacy Coinbase Exchange websocket lines (one raw message a line):
//     `match` and `last_match` become trades, everything else is skipped.
//
// In both, `side` is the MAKER's side (verified on the Advanced Trade capture:
// SELL prints at the best ask, BUY at the best bid), so the aggressor is the
// opposite side.
type coinbaseParser struct {
	base
}

func newCoinbaseParser() *coinbaseParser { return &coinbaseParser{} }

// legacyCoinbaseTypes are the message types of the legacy Exchange feed.
var legacyCoinbaseTypes = map[string]bool{
	"match": true, "last_match": true, "ticker": true, "subscriptions": true, "heartbeat": true,
	"l2update": true, "snapshot": true, "received": true, "open": true, "done": true, "change": true,
	"activate": true, "error": true, "status": true,
}

func (p *coinbaseParser) parse(line []byte, out []sources.Record) []sources.Record {
	var typ, tKind []byte
	err := eachField(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "t":
			tKind = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json"))
	}
	if tKind != nil {
		return p.parseRecorded(line, out)
	}
	switch string(typ) {
	case `"match"`, `"last_match"`:
		return p.trade(line, line, 0, out)
	}
	p.skipped++
	return out
}

func (p *coinbaseParser) parseRecorded(line []byte, out []sources.Record) []sources.Record {
	r, ok := readCryptofeed(line)
	if !ok {
		return append(out, reject(line, "malformed json"))
	}
	// Cheap pre-check: only market_trades messages are unescaped and decoded.
	if string(r.kind) != "recv" || !bytes.Contains(r.data, []byte("market_trades")) {
		p.skipped++
		return out
	}
	msg, ingest, out, ok := p.recvPayload(line, r, out)
	if !ok {
		return out
	}
	if !p.generalOnly {
		if res, ok := p.coinbaseFast(msg, ingest, out); ok {
			return res
		}
	}
	var channel, events []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			channel = v
		case "events":
			events = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json: data"))
	}
	if string(channel) != `"market_trades"` {
		p.skipped++
		return out
	}
	return p.marketTrades(line, events, ingest, out)
}

// marketTrades decodes the events array of a market_trades message; line is
// what a rejection of the whole message carries.
func (p *coinbaseParser) marketTrades(line, events []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	err := eachElem(events, func(ev []byte) bool {
		var trades []byte
		if eachField(ev, func(k, v []byte) bool {
			if string(k) == "trades" {
				trades = v
			}
			return true
		}) != nil || trades == nil {
			out = append(out, reject(ev, "malformed market_trades event: no trades"))
			return true
		}
		if eachElem(trades, func(tr []byte) bool {
			out = p.trade(tr, tr, ingest, out)
			return true
		}) != nil {
			out = append(out, reject(ev, "malformed market_trades event: trades is not an array"))
		}
		return true
	})
	if err != nil {
		return append(out[:n], reject(line, "malformed market_trades message: events is not an array"))
	}
	return out
}

// coinbaseFields are the raw fields of a trade object.
type coinbaseFields struct {
	product, id, price, size, tm, side []byte
}

// trade decodes one Coinbase trade object (Advanced Trade market_trades
// entry or legacy match message). raw is what a rejection carries.
func (p *coinbaseParser) trade(obj, raw []byte, ingest int64, out []sources.Record) []sources.Record {
	if !p.generalOnly {
		var f coinbaseFields
		if j, ok := coinbaseScan(obj, 0, 1, &f); ok && trailing(obj, j) == nil {
			if res, ok := p.tradeFast(&f, ingest, out); ok {
				return res
			}
		}
	}
	var f coinbaseFields
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "product_id":
			f.product, _, _ = jsonString(v, nil)
		case "trade_id":
			f.id, _ = numOrString(v)
		case "price":
			f.price, _ = numOrString(v)
		case "size":
			f.size, _ = numOrString(v)
		case "time":
			f.tm, _, _ = jsonString(v, nil)
		case "side":
			f.side, _, _ = jsonString(v, nil)
		}
		return true
	})
	if err != nil {
		return append(out, reject(raw, "malformed json"))
	}
	t := &schemas.Trade{}
	sym, reason := p.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, reject(raw, reason))
	}
	return p.emit(out, raw, t, sym)
}

// tradeFast is the fast path's end of trade: the trade of f, or false.
func (p *coinbaseParser) tradeFast(f *coinbaseFields, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := p.newTrade()
	s, reason := p.build(f, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return p.emitFast(out, t, s)
}

// coinbaseScan reads the trade object at b[i] into f in one pass (the fast
// path); depth is the object's nesting in its message.
func coinbaseScan(b []byte, i, depth int, f *coinbaseFields) (int, bool) {
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
		case "product_id":
			bit = 1
			f.product, i, ok = strRaw(b, v)
		case "trade_id":
			bit = 2
			f.id, i, ok = numOrStr(b, v)
		case "price":
			bit = 4
			f.price, i, ok = numOrStr(b, v)
		case "size":
			bit = 8
			f.size, i, ok = numOrStr(b, v)
		case "time":
			bit = 16
			f.tm, i, ok = strRaw(b, v)
		case "side":
			bit = 32
			f.side, i, ok = strRaw(b, v)
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

// build fills t from the fields of a trade object, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (p *coinbaseParser) build(f *coinbaseFields, ingest int64, t *schemas.Trade, fast bool) (symEntry, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = "coinbase", schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = parseDecimal(f.price); !ok {
		return symEntry{}, "bad price: price is not a decimal"
	}
	if t.Size, ok = parseDecimal(f.size); !ok {
		return symEntry{}, "bad size: size is not a decimal"
	}
	if t.EventTimeNs, ok = rfc3339Ns(f.tm); !ok {
		return symEntry{}, "bad timestamp: time is not RFC 3339"
	}
	makerSide, ok := parseSide(f.side)
	if !ok {
		return symEntry{}, "bad side: " + string(f.side)
	}
	t.Side = opposite(makerSide)
	if len(f.id) == 0 {
		return symEntry{}, "bad trade id: missing"
	}
	t.TradeId = p.keep(fast, f.id)
	t.NotionalUsd = t.Price * t.Size
	sym := p.symbolOf(fast, "coinbase", f.product)
	t.Market = sym.venueSymbol
	return sym, ""
}
