package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// The generic normalized trade format, as CSV (header row naming the
// columns, any order) or NDJSON (one object a line). Fields:
//
//	time          RFC 3339 with optional fraction, or integer Unix ns
//	venue         venue id
//	symbol        a venue symbol (normalized through the registry) or a normalized symbol
//	price         decimal, quote per base in USD
//	size          decimal, base units
//	side          buy, sell or unknown (case-insensitive)
//	trade_id      venue trade id or transaction hash
//	venue_kind    optional: cex (default), onchain_dex, solana_dex
//	chain         optional
//	market        optional (pool address or venue market id)
//	notional_usd  optional, default price*size
//	wallet        optional
//	log_index     optional, default 0
var genericRequired = []string{"time", "venue", "symbol", "price", "size", "side", "trade_id"}

var genericOptional = []string{"venue_kind", "chain", "market", "notional_usd", "wallet", "log_index"}

// genericRow holds one row's fields as text.
type genericRow struct {
	time, venue, symbol, price, size, side, tradeID []byte
	venueKind, chain, market, notional, wallet, log []byte
	timeIsNumber                                    bool
}

type genericParser struct {
	venue.Base
	csv    bool
	idx    map[string]int
	width  int
	fields []string
}

func newGenericJSONParser() *genericParser { return &genericParser{} }

func newGenericCSVParser(header []string) (*genericParser, error) {
	m, err := columnIndex(header)
	if err != nil {
		return nil, err
	}
	for _, c := range genericRequired {
		if _, ok := m[c]; !ok {
			return nil, fmt.Errorf("bad header: missing column %q", c)
		}
	}
	return &genericParser{csv: true, idx: m, width: len(header)}, nil
}

func (p *genericParser) parse(line []byte, out []sources.Record) []sources.Record {
	var r genericRow
	if p.csv {
		p.fields = splitCSV(string(line), p.fields)
		if len(p.fields) != p.width {
			return append(out, venue.Reject(line, fmt.Sprintf("malformed csv: %d fields, want %d", len(p.fields), p.width)))
		}
		col := func(name string) []byte {
			if i, ok := p.idx[name]; ok {
				return []byte(strings.TrimSpace(p.fields[i]))
			}
			return nil
		}
		r.time, r.venue, r.symbol = col("time"), col("venue"), col("symbol")
		if string(r.time) == "time" && string(r.venue) == "venue" {
			p.Skip(nil) // the header row
			return out
		}
		r.price, r.size, r.side, r.tradeID = col("price"), col("size"), col("side"), col("trade_id")
		r.venueKind, r.chain, r.market = col("venue_kind"), col("chain"), col("market")
		r.notional, r.wallet, r.log = col("notional_usd"), col("wallet"), col("log_index")
		r.timeIsNumber = allDigits(r.time)
	} else {
		bad := ""
		str := func(v []byte, name string) []byte {
			if string(v) == "null" {
				return nil
			}
			s, nb, ok := js.String(v, p.Scratch)
			p.Scratch = nb
			if !ok {
				bad = "wrong type: " + name + " is not a string"
			}
			return s
		}
		num := func(v []byte, name string) []byte {
			if string(v) == "null" {
				return nil
			}
			s, ok := js.NumOrString(v)
			if !ok {
				bad = "wrong type: " + name + " is not a number"
			}
			return s
		}
		p.Scratch = p.Scratch[:0]
		err := js.EachField(line, func(k, v []byte) bool {
			switch string(k) {
			case "time":
				r.timeIsNumber = len(v) > 0 && v[0] != '"'
				r.time = num(v, "time")
				if allDigits(r.time) {
					r.timeIsNumber = true // integer ns, possibly as a string
				}
			case "venue":
				r.venue = str(v, "venue")
			case "symbol":
				r.symbol = str(v, "symbol")
			case "price":
				r.price = num(v, "price")
			case "size":
				r.size = num(v, "size")
			case "side":
				r.side = str(v, "side")
			case "trade_id":
				r.tradeID, _ = js.NumOrString(v)
				if r.tradeID == nil && string(v) != "null" {
					bad = "wrong type: trade_id is not a string"
				}
			case "venue_kind":
				r.venueKind = str(v, "venue_kind")
			case "chain":
				r.chain = str(v, "chain")
			case "market":
				r.market = str(v, "market")
			case "notional_usd":
				r.notional = num(v, "notional_usd")
			case "wallet":
				r.wallet = str(v, "wallet")
			case "log_index":
				r.log = num(v, "log_index")
			}
			return true
		})
		if err != nil {
			return append(out, venue.Reject(line, "malformed json"))
		}
		if bad != "" {
			return append(out, venue.Reject(line, bad))
		}
	}
	return p.row(line, &r, out)
}

