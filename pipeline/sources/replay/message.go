package replay

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
)

// Protocols lists the venue protocols MessageParser decodes.
const Protocols = "binance, bybit, coinbase, hyperliquid, kraken"

// MessageParser decodes the raw WebSocket messages of one venue as they
// arrive on a live connection, with the same trade decoding as the capture
// readers (so a message yields the same trade live and in replay). Unlike
// the capture readers, which skip whatever is not a trade, it sorts every
// message into one of:
//
//   - trades: appended as records (and a bad trade as a rejected record);
//   - control messages the venue is known to send (subscription answers,
//     heartbeats, pongs, channels the connection did not ask for): skipped
//     and counted;
//   - venue error messages: a rejected record with reason "venue error: ...";
//   - messages of an unknown type: a rejected record with reason
//     "unknown message type: ...";
//   - input that is not JSON: a rejected record with reason "malformed json".
//
// It is not safe for concurrent use.
type MessageParser struct {
	proto string
	venue string
	bn    *binanceParser
	cb    *coinbaseParser
	by    *bybitParser
	hl    *hyperliquidParser
	kr    *krakenParser
	b     *base
}

// NewMessageParser returns a parser of protocol's messages (one of
// Protocols) that stamps source on its trades. venue selects the market
// type where a protocol serves several: "binance" (spot), "binance_usdm";
// "bybit" (spot), "bybit_linear", "bybit_inverse". Empty means the
// protocol's spot venue.
func NewMessageParser(protocol, venue, source string) (*MessageParser, error) {
	m := &MessageParser{proto: protocol, venue: venue}
	switch protocol {
	case "binance":
		if venue == "" {
			m.venue = "binance"
		}
		if m.venue != "binance" && m.venue != "binance_usdm" {
			return nil, fmt.Errorf("cannot decode binance messages for venue %q: accepted binance, binance_usdm", venue)
		}
		m.bn = &binanceParser{venue: m.venue}
		m.b = &m.bn.base
	case "coinbase":
		m.venue = "coinbase"
		m.cb = newCoinbaseParser()
		m.b = &m.cb.base
	case "bybit":
		if venue == "" {
			m.venue = "bybit"
		}
		if m.venue != "bybit" && m.venue != "bybit_linear" && m.venue != "bybit_inverse" {
			return nil, fmt.Errorf("cannot decode bybit messages for venue %q: accepted bybit, bybit_linear, bybit_inverse", venue)
		}
		m.by = newBybitParser()
		m.b = &m.by.base
	case "hyperliquid":
		m.venue = "hyperliquid"
		m.hl = &hyperliquidParser{}
		m.b = &m.hl.base
	case "kraken":
		m.venue = "kraken"
		m.kr = &krakenParser{}
		m.b = &m.kr.base
	default:
		return nil, fmt.Errorf("cannot decode messages of protocol %q: accepted %s", protocol, Protocols)
	}
	m.b.setSource(source)
	return m, nil
}

// Venue returns the venue stamped on the trades.
func (m *MessageParser) Venue() string { return m.venue }

// Skipped returns how many control messages were skipped so far.
func (m *MessageParser) Skipped() uint64 { return m.b.skipped }

// Parse appends the records of one message, received at ingestNs (Unix ns),
// to out.
func (m *MessageParser) Parse(msg []byte, ingestNs int64, out []sources.Record) []sources.Record {
	switch m.proto {
	case "binance":
		return m.binance(msg, ingestNs, out)
	case "coinbase":
		return m.coinbase(msg, ingestNs, out)
	case "bybit":
		return m.bybit(msg, ingestNs, out)
	case "hyperliquid":
		return m.hyperliquid(msg, ingestNs, out)
	case "kraken":
		return m.kraken(msg, ingestNs, out)
	}
	panic("BUG: MessageParser of unknown protocol " + m.proto)
}

// maxDetail bounds the venue text quoted in a reason.
const maxDetail = 200

// text renders a raw JSON value for a reason: strings unescaped, anything
// else as is, cut at maxDetail bytes.
func text(v []byte) string {
	if s, _, ok := jsonString(v, nil); ok {
		v = s
	}
	if len(v) > maxDetail {
		v = v[:maxDetail]
	}
	return strings.ToValidUTF8(string(v), "?")
}

