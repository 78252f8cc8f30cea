package replay

import (
	"bytes"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// binanceParser reads Binance raw websocket captures: `<local_recv_ts> <json>`
// where json is a combined-stream message {"stream":..., "data":{...}} (or a
// bare stream payload). `trade` and `aggTrade` events become trades; every
// other message (bookTicker, depthUpdate, markPriceUpdate, the REST depth
// snapshot line, subscription answers) is skipped.
type binanceParser struct {
	base
	venue string // from the file name; "" = tell per message
}

func newBinanceParser(lname string) *binanceParser {
	p := &binanceParser{}
	switch {
	case strings.Contains(lname, "binance_spot"):
		p.venue = "binance"
	case strings.Contains(lname, "binance_usdm"), strings.Contains(lname, "binance-futures"):
		p.venue = "binance_usdm"
	case strings.Contains(lname, "binance_coinm"), strings.Contains(lname, "binance-delivery"):
		p.venue = "binance_coinm"
	}
	return p
}

// binanceTrade collects the fields of a trade or aggTrade event.
type binanceTrade struct {
	event, sym, id, aggID, price, qty, tradeTime []byte
	maker                                        int // -1 absent, 0 false, 1 true
	spotFlag, futuresFlag                        bool
}

func (p *binanceParser) parse(line []byte, out []sources.Record) []sources.Record {
	tsText, js, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return append(out, reject(line, "malformed line: no `<timestamp> <json>`"))
	}
	ts, ok := parseInt(tsText)
	if !ok {
		return append(out, reject(line, "bad timestamp: local receive time is not an integer"))
	}
	ingest, ok := localTsNs(ts)
	if !ok {
		return append(out, reject(line, "bad timestamp: local receive time out of range"))
	}
	return p.message(line, js, ingest, out)
}

