// Package datasets is the on-disk layout of the history files (DESIGN.md §6):
// hive-partitioned Parquet day files of candles, signal documents, normalized
// trades and the signal-change log, their catalog, retention roll-ups and
// JSON/CSV export. The Parquet sink writes these files, the query tier and
// quants read them with DuckDB; docs/datasets.md documents every column.
//
// A day is complete or absent: a day file is written to a temporary name and
// renamed into place once whole. Until its UTC day closes, a day's rows live
// in part files under the staging tree, which readers consult only for
// (date, venue) pairs that have no day file yet.
package datasets

import (
	"fmt"
	"path/filepath"
	"time"
)

// Kinds of dataset, the first directory under the data root.
const (
	KindCandles       = "candles"
	KindSignals       = "signals"
	KindTrades        = "trades"
	KindSignalChanges = "signal_changes"
)

// Candle intervals, stored resolutions of the candles dataset. 1m is kept 7
// days, 5m 30 days, 15m 180 days, 1h forever (spec §8; retention.go).
const (
	Interval1m  = "1m"
	Interval5m  = "5m"
	Interval15m = "15m"
	Interval1h  = "1h"
)

// Intervals lists the stored candle resolutions, finest first.
var Intervals = []string{Interval1m, Interval5m, Interval15m, Interval1h}

// DayFileName is the name of a complete day file inside its partition
// directory.
const DayFileName = "data.parquet"

// StagingDir is the directory under the data root that holds the part files
// of days not yet closed, laid out like the day files below it.
const StagingDir = "staging"

// DateFormat is the layout of the date= partition value.
const DateFormat = "2006-01-02"

// Day returns the UTC date string of t, the date= partition value.
func Day(t time.Time) string { return t.UTC().Format(DateFormat) }

// CandleDir is <root>/candles/interval=<interval>/date=<day>/venue=<venue>.
func CandleDir(root, interval, day, venue string) string {
	return filepath.Join(root, KindCandles, "interval="+interval, "date="+day, "venue="+venue)
}

// SignalDir is <root>/signals/window=<window>/date=<day>: the documents of
// every symbol for one analysis window (1m, 5m, 15m) at each minute close.
func SignalDir(root, window, day string) string {
	return filepath.Join(root, KindSignals, "window="+window, "date="+day)
}

// TradeDir is <root>/trades/date=<day>/venue=<venue>.
func TradeDir(root, day, venue string) string {
	return filepath.Join(root, KindTrades, "date="+day, "venue="+venue)
}

// SignalChangeDir is <root>/signal_changes/date=<day>: every published
// signal change (mi.signal-changes.v1) of the day.
func SignalChangeDir(root, day string) string {
	return filepath.Join(root, KindSignalChanges, "date="+day)
}

// Staged returns the staging counterpart of a partition directory under
// root: <root>/staging/<dir relative to root>.
func Staged(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		panic(fmt.Sprintf("BUG: %s is not under %s", dir, root))
	}
	return filepath.Join(root, StagingDir, rel)
}

// CandleGlob is the DuckDB glob over the day files of one candle interval;
// read it with hive_partitioning so date and venue become columns.
func CandleGlob(root, interval string) string {
	return filepath.Join(root, KindCandles, "interval="+interval, "date=*", "venue=*", DayFileName)
}

// Column is one column of a dataset file.
type Column struct {
	Name string
	// Type is the DuckDB type the column reads as.
	Type string
	// Doc says what the column holds and its unit.
	Doc string
}

// CandleColumns are the columns of a candle file, in file order. The
// partition columns interval, date and venue come from the path.
var CandleColumns = []Column{
	{"ts", "TIMESTAMP WITH TIME ZONE", "bucket start, UTC, aligned to the interval (Parquet TIMESTAMP micros, adjusted to UTC)"},
	{"symbol", "VARCHAR", "normalized symbol, e.g. ETHUSD"},
	{"venue_kind", "VARCHAR", "onchain_dex, solana_dex or cex"},
	{"chain", "VARCHAR", "chain of an on-chain venue (ethereum, base, ...), empty for cex"},
	{"open", "DOUBLE", "first trade price, quote units (USD)"},
	{"high", "DOUBLE", "highest trade price"},
	{"low", "DOUBLE", "lowest trade price"},
	{"close", "DOUBLE", "last trade price"},
	{"volume", "DOUBLE", "traded size, base units"},
	{"volume_usd", "DOUBLE", "traded notional, USD"},
	{"buy_volume", "DOUBLE", "size bought by aggressors, base units"},
	{"sell_volume", "DOUBLE", "size sold by aggressors, base units"},
	{"buy_volume_usd", "DOUBLE", "notional bought by aggressors, USD"},
	{"sell_volume_usd", "DOUBLE", "notional sold by aggressors, USD"},
	{"buy_pressure", "DOUBLE", "100 * buy_volume_usd / (buy_volume_usd + sell_volume_usd); 50 when both are 0"},
	{"vwap", "DOUBLE", "sum(price*size)/sum(size)"},
	{"trade_count", "BIGINT", "trades in the bucket"},
	{"buy_count", "BIGINT", "trades with aggressor side BUY"},
	{"sell_count", "BIGINT", "trades with aggressor side SELL"},
	{"unknown_side_count", "BIGINT", "trades whose aggressor side is unknown"},
}