func (m *MessageParser) skip(out []sources.Record) []sources.Record {
	m.b.skipped++
	return out
}

// counted counts a valid message that carried no trade (an empty trade
// array) as skipped.
func (m *MessageParser) counted(out []sources.Record, n int) []sources.Record {
	if len(out) == n {
		m.b.skipped++
	}
	return out
}

func unknownType(msg []byte, what string) sources.Record {
	return reject(msg, "unknown message type: "+what)
}

func venueError(msg []byte, detail string) sources.Record {
	return reject(msg, "venue error: "+detail)
}

// binanceControl are the stream payload events that carry no trade.
var binanceControl = map[string]bool{
	"depthUpdate": true, "24hrTicker": true, "24hrMiniTicker": true, "kline": true, "markPriceUpdate": true,
	"bookTicker": true, "forceOrder": true, "": true,
}

// binanceEnvelope recognizes the combined-stream envelope exactly as Binance
// writes it, {"stream":"...","data":{...}}, without scanning data: the
// event decoder scans (and validates) data once. Anything else takes the
// general path.
func binanceEnvelope(msg []byte) (stream, data []byte, ok bool) {
	const pre, mid = `{"stream":"`, `,"data":{`
	if len(msg) < len(pre)+len(mid)+2 || string(msg[:len(pre)]) != pre || msg[len(msg)-1] != '}' {
		return nil, nil, false
	}
	j, err := skipString(msg, len(pre)-1)
	if err != nil || len(msg)-j < len(mid)+2 || string(msg[j:j+len(mid)]) != mid {
		return nil, nil, false
	}
	return msg[len(pre)-1 : j], msg[j+len(mid)-1 : len(msg)-1], true
}

func (m *MessageParser) binance(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if stream, data, ok := binanceEnvelope(msg); ok {
		return m.binanceEvent(msg, stream, data, ingest, out)
	}
	var data, stream, errv, code, mtext []byte
	bare, hasID, hasResult := false, false, false
	err := eachField(msg, func(k, v []byte) bool {
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
		return append(out, reject(msg, "malformed json"))
	}
	switch {
	case errv != nil:
		return append(out, venueError(msg, text(errv)))
	case code != nil && mtext != nil:
		return append(out, venueError(msg, text(code)+" "+text(mtext)))
	case hasResult && hasID:
		return m.skip(out) // answer to SUBSCRIBE / LIST_SUBSCRIPTIONS
	case bare:
		data = msg
	case data == nil:
		return append(out, unknownType(msg, "no data, e, result or error field"))
	}
	if len(data) == 0 || data[0] != '{' {
		return append(out, reject(msg, "malformed json: data is not an object"))
	}
	return m.binanceEvent(msg, stream, data, ingest, out)
}

func (m *MessageParser) binanceEvent(msg, stream, data []byte, ingest int64, out []sources.Record) []sources.Record {
	n := len(out)
	out, ev := m.bn.event(msg, data, ingest, out)
	if len(out) > n {
		return out
	}
	switch string(ev) {
	case "trade", "aggTrade":
		return out
	}
	if binanceControl[string(ev)] && (len(ev) > 0 || bytes.Contains(stream, []byte("@bookTicker"))) {
		return out // already counted as skipped
	}
	m.b.skipped--
	return append(out, unknownType(msg, "event "+text(ev)))
}

// coinbaseControl are the Advanced Trade channels that carry no trade.
var coinbaseControl = map[string]bool{
	`"heartbeats"`: true, `"subscriptions"`: true, `"l2_data"`: true, `"ticker"`: true, `"ticker_batch"`: true,
	`"candles"`: true, `"status"`: true,
}

func (m *MessageParser) coinbase(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if !m.b.generalOnly {
		n := len(out)
		if res, ok := m.cb.coinbaseFast(msg, ingest, out); ok {
			return m.counted(res, n)
		}
	}
	var channel, events, typ, message []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			channel = v
		case "events":
			events = v
		case "type":
			typ = v
		case "message":
			message = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(msg, "malformed json"))
	}
	switch {
	case string(typ) == `"error"`:
		return append(out, venueError(msg, text(message)))
	case string(channel) == `"market_trades"`:
		if events == nil {
			return append(out, reject(msg, "malformed market_trades message: no events"))
		}
		n := len(out)
		return m.counted(m.cb.marketTrades(msg, events, ingest, out), n)
	case coinbaseControl[string(channel)]:
		return m.skip(out)
	case channel != nil:
		return append(out, unknownType(msg, "channel "+text(channel)))
	case typ != nil:
		return append(out, unknownType(msg, "type "+text(typ)))
	}
	return append(out, unknownType(msg, "no channel or type field"))
}

