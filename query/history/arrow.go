package history

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/marketintel/mi/datasets"
)

// ArrowMIME is the media type of an Arrow IPC stream.
const ArrowMIME = "application/vnd.apache.arrow.stream"

// arrowBatch is the number of rows per record batch of an Arrow stream.
const arrowBatch = 64 * 1024

// CandleArrowSchema is the schema of the Arrow IPC answers of candles: the
// columns of datasets.CandleColumns plus symbol, venue and width_seconds
// (venue, venue_kind and chain are empty for cross-venue candles).
var CandleArrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us},
	{Name: "symbol", Type: arrow.BinaryTypes.String},
	{Name: "venue", Type: arrow.BinaryTypes.String},
	{Name: "venue_kind", Type: arrow.BinaryTypes.String},
	{Name: "chain", Type: arrow.BinaryTypes.String},
	{Name: "width_seconds", Type: arrow.PrimitiveTypes.Int64},
	{Name: "open", Type: arrow.PrimitiveTypes.Float64},
	{Name: "high", Type: arrow.PrimitiveTypes.Float64},
	{Name: "low", Type: arrow.PrimitiveTypes.Float64},
	{Name: "close", Type: arrow.PrimitiveTypes.Float64},
	{Name: "volume", Type: arrow.PrimitiveTypes.Float64},
	{Name: "volume_usd", Type: arrow.PrimitiveTypes.Float64},
	{Name: "buy_volume", Type: arrow.PrimitiveTypes.Float64},
	{Name: "sell_volume", Type: arrow.PrimitiveTypes.Float64},
	{Name: "buy_volume_usd", Type: arrow.PrimitiveTypes.Float64},
	{Name: "sell_volume_usd", Type: arrow.PrimitiveTypes.Float64},
	{Name: "buy_pressure", Type: arrow.PrimitiveTypes.Float64},
	{Name: "vwap", Type: arrow.PrimitiveTypes.Float64},
	{Name: "trade_count", Type: arrow.PrimitiveTypes.Int64},
	{Name: "buy_count", Type: arrow.PrimitiveTypes.Int64},
	{Name: "sell_count", Type: arrow.PrimitiveTypes.Int64},
	{Name: "unknown_side_count", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// candleBatches builds cs into record batches of CandleArrowSchema of up to
// 64Ki rows each (at least one, possibly empty). The caller releases them.
func candleBatches(cs []datasets.Candle) []arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, CandleArrowSchema)
	defer b.Release()
	var out []arrow.RecordBatch
	f := b.Fields()
	for i, c := range cs {
		f[0].(*array.TimestampBuilder).Append(arrow.Timestamp(c.Time.UnixMicro()))
		f[1].(*array.StringBuilder).Append(c.Symbol)
		f[2].(*array.StringBuilder).Append(c.Venue)
		f[3].(*array.StringBuilder).Append(c.VenueKind)
		f[4].(*array.StringBuilder).Append(c.Chain)
		f[5].(*array.Int64Builder).Append(c.WidthSeconds)
		for j, v := range []float64{c.Open, c.High, c.Low, c.Close, c.Volume, c.VolumeUSD, c.BuyVolume, c.SellVolume,
			c.BuyVolumeUSD, c.SellVolumeUSD, c.BuyPressure, c.VWAP} {
			f[6+j].(*array.Float64Builder).Append(v)
		}
		for j, v := range []int64{c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount} {
			f[18+j].(*array.Int64Builder).Append(v)
		}
		if (i+1)%arrowBatch == 0 {
			out = append(out, b.NewRecordBatch())
		}
	}
	if len(cs)%arrowBatch != 0 || len(cs) == 0 {
		out = append(out, b.NewRecordBatch())
	}
	return out
}

// WriteCandlesArrow writes cs to w as an Arrow IPC stream of
// CandleArrowSchema, in batches of up to 64Ki rows. The records are built
// with arrow-go from the rows DuckDB returned (duckdb-go's own Arrow API
// needs the duckdb_arrow build tag, which the default build does not set).
func WriteCandlesArrow(w io.Writer, cs []datasets.Candle) error {
	batches := candleBatches(cs)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	iw := ipc.NewWriter(w, ipc.WithSchema(CandleArrowSchema))
	for _, r := range batches {
		if err := iw.Write(r); err != nil {
			return fmt.Errorf("cannot write an Arrow batch: %w", err)
		}
	}
	if err := iw.Close(); err != nil {
		return fmt.Errorf("cannot close the Arrow stream: %w", err)
	}
	return nil
}

// WriteCandlesParquet writes cs to w as one Parquet file of
// CandleArrowSchema (zstd, one row group per 64Ki rows).
func WriteCandlesParquet(w io.Writer, cs []datasets.Candle) error {
	batches := candleBatches(cs)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	pw, err := pqarrow.NewFileWriter(CandleArrowSchema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("cannot start a Parquet file: %w", err)
	}
	for _, r := range batches {
		if err := pw.Write(r); err != nil {
			return fmt.Errorf("cannot write Parquet rows: %w", err)
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("cannot finish the Parquet file: %w", err)
	}
	return nil
}
