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
	venue := p.conns[string(r.conn)]
	if venue == "" {
		venue = "bybit"
	}
	if !p.generalOnly {
		if res, ok := p.bybitFast(msg, venue, ingest, out); ok {
			return res
		}
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

// bybitFields are the raw fields of a publicTrade entry.
type bybitFields struct {
	tm, sym, side, size, price, id []byte
}

func (p *bybitParser) trade(obj []byte, venue string, ingest int64, out []sources.Record) []sources.Record {
	if !p.generalOnly {
		var f bybitFields
		if j, ok := bybitScan(obj, 0, 1, &f); ok && trailing(obj, j) == nil {
			if res, ok := p.tradeFast(&f, venue, ingest, out); ok {
				return res
			}
		}
	}
	var f bybitFields
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "T":
			f.tm = v
		case "s":
			f.sym, _, _ = jsonString(v, nil)
		case "S":
			f.side, _, _ = jsonString(v, nil)
		case "v":
			f.size, _ = numOrString(v)
		case "p":
			f.price, _ = numOrString(v)
		case "i":
			f.id, _ = numOrString(v)
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{}
	s, reason := p.build(&f, venue, ingest, t, false)
	if reason != "" {
		return append(out, reject(obj, reason))
	}
	return p.emit(out, obj, t, s)
}

// tradeFast is the fast path's end of trade: the trade of f, or false.
func (p *bybitParser) tradeFast(f *bybitFields, venue string, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := p.newTrade()
	s, reason := p.build(f, venue, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return p.emitFast(out, t, s)
}

// bybitScan reads the publicTrade entry at b[i] into f in one pass (the
// fast path); depth is the entry's nesting in its message.
func bybitScan(b []byte, i, depth int, f *bybitFields) (int, bool) {
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
		case "T":
			bit = 1
			f.tm, i, ok = numText(b, v)
		case "s":
			bit = 2
			f.sym, i, ok = strRaw(b, v)
		case "S":
			bit = 4
			f.side, i, ok = strRaw(b, v)
		case "v":
			bit = 8
			f.size, i, ok = numOrStr(b, v)
		case "p":
			bit = 16
			f.price, i, ok = numOrStr(b, v)
		case "i":
			bit = 32
			f.id, i, ok = numOrStr(b, v)
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

// build fills t from the fields of a publicTrade entry, or says why it
// cannot (fast: the fast path, which copies strings into the arena).
func (p *bybitParser) build(f *bybitFields, venue string, ingest int64, t *schemas.Trade, fast bool) (symEntry, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = venue, schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = parseDecimal(f.price); !ok {
		return symEntry{}, "bad price: p is not a decimal"
	}
	qty, ok := parseDecimal(f.size)
	if !ok {
		return symEntry{}, "bad size: v is not a decimal"
	}
	ms, ok := parseInt(f.tm)
	if !ok {
		return symEntry{}, "bad timestamp: T is not an integer"
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return symEntry{}, "bad timestamp: T out of range"
	}
	if t.Side, ok = parseSide(f.side); !ok {
		return symEntry{}, "bad side: " + string(f.side)
	}
	if len(f.id) == 0 {
		return symEntry{}, "bad trade id: missing"
	}
	t.TradeId = p.keep(fast, f.id)
	if venue == "bybit_inverse" {
		t.NotionalUsd = qty // one contract is 1 USD
		t.Size = qty / t.Price
	} else {
		t.Size = qty
		t.NotionalUsd = t.Price * qty
	}
	s := p.symbolOf(fast, venue, f.sym)
	t.Market = s.venueSymbol
	return s, ""
}