func (m *MessageParser) bybit(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if !m.b.generalOnly {
		n := len(out)
		if res, ok := m.by.bybitFast(msg, m.venue, ingest, out); ok {
			return m.counted(res, n)
		}
	}
	var topic, data, op, success, retMsg []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "topic":
			topic = v
		case "data":
			data = v
		case "op":
			op = v
		case "success":
			success = v
		case "ret_msg":
			retMsg = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(msg, "malformed json"))
	}
	if topic != nil {
		t, _, _ := jsonString(topic, nil)
		switch {
		case bytes.HasPrefix(t, []byte("publicTrade.")):
			n := len(out)
			if eachElem(data, func(tr []byte) bool {
				out = m.by.trade(tr, m.venue, ingest, out)
				return true
			}) != nil {
				return append(out[:n], reject(msg, "malformed publicTrade message: data is not an array"))
			}
			return m.counted(out, n)
		case bytes.HasPrefix(t, []byte("orderbook.")), bytes.HasPrefix(t, []byte("tickers.")),
			bytes.HasPrefix(t, []byte("kline.")), bytes.HasPrefix(t, []byte("liquidation.")), bytes.HasPrefix(t, []byte("allLiquidation.")):
			return m.skip(out)
		}
		return append(out, unknownType(msg, "topic "+text(topic)))
	}
	if op != nil {
		if string(success) == "false" {
			return append(out, venueError(msg, text(op)+": "+text(retMsg)))
		}
		return m.skip(out) // subscribe answer, pong
	}
	return append(out, unknownType(msg, "no topic or op field"))
}

func (m *MessageParser) hyperliquid(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if !m.b.generalOnly {
		n := len(out)
		if res, ok := m.hl.hyperliquidFast(msg, ingest, out); ok {
			return m.counted(res, n)
		}
	}
	var channel, data []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			channel = v
		case "data":
			data = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(msg, "malformed json"))
	}
	switch string(channel) {
	case `"trades"`:
		n := len(out)
		if eachElem(data, func(tr []byte) bool {
			out = m.hl.trade(tr, ingest, out)
			return true
		}) != nil {
			return append(out[:n], reject(msg, "malformed trades message: data is not an array"))
		}
		return m.counted(out, n)
	case `"subscriptionResponse"`, `"pong"`, `"l2Book"`, `"bbo"`, `"allMids"`, `"activeAssetCtx"`:
		return m.skip(out)
	case `"error"`:
		return append(out, venueError(msg, text(data)))
	case "":
		return append(out, unknownType(msg, "no channel field"))
	}
	return append(out, unknownType(msg, "channel "+text(channel)))
}

func (m *MessageParser) kraken(msg []byte, ingest int64, out []sources.Record) []sources.Record {
	if !m.b.generalOnly {
		n := len(out)
		if res, ok := m.kr.krakenFast(msg, ingest, out); ok {
			return m.counted(res, n)
		}
	}
	var channel, data, method, success, errv []byte
	err := eachField(msg, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			channel = v
		case "data":
			data = v
		case "method":
			method = v
		case "success":
			success = v
		case "error":
			errv = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(msg, "malformed json"))
	}
	switch {
	case errv != nil || string(success) == "false":
		return append(out, venueError(msg, text(method)+": "+text(errv)))
	case string(channel) == `"trade"`:
		n := len(out)
		if eachElem(data, func(tr []byte) bool {
			out = m.kr.trade(tr, ingest, out)
			return true
		}) != nil {
			return append(out[:n], reject(msg, "malformed trade message: data is not an array"))
		}
		return m.counted(out, n)
	case string(channel) == `"heartbeat"`, string(channel) == `"status"`, string(channel) == `"book"`, string(channel) == `"ticker"`:
		return m.skip(out)
	case method != nil:
		return m.skip(out) // subscribe / unsubscribe answers, pong
	case channel != nil:
		return append(out, unknownType(msg, "channel "+text(channel)))
	}
	return append(out, unknownType(msg, "no channel or method field"))
}
