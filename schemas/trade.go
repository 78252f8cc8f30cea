package schemas

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Bounds on event times the pipeline accepts: nothing before 2009-01-03 (the
// first Bitcoin block) and nothing from 2100 on.
const (
	MinEventTimeNs int64 = 1230940800 * 1e9
	MaxEventTimeNs int64 = 4102444800 * 1e9
)

// ErrInvalidTrade is wrapped by every error Validate returns.
var ErrInvalidTrade = errors.New("invalid trade")

// Validate reports why a trade cannot enter the pipeline, or nil. The error
// text is the dead-letter reason: a short, stable phrase first ("bad price",
// "bad size", ...), then details.
func Validate(t *Trade) error {
	switch {
	case t == nil:
		return fmt.Errorf("%w: missing", ErrInvalidTrade)
	case t.Symbol == "":
		return fmt.Errorf("%w: missing symbol", ErrInvalidTrade)
	case t.Venue == "":
		return fmt.Errorf("%w: missing venue", ErrInvalidTrade)
	case t.TradeId == "":
		return fmt.Errorf("%w: missing trade id", ErrInvalidTrade)
	case !(t.Price > 0) || math.IsInf(t.Price, 0):
		return fmt.Errorf("%w: bad price %v", ErrInvalidTrade, t.Price)
	case !(t.Size > 0) || math.IsInf(t.Size, 0):
		return fmt.Errorf("%w: bad size %v", ErrInvalidTrade, t.Size)
	case !(t.NotionalUsd >= 0) || math.IsInf(t.NotionalUsd, 0):
		return fmt.Errorf("%w: bad notional %v", ErrInvalidTrade, t.NotionalUsd)
	case t.EventTimeNs < MinEventTimeNs || t.EventTimeNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd timestamp %d", ErrInvalidTrade, t.EventTimeNs)
	case t.Side != Side_SIDE_BUY && t.Side != Side_SIDE_SELL && t.Side != Side_SIDE_UNKNOWN:
		return fmt.Errorf("%w: bad side %d", ErrInvalidTrade, t.Side)
	case t.VenueKind == VenueKind_VENUE_KIND_UNSPECIFIED || t.VenueKind > VenueKind_VENUE_KIND_SOLANA_DEX:
		return fmt.Errorf("%w: bad venue kind %d", ErrInvalidTrade, t.VenueKind)
	}
	return nil
}

// DedupeKey appends the identity of a trade to b: venue, trade id (or
// transaction hash) and log index. Two trades with the same key are the same
// trade seen twice.
func DedupeKey(b []byte, t *Trade) []byte {
	b = append(b, t.Venue...)
	b = append(b, 0)
	b = append(b, t.TradeId...)
	b = append(b, 0)
	return strconv.AppendUint(b, uint64(t.LogIndex), 10)
}

// SideName is the API spelling of a side: BUY, SELL or UNKNOWN.
func SideName(s Side) string {
	switch s {
	case Side_SIDE_BUY:
		return "BUY"
	case Side_SIDE_SELL:
		return "SELL"
	}
	return "UNKNOWN"
}

// VenueKindName is the dataset spelling of a venue kind: cex, onchain_dex,
// solana_dex, or unknown.
func VenueKindName(k VenueKind) string {
	switch k {
	case VenueKind_VENUE_KIND_CEX:
		return "cex"
	case VenueKind_VENUE_KIND_ONCHAIN_DEX:
		return "onchain_dex"
	case VenueKind_VENUE_KIND_SOLANA_DEX:
		return "solana_dex"
	}
	return "unknown"
}
