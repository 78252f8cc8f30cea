// Package bybit decodes Bybit v5 public WebSocket messages: topic
// publicTrade.<symbol>, live and as recorded (cryptofeed captures).
//
// Field mapping (docs/replay.md): data[] {T ms → event time, s → venue
// symbol and market, S → the TAKER's side (the aggressor) Buy/Sell, v →
// size (on inverse contracts: USD contracts, converted), p → price, i →
// trade id}.
package bybit

import (
	"bytes"
	"fmt"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Venue ids of Bybit's markets: spot and perpetuals are different markets,
// kept apart like binance and binance_usdm.
const (
	Spot    = "bybit"
	Linear  = "bybit_linear"
	Inverse = "bybit_inverse" // v in 1-USD contracts
)

// Decoder decodes Bybit messages into records. It is not safe for
// concurrent use.
type Decoder struct {
	venue.Base
	venue string
}

// New returns a decoder of venueID's live messages (Spot when empty) that
// stamps source on its trades.
func New(venueID, source string) (*Decoder, error) {
	if venueID == "" {
		venueID = Spot
	}
	if venueID != Spot && venueID != Linear && venueID != Inverse {
		return nil, fmt.Errorf("cannot decode bybit messages for venue %q: accepted %s, %s, %s", venueID, Spot, Linear, Inverse)
	}
	d := &Decoder{venue: venueID}
	d.SetSource(source)
	return d, nil
}

// Venue returns the venue of the live messages.
func (d *Decoder) Venue() string { return d.venue }

// VenueOfURL tells the market of a connection from its URL:
// …/v5/public/linear is Linear, …/inverse Inverse, anything else Spot.
func VenueOfURL(url []byte) string {
	switch {
	case bytes.Contains(url, []byte("/public/linear")):
		return Linear
	case bytes.Contains(url, []byte("/public/inverse")):
		return Inverse
	}
	return Spot
}

// MayHoldTrades reports whether a recorded message, as the capture holds
// it (still escaped), can carry trades: a capture reader skips the others
// without decoding them.
func MayHoldTrades(data []byte) bool { return bytes.Contains(data, []byte("publicTrade.")) }

// Message decodes one live message into out: the trades of a publicTrade
// message (a bad trade as a rejected record); order book, ticker, kline
// and liquidation topics and operation answers (subscribe, pong) skipped
// and counted; a failed operation as "venue error: ..."; anything else as
// "unknown message type: ..."; input that is not JSON as "malformed json".
func (d *Decoder) Message(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	if d.FastPath() {
		if res, ok := d.fast(msg, d.venue, ingest, out); ok {
			return d.Counted(res, n)
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, "", 0, nil) {
		return append(out, venue.Reject(msg, "malformed json"))
	}
	if e.topic != nil {
		t, _, _ := js.String(e.topic, nil)
		switch {
		case bytes.HasPrefix(t, []byte("publicTrade.")):
			res, ok := d.trades(e.data, d.venue, ingest, out)
			if !ok {
				return append(res, venue.Reject(msg, "malformed publicTrade message: data is not an array"))
			}
			return d.Counted(res, n)
		case bytes.HasPrefix(t, []byte("orderbook.")), bytes.HasPrefix(t, []byte("tickers.")),
			bytes.HasPrefix(t, []byte("kline.")), bytes.HasPrefix(t, []byte("liquidation.")), bytes.HasPrefix(t, []byte("allLiquidation.")):
			return d.Skip(out)
		}
		return append(out, venue.UnknownType(msg, "topic "+venue.Text(e.topic)))
	}
	if e.op != nil {
		if string(e.success) == "false" {
			return append(out, venue.VenueError(msg, venue.Text(e.op)+": "+venue.Text(e.retMsg)))
		}
		return d.Skip(out) // subscribe answer, pong
	}
	return append(out, venue.UnknownType(msg, "no topic or op field"))
}

// Recorded decodes one message of venueID's connection as a capture
// recorded it, received at ingest: the trades of a publicTrade message;
// any other message is skipped. raw is the capture's line: the rejection
// of a whole message carries it.
func (d *Decoder) Recorded(raw, msg []byte, venueID string, ingest int64, out []sources.Record) []sources.Record {
	if d.FastPath() {
		if res, ok := d.fast(msg, venueID, ingest, out); ok {
			return res
		}
	}
	var e envelope
	if !d.envelope(js.Lenient, msg, &e, "", 0, nil) {
		return append(out, venue.Reject(raw, "malformed json: data"))
	}
	if t, _, _ := js.String(e.topic, nil); !bytes.HasPrefix(t, []byte("publicTrade.")) {
		return d.Skip(out)
	}
	res, ok := d.trades(e.data, venueID, ingest, out)
	if !ok {
		return append(res, venue.Reject(raw, "malformed publicTrade message: data is not an array"))
	}
	return res
}

// envelope holds the members of a message (raw values).
type envelope struct {
	topic, data, op, success, retMsg []byte
}

// Members of an envelope a strict walk tracks.
const (
	mTopic = 1 << iota
	mData
)

// envelope walks a message object once. Lenient: the raw values of its
// members (the last of repeated ones) into e; false only for malformed
// JSON. Strict (fast, out not nil): a publicTrade message whose trades are
// decoded in the same pass into *out; false for anything else.
func (d *Decoder) envelope(m js.Mode, b []byte, e *envelope, venueID string, ingest int64, out *[]sources.Record) bool {
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
		case "topic":
			bit = mTopic
			e.topic, i, ok = js.Raw(b, v, 1)
			ok = ok && (m.Lenient || bytes.HasPrefix(e.topic, []byte(`"publicTrade.`)))
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
					out, ok = d.tradeFast(&f, venueID, ingest, out)
					return out, i, ok
				})
			}
		case "op":
			e.op, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient // an operation answer: the general path classifies it
		case "success":
			e.success, i, ok = js.Raw(b, v, 1)
			ok = ok && m.Lenient
		case "ret_msg":
			e.retMsg, i, ok = js.Raw(b, v, 1)
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
	return m.Lenient || seen == mTopic|mData
}

