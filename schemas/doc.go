// Package schemas holds the record types of every topic and file of the
// Market Intelligence Service, their Protocol Buffers wire encoding
// (mi.proto, with the generated mi.pb.go committed beside it) and the rules
// a record must satisfy before the pipeline accepts it.
//
// Regenerate mi.pb.go with `make proto`.
package schemas

// Topic names. Topics are versioned; a breaking change makes a new topic.
const (
	TopicTrades        = "mi.trades.v1"         // Trade, key = symbol
	TopicTradesDLQ     = "mi.trades.dlq.v1"     // rejected input, reason in header "reason"
	TopicCandles       = "mi.candles.v1"        // Candle, key = symbol|venue
	TopicSignals       = "mi.signals.v1"        // IntelligenceDocument, compacted, key = symbol|window
	TopicSignalMinutes = "mi.signal-minutes.v1" // IntelligenceDocument taken at each minute close, key = symbol|window
	TopicSignalChanges = "mi.signal-changes.v1" // SignalChange, key = symbol|window
	TopicEvents        = "mi.events.v1"         // alertable events
	TopicState         = "mi.state.v1"          // operator changelog, compacted, key = symbol (see pipeline)
	TopicSourceOffsets = "mi.source-offsets.v1" // source checkpoints, compacted, key = source name
)

// Windows are the analysis windows of the intelligence documents, shortest first.
var Windows = []string{"1m", "5m", "15m"}

// WindowSeconds returns the length of a window name and whether it is known.
func WindowSeconds(w string) (int64, bool) {
	switch w {
	case "1m":
		return 60, true
	case "5m":
		return 300, true
	case "15m":
		return 900, true
	}
	return 0, false
}