// SignalColumns are the columns of a signal-document file, in file order.
// The partition columns window and date come from the path.
var SignalColumns = []Column{
	{"ts", "TIMESTAMP WITH TIME ZONE", "document timestamp (the minute close it was taken at), UTC"},
	{"symbol", "VARCHAR", "normalized symbol"},
	{"id", "VARCHAR", "document id"},
	{"price", "DOUBLE", "latest trade price"},
	{"price_change_percent", "DOUBLE", "price change over the window, percent"},
	{"volume", "DOUBLE", "USD volume in the window"},
	{"buy_pressure", "DOUBLE", "percent 0..100"},
	{"trade_count", "BIGINT", "trades in the window"},
	{"momentum_score", "DOUBLE", "0..100"},
	{"activity_score", "DOUBLE", "0..100"},
	{"anomaly_score", "DOUBLE", "0..100"},
	{"confidence_score", "DOUBLE", "0..100"},
	{"signal", "VARCHAR", "BULLISH, BEARISH or NEUTRAL (docs/signals.md)"},
	{"signal_strength", "VARCHAR", "LOW, MEDIUM or HIGH"},
	{"event_type", "VARCHAR", "NORMAL or a market event type (docs/signals.md)"},
	{"volume_multiple", "DOUBLE", "volume relative to baseline"},
	{"activity_multiple", "DOUBLE", "trade activity relative to baseline"},
	{"baseline_samples", "BIGINT", "baseline samples behind the document"},
	{"baseline_ready", "BOOLEAN", "baseline reached its minimum sample count"},
	{"algorithm_version", "VARCHAR", "signal algorithm version, e.g. mi-signals/1.1.0"},
}

// TradeColumns are the columns of a normalized-trade file, in file order.
// The partition columns date and venue come from the path.
var TradeColumns = []Column{
	{"event_time", "TIMESTAMP_NS", "venue event time (block time on chains), UTC, nanoseconds"},
	{"ingest_time", "TIMESTAMP_NS", "when the service received the trade, UTC, nanoseconds"},
	{"symbol", "VARCHAR", "normalized symbol"},
	{"venue_kind", "VARCHAR", "onchain_dex, solana_dex or cex"},
	{"chain", "VARCHAR", "chain of an on-chain venue, empty for cex"},
	{"market", "VARCHAR", "pool address or venue market id"},
	{"venue_symbol", "VARCHAR", "the venue's own symbol"},
	{"price", "DOUBLE", "trade price, USD per base unit"},
	{"size", "DOUBLE", "base units"},
	{"notional_usd", "DOUBLE", "USD notional"},
	{"side", "VARCHAR", "aggressor side: BUY, SELL or UNKNOWN"},
	{"trade_id", "VARCHAR", "venue trade id, or the transaction hash on chains"},
	{"log_index", "BIGINT", "log index on chains, -1 otherwise"},
	{"wallet", "VARCHAR", "trader wallet of on-chain trades, empty otherwise"},
}

// SignalChangeColumns are the columns of a signal-change file, in file
// order (schemas.SignalChange). The partition column date comes from the path.
var SignalChangeColumns = []Column{
	{"changed_at", "TIMESTAMP WITH TIME ZONE", "when the new signal began, UTC"},
	{"symbol", "VARCHAR", "normalized symbol"},
	{"window", "VARCHAR", "1m, 5m or 15m"},
	{"algorithm_version", "VARCHAR", "signal algorithm version"},
	{"previous_signal", "VARCHAR", "signal before the change"},
	{"signal", "VARCHAR", "signal after the change"},
	{"signal_strength", "VARCHAR", "LOW, MEDIUM or HIGH"},
	{"event_type", "VARCHAR", "event type of the document"},
	{"document_id", "VARCHAR", "id of the document that published the change"},
	{"price", "DOUBLE", "price at the change"},
	{"momentum_score", "DOUBLE", "0..100"},
	{"activity_score", "DOUBLE", "0..100"},
	{"anomaly_score", "DOUBLE", "0..100"},
	{"confidence_score", "DOUBLE", "0..100"},
	{"buy_pressure", "DOUBLE", "percent 0..100"},
	{"volume", "DOUBLE", "USD volume in the window"},
	{"trade_count", "BIGINT", "trades in the window"},
	{"baseline_samples", "BIGINT", "baseline samples"},
}