// message decodes one raw stream message (combined-stream envelope or bare
// payload); raw is what a rejection carries.
func (p *binanceParser) message(line, js []byte, ingest int64, out []sources.Record) []sources.Record {
	var data []byte
	err := eachField(js, func(k, v []byte) bool {
		switch string(k) {
		case "data":
			data = v
		case "e":
			data = js // a bare stream payload
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json"))
	}
	if data == nil || len(data) == 0 || data[0] != '{' {
		p.skipped++ // REST snapshot, subscription answer, ...
		return out
	}
	out, _ = p.event(line, data, ingest, out)
	return out
}

// event decodes one stream payload {"e":..., ...}: trade and aggTrade
// events become trades, any other event is skipped. It returns the event
// type it saw (a slice of data).
func (p *binanceParser) event(line, data []byte, ingest int64, out []sources.Record) ([]sources.Record, []byte) {
	if !p.generalOnly {
		var tr binanceTrade
		if j, ok := binanceScan(data, 0, 1, &tr); ok && trailing(data, j) == nil {
			t := p.newTrade()
			if sym, reason := p.build(&tr, ingest, t, true); reason == "" {
				if res, ok := p.emitFast(out, t, sym); ok {
					return res, tr.event
				}
			}
		}
	}
	var tr binanceTrade
	tr.maker = -1
	err := eachField(data, func(k, v []byte) bool {
		if len(k) == 1 || len(k) == 0 {
			switch string(k) {
			case "e":
				tr.event, _, _ = jsonString(v, nil)
			case "s":
				tr.sym, _, _ = jsonString(v, nil)
			case "t":
				tr.id = v
			case "a":
				tr.aggID = v
			case "p":
				tr.price, _ = numOrString(v)
			case "q":
				tr.qty, _ = numOrString(v)
			case "T":
				tr.tradeTime = v
			case "m":
				switch string(v) {
				case "true":
					tr.maker = 1
				case "false":
					tr.maker = 0
				default:
					tr.maker = 2
				}
			case "M":
				tr.spotFlag = true
			case "X":
				tr.futuresFlag = true
			}
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json")), tr.event
	}
	switch string(tr.event) {
	case "trade", "aggTrade":
	default:
		p.skipped++
		return out, tr.event
	}
	t := &schemas.Trade{}
	sym, reason := p.build(&tr, ingest, t, false)
	if reason != "" {
		return append(out, reject(line, reason)), tr.event
	}
	return p.emit(out, line, t, sym), tr.event
}

// binanceScan reads a trade or aggTrade payload at b[i] into tr in one pass
// (the fast path; any other event is not ok); depth is the payload's
// nesting in its message.
func binanceScan(b []byte, i, depth int, tr *binanceTrade) (int, bool) {
	i, empty, ok := objOpen(b, i)
	if !ok || empty {
		return 0, false
	}
	tr.maker = -1
	var seen uint16
	for {
		key, v, ok := objKey(b, i)
		if !ok {
			return 0, false
		}
		var bit uint16
		switch string(key) {
		case "e":
			bit = 1
			tr.event, i, ok = strRaw(b, v)
			ok = ok && (string(tr.event) == "trade" || string(tr.event) == "aggTrade")
		case "s":
			bit = 2
			tr.sym, i, ok = strRaw(b, v)
		case "t":
			bit = 4
			tr.id, i, ok = numText(b, v)
		case "a":
			bit = 8
			tr.aggID, i, ok = numText(b, v)
		case "p":
			bit = 16
			tr.price, i, ok = numOrStr(b, v)
		case "q":
			bit = 32
			tr.qty, i, ok = numOrStr(b, v)
		case "T":
			bit = 64
			tr.tradeTime, i, ok = numText(b, v)
		case "m":
			bit = 128
			switch {
			case len(b)-v >= 4 && string(b[v:v+4]) == "true":
				tr.maker, i = 1, v+4
			case len(b)-v >= 5 && string(b[v:v+5]) == "false":
				tr.maker, i = 0, v+5
			default:
				ok = false
			}
		case "M":
			bit = 256
			tr.spotFlag = true
			var err error
			i, err = skipValue(b, v, depth+1)
			ok = err == nil
		case "X":
			bit = 512
			tr.futuresFlag = true
			var err error
			i, err = skipValue(b, v, depth+1)
			ok = err == nil
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
			return i, seen&1 != 0
		}
	}
}

// build fills t from the fields of a trade or aggTrade event, or says why
// it cannot (fast: the fast path, which copies strings into the arena).
func (p *binanceParser) build(tr *binanceTrade, ingest int64, t *schemas.Trade, fast bool) (symEntry, string) {
	t.VenueKind, t.IngestTimeNs = schemas.VenueKind_VENUE_KIND_CEX, ingest
	venue := p.venue
	if venue == "" {
		switch {
		case bytes.IndexByte(tr.sym, '_') >= 0:
			venue = "binance_coinm"
		case tr.futuresFlag:
			venue = "binance_usdm"
		default:
			venue = "binance"
		}
	}
	t.Venue = venue
	if string(tr.event) == "aggTrade" {
		if _, ok := parseInt(tr.aggID); !ok {
			return symEntry{}, "bad trade id: aggTrade a is not an integer"
		}
		if fast {
			t.TradeId = p.str2("agg:", tr.aggID)
		} else {
			t.TradeId = "agg:" + string(tr.aggID)
		}
	} else {
		if _, ok := parseInt(tr.id); !ok {
			return symEntry{}, "bad trade id: t is not an integer"
		}
		t.TradeId = p.keep(fast, tr.id)
	}
	price, ok := parseDecimal(tr.price)
	if !ok {
		return symEntry{}, "bad price: p is not a decimal"
	}
	qty, ok := parseDecimal(tr.qty)
	if !ok {
		return symEntry{}, "bad size: q is not a decimal"
	}
	ms, ok := parseInt(tr.tradeTime)
	if !ok {
		return symEntry{}, "bad timestamp: T is not an integer"
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return symEntry{}, "bad timestamp: T out of range"
	}
	switch tr.maker {
	case 1: // the buyer was the resting order: a seller crossed the spread
		t.Side = schemas.Side_SIDE_SELL
	case 0:
		t.Side = schemas.Side_SIDE_BUY
	case -1:
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return symEntry{}, "bad side: m is not a boolean"
	}
	t.Price = price
	sym := p.symbolOf(fast, venue, tr.sym)
	t.Market = sym.venueSymbol
	if venue == "binance_coinm" {
		// Quantity is in contracts of a fixed USD value.
		usd := coinmContractUSD(sym.venueSymbol)
		t.NotionalUsd = qty * usd
		t.Size = t.NotionalUsd / price
	} else {
		t.Size = qty
		t.NotionalUsd = price * qty
	}
	return sym, ""
}

// coinmContractUSD is the USD face value of one Binance COIN-M contract:
// 100 USD for BTC contracts, 10 USD for every other coin.
func coinmContractUSD(symbol string) float64 {
	if strings.HasPrefix(symbol, "BTCUSD_") {
		return 100
	}
	return 10
}
