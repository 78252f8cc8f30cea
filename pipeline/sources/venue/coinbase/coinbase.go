// Package coinbase decodes Coinbase's trade messages: the Advanced Trade
// WebSocket (channel market_trades), live and as recorded, and the legacy
// Exchange feed (match and last_match) of older captures.
//
// Aggressor side: a trade's "side" is the MAKER's side (verified on the
// Advanced Trade capture: SELL prints at the best ask, BUY at the best bid;
// the legacy feed documents it), so the aggressor is the opposite side.
//
// Field mapping (docs/replay.md, docs/venues.md): product_id → venue
// symbol and market, trade_id, price, size, time (RFC 3339) → event time,
// side (maker's) → the opposite aggressor side.
package coinbase

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Venue is the venue id of the trades.
const Venue = "coinbase"

// Decoder decodes Coinbase messages into records. It is not safe for
// concurrent use.
type Decoder struct {
	venue.Base
}

// New returns a decoder that stamps source on its trades.
func New(source string) *Decoder {
	d := &Decoder{}
	d.SetSource(source)
	return d
}

// control are the Advanced Trade channels that carry no trade.
var control = map[string]bool{
	`"heartbeats"`: true, `"subscriptions"`: true, `"l2_data"`: true, `"ticker"`: true, `"ticker_batch"`: true,
	`"candles"`: true, `"status"`: true,
}

// Message decodes one live Advanced Trade message into out: the trades of
// a market_trades message (a bad trade as a rejected record); a control
// channel (heartbeats, subscriptions, ...) skipped and counted; an error
// message as "venue error: ..."; any other channel or type as "unknown
// message type: ..."; input that is not JSON as "malformed json".
func (d *Decoder) Message(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return d.Counted(res, n)
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, ingest, nil) {
		return append(out, venue.Reject(msg, "malformed json"))
	}
	switch {
	case string(e.typ) == `"error"`:
		return append(out, venue.VenueError(msg, venue.Text(e.message)))
	case string(e.channel) == `"market_trades"`:
		if e.events == nil {
			return append(out, venue.Reject(msg, "malformed market_trades message: no events"))
		}
		return d.Counted(d.marketTrades(msg, e.events, ingest, out), n)
	case control[string(e.channel)]:
		return d.Skip(out)
	case e.channel != nil:
		return append(out, venue.UnknownType(msg, "channel "+venue.Text(e.channel)))
	case e.typ != nil:
		return append(out, venue.UnknownType(msg, "type "+venue.Text(e.typ)))
	}
	return append(out, venue.UnknownType(msg, "no channel or type field"))
}

// MayHoldTrades reports whether a recorded Advanced Trade message, as the
// capture holds it (still escaped inside its container), can carry
// trades: a capture reader skips the others (level-2 snapshots of
// megabytes) without unescaping or decoding them.
func MayHoldTrades(data []byte) bool { return bytes.Contains(data, []byte("market_trades")) }

// Recorded decodes one Advanced Trade message as a capture recorded it,
// received at ingest: the trades of a market_trades message, the snapshot
// event (the last trades before subscribing) as well as updates; any
// other message is skipped, since a capture holds everything the
// connection received. raw is the capture's line: the rejection of a
// whole message carries it.
func (d *Decoder) Recorded(raw, msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return res
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, ingest, nil) {
		return append(out, venue.Reject(raw, "malformed json: data"))
	}
	if string(e.channel) != `"market_trades"` {
		return d.Skip(out)
	}
	return d.marketTrades(raw, e.events, ingest, out)
}

// legacyTypes are the message types of the legacy Exchange feed.
var legacyTypes = map[string]bool{
	"match": true, "last_match": true, "ticker": true, "subscriptions": true, "heartbeat": true,
	"l2update": true, "snapshot": true, "received": true, "open": true, "done": true, "change": true,
	"activate": true, "error": true, "status": true,
}

// IsLegacyType reports whether typ is a message type of the legacy Exchange
// feed, which tells a capture of it from other JSON lines.
func IsLegacyType(typ string) bool { return legacyTypes[typ] }

// Legacy decodes one message of the legacy Exchange feed (a capture holds
// one a line, without receive time): match and last_match become trades,
// with the event time as ingest time; every other type is skipped. typ is
// the raw value of the message's "type" member, which the caller read.
func (d *Decoder) Legacy(msg, typ []byte, out []sources.Record) []sources.Record {
	switch string(typ) {
	case `"match"`, `"last_match"`:
		return d.trade(msg, msg, 0, out)
	}
	return d.Skip(out)
}

// envelope holds the members of an Advanced Trade message.
type envelope struct {
	channel, events, typ, message []byte // raw values
}

// Members of an envelope a strict walk tracks.
const (
	mChannel = 1 << iota
	mEvents
)

// envelope walks a message object once. Lenient: the raw values of its
// members (the last of repeated ones) into e; false only for malformed
// JSON. Strict (fast, out not nil): a market_trades message whose events
// are decoded in the same pass into *out; false for anything else.
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
			ok = ok && (m.Lenient || string(e.channel) == `"market_trades"`)
		case "events":
			bit = mEvents
			if m.Lenient {
				e.events, i, ok = js.Raw(b, v, 1)
			} else {
				*out, i, ok = d.events(b, v, ingest, *out)
			}
		case "type":
			e.typ, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient // an error message: the general path classifies it
		case "message":
			e.message, i, ok = js.Raw(b, v, 1)
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
	return m.Lenient || seen == mChannel|mEvents
}

