// Package kraken decodes Kraken WebSocket v2 messages: channel "trade".
//
// Field mapping (docs/venues.md): data[] {symbol "BTC/USD" → venue symbol
// and market, side "buy"/"sell" (the taker's side, so the aggressor),
// price, qty (numbers), trade_id (sequential per pair), timestamp RFC
// 3339 → event time}. No capture of Kraken WebSocket v2 exists in the
// fixtures, so that decoder is tested on messages written from Kraken's
// documentation. RESTPage decodes pages of the REST Trades endpoint
// (rest.go), tested on a real page (testdata/README.md).
package kraken

import (
	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Venue is the venue id of the trades.
const Venue = "kraken"

// Decoder decodes Kraken messages into records. It is not safe for
// concurrent use.
type Decoder struct {
	venue.Base
	// restPairs is the paging state of REST Trades pages, by pair key.
	restPairs map[string]*restPair
	rest      RESTStats
}

// New returns a decoder that stamps source on its trades.
func New(source string) *Decoder {
	d := &Decoder{}
	d.SetSource(source)
	return d
}

// Message decodes one live message into out: the trades of a trade message
// (a bad trade as a rejected record); heartbeat, status, book and ticker
// channels and method answers skipped and counted; an error as "venue
// error: ..."; anything else as "unknown message type: ..."; input that is
// not JSON as "malformed json".
func (d *Decoder) Message(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return d.Counted(res, n)
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, 0, nil) {
		return append(out, venue.Reject(msg, "malformed json"))
	}
	switch {
	case e.err != nil || string(e.success) == "false":
		return append(out, venue.VenueError(msg, venue.Text(e.method)+": "+venue.Text(e.err)))
	case string(e.channel) == `"trade"`:
		res, ok := venue.TradesGeneral(e.data, out, func(tr []byte, out []sources.Record) []sources.Record {
			return d.trade(tr, ingest, out)
		})
		if !ok {
			return append(res, venue.Reject(msg, "malformed trade message: data is not an array"))
		}
		return d.Counted(res, n)
	case string(e.channel) == `"heartbeat"`, string(e.channel) == `"status"`, string(e.channel) == `"book"`, string(e.channel) == `"ticker"`:
		return d.Skip(out)
	case e.method != nil:
		return d.Skip(out) // subscribe / unsubscribe answers, pong
	case e.channel != nil:
		return append(out, venue.UnknownType(msg, "channel "+venue.Text(e.channel)))
	}
	return append(out, venue.UnknownType(msg, "no channel or method field"))
}

// envelope holds the members of a message (raw values).
type envelope struct{ channel, data, method, success, err []byte }

// Members of an envelope a strict walk tracks.
const (
	mChannel = 1 << iota
	mData
)

// envelope walks a message object once. Lenient: the raw values of its
// members (the last of repeated ones) into e; false only for malformed
// JSON. Strict (fast, out not nil): a trade message whose trades are
// decoded in the same pass into *out; false for anything else.
func (d *Decoder) envelope(m js.Mode, b []byte, e *envelope, ingest int64, out *[]sources.Record) bool {
	i, empty, ok := js.ObjOpen(b, 0)
	if !ok || (empty && !m.Lenient) {
		return false
	}
	var seen uint32
	for !empty {
		key, v, ok := m.Key(b, i)
		if !ok {
			return false
		}
		var bit uint32
		switch string(key) {
		case "channel":
			bit = mChannel
			e.channel, i, ok = js.Raw(b, v, 1)
			ok = ok && (m.Lenient || string(e.channel) == `"trade"`)
		case "data":
			bit = mData
			if m.Lenient {
				e.data, i, ok = js.Raw(b, v, 1)
			} else {
				*out, i, ok = venue.TradesFast(b, v, *out, func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool) {
					var f fields
					i, ok := scanTrade(js.Strict, b, i, 2, &f)
					if !ok {
						return out, 0, false
					}
					out, ok = d.tradeFast(&f, ingest, out)
					return out, i, ok
				})
			}
		case "method":
			e.method, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient // an answer: the general path classifies it
		case "success":
			e.success, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient
		case "error":
			e.err, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient
		default:
			i, ok = js.Skip(b, v, 1)
		}
		if !ok || !m.Once(seen, bit) {
			return false
		}
		seen |= bit
		var more bool
		if i, more, ok = js.ObjNext(b, i); !ok {
			return false
		}
		empty = !more
	}
	if js.Trailing(b, i) != nil {
		return false
	}
	return m.Lenient || seen == mChannel|mData
}

