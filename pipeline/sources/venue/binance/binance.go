// Package binance decodes Binance's trade stream messages (spot, USDⓈ-M and
// COIN-M futures): the combined-stream envelope {"stream":..., "data":{...}}
// or a bare payload, events "trade" and "aggTrade", live and as recorded.
//
// Field mapping (docs/replay.md): T (ms) → event time; t → trade id (a
// for aggTrade, prefixed "agg:" so it never collides with a trade id); p,
// q → price, quantity; m (the buyer was the maker, so a seller crossed the
// spread) → SELL when true, BUY when false; s → venue symbol and market.
// On COIN-M, q is contracts of a fixed USD value (ContractUSD).
package binance

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Venue ids of Binance's markets.
const (
	Spot  = "binance"
	USDM  = "binance_usdm"
	COINM = "binance_coinm"
)

// Decoder decodes Binance stream messages into records. It is not safe for
// concurrent use.
type Decoder struct {
	venue.Base
	venue string // "" = tell per message
}

// New returns a decoder of venueID's messages (Spot, USDM, COINM, or ""
// to tell the market per message: "_" in the symbol is COIN-M, an "X"
// member USDⓈ-M, else spot) that stamps source on its trades.
func New(venueID, source string) (*Decoder, error) {
	switch venueID {
	case "", Spot, USDM, COINM:
	default:
		return nil, fmt.Errorf("cannot decode binance messages for venue %q: accepted %s, %s, %s", venueID, Spot, USDM, COINM)
	}
	d := &Decoder{venue: venueID}
	d.SetSource(source)
	return d, nil
}

// VenueOfName tells the market of a capture from its lower-cased file name
// ("binance_spot_…", "binance_usdm_…" or "binance-futures", "binance_coinm_…"
// or "binance-delivery"), "" when the name does not say.
func VenueOfName(lname string) string {
	switch {
	case strings.Contains(lname, "binance_spot"):
		return Spot
	case strings.Contains(lname, "binance_usdm"), strings.Contains(lname, "binance-futures"):
		return USDM
	case strings.Contains(lname, "binance_coinm"), strings.Contains(lname, "binance-delivery"):
		return COINM
	}
	return ""
}

// Venue returns the venue the decoder was made for ("" = per message).
func (d *Decoder) Venue() string { return d.venue }

// control are the stream payload events that carry no trade.
var control = map[string]bool{
	"depthUpdate": true, "24hrTicker": true, "24hrMiniTicker": true, "kline": true, "markPriceUpdate": true,
	"bookTicker": true, "forceOrder": true, "": true,
}

// Message decodes one live stream message into out: the trade of a trade
// or aggTrade event (a bad trade as a rejected record); answers to
// SUBSCRIBE and events that carry no trade (depth, tickers, ...) skipped
// and counted; an error as "venue error: ..."; anything else as "unknown
// message type: ..."; input that is not JSON as "malformed json".
func (d *Decoder) Message(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if stream, data, ok := envelope(msg); ok {
		return d.liveEvent(msg, stream, data, ingest, out)
	}
	var data, stream, errv, code, mtext []byte
	bare, hasID, hasResult := false, false, false
	err := js.EachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "data":
			data = v
		case "stream":
			stream = v
		case "e":
			bare = true
		case "id":
			hasID = true
		case "result":
			hasResult = true
		case "error":
			errv = v
		case "code":
			code = v
		case "msg":
			mtext = v
		}
		return true
	})
	if err != nil {
		return append(out, venue.Reject(msg, "malformed json"))
	}
	switch {
	case errv != nil:
		return append(out, venue.VenueError(msg, venue.Text(errv)))
	case code != nil && mtext != nil:
		return append(out, venue.VenueError(msg, venue.Text(code)+" "+venue.Text(mtext)))
	case hasResult && hasID:
		return d.Skip(out) // answer to SUBSCRIBE / LIST_SUBSCRIPTIONS
	case bare:
		data = msg
	case data == nil:
		return append(out, venue.UnknownType(msg, "no data, e, result or error field"))
	}
	if len(data) == 0 || data[0] != '{' {
		return append(out, venue.Reject(msg, "malformed json: data is not an object"))
	}
	return d.liveEvent(msg, stream, data, ingest, out)
}

