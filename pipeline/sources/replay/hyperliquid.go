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
	if !p.generalOnly {
		if res, ok := p.hyperliquidFast(js, ingest, out); ok {
			return res
		}
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

// hyperliquidFields are the raw fields of a trade entry.
type hyperliquidFields struct {
	coin, side, px, sz, tm, tid, users []byte
	// user0 and user1 are the contents of users when the fast path read
	// it (two strings without escapes).
	user0, user1 []byte
}

func (p *hyperliquidParser) trade(obj []byte, ingest int64, out []sources.Record) []sources.Record {
	if !p.generalOnly {
		var f hyperliquidFields
		if j, ok := hyperliquidScan(obj, 0, 1, &f); ok && trailing(obj, j) == nil {
			if res, ok := p.tradeFast(&f, ingest, out); ok {
				return res
			}
		}
	}
	var f hyperliquidFields
	err := eachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "coin":
			f.coin, _, _ = jsonString(v, nil)
		case "side":
			f.side, _, _ = jsonString(v, nil)
		case "px":
			f.px, _ = numOrString(v)
		case "sz":
			f.sz, _ = numOrString(v)
		case "time":
			f.tm = v
		case "tid":
			f.tid, _ = numOrString(v)
		case "users":
			f.users = v
		}
		return true
	})
	if err != nil {
		return append(out, reject(obj, "malformed json"))
	}
	t := &schemas.Trade{}
	s, reason := p.build(&f, ingest, t, false)
	if reason != "" {
		return append(out, reject(obj, reason))
	}
	return p.emit(out, obj, t, s)
}

// tradeFast is the fast path's end of trade: the trade of f, or false.
func (p *hyperliquidParser) tradeFast(f *hyperliquidFields, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	t := p.newTrade()
	s, reason := p.build(f, ingest, t, true)
	if reason != "" {
		return out, false
	}
	return p.emitFast(out, t, s)
}

// hyperliquidScan reads the trade entry at b[i] into f in one pass (the
// fast path); depth is the entry's nesting in its message.
func hyperliquidScan(b []byte, i, depth int, f *hyperliquidFields) (int, bool) {
	i, empty, ok := objOpen(b, i)
	if !ok || empty {
		return 0, false
	}
	var seen uint8
	for {
		key, v, ok := objKey(b, i)
		if !ok {
			return 0, false
		}
		var bit uint8
		switch string(key) {
		case "coin":
			bit = 1
			f.coin, i, ok = strRaw(b, v)
		case "side":
			bit = 2
			f.side, i, ok = strRaw(b, v)
		case "px":
			bit = 4
			f.px, i, ok = numOrStr(b, v)
		case "sz":
			bit = 8
			f.sz, i, ok = numOrStr(b, v)
		case "time":
			bit = 16
			f.tm, i, ok = numText(b, v)
		case "tid":
			bit = 32
			f.tid, i, ok = numOrStr(b, v)
		case "users":
			bit = 64
			f.users, f.user0, f.user1, i, ok = strPair(b, v)
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
			return i, true
		}
	}
}

// strPair reads an array of two strings without escapes at b[i] and
// returns its raw text and the strings' contents.
func strPair(b []byte, i int) (s, s0, s1 []byte, j int, ok bool) {
	j, empty, ok := arrOpen(b, i)
	if !ok || empty {
		return nil, nil, nil, 0, false
	}
	var more bool
	if s0, j, ok = strRaw(b, j); !ok {
		return nil, nil, nil, 0, false
	}
	if j, more, ok = arrNext(b, j); !ok || !more {
		return nil, nil, nil, 0, false
	}
	if s1, j, ok = strRaw(b, j); !ok {
		return nil, nil, nil, 0, false
	}
	if j, more, ok = arrNext(b, j); !ok || more {
		return nil, nil, nil, 0, false
	}
	return b[i:j], s0, s1, j, true
}

// build fills t from the fields of a trade entry, or says why it cannot
// (fast: the fast path, which copies strings into the arena).
func (p *hyperliquidParser) build(f *hyperliquidFields, ingest int64, t *schemas.Trade, fast bool) (symEntry, string) {
	t.Venue, t.VenueKind, t.IngestTimeNs = "hyperliquid", schemas.VenueKind_VENUE_KIND_CEX, ingest
	var ok bool
	if t.Price, ok = parseDecimal(f.px); !ok {
		return symEntry{}, "bad price: px is not a decimal"
	}
	if t.Size, ok = parseDecimal(f.sz); !ok {
		return symEntry{}, "bad size: sz is not a decimal"
	}
	ms, ok := parseInt(f.tm)
	if !ok {
		return symEntry{}, "bad timestamp: time is not an integer"
	}
	if t.EventTimeNs, ok = msToNs(ms); !ok {
		return symEntry{}, "bad timestamp: time out of range"
	}
	switch string(f.side) {
	case "B":
		t.Side = schemas.Side_SIDE_BUY
	case "A":
		t.Side = schemas.Side_SIDE_SELL
	case "":
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return symEntry{}, "bad side: " + string(f.side)
	}
	if _, ok := parseInt(f.tid); !ok {
		return symEntry{}, "bad trade id: tid is not an integer"
	}
	t.TradeId = p.keep(fast, f.tid)
	// The wallet is the aggressor's address: users is [buyer, seller].
	switch {
	case fast && f.users != nil && t.Side == schemas.Side_SIDE_BUY:
		t.Wallet = p.lower(fast, f.user0)
	case fast && f.users != nil && t.Side == schemas.Side_SIDE_SELL:
		t.Wallet = p.lower(fast, f.user1)
	case f.users != nil && t.Side != schemas.Side_SIDE_UNKNOWN:
		i := 0
		_ = eachElem(f.users, func(u []byte) bool {
			if (i == 0 && t.Side == schemas.Side_SIDE_BUY) || (i == 1 && t.Side == schemas.Side_SIDE_SELL) {
				if s, _, ok := jsonString(u, nil); ok {
					t.Wallet = p.lower(fast, s)
				}
				return false
			}
			i++
			return true
		})
	}
	t.NotionalUsd = t.Price * t.Size
	s := p.symbolOf(fast, "hyperliquid", f.coin)
	t.Market = s.venueSymbol
	return s, ""
}
