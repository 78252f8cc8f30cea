// Package sources defines what every trade source yields. The venue
// connectors, the replay reader and the simulator live in sub-packages.
package sources

import (
	"context"

	"github.com/marketintel/mi/schemas"
)

// Record is one item a source yields: a trade, an input it rejected, a gap,
// or a record for a side topic. Exactly one of Trade, Gap, Side and Raw is
// set.
type Record struct {
	// Trade is the normalized trade; nil when the input was rejected or
	// the record is a gap or a side record.
	Trade *schemas.Trade
	// Raw is the rejected input as read, when Trade, Gap and Side are nil.
	Raw []byte
	// Reason says why the input was rejected: a short stable phrase first
	// ("malformed json", "bad price", ...), then details.
	Reason string
	// DLQ is the dead-letter topic of a rejected input: empty means
	// mi.trades.dlq.v1; a source rejecting input meant for a side topic
	// names that topic's (see pipeline/sidetopic, Topic.Reject).
	DLQ string
	// Side, when set, is a record for a topic other than mi.trades.v1
	// (pool events, rates, ...): see pipeline/sidetopic, which builds it.
	Side *SideRecord
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

// SideRecord is a record a source writes to a side topic: a topic of typed
// records other than trades, read by views in every API instance
// (docs/topics.md, "Side topics"). The ingest loop writes it in the same
// transaction as the source's other records, with the source's "source"
// and "seq" headers after Headers.
type SideRecord struct {
	Topic   string
	Key     []byte
	Value   []byte // the record's protobuf encoding
	Headers []Header
}

// Header is one Kafka record header.
type Header struct {
	Key   string
	Value []byte
}
