package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// hyperliquidParser reads Hyperliquid raw websocket captures:
// `<local_ns> <json>`. Messages on channel "trades" become trades:
// data[] {coin, side "B"/"A" (the aggressor: B bought, A sold), px, sz,
// time ms, hash, tid, users [buyer, seller]}. Other channels (l2Book,
// subscriptionResponse, pong) are skipped.
type hyperliquidParser struct {
	base
}

func (p *hyperliquidParser) parse(line []byte, out []sources.Record) []sources.Record {
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
	var channel, data []byte
	err := eachField(js, func(k, v []byte) bool {
		switch string(k) {
		case "channel":
			channel = v
		case "data":
			data = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(line, "malformed json"))
	}
	if string(channel) != `"trades"` {
		p.skipped++
		return out
	}
	n := len(out)
	err = eachElem(data, func(tr []byte) bool {
		out = p.trade(tr, ingest, out)
		return true
	})
	if err != nil {
		return append(out[:n], reject(line, "malformed trades message: data is not an array"))
	}
	return out
}

func (p *hyperliquidParser) trade(obj []byte, ingest int64, out []sources.Record) []sources.Record {
	var coin, side, px, sz, tm, tid, users []byte
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "coin":
			coin, _, _ = jsonString(v, nil)
		case "side":
			side, _, _ = jsonString(v, nil)
		case "px":
			px, _ = numOrString(v)
		case "sz":
			sz, _ = numOrString(v)
		case "time":
			tm = v
		case "tid":
			tid, _ = numOrString(v)
		case "users":
			users = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{Venue: "hyperliquid", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, IngestTimeNs: ingest}
	var ok bool
	if t.Price, ok = parseDecimal(px); !ok {
		return append(out, reject(obj, "bad price: px is not a decimal"))
	}
	if t.Size, ok = parseDecimal(sz); !ok {
		return append(out, reject(obj, "bad size: sz is not a decimal"))
	}
	ms, ok := parseInt(tm)
	if !ok {
		return append(out, reject(obj, "bad timestamp: time is not an integer"))
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return append(out, reject(obj, "bad timestamp: time out of range"))
	}
	switch string(side) {
	case "B":
		t.Side = schemas.Side_SIDE_BUY
	case "A":
		t.Side = schemas.Side_SIDE_SELL
	case "":
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return append(out, reject(obj, "bad side: "+string(side)))
	}
	if _, ok := parseInt(tid); !ok {
		return append(out, reject(obj, "bad trade id: tid is not an integer"))
	}
	t.TradeId = string(tid)
	// The wallet is the aggressor's address: users is [buyer, seller].
	if users != nil && t.Side != schemas.Side_SIDE_UNKNOWN {
		i := 0
		_ = eachElem(users, func(u []byte) bool {
			if (i == 0 && t.Side == schemas.Side_SIDE_BUY) || (i == 1 && t.Side == schemas.Side_SIDE_SELL) {
				if s, _, ok := jsonString(u, nil); ok {
					t.Wallet = string(bytes.ToLower(s))
				}
				return false
			}
			i++
			return true
		})
	}
	t.NotionalUsd = t.Price * t.Size
	s := p.symbol("hyperliquid", coin)
	t.Market = s.venueSymbol
	return p.emit(out, obj, t, s)
}