// fast decodes a trade message in one pass, or returns false with out as
// it was.
func (d *Decoder) fast(msg []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	var e envelope
	if !d.envelope(js.Strict, msg, &e, ingest, &out) {
		return out[:n], false
	}
	return out, true
}

// fields are the raw members of a trade entry.
type fields struct {
	sym, side, price, qty, id, tm []byte
}

// Members of a trade entry.
const (
	fSym = 1 << iota
	fSide
	fPrice
	fQty
	fID
	fTime
)

// scanTrade reads the trade entry at b[i] into f in one pass: the one
// mapping of a Kraken trade's members, for both paths (see js.Mode); depth
// is the entry's nesting (0 for a lenient walk).
func scanTrade(m js.Mode, b []byte, i, depth int, f *fields) (int, bool) {
	i, empty, ok := js.ObjOpen(b, i)
	if !ok || (empty && !m.Lenient) {
		return 0, false
	}
	var seen uint32
	for !empty {
		key, v, ok := m.Key(b, i)
		if !ok {
			return 0, false
		}
		var bit uint32
		switch string(key) {
		case "symbol":
			bit = fSym
			f.sym, i, ok = m.Str(b, v)
		case "side":
			bit = fSide
			f.side, i, ok = m.Str(b, v)
		case "price":
			bit = fPrice
			f.price, i, ok = m.NumOrStr(b, v)
		case "qty":
			bit = fQty
			f.qty, i, ok = m.NumOrStr(b, v)
		case "trade_id":
			bit = fID
			f.id, i, ok = m.NumOrStr(b, v)
		case "timestamp":
			bit = fTime
			f.tm, i, ok = m.Str(b, v)
		default:
			i, ok = js.Skip(b, v, depth+1)
		}
		if !ok || !m.Once(seen, bit) {
			return 0, false
		}
		seen |= bit
		var more bool
		if i, more, ok = js.ObjNext(b, i); !ok {
			return 0, false
		}
		empty = !more
	}
	return i, true
}

// trade decodes one trade entry, fast path first.
func (d *Decoder) trade(obj []byte, ingest int64, out []sources.Record) []sources.Record {
	if d.FastPath() {
		var f fields
		if j, ok := scanTrade(js.Strict, obj, 0, 1, &f); ok && js.Trailing(obj, j) == nil {
			if res, ok := d.tradeFast(&f, ingest, out); ok {
				return res
			}
		}
	}
	var f fields
	if j, ok := scanTrade(js.Lenient, obj, 0, 0, &f); !ok || js.Trailing(obj, j) != nil {
		return append(out, venue.Reject(obj, "malformed json"))
	}
	t := &schemas.Trade{}
	s, reason := d.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, venue.Reject(obj, reason))
	}
	return d.Emit(out, obj, t, s)
}

// tradeFast is the fast path's end of a trade: the trade of f, or false.
func (d *Decoder) tradeFast(f *fields, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := d.NewTrade()
	s, reason := d.build(f, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return d.EmitFast(out, t, s)
}

// build fills t from the members of a trade entry, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (d *Decoder) build(f *fields, ingest int64, t *schemas.Trade, fast bool) (venue.Sym, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = Venue, schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = js.ParseDecimal(f.price); !ok {
		return venue.Sym{}, "bad price: price is not a decimal"
	}
	if t.Size, ok = js.ParseDecimal(f.qty); !ok {
		return venue.Sym{}, "bad size: qty is not a decimal"
	}
	if t.EventTimeNs, ok = venue.RFC3339Ns(f.tm); !ok {
		return venue.Sym{}, "bad timestamp: timestamp is not RFC 3339"
	}
	switch string(f.side) {
	case "buy":
		t.Side = schemas.Side_SIDE_BUY
	case "sell":
		t.Side = schemas.Side_SIDE_SELL
	default:
		return venue.Sym{}, "bad side: " + string(f.side)
	}
	if _, ok := js.ParseInt(f.id); !ok {
		return venue.Sym{}, "bad trade id: trade_id is not an integer"
	}
	t.TradeId = d.Keep(fast, f.id)
	t.NotionalUsd = t.Price * t.Size
	s := d.SymbolOf(fast, Venue, f.sym)
	t.Market = s.VenueSymbol
	return s, ""
}
