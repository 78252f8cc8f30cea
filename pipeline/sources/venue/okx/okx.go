// Package okx decodes OKX v5 public WebSocket messages: channel "trades"
// (and "trades-all", the same layout), for spot instruments and perpetual
// swaps, and OKX's public instruments answer, which gives a swap's contract
// value.
//
// Field mapping (docs/venues.md): arg.channel "trades"; data[] {instId →
// venue symbol and market, tradeId (per instrument), px → price, sz → size
// (spot: base units; swaps: contracts), side "buy"/"sell" = the **taker's**
// side (OKX: "Trade side of taker"), so the aggressor as is, ts (Unix ms,
// string) → event time}. A swap's size is in contracts: with the
// instrument's ctVal and ctMult from GET /api/v5/public/instruments, a
// linear swap (ctValCcy the base currency, e.g. BTC-USDT-SWAP ctVal 0.01
// BTC) holds sz·ctVal·ctMult base units, an inverse swap (ctValCcy USD,
// e.g. UNI-USD-SWAP ctVal 10 USD) sz·ctVal·ctMult USD, so
// sz·ctVal·ctMult / px base units. A swap trade whose instrument has no
// contract value is rejected ("unknown contract value"), never guessed.
//
// Venue ids: spot instruments are "okx", swaps ("…-SWAP") "okx_swap" —
// different markets, kept apart as binance / binance_usdm are. Dated
// futures and options do not normalize to a symbol and are rejected as
// unknown symbols.
package okx

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Venue ids of the trades.
const (
	Spot = "okx"      // spot instruments (BTC-USDT)
	Swap = "okx_swap" // perpetual swaps (BTC-USDT-SWAP, BTC-USD-SWAP)
)

// Contract is the size of one contract of a swap.
type Contract struct {
	// Value is ctVal·ctMult: base units a contract holds (linear), or USD
	// (inverse).
	Value float64
	// Inverse is set when Value is in USD (ctValCcy USD or a USD
	// stablecoin).
	Inverse bool
}

// maxContracts bounds the contract table (OKX lists a few hundred swaps).
const maxContracts = 1 << 14

// Decoder decodes OKX messages into records. It is not safe for
// concurrent use.
type Decoder struct {
	venue.Base
	contracts map[string]Contract
}

// New returns a decoder that stamps source on its trades.
func New(source string) *Decoder {
	d := &Decoder{contracts: map[string]Contract{}}
	d.SetSource(source)
	return d
}

// SetContract sets the contract of a swap instrument.
func (d *Decoder) SetContract(instID string, c Contract) {
	if _, ok := d.contracts[instID]; ok || len(d.contracts) < maxContracts {
		d.contracts[instID] = c
	}
}

// Contracts returns how many instruments have a contract value.
func (d *Decoder) Contracts() int { return len(d.contracts) }

// Instruments reads an answer of GET /api/v5/public/instruments into the
// decoder's contract table (a later answer overrides an earlier one for the
// same instrument) and returns how many contracts it set. Instruments
// without a contract value (spot) are passed over. The error says why an
// answer cannot be used: not JSON, or an OKX error code.
func (d *Decoder) Instruments(body []byte) (int, error) {
	cs, err := ParseInstruments(body)
	for id, c := range cs {
		d.SetContract(id, c)
	}
	return len(cs), err
}

