package operators

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/schemas"
)

// Config holds the tunables of an Engine. Start from DefaultConfig.
type Config struct {
	// LatenessCEX, LatenessOnchainDEX and LatenessSolanaDEX are the allowed
	// lateness per venue kind (DESIGN.md §4): a trade of kind k is late when
	// its event time is before the newest accepted event time of kind k in
	// the partition minus the lateness of k. Zero allows no lateness at all;
	// negative values are invalid.
	LatenessCEX, LatenessOnchainDEX, LatenessSolanaDEX time.Duration

	// MaxFutureSkew rejects a trade whose event time is more than this ahead
	// of the partition's newest accepted event time, with reason
	// "future timestamp". It protects the watermark from one absurd record.
	// It is not applied to the first trade of a partition. It must be > 0.
	MaxFutureSkew time.Duration
}

// DefaultConfig returns the defaults: lateness 5s for CEX, 30s for EVM DEX,
// 10s for Solana DEX trades, and a maximum future skew of 1h.
func DefaultConfig() Config {
	return Config{
		LatenessCEX:        5 * time.Second,
		LatenessOnchainDEX: 30 * time.Second,
		LatenessSolanaDEX:  10 * time.Second,
		MaxFutureSkew:      time.Hour,
	}
}

// Validate reports why c cannot be used, or nil.
func (c Config) Validate() error {
	switch {
	case c.LatenessCEX < 0:
		return fmt.Errorf("cannot use negative LatenessCEX %s", c.LatenessCEX)
	case c.LatenessOnchainDEX < 0:
		return fmt.Errorf("cannot use negative LatenessOnchainDEX %s", c.LatenessOnchainDEX)
	case c.LatenessSolanaDEX < 0:
		return fmt.Errorf("cannot use negative LatenessSolanaDEX %s", c.LatenessSolanaDEX)
	case c.MaxFutureSkew <= 0:
		return fmt.Errorf("cannot use MaxFutureSkew %s: it must be positive", c.MaxFutureSkew)
	}
	return nil
}

// lateness returns the allowed lateness of venue kind k in nanoseconds,
// indexed by schemas.VenueKind.
func (c Config) lateness() [numKinds]int64 {
	var l [numKinds]int64
	l[schemas.VenueKind_VENUE_KIND_CEX] = int64(c.LatenessCEX)
	l[schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX] = int64(c.LatenessOnchainDEX)
	l[schemas.VenueKind_VENUE_KIND_SOLANA_DEX] = int64(c.LatenessSolanaDEX)
	return l
}
