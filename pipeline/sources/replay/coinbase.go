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

// trade decodes one Coinbase trade object (Advanced Trade market_trades
// entry or legacy match message). raw is what a rejection carries.
func (p *coinbaseParser) trade(obj, raw []byte, ingest int64, out []sources.Record) []sources.Record {
	var product, id, price, size, tm, side []byte
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "product_id":
			product, _, _ = jsonString(v, nil)
		case "trade_id":
			id, _ = numOrString(v)
		case "price":
			price, _ = numOrString(v)
		case "size":
			size, _ = numOrString(v)
		case "time":
			tm, _, _ = jsonString(v, nil)
		case "side":
			side, _, _ = jsonString(v, nil)
		}
		return true
	})
	if err != nil {
		return append(out, reject(raw, "malformed json"))
	}
	t := &schemas.Trade{Venue: "coinbase", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, IngestTimeNs: ingest}
	var ok bool
	if t.Price, ok = parseDecimal(price); !ok {
		return append(out, reject(raw, "bad price: price is not a decimal"))
	}
	if t.Size, ok = parseDecimal(size); !ok {
		return append(out, reject(raw, "bad size: size is not a decimal"))
	}
	if t.EventTimeNs, ok = rfc3339Ns(tm); !ok {
		return append(out, reject(raw, "bad timestamp: time is not RFC 3339"))
	}
	makerSide, ok := parseSide(side)
	if !ok {
		return append(out, reject(raw, "bad side: "+string(side)))
	}
	t.Side = opposite(makerSide)
	if len(id) == 0 {
		return append(out, reject(raw, "bad trade id: missing"))
	}
	t.TradeId = string(id)
	t.NotionalUsd = t.Price * t.Size
	sym := p.symbol("coinbase", product)
	t.Market = sym.venueSymbol
	return p.emit(out, raw, t, sym)
}