func (p *genericParser) row(line []byte, r *genericRow, out []sources.Record) []sources.Record {
	t := &schemas.Trade{}
	var ok bool
	switch {
	case len(r.time) == 0:
		return append(out, venue.Reject(line, "bad timestamp: time is missing"))
	case r.timeIsNumber:
		if t.EventTimeNs, ok = js.ParseInt(r.time); !ok {
			return append(out, venue.Reject(line, "bad timestamp: time is not an integer of Unix ns"))
		}
	default:
		if t.EventTimeNs, ok = venue.RFC3339Ns(r.time); !ok {
			return append(out, venue.Reject(line, "bad timestamp: time is not RFC 3339"))
		}
	}
	t.Venue = string(r.venue)
	if t.Venue == "" {
		return append(out, venue.Reject(line, "missing venue"))
	}
	if t.Price, ok = js.ParseDecimal(r.price); !ok {
		return append(out, venue.Reject(line, "bad price: not a decimal"))
	}
	if t.Size, ok = js.ParseDecimal(r.size); !ok {
		return append(out, venue.Reject(line, "bad size: not a decimal"))
	}
	switch strings.ToLower(string(r.side)) {
	case "buy":
		t.Side = schemas.Side_SIDE_BUY
	case "sell":
		t.Side = schemas.Side_SIDE_SELL
	case "unknown":
		t.Side = schemas.Side_SIDE_UNKNOWN
	default:
		return append(out, venue.Reject(line, "bad side: "+strconv.Quote(string(r.side))+" (want buy, sell or unknown)"))
	}
	t.TradeId = string(r.tradeID)
	if t.TradeId == "" {
		return append(out, venue.Reject(line, "bad trade id: missing"))
	}
	switch strings.ToLower(string(r.venueKind)) {
	case "", "cex":
		t.VenueKind = schemas.VenueKind_VENUE_KIND_CEX
	case "onchain_dex":
		t.VenueKind = schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX
	case "solana_dex":
		t.VenueKind = schemas.VenueKind_VENUE_KIND_SOLANA_DEX
	default:
		return append(out, venue.Reject(line, "bad venue kind: "+strconv.Quote(string(r.venueKind))))
	}
	t.Chain, t.Market, t.Wallet = string(r.chain), string(r.market), string(r.wallet)
	t.NotionalUsd = t.Price * t.Size
	if len(r.notional) > 0 {
		if t.NotionalUsd, ok = js.ParseDecimal(r.notional); !ok {
			return append(out, venue.Reject(line, "bad notional: notional_usd is not a decimal"))
		}
	}
	if len(r.log) > 0 {
		n, err := strconv.ParseUint(string(r.log), 10, 32)
		if err != nil || n > math.MaxUint32 {
			return append(out, venue.Reject(line, "bad log index: not a 32-bit unsigned integer"))
		}
		t.LogIndex = uint32(n)
	}
	sym := p.Symbol(t.Venue, r.symbol)
	if t.Market == "" {
		t.Market = sym.VenueSymbol
	}
	return p.Emit(out, line, t, sym)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