// fast decodes a market_trades message in one pass, or returns false with
// out as it was.
func (d *Decoder) fast(msg []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	var e envelope
	if !d.envelope(js.Strict, msg, &e, ingest, &out) {
		return out[:n], false
	}
	return out, true
}

// events decodes the events array at b[i] of a market_trades message in
// one pass (the fast path): every event must have a trades array of
// trades the fast path takes.
func (d *Decoder) events(b []byte, i int, ingest int64, out []sources.Record) ([]sources.Record, int, bool) {
	i, empty, ok := js.ArrOpen(b, i)
	if !ok {
		return out, 0, false
	}
	for !empty {
		var evEmpty bool
		if i, evEmpty, ok = js.ObjOpen(b, i); !ok || evEmpty {
			return out, 0, false // an event without trades: the general path rejects it
		}
		trades := false
		for !evEmpty {
			key, v, ok := js.ObjKey(b, i)
			if !ok {
				return out, 0, false
			}
			if string(key) == "trades" {
				if trades {
					return out, 0, false
				}
				trades = true
				var tEmpty bool
				if i, tEmpty, ok = js.ArrOpen(b, v); !ok {
					return out, 0, false
				}
				for !tEmpty {
					var f fields
					if i, ok = scanTrade(js.Strict, b, i, 4, &f); !ok {
						return out, 0, false
					}
					if out, ok = d.tradeFast(&f, ingest, out); !ok {
						return out, 0, false
					}
					var more bool
					if i, more, ok = js.ArrNext(b, i); !ok {
						return out, 0, false
					}
					tEmpty = !more
				}
			} else if i, ok = js.Skip(b, v, 3); !ok {
				return out, 0, false
			}
			var more bool
			if i, more, ok = js.ObjNext(b, i); !ok {
				return out, 0, false
			}
			evEmpty = !more
		}
		if !trades {
			return out, 0, false
		}
		var more bool
		if i, more, ok = js.ArrNext(b, i); !ok {
			return out, 0, false
		}
		empty = !more
	}
	return out, i, true
}

// marketTrades decodes the events array of a market_trades message (the
// general path); raw is what the rejection of the whole message carries.
func (d *Decoder) marketTrades(raw, events []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	err := js.EachElem(events, func(ev []byte) bool {
		var trades []byte
		if js.EachField(ev, func(k, v []byte) bool {
			if string(k) == "trades" {
				trades = v
			}
			return true
		}) != nil || trades == nil {
			out = append(out, venue.Reject(ev, "malformed market_trades event: no trades"))
			return true
		}
		if js.EachElem(trades, func(tr []byte) bool {
			out = d.trade(tr, tr, ingest, out)
			return true
		}) != nil {
			out = append(out, venue.Reject(ev, "malformed market_trades event: trades is not an array"))
		}
		return true
	})
	if err != nil {
		return append(out[:n], venue.Reject(raw, "malformed market_trades message: events is not an array"))
	}
	return out
}

// fields are the raw fields of a trade object.
type fields struct {
	product, id, price, size, tm, side []byte
}

// Members of a trade object.
const (
	fProduct = 1 << iota
	fID
	fPrice
	fSize
	fTime
	fSide
)

// scanTrade reads the trade object at b[i] into f in one pass: the one
// mapping of a Coinbase trade's members, for both paths (see js.Mode);
// depth is the object's nesting (0 for a lenient walk).
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
		case "product_id":
			bit = fProduct
			f.product, i, ok = m.Str(b, v)
		case "trade_id":
			bit = fID
			f.id, i, ok = m.NumOrStr(b, v)
		case "price":
			bit = fPrice
			f.price, i, ok = m.NumOrStr(b, v)
		case "size":
			bit = fSize
			f.size, i, ok = m.NumOrStr(b, v)
		case "time":
			bit = fTime
			f.tm, i, ok = m.Str(b, v)
		case "side":
			bit = fSide
			f.side, i, ok = m.Str(b, v)
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

// trade decodes one trade object (an Advanced Trade market_trades entry or
// a legacy match message), fast path first; raw is what a rejection
// carries.
func (d *Decoder) trade(obj, raw []byte, ingest int64, out []sources.Record) []sources.Record {
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
		return append(out, venue.Reject(raw, "malformed json"))
	}
	t := &schemas.Trade{}
	sym, reason := d.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, venue.Reject(raw, reason))
	}
	return d.Emit(out, raw, t, sym)
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

// build fills t from the fields of a trade object, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (d *Decoder) build(f *fields, ingest int64, t *schemas.Trade, fast bool) (venue.Sym, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = Venue, schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = js.ParseDecimal(f.price); !ok {
		return venue.Sym{}, "bad price: price is not a decimal"
	}
	if t.Size, ok = js.ParseDecimal(f.size); !ok {
		return venue.Sym{}, "bad size: size is not a decimal"
	}
	if t.EventTimeNs, ok = venue.RFC3339Ns(f.tm); !ok {
		return venue.Sym{}, "bad timestamp: time is not RFC 3339"
	}
	makerSide, ok := venue.ParseSide(f.side)
	if !ok {
		return venue.Sym{}, "bad side: " + string(f.side)
	}
	t.Side = venue.Opposite(makerSide)
	if len(f.id) == 0 {
		return venue.Sym{}, "bad trade id: missing"
	}
	t.TradeId = d.Keep(fast, f.id)
	t.NotionalUsd = t.Price * t.Size
	sym := d.SymbolOf(fast, Venue, f.product)
	t.Market = sym.VenueSymbol
	return sym, ""
}
