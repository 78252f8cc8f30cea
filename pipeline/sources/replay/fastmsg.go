package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
)

// The fast paths of the live trade messages: each walks one venue's trade
// message once, from the envelope to the last trade, and appends its trades
// to out. It returns false, with out as it was, for anything it does not
// take: another message type, a message the general path would reject in
// part or whole, a field it does not expect to repeat. See fastscan.go.

// coinbaseFast decodes {"channel":"market_trades", ..., "events":[{...,
// "trades":[...]}]} with no "type" member (an error message has one).
func (p *coinbaseParser) coinbaseFast(b []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	i, empty, ok := objOpen(b, 0)
	if !ok || empty {
		return out, false
	}
	channel, events := false, false
	for {
		key, v, ok := objKey(b, i)
		if !ok {
			return out[:n], false
		}
		switch string(key) {
		case "channel":
			var c []byte
			c, i, ok = strRaw(b, v)
			ok = ok && !channel && string(c) == "market_trades"
			channel = true
		case "events":
			ok = !events
			events = true
			if ok {
				out, i, ok = p.coinbaseEvents(b, v, ingest, out)
			}
		case "type", "message":
			ok = false
		default:
			var err error
			i, err = skipValue(b, v, 1)
			ok = err == nil
		}
		if !ok {
			return out[:n], false
		}
		var more bool
		if i, more, ok = objNext(b, i); !ok {
			return out[:n], false
		}
		if !more {
			if !channel || !events || trailing(b, i) != nil {
				return out[:n], false
			}
			return out, true
		}
	}
}

// coinbaseEvents decodes the events array at b[i] (depth 1).
func (p *coinbaseParser) coinbaseEvents(b []byte, i int, ingest int64, out []sources.Record) ([]sources.Record, int, bool) {
	i, empty, ok := arrOpen(b, i)
	if !ok {
		return out, 0, false
	}
	if empty {
		return out, i, true
	}
	for {
		var empty bool
		if i, empty, ok = objOpen(b, i); !ok || empty {
			return out, 0, false // an event without trades: the general path rejects it
		}
		trades := false
		for {
			key, v, ok := objKey(b, i)
			if !ok {
				return out, 0, false
			}
			if string(key) == "trades" {
				if trades {
					return out, 0, false
				}
				trades = true
				var empty bool
				if i, empty, ok = arrOpen(b, v); !ok {
					return out, 0, false
				}
				for !empty {
					var f coinbaseFields
					if i, ok = coinbaseScan(b, i, 4, &f); !ok {
						return out, 0, false
					}
					if out, ok = p.tradeFast(&f, ingest, out); !ok {
						return out, 0, false
					}
					var more bool
					if i, more, ok = arrNext(b, i); !ok {
						return out, 0, false
					}
					empty = !more
				}
			} else {
				var err error
				if i, err = skipValue(b, v, 3); err != nil {
					return out, 0, false
				}
			}
			var more bool
			if i, more, ok = objNext(b, i); !ok {
				return out, 0, false
			}
			if !more {
				break
			}
		}
		if !trades {
			return out, 0, false
		}
		var more bool
		if i, more, ok = arrNext(b, i); !ok {
			return out, 0, false
		}
		if !more {
			return out, i, true
		}
	}
}

// tradesArrayFast decodes the array of trade objects at b[i] (depth 1) with
// scan (the venue's fast scanner and tradeFast).
func tradesArrayFast(b []byte, i int, out []sources.Record, scan func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool)) ([]sources.Record, int, bool) {
	i, empty, ok := arrOpen(b, i)
	if !ok {
		return out, 0, false
	}
	for !empty {
		if out, i, ok = scan(b, i, out); !ok {
			return out, 0, false
		}
		var more bool
		if i, more, ok = arrNext(b, i); !ok {
			return out, 0, false
		}
		empty = !more
	}
	return out, i, true
}

// envelopeFast walks a message object whose trades are the array member
// data: channel (or topic) must be a string that match accepts, data must
// come once, and none of the members in deny may appear.
func envelopeFast(b []byte, out []sources.Record, chanKey string, match func([]byte) bool, deny []string,
	scan func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool)) ([]sources.Record, bool) {
	n := len(out)
	i, empty, ok := objOpen(b, 0)
	if !ok || empty {
		return out, false
	}
	channel, data := false, false
	for {
		key, v, ok := objKey(b, i)
		if !ok {
			return out[:n], false
		}
		switch {
		case string(key) == chanKey:
			var c []byte
			c, i, ok = strRaw(b, v)
			ok = ok && !channel && match(c)
			channel = true
		case string(key) == "data":
			ok = !data
			data = true
			if ok {
				out, i, ok = tradesArrayFast(b, v, out, scan)
			}
		default:
			for _, d := range deny {
				if string(key) == d {
					return out[:n], false
				}
			}
			var err error
			i, err = skipValue(b, v, 1)
			ok = err == nil
		}
		if !ok {
			return out[:n], false
		}
		var more bool
		if i, more, ok = objNext(b, i); !ok {
			return out[:n], false
		}
		if !more {
			if !channel || !data || trailing(b, i) != nil {
				return out[:n], false
			}
			return out, true
		}
	}
}

var (
	bybitDeny  = []string{"op", "success", "ret_msg"}
	krakenDeny = []string{"method", "success", "error"}
)

func isPublicTrade(t []byte) bool { return bytes.HasPrefix(t, []byte("publicTrade.")) }
func isTrades(c []byte) bool      { return string(c) == "trades" }
func isTrade(c []byte) bool       { return string(c) == "trade" }

// bybitFast decodes {"topic":"publicTrade.…", ..., "data":[...]}.
func (p *bybitParser) bybitFast(b []byte, venue string, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return envelopeFast(b, out, "topic", isPublicTrade, bybitDeny, func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool) {
		var f bybitFields
		i, ok := bybitScan(b, i, 2, &f)
		if !ok {
			return out, 0, false
		}
		out, ok = p.tradeFast(&f, venue, ingest, out)
		return out, i, ok
	})
}

// hyperliquidFast decodes {"channel":"trades","data":[...]}.
func (p *hyperliquidParser) hyperliquidFast(b []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return envelopeFast(b, out, "channel", isTrades, nil, func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool) {
		var f hyperliquidFields
		i, ok := hyperliquidScan(b, i, 2, &f)
		if !ok {
			return out, 0, false
		}
		out, ok = p.tradeFast(&f, ingest, out)
		return out, i, ok
	})
}

// krakenFast decodes {"channel":"trade", ..., "data":[...]} with no
// method, success or error member.
func (p *krakenParser) krakenFast(b []byte, ingest int64, out []sources.Record) ([]sources.Record, bool) {
	return envelopeFast(b, out, "channel", isTrade, krakenDeny, func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool) {
		var f krakenFields
		i, ok := krakenScan(b, i, 2, &f)
		if !ok {
			return out, 0, false
		}
		out, ok = p.tradeFast(&f, ingest, out)
		return out, i, ok
	})
}
