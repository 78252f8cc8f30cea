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
	var data []byte
	isTrade := false
	var tr binanceTrade
	tr.maker = -1
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
	err = eachField(data, func(k, v []byte) bool {
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
		return append(out, reject(line, "malformed json"))
	}
	switch string(tr.event) {
	case "trade", "aggTrade":
		isTrade = true
	}
	if !isTrade {
		p.skipped++
		return out
	}
	t := &schemas.Trade{VenueKind: schemas.VenueKind_VENUE_KIND_CEX, IngestTimeNs: ingest}
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
			return append(out, reject(line, "bad trade id: aggTrade a is not an integer"))
		}
		t.TradeId = "agg:" + string(tr.aggID)
	} else {
		if _, ok := parseInt(tr.id); !ok {
			return append(out, reject(line, "bad trade id: t is not an integer"))
		}
		t.TradeId = string(tr.id)
	}
	price, ok := parseDecimal(tr.price)
	if !ok {
		return append(out, reject(line, "bad price: p is not a decimal"))
	}
	qty, ok := parseDecimal(tr.qty)
	if !ok {
		return append(out, reject(line, "bad size: q is not a decimal"))
	}
	ms, ok := parseInt(tr.tradeTime)
	if !ok {
		return append(out, reject(line, "bad timestamp: T is not an integer"))
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return append(out, reject(line, "bad timestamp: T out of range"))
	}
	switch tr.maker {
	case 1: // the buyer was the resting order: a seller crossed the spread
		t.Side = schemas.Side_SIDE_SELL
	case 0:
		t.Side = schemas.Side_SIDE_BUY
	case -1:
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return append(out, reject(line, "bad side: m is not a boolean"))
	}
	t.Price = price
	sym := p.symbol(venue, tr.sym)
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
	return p.emit(out, line, t, sym)
}

// coinmContractUSD is the USD face value of one Binance COIN-M contract:
// 100 USD for BTC contracts, 10 USD for every other coin.
func coinmContractUSD(symbol string) float64 {
	if strings.HasPrefix(symbol, "BTCUSD_") {
		return 100
	}
	return 10
}
