// Package venuetest holds what the tests of the venue decoders share: the
// comparison of two decoders' records, field by field and float bit by
// float bit, which the differential tests (fast path against general path,
// live decoder against capture reader) rest on.
package venuetest

import (
	"bytes"
	"fmt"
	"math"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// DiffTrade returns the first field in which a and b differ ("" if none);
// floats are compared bit for bit.
func DiffTrade(a, b *schemas.Trade) string {
	type f struct {
		name string
		x, y any
	}
	for _, c := range []f{
		{"Venue", a.Venue, b.Venue}, {"VenueKind", a.VenueKind, b.VenueKind}, {"Chain", a.Chain, b.Chain},
		{"Market", a.Market, b.Market}, {"Symbol", a.Symbol, b.Symbol}, {"VenueSymbol", a.VenueSymbol, b.VenueSymbol},
		{"EventTimeNs", a.EventTimeNs, b.EventTimeNs}, {"IngestTimeNs", a.IngestTimeNs, b.IngestTimeNs},
		{"Price", math.Float64bits(a.Price), math.Float64bits(b.Price)},
		{"Size", math.Float64bits(a.Size), math.Float64bits(b.Size)},
		{"NotionalUsd", math.Float64bits(a.NotionalUsd), math.Float64bits(b.NotionalUsd)},
		{"Side", a.Side, b.Side}, {"TradeId", a.TradeId, b.TradeId}, {"LogIndex", a.LogIndex, b.LogIndex},
		{"Wallet", a.Wallet, b.Wallet}, {"Source", a.Source, b.Source},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s: %v != %v", c.name, c.x, c.y)
		}
	}
	return ""
}

// DiffRecords returns why two record lists differ, or "".
func DiffRecords(fast, general []sources.Record) string {
	if len(fast) != len(general) {
		return fmt.Sprintf("%d records != %d", len(fast), len(general))
	}
	for i := range fast {
		a, b := fast[i], general[i]
		switch {
		case (a.Trade == nil) != (b.Trade == nil):
			return fmt.Sprintf("record %d: trade %v != %v (%q / %q)", i, a.Trade != nil, b.Trade != nil, a.Reason, b.Reason)
		case a.Trade != nil:
			if d := DiffTrade(a.Trade, b.Trade); d != "" {
				return fmt.Sprintf("record %d: %s", i, d)
			}
		case (a.Side == nil) != (b.Side == nil):
			return fmt.Sprintf("record %d: side record %v != %v", i, a.Side != nil, b.Side != nil)
		case a.Side != nil:
			if a.Side.Topic != b.Side.Topic || !bytes.Equal(a.Side.Key, b.Side.Key) || !bytes.Equal(a.Side.Value, b.Side.Value) {
				return fmt.Sprintf("record %d: side record %s %q differs", i, a.Side.Topic, a.Side.Key)
			}
		case a.Reason != b.Reason || !bytes.Equal(a.Raw, b.Raw) || a.DLQ != b.DLQ:
			return fmt.Sprintf("record %d: reject %q != %q", i, a.Reason, b.Reason)
		}
	}
	return ""
}
