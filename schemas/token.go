package schemas

import (
	"errors"
	"fmt"
	"math"
)

// Topics of the token-analysis records (schemas/token.proto, docs/token.md).
const (
	// TopicStablecoins carries StablecoinQuote records of the depeg
	// watch, key symbol|chain.
	TopicStablecoins = "mi.stablecoins.v1"
	// TopicTokenRisk carries TokenRiskObservation records of the watched
	// tokens' scheduled checks, key chain:token.
	TopicTokenRisk = "mi.token-risk.v1"
)

// ErrInvalidTokenRecord is wrapped by the validation errors of the token
// records: the reason a record is dead-lettered.
var ErrInvalidTokenRecord = errors.New("invalid token record")

// ValidateStablecoinQuote checks a depeg-watch reading.
func ValidateStablecoinQuote(q *StablecoinQuote) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case q == nil:
		return fmt.Errorf("%w: missing", ErrInvalidTokenRecord)
	case q.Symbol == "" || q.Chain == "":
		return fmt.Errorf("%w: missing symbol or chain", ErrInvalidTokenRecord)
	case q.ObservedNs < MinEventTimeNs || q.ObservedNs >= MaxEventTimeNs || q.ReadNs < MinEventTimeNs || q.ReadNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd timestamp %d / %d", ErrInvalidTokenRecord, q.ObservedNs, q.ReadNs)
	case !finite(q.DexPrice) || q.DexPrice <= 0 || q.DexPrice > 1e6:
		return fmt.Errorf("%w: bad price %v", ErrInvalidTokenRecord, q.DexPrice)
	case !finite(q.DepthUsd) || q.DepthUsd < 0:
		return fmt.Errorf("%w: bad depth %v", ErrInvalidTokenRecord, q.DepthUsd)
	case q.HasOracle && (!finite(q.OraclePrice) || q.OraclePrice < 0):
		return fmt.Errorf("%w: bad oracle price %v", ErrInvalidTokenRecord, q.OraclePrice)
	}
	return nil
}

// ValidateTokenRiskObservation checks a watched token's risk check.
func ValidateTokenRiskObservation(o *TokenRiskObservation) error {
	switch {
	case o == nil:
		return fmt.Errorf("%w: missing", ErrInvalidTokenRecord)
	case o.Chain == "" || o.Token == "":
		return fmt.Errorf("%w: missing chain or token", ErrInvalidTokenRecord)
	case o.ObservedNs < MinEventTimeNs || o.ObservedNs >= MaxEventTimeNs || o.ReadNs < MinEventTimeNs || o.ReadNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd timestamp %d / %d", ErrInvalidTokenRecord, o.ObservedNs, o.ReadNs)
	case o.Verdict == "":
		return fmt.Errorf("%w: missing verdict", ErrInvalidTokenRecord)
	case o.SafetyScore < 0 || o.SafetyScore > 100:
		return fmt.Errorf("%w: safety score %d outside 0..100", ErrInvalidTokenRecord, o.SafetyScore)
	}
	return nil
}