// fast decodes a publicTrade message in one pass, or returns false with out
// as it was.
func (d *Decoder) fast(msg []byte, venueID string, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	var e envelope
	if !d.envelope(js.Strict, msg, &e, venueID, ingest, &out) {
		return out[:n], false
	}
	return out, true
}

// trades decodes the data array of a publicTrade message (the general
// path); false, with out as it was, when data is not an array.
func (d *Decoder) trades(data []byte, venueID string, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return venue.TradesGeneral(data, out, func(tr []byte, out []sources.Record) []sources.Record {
		return d.trade(tr, venueID, ingest, out)
	})
}

// fields are the raw members of a publicTrade entry.
type fields struct {
	tm, sym, side, size, price, id []byte
}

// Members of a trade entry.
const (
	fTime = 1 << iota
	fSym
	fSide
	fSize
	fPrice
	fID
)

// scanTrade reads the publicTrade entry at b[i] into f in one pass: the one
// mapping of a Bybit trade's members, for both paths (see js.Mode); depth
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
		case "T":
			bit = fTime
			f.tm, i, ok = m.Num(b, v)
		case "s":
			bit = fSym
			f.sym, i, ok = m.Str(b, v)
		case "S":
			bit = fSide
			f.side, i, ok = m.Str(b, v)
		case "v":
			bit = fSize
			f.size, i, ok = m.NumOrStr(b, v)
		case "p":
			bit = fPrice
			f.price, i, ok = m.NumOrStr(b, v)
		case "i":
			bit = fID
			f.id, i, ok = m.NumOrStr(b, v)
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

// trade decodes one publicTrade entry, fast path first.
func (d *Decoder) trade(obj []byte, venueID string, ingest int64, out []sources.Record) []sources.Record {
	if d.FastPath() {
		var f fields
		if j, ok := scanTrade(js.Strict, obj, 0, 1, &f); ok && js.Trailing(obj, j) == nil {
			if res, ok := d.tradeFast(&f, venueID, ingest, out); ok {
				return res
			}
		}
	}
	var f fields
	if j, ok := scanTrade(js.Lenient, obj, 0, 0, &f); !ok || js.Trailing(obj, j) != nil {
		return append(out, venue.Reject(obj, "malformed json"))
	}
	t := &schemas.Trade{}
	s, reason := d.build(&f, venueID, ingest, t, false)
	if reason != "" {
		return append(out, venue.Reject(obj, reason))
	}
	return d.Emit(out, obj, t, s)
}

// tradeFast is the fast path's end of a trade: the trade of f, or false.
func (d *Decoder) tradeFast(f *fields, venueID string, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := d.NewTrade()
	s, reason := d.build(f, venueID, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return d.EmitFast(out, t, s)
}

// build fills t from the members of a publicTrade entry, or says why it
// cannot (fast: the fast path, which copies strings into the arena).
func (d *Decoder) build(f *fields, venueID string, ingest int64, t *schemas.Trade, fast bool) (venue.Sym, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = venueID, schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = js.ParseDecimal(f.price); !ok {
		return venue.Sym{}, "bad price: p is not a decimal"
	}
	qty, ok := js.ParseDecimal(f.size)
	if !ok {
		return venue.Sym{}, "bad size: v is not a decimal"
	}
	ms, ok := js.ParseInt(f.tm)
	if !ok {
		return venue.Sym{}, "bad timestamp: T is not an integer"
	}
	if t.EventTimeNs, ok = venue.MsToNs(ms); !ok {
		return venue.Sym{}, "bad timestamp: T out of range"
	}
	if t.Side, ok = venue.ParseSide(f.side); !ok {
		return venue.Sym{}, "bad side: " + string(f.side)
	}
	if len(f.id) == 0 {
		return venue.Sym{}, "bad trade id: missing"
	}
	t.TradeId = d.Keep(fast, f.id)
	if venueID == Inverse {
		t.NotionalUsd = qty // one contract is 1 USD
		t.Size = qty / t.Price
	} else {
		t.Size = qty
		t.NotionalUsd = t.Price * qty
	}
	s := d.SymbolOf(fast, venueID, f.sym)
	t.Market = s.VenueSymbol
	return s, ""
}