// ParseInstruments reads an answer of GET /api/v5/public/instruments:
// {"code":"0","data":[{instId, ctVal, ctMult, ctValCcy, ...}]}. It returns
// the contract of every instrument with a usable ctVal: ctValCcy the
// instrument's base currency (linear) or USD / a USD stablecoin (inverse);
// others are left out.
func ParseInstruments(body []byte) (map[string]Contract, error) {
	var code, data, msg []byte
	if err := js.EachField(body, func(k, v []byte) bool {
		switch string(k) {
		case "code":
			code, _ = js.NumOrString(v)
		case "msg":
			msg = v
		case "data":
			data = v
		}
		return true
	}); err != nil {
		return nil, fmt.Errorf("cannot read OKX instruments: malformed json")
	}
	if len(code) > 0 && string(code) != "0" {
		return nil, fmt.Errorf("cannot read OKX instruments: venue error %s: %s", code, venue.Text(msg))
	}
	out := map[string]Contract{}
	if data == nil {
		return out, fmt.Errorf("cannot read OKX instruments: no data array")
	}
	var buf []byte
	err := js.EachElem(data, func(inst []byte) bool {
		var id, ctVal, ctMult, ccy []byte
		if js.EachField(inst, func(k, v []byte) bool {
			switch string(k) {
			case "instId":
				id, buf, _ = js.String(v, buf[:0])
				id = append([]byte(nil), id...)
			case "ctVal":
				ctVal, _ = js.NumOrString(v)
			case "ctMult":
				ctMult, _ = js.NumOrString(v)
			case "ctValCcy":
				ccy, _ = js.NumOrString(v)
			}
			return true
		}) != nil || len(id) == 0 || len(ctVal) == 0 {
			return true
		}
		val, ok := js.ParseDecimal(ctVal)
		if !ok || !(val > 0) || val > 1e12 {
			return true
		}
		if len(ctMult) > 0 {
			m, ok := js.ParseDecimal(ctMult)
			if !ok || !(m > 0) || m > 1e12 {
				return true
			}
			val *= m
		}
		base, _, _ := strings.Cut(string(id), "-")
		c := Contract{Value: val}
		switch {
		case strings.EqualFold(string(ccy), base):
		case symbols.IsStable(string(ccy)):
			c.Inverse = true
		default:
			return true
		}
		if len(out) < maxContracts {
			out[string(id)] = c
		}
		return true
	})
	if err != nil {
		return out, fmt.Errorf("cannot read OKX instruments: data is not an array")
	}
	return out, nil
}

// MayHoldTrades reports whether a recorded message, as the capture holds
// it (still escaped), can carry trades: a capture reader skips the others
// without decoding them.
func MayHoldTrades(data []byte) bool { return bytes.Contains(data, []byte(`trades`)) }

// IsPong reports whether msg is OKX's answer to the text "ping".
func IsPong(msg []byte) bool { return string(bytes.TrimSpace(msg)) == "pong" }

// Message decodes one live message into out: the trades of a trades
// message (a bad trade as a rejected record); "pong", subscribe answers,
// notices and other channels skipped and counted; an error event as
// "venue error: ..."; anything else as "unknown message type: ..."; input
// that is not JSON as "malformed json".
func (d *Decoder) Message(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return d.Counted(res, n)
		}
	}
	if IsPong(msg) {
		return d.Skip(out)
	}
	var e envelope
	if !e.read(msg) {
		return append(out, venue.Reject(msg, "malformed json"))
	}
	switch {
	case e.event != nil:
		ev, _, _ := js.String(e.event, nil)
		if string(ev) == "error" {
			return append(out, venue.VenueError(msg, venue.Text(e.code)+": "+venue.Text(e.msg)))
		}
		return d.Skip(out) // subscribe, unsubscribe, notice, channel-conn-count
	case e.arg != nil:
		if !e.isTrades() {
			return d.Skip(out) // books, tickers, ...
		}
		res, ok := d.trades(e, ingest, out)
		if !ok {
			return append(res, venue.Reject(msg, "malformed trades message: data is not an array"))
		}
		return d.Counted(res, n)
	}
	return append(out, venue.UnknownType(msg, "no arg or event field"))
}

// Recorded decodes one message as a capture recorded it, received at
// ingest: the trades of a trades message; any other message, including
// "pong" and the venue's error events, is skipped. raw is the capture's
// line: the rejection of a whole message carries it.
func (d *Decoder) Recorded(raw, msg []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	if d.FastPath() {
		if res, ok := d.fast(msg, ingest, out); ok {
			return d.Counted(res, n)
		}
	}
	if IsPong(msg) {
		return d.Skip(out)
	}
	var e envelope
	if !e.read(msg) {
		return append(out, venue.Reject(raw, "malformed json: data"))
	}
	if e.event != nil || e.arg == nil || !e.isTrades() {
		return d.Skip(out) // answers, notices, errors, other channels
	}
	res, ok := d.trades(e, ingest, out)
	if !ok {
		return append(res, venue.Reject(raw, "malformed trades message: data is not an array"))
	}
	return d.Counted(res, n)
}

// envelope holds the members of a message (raw values).
type envelope struct {
	arg, data, event, code, msg []byte
	channel, instID             []byte // of arg, unescaped
}

