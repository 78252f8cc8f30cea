package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// bybitParser reads cryptofeed recordings of Bybit v5 public websockets.
// `recv` records whose data has topic publicTrade.<symbol> become trades:
// data[] {T ms, s symbol, S taker side Buy/Sell, v size, p price, i id}.
// The market type comes from the connection's URL in its `connect` record:
// .../v5/public/spot is venue "bybit", .../linear "bybit_linear",
// .../inverse "bybit_inverse" (v in USD contracts). A connection whose URL
// the capture does not show is taken as venue "bybit" with v in base units.
type bybitParser struct {
	base
	conns map[string]string // conn id -> venue
}

func newBybitParser() *bybitParser { return &bybitParser{conns: map[string]string{}} }

func (p *bybitParser) parse(line []byte, out []sources.Record) []sources.Record {
	r, ok := readCryptofeed(line)
	if !ok {
		return append(out, reject(line, "malformed json"))
	}
	switch string(r.kind) {
	case "connect":
		venue := "bybit"
		switch {
		case bytes.Contains(r.addr, []byte("/public/linear")):
			venue = "bybit_linear"
		case bytes.Contains(r.addr, []byte("/public/inverse")):
			venue = "bybit_inverse"
		}
		if len(p.conns) < 1024 {
			p.conns[string(r.conn)] = venue
		}
		p.skipped++
		return out
	case "recv":
	default:
		p.skipped++
		return out
	}
	// Cheap pre-check: only publicTrade messages are unescaped and decoded.
	if !bytes.Contains(r.data, []byte("publicTrade.")) {
		p.skipped++
		return out
	}
	msg, ingest, out, ok := p.recvPayload(line, r, out)
	if !ok {
		return out
	}
	var topic, data []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "topic":
			topic, _, _ = jsonString(v, nil)
		case "data":
			data = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json: data"))
	}
	if !bytes.HasPrefix(topic, []byte("publicTrade.")) {
		p.skipped++
		return out
	}
	venue := p.conns[string(r.conn)]
	if venue == "" {
		venue = "bybit"
	}
	n := len(out)
	err = eachElem(data, func(tr []byte) bool {
		out = p.trade(tr, venue, ingest, out)
		return true
	})
	if err != nil {
		return append(out[:n], reject(line, "malformed publicTrade message: data is not an array"))
	}
	return out
}

func (p *bybitParser) trade(obj []byte, venue string, ingest int64, out []sources.Record) []sources.Record {
	var tm, sym, side, size, price, id []byte
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "T":
			tm = v
		case "s":
			sym, _, _ = jsonString(v, nil)
		case "S":
			side, _, _ = jsonString(v, nil)
		case "v":
			size, _ = numOrString(v)
		case "p":
			price, _ = numOrString(v)
		case "i":
			id, _ = numOrString(v)
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{Venue: venue, VenueKind: schemas.VenueKind_VENUE_KIND_CEX, IngestTimeNs: ingest}
	var ok bool
	if t.Price, ok = parseDecimal(price); !ok {
		return append(out, reject(obj, "bad price: p is not a decimal"))
	}
	qty, ok := parseDecimal(size)
	if !ok {
		return append(out, reject(obj, "bad size: v is not a decimal"))
	}
	ms, ok := parseInt(tm)
	if !ok {
		return append(out, reject(obj, "bad timestamp: T is not an integer"))
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return append(out, reject(obj, "bad timestamp: T out of range"))
	}
	if t.Side, ok = parseSide(side); !ok {
		return append(out, reject(obj, "bad side: "+string(side)))
	}
	if len(id) == 0 {
		return append(out, reject(obj, "bad trade id: missing"))
	}
	t.TradeId = string(id)
	if venue == "bybit_inverse" {
		t.NotionalUsd = qty // one contract is 1 USD
		t.Size = qty / t.Price
	} else {
		t.Size = qty
		t.NotionalUsd = t.Price * qty
	}
	s := p.symbol(venue, sym)
	t.Market = s.venueSymbol
	return p.emit(out, obj, t, s)
}
