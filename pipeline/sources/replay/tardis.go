package replay

import (
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// tardisColumns is the header of a Tardis.dev normalized trades CSV.
var tardisColumns = []string{"exchange", "symbol", "timestamp", "local_timestamp", "id", "side", "price", "amount"}

// tardisVenues maps Tardis exchange ids to venue ids; other ids keep their
// name with '-' replaced by '_'.
var tardisVenues = map[string]string{
	"binance":          "binance",
	"binance-futures":  "binance_usdm",
	"binance-delivery": "binance_coinm",
	"bybit-spot":       "bybit",
	"coinbase":         "coinbase",
}

// tardisParser reads Tardis.dev trades CSV: timestamps are Unix µs, side is
// the aggressor (buy, sell or unknown), amount is what the exchange reports:
// base units, except on inverse contracts (BitMEX XBTUSD: 1 USD each;
// Binance COIN-M: 100 USD for BTC, 10 USD otherwise), which are converted.
type tardisParser struct {
	base
	idx    [8]int
	fields []string
}

func newTardisParser(header []string) (*tardisParser, error) {
	m, err := columnIndex(header)
	if err != nil {
		return nil, err
	}
	p := &tardisParser{}
	for i, c := range tardisColumns {
		j, ok := m[c]
		if !ok {
			return nil, fmt.Errorf("bad header: missing column %q", c)
		}
		p.idx[i] = j
	}
	return p, nil
}

func (p *tardisParser) parse(line []byte, out []sources.Record) []sources.Record {
	p.fields = splitCSV(string(line), p.fields)
	f := p.fields
	if len(f) != len(tardisColumns) {
		return append(out, reject(line, fmt.Sprintf("malformed csv: %d fields, want %d", len(f), len(tardisColumns))))
	}
	get := func(i int) string { return strings.TrimSpace(f[p.idx[i]]) }
	if get(0) == "exchange" && get(1) == "symbol" {
		p.skipped++ // the header row
		return out
	}
	exchange := get(0)
	venue, ok := tardisVenues[exchange]
	if !ok {
		venue = strings.ReplaceAll(exchange, "-", "_")
	}
	if venue == "" {
		return append(out, reject(line, "missing venue: exchange is empty"))
	}
	t := &schemas.Trade{Venue: venue, VenueKind: schemas.VenueKind_VENUE_KIND_CEX}
	us, ok := parseInt([]byte(get(2)))
	if !ok || us <= 0 || us > 1<<62/1000 {
		return append(out, reject(line, "bad timestamp: timestamp is not Unix µs"))
	}
	t.EventTimeNs = us * 1000
	if s := get(3); s != "" {
		lus, ok := parseInt([]byte(s))
		if !ok || lus <= 0 || lus > 1<<62/1000 {
			return append(out, reject(line, "bad timestamp: local_timestamp is not Unix µs"))
		}
		t.IngestTimeNs = lus * 1000
	}
	t.TradeId = get(4)
	if t.TradeId == "" {
		return append(out, reject(line, "bad trade id: missing"))
	}
	if t.Side, ok = parseSide([]byte(get(5))); !ok {
		return append(out, reject(line, "bad side: "+get(5)))
	}
	if t.Price, ok = parseDecimal([]byte(get(6))); !ok {
		return append(out, reject(line, "bad price: price is not a decimal"))
	}
	amount, ok := parseDecimal([]byte(get(7)))
	if !ok {
		return append(out, reject(line, "bad size: amount is not a decimal"))
	}
	sym := p.symbol(venue, []byte(get(1)))
	t.Market = sym.venueSymbol
	usd, inverse, known := tardisInverse(venue, sym.venueSymbol)
	switch {
	case !known:
		return append(out, reject(line, "unknown contract size: "+venue+" "+sym.venueSymbol))
	case inverse:
		t.NotionalUsd = amount * usd
		t.Size = t.NotionalUsd / t.Price
	default:
		t.Size = amount
		t.NotionalUsd = t.Price * amount
	}
	return p.emit(out, line, t, sym)
}

// tardisInverse says whether a Tardis amount is in USD contracts and their
// face value. known is false for BitMEX symbols other than XBTUSD, whose
// contracts (quanto, linear) this reader does not convert.
func tardisInverse(venue, symbol string) (usd float64, inverse, known bool) {
	switch venue {
	case "bitmex":
		if symbol == "XBTUSD" {
			return 1, true, true
		}
		return 0, false, false
	case "binance_coinm":
		return coinmContractUSD(symbol), true, true
	}
	return 0, false, true
}
