package replay

import (
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/binance"
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
	venue.Base
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
		return append(out, venue.Reject(line, fmt.Sprintf("malformed csv: %d fields, want %d", len(f), len(tardisColumns))))
	}
	get := func(i int) string { return strings.TrimSpace(f[p.idx[i]]) }
	if get(0) == "exchange" && get(1) == "symbol" {
		p.Skip(nil) // the header row
		return out
	}
	exchange := get(0)
	venueID, ok := tardisVenues[exchange]
	if !ok {
		venueID = strings.ReplaceAll(exchange, "-", "_")
	}
	if venueID == "" {
		return append(out, venue.Reject(line, "missing venueID: exchange is empty"))
	}
	t := &schemas.Trade{Venue: venueID, VenueKind: schemas.VenueKind_VENUE_KIND_CEX}
	us, ok := js.ParseInt([]byte(get(2)))
	if !ok || us <= 0 || us > 1<<62/1000 {
		return append(out, venue.Reject(line, "bad timestamp: timestamp is not Unix µs"))
	}
	t.EventTimeNs = us * 1000
	if s := get(3); s != "" {
		lus, ok := js.ParseInt([]byte(s))
		if !ok || lus <= 0 || lus > 1<<62/1000 {
			return append(out, venue.Reject(line, "bad timestamp: local_timestamp is not Unix µs"))
		}
		t.IngestTimeNs = lus * 1000
	}
	t.TradeId = get(4)
	if t.TradeId == "" {
		return append(out, venue.Reject(line, "bad trade id: missing"))
	}
	if t.Side, ok = venue.ParseSide([]byte(get(5))); !ok {
		return append(out, venue.Reject(line, "bad side: "+get(5)))
	}
	if t.Price, ok = js.ParseDecimal([]byte(get(6))); !ok {
		return append(out, venue.Reject(line, "bad price: price is not a decimal"))
	}
	amount, ok := js.ParseDecimal([]byte(get(7)))
	if !ok {
		return append(out, venue.Reject(line, "bad size: amount is not a decimal"))
	}
	sym := p.Symbol(venueID, []byte(get(1)))
	t.Market = sym.VenueSymbol
	usd, inverse, known := tardisInverse(venueID, sym.VenueSymbol)
	switch {
	case !known:
		return append(out, venue.Reject(line, "unknown contract size: "+venueID+" "+sym.VenueSymbol))
	case inverse:
		t.NotionalUsd = amount * usd
		t.Size = t.NotionalUsd / t.Price
	default:
		t.Size = amount
		t.NotionalUsd = t.Price * amount
	}
	return p.Emit(out, line, t, sym)
}

// tardisInverse says whether a Tardis amount is in USD contracts and their
// face value. known is false for BitMEX symbols other than XBTUSD, whose
// contracts (quanto, linear) this reader does not convert.
func tardisInverse(venueID, symbol string) (usd float64, inverse, known bool) {
	switch venueID {
	case "bitmex":
		if symbol == "XBTUSD" {
			return 1, true, true
		}
		return 0, false, false
	case "binance_coinm":
		return binance.ContractUSD(symbol), true, true
	}
	return 0, false, true
}