// read walks a message object; false for malformed JSON.
func (e *envelope) read(msg []byte) bool {
	err := js.EachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "arg":
			e.arg = v
		case "data":
			e.data = v
		case "event":
			e.event = v
		case "code":
			e.code = v
		case "msg":
			e.msg = v
		}
		return true
	})
	if err != nil {
		return false
	}
	if e.arg != nil && js.EachField(e.arg, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			e.channel, _, _ = js.String(v, nil)
		case "instId":
			e.instID, _, _ = js.String(v, nil)
		}
		return true
	}) != nil {
		e.arg = nil // not an object: classified as having no arg
	}
	return true
}

// isTrades reports whether the message is of a trades channel.
func (e *envelope) isTrades() bool {
	return string(e.channel) == "trades" || string(e.channel) == "trades-all"
}

// trades decodes the data array of a trades message; false when it is not
// an array.
func (d *Decoder) trades(e envelope, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return venue.TradesGeneral(e.data, out, func(tr []byte, out []sources.Record) []sources.Record {
		return d.trade(tr, e.instID, ingest, out)
	})
}

// fields are the raw members of a trade entry.
type fields struct {
	inst, id, px, sz, side, ts []byte
}

// trade decodes one trade entry; argInst is the message's instrument, for
// an entry without instId.
func (d *Decoder) trade(obj, argInst []byte, ingest int64, out []sources.Record) []sources.Record {
	var f fields
	bad := ""
	d.Scratch = d.Scratch[:0]
	str := func(v []byte, name string) []byte {
		s, nb, ok := js.String(v, d.Scratch)
		d.Scratch = nb
		if !ok {
			bad = "wrong type: " + name + " is not a string"
		}
		return s
	}
	if err := js.EachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "instId":
			f.inst = str(v, "instId")
		case "tradeId":
			f.id, _ = js.NumOrString(v)
		case "px":
			f.px, _ = js.NumOrString(v)
		case "sz":
			f.sz, _ = js.NumOrString(v)
		case "side":
			f.side = str(v, "side")
		case "ts":
			f.ts, _ = js.NumOrString(v)
		}
		return true
	}); err != nil {
		return append(out, venue.Reject(obj, "malformed json"))
	}
	if bad != "" {
		return append(out, venue.Reject(obj, bad))
	}
	if len(f.inst) == 0 {
		f.inst = argInst
	}
	t := &schemas.Trade{}
	s, reason := d.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, venue.Reject(obj, reason))
	}
	return d.Emit(out, obj, t, s)
}

// build fills t from the members of a trade entry, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (d *Decoder) build(f *fields, ingest int64, t *schemas.Trade, fast bool) (venue.Sym, string) {
	t.VenueKind, t.IngestTimeNs = schemas.VenueKind_VENUE_KIND_CEX, ingest
	t.Venue = Spot
	swap := bytes.HasSuffix(f.inst, []byte("-SWAP"))
	if swap {
		t.Venue = Swap
	}
	var ok bool
	if t.Price, ok = js.ParseDecimal(f.px); !ok {
		return venue.Sym{}, "bad price: px is not a decimal"
	}
	sz, ok := js.ParseDecimal(f.sz)
	if !ok {
		return venue.Sym{}, "bad size: sz is not a decimal"
	}
	ms, ok := js.ParseInt(f.ts)
	if !ok {
		return venue.Sym{}, "bad timestamp: ts is not an integer"
	}
	if t.EventTimeNs, ok = venue.MsToNs(ms); !ok {
		return venue.Sym{}, "bad timestamp: ts out of range"
	}
	switch string(f.side) {
	case "buy":
		t.Side = schemas.Side_SIDE_BUY
	case "sell":
		t.Side = schemas.Side_SIDE_SELL
	default:
		return venue.Sym{}, "bad side: " + venue.Text(f.side)
	}
	if len(f.id) == 0 {
		return venue.Sym{}, "bad trade id: missing"
	}
	t.TradeId = d.Keep(fast, f.id)
	s := d.SymbolOf(fast, t.Venue, f.inst)
	t.Market = s.VenueSymbol
	if !s.OK {
		return s, "" // Emit rejects it as an unknown symbol
	}
	if !swap {
		t.Size, t.NotionalUsd = sz, t.Price*sz
		return s, ""
	}
	c, ok := d.contracts[s.VenueSymbol]
	if !ok {
		return venue.Sym{}, "unknown contract value: " + s.VenueSymbol + " (no instruments answer holds its ctVal)"
	}
	if c.Inverse {
		t.NotionalUsd = sz * c.Value
		t.Size = t.NotionalUsd / t.Price
	} else {
		t.Size = sz * c.Value
		t.NotionalUsd = t.Price * t.Size
	}
	return s, ""
}

