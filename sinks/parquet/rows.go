package parquet

import (
	"cmp"
	"strings"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// CandleRow is one row of a candle file: the columns of datasets.CandleColumns
// in file order. Venue, interval and date are partition columns (the path).
type CandleRow struct {
	TS               int64   `parquet:"ts,timestamp(microsecond)"` // Unix µs, UTC
	Symbol           string  `parquet:"symbol,dict"`
	VenueKind        string  `parquet:"venue_kind,dict"`
	Chain            string  `parquet:"chain,dict"`
	Open             float64 `parquet:"open"`
	High             float64 `parquet:"high"`
	Low              float64 `parquet:"low"`
	Close            float64 `parquet:"close"`
	Volume           float64 `parquet:"volume"`
	VolumeUSD        float64 `parquet:"volume_usd"`
	BuyVolume        float64 `parquet:"buy_volume"`
	SellVolume       float64 `parquet:"sell_volume"`
	BuyVolumeUSD     float64 `parquet:"buy_volume_usd"`
	SellVolumeUSD    float64 `parquet:"sell_volume_usd"`
	BuyPressure      float64 `parquet:"buy_pressure"`
	VWAP             float64 `parquet:"vwap"`
	TradeCount       int64   `parquet:"trade_count"`
	BuyCount         int64   `parquet:"buy_count"`
	SellCount        int64   `parquet:"sell_count"`
	UnknownSideCount int64   `parquet:"unknown_side_count"`
}

// SignalRow is one row of a signal-document file (datasets.SignalColumns).
// Window and date are partition columns.
type SignalRow struct {
	TS                 int64   `parquet:"ts,timestamp(microsecond)"` // Unix µs of the minute close
	Symbol             string  `parquet:"symbol,dict"`
	ID                 string  `parquet:"id"`
	Price              float64 `parquet:"price"`
	PriceChangePercent float64 `parquet:"price_change_percent"`
	Volume             float64 `parquet:"volume"`
	BuyPressure        float64 `parquet:"buy_pressure"`
	TradeCount         int64   `parquet:"trade_count"`
	MomentumScore      float64 `parquet:"momentum_score"`
	ActivityScore      float64 `parquet:"activity_score"`
	AnomalyScore       float64 `parquet:"anomaly_score"`
	ConfidenceScore    float64 `parquet:"confidence_score"`
	Signal             string  `parquet:"signal,dict"`
	SignalStrength     string  `parquet:"signal_strength,dict"`
	EventType          string  `parquet:"event_type,dict"`
	VolumeMultiple     float64 `parquet:"volume_multiple"`
	ActivityMultiple   float64 `parquet:"activity_multiple"`
	BaselineSamples    int64   `parquet:"baseline_samples"`
	BaselineReady      bool    `parquet:"baseline_ready"`
	AlgorithmVersion   string  `parquet:"algorithm_version,dict"`
}

// TradeRow is one row of a normalized-trade file (datasets.TradeColumns).
// Venue and date are partition columns. The encoding options are measured
// (BENCHMARKS.md): the sorted timestamps are delta-encoded (about 2.3
// bytes a value instead of 6.5 with Snappy over plain), and the columns
// Snappy does not shrink (dictionary indexes, sizes and notionals) are
// stored uncompressed, which saves its CPU time. Wallets repeat (a few
// thousand a day in the simulator): they are dictionary-encoded, and fall
// back to plain within a row group whose dictionary outgrows
// dictionaryMaxBytes. Trade ids are stored uncompressed: Snappy saved about
// 6 bytes a row of 66 for a tenth of the writer's CPU time, and the wallet
// dictionary saves as much.
type TradeRow struct {
	EventTime   int64   `parquet:"event_time,timestamp(nanosecond:local),delta,uncompressed"`  // Unix ns, UTC
	IngestTime  int64   `parquet:"ingest_time,timestamp(nanosecond:local),delta,uncompressed"` // Unix ns, UTC
	Symbol      string  `parquet:"symbol,dict,uncompressed"`
	VenueKind   string  `parquet:"venue_kind,dict,uncompressed"`
	Chain       string  `parquet:"chain,dict,uncompressed"`
	Market      string  `parquet:"market,dict,uncompressed"`
	VenueSymbol string  `parquet:"venue_symbol,dict,uncompressed"`
	Price       float64 `parquet:"price"`
	Size        float64 `parquet:"size,uncompressed"`
	NotionalUSD float64 `parquet:"notional_usd,uncompressed"`
	Side        string  `parquet:"side,dict,uncompressed"`
	TradeID     string  `parquet:"trade_id,uncompressed"`
	LogIndex    int64   `parquet:"log_index"`
	Wallet      string  `parquet:"wallet,dict,uncompressed"`
}

// SignalChangeRow is one row of a signal-change file
// (datasets.SignalChangeColumns). Date is a partition column.
type SignalChangeRow struct {
	ChangedAt        int64   `parquet:"changed_at,timestamp(microsecond)"` // Unix µs, UTC
	Symbol           string  `parquet:"symbol,dict"`
	Window           string  `parquet:"window,dict"`
	AlgorithmVersion string  `parquet:"algorithm_version,dict"`
	PreviousSignal   string  `parquet:"previous_signal,dict"`
	Signal           string  `parquet:"signal,dict"`
	SignalStrength   string  `parquet:"signal_strength,dict"`
	EventType        string  `parquet:"event_type,dict"`
	DocumentID       string  `parquet:"document_id"`
	Price            float64 `parquet:"price"`
	MomentumScore    float64 `parquet:"momentum_score"`
	ActivityScore    float64 `parquet:"activity_score"`
	AnomalyScore     float64 `parquet:"anomaly_score"`
	ConfidenceScore  float64 `parquet:"confidence_score"`
	BuyPressure      float64 `parquet:"buy_pressure"`
	Volume           float64 `parquet:"volume"`
	TradeCount       int64   `parquet:"trade_count"`
	BaselineSamples  int64   `parquet:"baseline_samples"`
}

// CandleRowOf converts a closed candle.
func CandleRowOf(c *schemas.Candle) CandleRow {
	return CandleRow{
		TS: c.StartNs / 1000, Symbol: c.Symbol, VenueKind: schemas.VenueKindName(c.VenueKind), Chain: c.Chain,
		Open: c.Open, High: c.High, Low: c.Low, Close: c.Close,
		Volume: c.Volume, VolumeUSD: c.VolumeUsd, BuyVolume: c.BuyVolume, SellVolume: c.SellVolume,
		BuyVolumeUSD: c.BuyVolumeUsd, SellVolumeUSD: c.SellVolumeUsd, BuyPressure: c.BuyPressure, VWAP: c.Vwap,
		TradeCount: int64(c.TradeCount), BuyCount: int64(c.BuyCount), SellCount: int64(c.SellCount),
		UnknownSideCount: int64(c.UnknownSideCount),
	}
}

// SignalRowOf converts a document taken at the minute close minuteNs.
func SignalRowOf(d *schemas.IntelligenceDocument, minuteNs int64) SignalRow {
	return SignalRow{
		TS: minuteNs / 1000, Symbol: d.Symbol, ID: d.Id, Price: d.Price, PriceChangePercent: d.PriceChangePercent,
		Volume: d.Volume, BuyPressure: d.BuyPressure, TradeCount: d.TradeCount,
		MomentumScore: d.MomentumScore, ActivityScore: d.ActivityScore, AnomalyScore: d.AnomalyScore,
		ConfidenceScore: d.ConfidenceScore, Signal: d.Signal, SignalStrength: d.SignalStrength,
		EventType: d.EventType, VolumeMultiple: d.VolumeMultiple, ActivityMultiple: d.ActivityMultiple,
		BaselineSamples: d.BaselineSamples, BaselineReady: d.BaselineReady, AlgorithmVersion: operators.AlgorithmVersion,
	}
}

// TradeRowOf converts a normalized trade. Trades off chain get log_index -1.
func TradeRowOf(t *schemas.Trade) TradeRow {
	li := int64(t.LogIndex)
	if t.Chain == "" {
		li = -1
	}
	return TradeRow{
		EventTime: t.EventTimeNs, IngestTime: t.IngestTimeNs, Symbol: t.Symbol,
		VenueKind: schemas.VenueKindName(t.VenueKind), Chain: t.Chain, Market: t.Market,
		VenueSymbol: t.VenueSymbol, Price: t.Price, Size: t.Size, NotionalUSD: t.NotionalUsd,
		Side: schemas.SideName(t.Side), TradeID: t.TradeId, LogIndex: li, Wallet: t.Wallet,
	}
}

// SignalChangeRowOf converts a signal change.
func SignalChangeRowOf(c *schemas.SignalChange) SignalChangeRow {
	return SignalChangeRow{
		ChangedAt: c.ChangedAtNs / 1000, Symbol: c.Symbol, Window: c.Window, AlgorithmVersion: c.AlgorithmVersion,
		PreviousSignal: c.PreviousSignal, Signal: c.Signal, SignalStrength: c.SignalStrength, EventType: c.EventType,
		DocumentID: c.DocumentId, Price: c.Price, MomentumScore: c.MomentumScore, ActivityScore: c.ActivityScore,
		AnomalyScore: c.AnomalyScore, ConfidenceScore: c.ConfidenceScore, BuyPressure: c.BuyPressure,
		Volume: c.Volume, TradeCount: c.TradeCount, BaselineSamples: c.BaselineSamples,
	}
}

// Natural keys: rows with equal keys are the same row delivered twice
// (at-least-once), and compaction keeps the first. Files are sorted by key,
// which makes a day file a function of its set of rows. The comparisons
// take pointers: a trade row is 176 bytes, and the merge compares a few
// times per row.

func cmpCandle(a, b *CandleRow) int {
	return cmp.Or(cmp.Compare(a.TS, b.TS), strings.Compare(a.Symbol, b.Symbol))
}

func cmpSignal(a, b *SignalRow) int {
	return cmp.Or(cmp.Compare(a.TS, b.TS), strings.Compare(a.Symbol, b.Symbol))
}

func cmpTrade(a, b *TradeRow) int {
	return cmp.Or(cmp.Compare(a.EventTime, b.EventTime), strings.Compare(a.TradeID, b.TradeID), cmp.Compare(a.LogIndex, b.LogIndex))
}

func cmpSignalChange(a, b *SignalChangeRow) int {
	return cmp.Or(cmp.Compare(a.ChangedAt, b.ChangedAt), strings.Compare(a.Symbol, b.Symbol),
		strings.Compare(a.Window, b.Window), strings.Compare(a.DocumentID, b.DocumentID))
}