// envelope recognizes the combined-stream envelope exactly as Binance
// writes it, {"stream":"...","data":{...}}, without scanning data: the
// event decoder scans (and validates) data once. Anything else takes the
// general path.
func envelope(msg []byte) (stream, data []byte, ok bool) {
	const pre, mid = `{"stream":"`, `,"data":{`
	if len(msg) < len(pre)+len(mid)+2 || string(msg[:len(pre)]) != pre || msg[len(msg)-1] != '}' {
		return nil, nil, false
	}
	j, err := js.SkipString(msg, len(pre)-1)
	if err != nil || len(msg)-j < len(mid)+2 || string(msg[j:j+len(mid)]) != mid {
		return nil, nil, false
	}
	return msg[len(pre)-1 : j], msg[j+len(mid)-1 : len(msg)-1], true
}

// liveEvent classifies a live stream payload after event decoded it.
func (d *Decoder) liveEvent(msg, stream, data []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	out, ev := d.event(msg, data, ingest, out)
	if len(out) > n {
		return out
	}
	switch string(ev) {
	case "trade", "aggTrade":
		return out
	}
	if control[string(ev)] && (len(ev) > 0 || bytes.Contains(stream, []byte("@bookTicker"))) {
		return out // already counted as skipped
	}
	d.Unskip()
	return append(out, venue.UnknownType(msg, "event "+venue.Text(ev)))
}

// Recorded decodes one stream message (combined-stream envelope or bare
// payload) as a capture recorded it, received at ingest: the trade of a
// trade or aggTrade event; every other message (depth, tickers, the REST
// depth snapshot line, subscription answers) is skipped. raw is the
// capture's line, which rejections carry.
func (d *Decoder) Recorded(raw, msg []byte, ingest int64, out []sources.Record) []sources.Record {
	var data []byte
	err := js.EachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "data":
			data = v
		case "e":
			data = msg // a bare stream payload
		}
		return true
	})
	if err != nil {
		return append(out, venue.Reject(raw, "malformed json"))
	}
	if len(data) == 0 || data[0] != '{' {
		return d.Skip(out) // REST snapshot, subscription answer, ...
	}
	out, _ = d.event(raw, data, ingest, out)
	return out
}

// fields are the members of a trade or aggTrade event.
type fields struct {
	event, sym, id, aggID, price, qty, tradeTime []byte
	maker                                        int // -1 absent, 0 false, 1 true, 2 not a boolean
	spotFlag, futuresFlag                        bool
}

// Members of an event.
const (
	fEvent = 1 << iota
	fSym
	fID
	fAggID
	fPrice
	fQty
	fTime
	fMaker
	fSpot
	fFutures
)

// scanEvent reads the stream payload at b[i] into f in one pass: the one
// mapping of a Binance event's members, for both paths (see js.Mode;
// strict takes only trade and aggTrade events); depth is the payload's
// nesting (0 for a lenient walk).
func scanEvent(m js.Mode, b []byte, i, depth int, f *fields) (int, bool) {
	i, empty, ok := js.ObjOpen(b, i)
	if !ok || (empty && !m.Lenient) {
		return 0, false
	}
	f.maker = -1
	var seen uint32
	for !empty {
		key, v, ok := m.Key(b, i)
		if !ok {
			return 0, false
		}
		var bit uint32
		switch string(key) {
		case "e":
			bit = fEvent
			f.event, i, ok = m.Str(b, v)
			ok = ok && (m.Lenient || string(f.event) == "trade" || string(f.event) == "aggTrade")
		case "s":
			bit = fSym
			f.sym, i, ok = m.Str(b, v)
		case "t":
			bit = fID
			f.id, i, ok = m.Num(b, v)
		case "a":
			bit = fAggID
			f.aggID, i, ok = m.Num(b, v)
		case "p":
			bit = fPrice
			f.price, i, ok = m.NumOrStr(b, v)
		case "q":
			bit = fQty
			f.qty, i, ok = m.NumOrStr(b, v)
		case "T":
			bit = fTime
			f.tradeTime, i, ok = m.Num(b, v)
		case "m":
			bit = fMaker
			switch {
			case len(b)-v >= 4 && string(b[v:v+4]) == "true":
				f.maker, i = 1, v+4
			case len(b)-v >= 5 && string(b[v:v+5]) == "false":
				f.maker, i = 0, v+5
			case m.Lenient:
				f.maker = 2 // not a boolean
				_, i, ok = js.Raw(b, v, depth+1)
			default:
				ok = false
			}
		case "M":
			bit = fSpot
			f.spotFlag = true
			i, ok = js.Skip(b, v, depth+1)
		case "X":
			bit = fFutures
			f.futuresFlag = true
			i, ok = js.Skip(b, v, depth+1)
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
	return i, m.Lenient || seen&fEvent != 0
}

// event decodes one stream payload {"e":..., ...}: trade and aggTrade
// events become trades, any other event is skipped. It returns the event
// type it saw (a slice of data); raw is what a rejection carries.
func (d *Decoder) event(raw, data []byte, ingest int64, out []sources.Record) ([]sources.Record, []byte) {
	if d.FastPath() {
		var f fields
		if j, ok := scanEvent(js.Strict, data, 0, 1, &f); ok && js.Trailing(data, j) == nil {
			t := d.NewTrade()
			if sym, reason := d.build(&f, ingest, t, true); reason == "" {
				if res, ok := d.EmitFast(out, t, sym); ok {
					return res, f.event
				}
			}
		}
	}
	var f fields
	if j, ok := scanEvent(js.Lenient, data, 0, 0, &f); !ok || js.Trailing(data, j) != nil {
		return append(out, venue.Reject(raw, "malformed json")), f.event
	}
	switch string(f.event) {
	case "trade", "aggTrade":
	default:
		return d.Skip(out), f.event
	}
	t := &schemas.Trade{}
	sym, reason := d.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, venue.Reject(raw, reason)), f.event
	}
	return d.Emit(out, raw, t, sym), f.event
}

