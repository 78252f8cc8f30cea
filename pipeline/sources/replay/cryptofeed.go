package replay

import (
	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/bybit"
	"github.com/marketintel/mi/pipeline/sources/venue/coinbase"
)

// cryptofeedRecord is one line of a cryptofeed recorder (format 2) capture:
// {"t": "header"|"http"|"connect"|"send"|"recv", "conn", "ts", "addr", "url", "data"}.
type cryptofeedRecord struct {
	kind, conn, addr, url, ts, data []byte
}

// readCryptofeed decodes the envelope of a cryptofeed record line. data is
// the raw JSON string value (still escaped); addr is unescaped (URLs).
func readCryptofeed(line []byte) (cryptofeedRecord, bool) {
	var r cryptofeedRecord
	err := js.EachField(line, func(k, v []byte) bool {
		switch string(k) {
		case "t":
			r.kind, _, _ = js.String(v, nil)
		case "conn":
			r.conn, _, _ = js.String(v, nil)
		case "addr":
			r.addr, _, _ = js.String(v, nil)
		case "url":
			r.url, _, _ = js.String(v, nil)
		case "ts":
			r.ts = v
		case "data":
			r.data = v
		}
		return true
	})
	return r, err == nil
}

// recvPayload unescapes the data string of a recv record into the
// decoder's scratch buffer and returns the raw venue message with its
// receive time (ts, decimal seconds, converted exactly).
func recvPayload(b *venue.Base, line []byte, r cryptofeedRecord, out []sources.Record) (msg []byte, ingest int64, res []sources.Record, ok bool) {
	ingest, ok = venue.SecondsToNs(r.ts)
	if !ok {
		return nil, 0, append(out, venue.Reject(line, "bad timestamp: ts is not decimal seconds")), false
	}
	b.Scratch = b.Scratch[:0]
	msg, b.Scratch, ok = js.String(r.data, b.Scratch)
	if !ok {
		return nil, 0, append(out, venue.Reject(line, "malformed json: data is not a string")), false
	}
	return msg, ingest, out, true
}

// coinbaseCapture frames a Coinbase capture: cryptofeed recordings of the
// Advanced Trade WebSocket (each recv record's data is a message for
// coinbase.Decoder.Recorded; only records that may hold trades are
// unescaped) and the legacy Exchange feed, one message a line
// (coinbase.Decoder.Legacy). Every other record is skipped.
type coinbaseCapture struct {
	*coinbase.Decoder
}

func newCoinbaseCapture() *coinbaseCapture { return &coinbaseCapture{coinbase.New("")} }

func (p *coinbaseCapture) parse(line []byte, out []sources.Record) []sources.Record {
	var typ, tKind []byte
	err := js.EachField(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "t":
			tKind = v
		}
		return true
	})
	if err != nil {
		return append(out, venue.Reject(line, "malformed json"))
	}
	if tKind == nil {
		return p.Legacy(line, typ, out)
	}
	r, ok := readCryptofeed(line)
	if !ok {
		return append(out, venue.Reject(line, "malformed json"))
	}
	if string(r.kind) != "recv" || !coinbase.MayHoldTrades(r.data) {
		return p.Skip(out)
	}
	msg, ingest, out, ok := recvPayload(&p.Base, line, r, out)
	if !ok {
		return out
	}
	return p.Recorded(line, msg, ingest, out)
}

// bybitCapture frames a cryptofeed recording of Bybit v5 public
// WebSockets: a connect record tells its connection's market from the URL
// (bybit.VenueOfURL; a connection the capture never shows is spot), each
// recv record's data is a message for bybit.Decoder.Recorded (only those
// that may hold trades are unescaped). Every other record is skipped.
type bybitCapture struct {
	*bybit.Decoder
	conns map[string]string // conn id -> venue
}

func newBybitCapture() *bybitCapture {
	d, err := bybit.New("", "")
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return &bybitCapture{Decoder: d, conns: map[string]string{}}
}

func (p *bybitCapture) parse(line []byte, out []sources.Record) []sources.Record {
	r, ok := readCryptofeed(line)
	if !ok {
		return append(out, venue.Reject(line, "malformed json"))
	}
	switch string(r.kind) {
	case "connect":
		if len(p.conns) < 1024 {
			p.conns[string(r.conn)] = bybit.VenueOfURL(r.addr)
		}
		return p.Skip(out)
	case "recv":
	default:
		return p.Skip(out)
	}
	if !bybit.MayHoldTrades(r.data) {
		return p.Skip(out)
	}
	msg, ingest, out, ok := recvPayload(&p.Base, line, r, out)
	if !ok {
		return out
	}
	v := p.conns[string(r.conn)]
	if v == "" {
		v = bybit.Spot
	}
	return p.Recorded(line, msg, v, ingest, out)
}
