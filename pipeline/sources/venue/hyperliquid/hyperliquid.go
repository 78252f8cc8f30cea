// Package hyperliquid decodes Hyperliquid WebSocket messages: channel
// "trades", live and as recorded.
//
// Field mapping (docs/replay.md): data[] {coin → venue symbol and market,
// side "B" (the aggressor bought) / "A" (sold), px, sz, time ms → event
// time, tid → trade id (hash can be all zeros), users [buyer, seller] →
// wallet: the aggressor's address}. An order-book venue: venue kind cex,
// no chain.
package hyperliquid

import (
	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Venue is the venue id of the trades.
const Venue = "hyperliquid"

// Decoder decodes Hyperliquid messages into records. It is not safe for
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

// Message decodes one live message into out: the trades of a trades
// message (a bad trade as a rejected record); subscription answers, pongs
// and the other data channels skipped and counted; an error as "venue
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
	switch string(e.channel) {
	case `"trades"`:
		res, ok := d.trades(e.data, ingest, out)
		if !ok {
			return append(res, venue.Reject(msg, "malformed trades message: data is not an array"))
		}
		return d.Counted(res, n)
	case `"subscriptionResponse"`, `"pong"`, `"l2Book"`, `"bbo"`, `"allMids"`, `"activeAssetCtx"`:
		return d.Skip(out)
	case `"error"`:
		return append(out, venue.VenueError(msg, venue.Text(e.data)))
	case "":
		return append(out, venue.UnknownType(msg, "no channel field"))
	}
	return append(out, venue.UnknownType(msg, "channel "+venue.Text(e.channel)))
}

// Recorded decodes one message as a capture recorded it, received at
// ingest: the trades of a trades message; any other channel is skipped.
// raw is the capture's line: the rejection of a whole message carries it.
func (d *Decoder) Recorded(raw, msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return res
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, 0, nil) {
		return append(out, venue.Reject(raw, "malformed json"))
	}
	if string(e.channel) != `"trades"` {
		return d.Skip(out)
	}
	res, ok := d.trades(e.data, ingest, out)
	if !ok {
		return append(res, venue.Reject(raw, "malformed trades message: data is not an array"))
	}
	return res
}

// envelope holds the members of a message (raw values).
type envelope struct{ channel, data []byte }

// Members of an envelope a strict walk tracks.
const (
	mChannel = 1 << iota
	mData
)

// envelope walks a message object once. Lenient: the raw values of its
// members (the last of repeated ones) into e; false only for malformed
// JSON. Strict (fast, out not nil): a trades message whose trades are
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
			ok = ok && (m.Lenient || string(e.channel) == `"trades"`)
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

// fast decodes a trades message in one pass, or returns false with out as
// it was.
func (d *Decoder) fast(msg []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	var e envelope
	if !d.envelope(js.Strict, msg, &e, ingest, &out) {
		return out[:n], false
	}
	return out, true
}

// trades decodes the data array of a trades message (the general path);
// false, with out as it was, when data is not an array.
func (d *Decoder) trades(data []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return venue.TradesGeneral(data, out, func(tr []byte, out []sources.Record) []sources.Record {
		return d.trade(tr, ingest, out)
	})
}

// fields are the raw members of a trade entry.
type fields struct {
	coin, side, px, sz, tm, tid, users []byte
	// user0 and user1 are the contents of users when the fast path read
	// it (two strings without escapes).
	user0, user1 []byte
}

// Members of a trade entry.
const (
	fCoin = 1 << iota
	fSide
	fPx
	fSz
	fTime
	fTid
	fUsers
)

// scanTrade reads the trade entry at b[i] into f in one pass: the one
// mapping of a Hyperliquid trade's members, for both paths (see js.Mode);
// depth is the entry's nesting (0 for a lenient walk).
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
		case "coin":
			bit = fCoin
			f.coin, i, ok = m.Str(b, v)
		case "side":
			bit = fSide
			f.side, i, ok = m.Str(b, v)
		case "px":
			bit = fPx
			f.px, i, ok = m.NumOrStr(b, v)
		case "sz":
			bit = fSz
			f.sz, i, ok = m.NumOrStr(b, v)
		case "time":
			bit = fTime
			f.tm, i, ok = m.Num(b, v)
		case "tid":
			bit = fTid
			f.tid, i, ok = m.NumOrStr(b, v)
		case "users":
			bit = fUsers
			if m.Lenient {
				f.users, i, ok = js.Raw(b, v, depth+1)
			} else {
				f.users, f.user0, f.user1, i, ok = strPair(b, v)
			}
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

// strPair reads an array of two strings without escapes at b[i] and
// returns its raw text and the strings' contents.
func strPair(b []byte, i int) (s, s0, s1 []byte, j int, ok bool) {
	j, empty, ok := js.ArrOpen(b, i)
	if !ok || empty {
		return nil, nil, nil, 0, false
	}
	var more bool
	if s0, j, ok = js.StrRaw(b, j); !ok {
		return nil, nil, nil, 0, false
	}
	if j, more, ok = js.ArrNext(b, j); !ok || !more {
		return nil, nil, nil, 0, false
	}
	if s1, j, ok = js.StrRaw(b, j); !ok {
		return nil, nil, nil, 0, false
	}
	if j, more, ok = js.ArrNext(b, j); !ok || more {
		return nil, nil, nil, 0, false
	}
	return b[i:j], s0, s1, j, true
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
	if t.Price, ok = js.ParseDecimal(f.px); !ok {
		return venue.Sym{}, "bad price: px is not a decimal"
	}
	if t.Size, ok = js.ParseDecimal(f.sz); !ok {
		return venue.Sym{}, "bad size: sz is not a decimal"
	}
	ms, ok := js.ParseInt(f.tm)
	if !ok {
		return venue.Sym{}, "bad timestamp: time is not an integer"
	}
	if t.EventTimeNs, ok = venue.MsToNs(ms); !ok {
		return venue.Sym{}, "bad timestamp: time out of range"
	}
	switch string(f.side) {
	case "B":
		t.Side = schemas.Side_SIDE_BUY
	case "A":
		t.Side = schemas.Side_SIDE_SELL
	case "":
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return venue.Sym{}, "bad side: " + string(f.side)
	}
	if _, ok := js.ParseInt(f.tid); !ok {
		return venue.Sym{}, "bad trade id: tid is not an integer"
	}
	t.TradeId = d.Keep(fast, f.tid)
	// The wallet is the aggressor's address: users is [buyer, seller].
	switch {
	case fast && f.users != nil && t.Side == schemas.Side_SIDE_BUY:
		t.Wallet = d.Lower(fast, f.user0)
	case fast && f.users != nil && t.Side == schemas.Side_SIDE_SELL:
		t.Wallet = d.Lower(fast, f.user1)
	case f.users != nil && t.Side != schemas.Side_SIDE_UNKNOWN:
		i := 0
		_ = js.EachElem(f.users, func(u []byte) bool {
			if (i == 0 && t.Side == schemas.Side_SIDE_BUY) || (i == 1 && t.Side == schemas.Side_SIDE_SELL) {
				if s, _, ok := js.String(u, nil); ok {
					t.Wallet = d.Lower(fast, s)
				}
				return false
			}
			i++
			return true
		})
	}
	t.NotionalUsd = t.Price * t.Size
	s := d.SymbolOf(fast, Venue, f.coin)
	t.Market = s.VenueSymbol
	return s, ""
}