// build fills t from the members of a trade or aggTrade event, or says why
// it cannot (fast: the fast path, which copies strings into the arena).
func (d *Decoder) build(f *fields, ingest int64, t *schemas.Trade, fast bool) (venue.Sym, string) {
	t.VenueKind, t.IngestTimeNs = schemas.VenueKind_VENUE_KIND_CEX, ingest
	v := d.venue
	if v == "" {
		switch {
		case bytes.IndexByte(f.sym, '_') >= 0:
			v = COINM
		case f.futuresFlag:
			v = USDM
		default:
			v = Spot
		}
	}
	t.Venue = v
	if string(f.event) == "aggTrade" {
		if _, ok := js.ParseInt(f.aggID); !ok {
			return venue.Sym{}, "bad trade id: aggTrade a is not an integer"
		}
		if fast {
			t.TradeId = d.Str2("agg:", f.aggID)
		} else {
			t.TradeId = "agg:" + string(f.aggID)
		}
	} else {
		if _, ok := js.ParseInt(f.id); !ok {
			return venue.Sym{}, "bad trade id: t is not an integer"
		}
		t.TradeId = d.Keep(fast, f.id)
	}
	price, ok := js.ParseDecimal(f.price)
	if !ok {
		return venue.Sym{}, "bad price: p is not a decimal"
	}
	qty, ok := js.ParseDecimal(f.qty)
	if !ok {
		return venue.Sym{}, "bad size: q is not a decimal"
	}
	ms, ok := js.ParseInt(f.tradeTime)
	if !ok {
		return venue.Sym{}, "bad timestamp: T is not an integer"
	}
	if t.EventTimeNs, ok = venue.MsToNs(ms); !ok {
		return venue.Sym{}, "bad timestamp: T out of range"
	}
	switch f.maker {
	case 1: // the buyer was the resting order: a seller crossed the spread
		t.Side = schemas.Side_SIDE_SELL
	case 0:
		t.Side = schemas.Side_SIDE_BUY
	case -1:
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return venue.Sym{}, "bad side: m is not a boolean"
	}
	t.Price = price
	sym := d.SymbolOf(fast, v, f.sym)
	t.Market = sym.VenueSymbol
	if v == COINM {
		// Quantity is in contracts of a fixed USD value.
		usd := ContractUSD(sym.VenueSymbol)
		t.NotionalUsd = qty * usd
		t.Size = t.NotionalUsd / price
	} else {
		t.Size = qty
		t.NotionalUsd = price * qty
	}
	return sym, ""
}

// ContractUSD is the USD face value of one Binance COIN-M contract: 100
// USD for BTC contracts, 10 USD for every other coin.
func ContractUSD(symbol string) float64 {
	if strings.HasPrefix(symbol, "BTCUSD_") {
		return 100
	}
	return 10
}