// The fast path: one strict pass over a trades message whose members are
// in the common shape (arg before data, strings without escapes, every
// member once, each trade valid and of a known symbol), decoding its
// trades as it goes. On anything else it declines, with out as it was,
// and the general path above decides.

// Members of a message the strict walk tracks.
const (
	mArg = 1 << iota
	mData
)

// fast decodes a trades message in one pass, or returns false with out as
// it was.
func (d *Decoder) fast(b []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	m := js.Strict
	i, empty, ok := js.ObjOpen(b, 0)
	if !ok || empty {
		return out, false
	}
	var seen uint32
	var inst []byte
	for !empty {
		key, v, ok := m.Key(b, i)
		if !ok {
			return out[:n], false
		}
		var bit uint32
		switch string(key) {
		case "arg":
			bit = mArg
			inst, i, ok = scanArg(b, v)
		case "data":
			bit = mData
			ok = seen&mArg != 0 // the channel must be known
			if ok {
				out, i, ok = venue.TradesFast(b, v, out, func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool) {
					var f fields
					i, ok := scanTrade(b, i, &f)
					if !ok {
						return out, 0, false
					}
					if len(f.inst) == 0 {
						f.inst = inst
					}
					t := d.NewTrade()
					s, reason := d.build(&f, ingest, t, true)
					if reason != "" {
						return out, 0, false
					}
					out, ok = d.EmitFast(out, t, s)
					return out, i, ok
				})
			}
		case "event":
			ok = false // an answer or error: the general path
		default:
			i, ok = js.Skip(b, v, 1)
		}
		if !ok || !m.Once(seen, bit) {
			return out[:n], false
		}
		seen |= bit
		var more bool
		if i, more, ok = js.ObjNext(b, i); !ok {
			return out[:n], false
		}
		empty = !more
	}
	if js.Trailing(b, i) != nil || seen != mArg|mData {
		return out[:n], false
	}
	return out, true
}

// scanArg reads the arg object at b[v] strictly: its channel must be
// "trades" or "trades-all"; it returns the instId (nil when absent).
func scanArg(b []byte, v int) (inst []byte, j int, ok bool) {
	m := js.Strict
	i, empty, ok := js.ObjOpen(b, v)
	if !ok || empty {
		return nil, 0, false
	}
	const (
		aChannel = 1 << iota
		aInst
	)
	var seen uint32
	for !empty {
		key, v, ok := m.Key(b, i)
		if !ok {
			return nil, 0, false
		}
		var bit uint32
		switch string(key) {
		case "channel":
			bit = aChannel
			var ch []byte
			ch, i, ok = m.Str(b, v)
			ok = ok && (string(ch) == "trades" || string(ch) == "trades-all")
		case "instId":
			bit = aInst
			inst, i, ok = m.Str(b, v)
		default:
			i, ok = js.Skip(b, v, 2)
		}
		if !ok || !m.Once(seen, bit) {
			return nil, 0, false
		}
		seen |= bit
		var more bool
		if i, more, ok = js.ObjNext(b, i); !ok {
			return nil, 0, false
		}
		empty = !more
	}
	return inst, i, seen&aChannel != 0
}

// Members of a trade entry.
const (
	fInst = 1 << iota
	fID
	fPx
	fSz
	fSide
	fTs
)

// scanTrade reads the trade entry at b[i] strictly into f.
func scanTrade(b []byte, i int, f *fields) (int, bool) {
	m := js.Strict
	i, empty, ok := js.ObjOpen(b, i)
	if !ok || empty {
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
		case "instId":
			bit = fInst
			f.inst, i, ok = m.Str(b, v)
		case "tradeId":
			bit = fID
			f.id, i, ok = m.NumOrStr(b, v)
		case "px":
			bit = fPx
			f.px, i, ok = m.NumOrStr(b, v)
		case "sz":
			bit = fSz
			f.sz, i, ok = m.NumOrStr(b, v)
		case "side":
			bit = fSide
			f.side, i, ok = m.Str(b, v)
		case "ts":
			bit = fTs
			f.ts, i, ok = m.NumOrStr(b, v)
		default:
			i, ok = js.Skip(b, v, 3)
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
