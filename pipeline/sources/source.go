// Package sources defines what every trade source yields. The venue
// connectors, the replay reader and the simulator live in sub-packages.
package sources

import (
	"context"

	"github.com/marketintel/mi/schemas"
)

// Record is one item a source yields: a trade, an input it rejected, or a
// gap. Exactly one of Trade, Gap and Raw is set.
type Record struct {
	// Trade is the normalized trade; nil when the input was rejected or
	// the record is a gap.
	Trade *schemas.Trade
	// Raw is the rejected input as read, when Trade and Gap are nil.
	Raw []byte
	// Reason says why the input was rejected: a short stable phrase first
	// ("malformed json", "bad price", ...), then details.
	Reason string
	// Gap, when set, is a stretch of Symbol's trades the source could not
	// deliver and cannot backfill: its times (Unix ns, inclusive) and its
	// reason ("disconnected", "missed trades: ..."). Gap.Source may be
	// empty; the pipeline stamps the source's name. A gap is never a
	// trade: readers that want trades only skip records without Trade.
	Gap *schemas.Gap
	// Symbol is the normalized symbol a Gap concerns.
	Symbol string
}

// Source yields records in a deterministic order: reading the same input
// again yields the same records in the same order, which is what lets the
// pipeline resume a source after a crash by skipping the records it has
// already committed.
type Source interface {
	// Name identifies the source in logs, /status and checkpoints,
	// e.g. "replay:binance_spot_BTCUSDT_ws_raw_2024-08-08".
	Name() string
	// Next returns the next record. It returns io.EOF when a finite source
	// is exhausted. Rejected inputs are records with a Reason, never errors:
	// an error means the source itself cannot go on.
	Next(ctx context.Context) (Record, error)
	// Close releases the source's resources.
	Close() error
}
