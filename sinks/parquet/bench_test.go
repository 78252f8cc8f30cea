package parquet

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/schemas"
)

func benchCandles(n int) []CandleRow {
	rows := make([]CandleRow, n)
	syms := []string{"BTCUSD", "ETHUSD", "SOLUSD", "XRPUSD", "DOGEUSD", "ADAUSD", "AVAXUSD", "LINKUSD"}
	for i := range rows {
		p := 100 + float64(i%977)*0.01
		rows[i] = CandleRow{TS: int64(i/len(syms)) * 60e6, Symbol: syms[i%len(syms)], VenueKind: "cex",
			Open: p, High: p + 1, Low: p - 1, Close: p + 0.5, Volume: float64(i % 1000), VolumeUSD: p * float64(i%1000),
			BuyVolume: 1, SellVolume: 2, BuyVolumeUSD: p, SellVolumeUSD: 2 * p, BuyPressure: 33.3, VWAP: p,
			TradeCount: int64(i % 50), BuyCount: int64(i % 20), SellCount: int64(i % 30)}
	}
	return rows
}

func benchTrades(n int) []TradeRow {
	rows := make([]TradeRow, n)
	for i := range rows {
		rows[i] = TradeRow{EventTime: 1_767_571_200_000_000_000 + int64(i)*1_000_000, IngestTime: 1_767_571_200_000_000_000 + int64(i)*1_000_000 + 5e6,
			Symbol: "ETHUSD", VenueKind: "cex", Market: "ETH-USD", VenueSymbol: "ETHUSDT", Price: 3000 + float64(i%1000)*0.01,
			Size: 0.01 * float64(1+i%97), NotionalUSD: 30 * float64(1+i%97), Side: "BUY", TradeID: strconv.Itoa(1_000_000_000 + i), LogIndex: -1}
	}
	return rows
}

// simTrades returns n trades of the simulator's default universe (about
// half a minute of it at 100 times the default rate), sorted as a day
// file: realistic values for sizes and compression, unlike benchTrades.
func simTrades(b *testing.B, n int) []TradeRow {
	start := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	src, err := sim.New(sim.Config{Seed: 1, Start: start, RateScale: 100})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	rows := make([]TradeRow, 0, n)
	for len(rows) < n {
		rec, err := src.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if rec.Trade != nil {
			rows = append(rows, TradeRowOf(rec.Trade))
		}
	}
	return sortDedupe(rows, cmpTrade)
}

// BenchmarkWrite measures one writer encoding 1 Mi rows as a file to
// memory: rows/s (wall clock) and rows per CPU-second (getrusage: user +
// system time of the process, so the figure ignores other work on a shared
// machine), and the file's bytes per row. "before" is the previous
// configuration (parquet-go's Snappy codec, which uses the "better"
// encoder, and statistics in every data page header), kept to measure
// against in the same run; "zstd" and "none" compare codecs.
func BenchmarkWrite(b *testing.B) {
	const n = 1 << 20
	variants := []struct {
		name string
		opts []pq.WriterOption
	}{
		{"before", beforeOptions()},
		{"snappy", writeOptions()},
		{"zstd-fastest", withCodec(&zstd.Codec{Level: zstd.SpeedFastest})},
		{"none", withCodec(&uncompressed.Codec{})},
	}
	for _, v := range variants {
		b.Run("candles/"+v.name, func(b *testing.B) { benchEncode(b, benchCandles(n), v.opts) })
		if v.name == "before" {
			b.Run("trades/before", func(b *testing.B) { benchEncode(b, tradesBefore(benchTrades(n)), v.opts) })
			b.Run("simtrades/before", func(b *testing.B) { benchEncode(b, tradesBefore(simTrades(b, n)), v.opts) })
			continue
		}
		if v.name == "snappy" {
			b.Run("simtrades/snappy-prev", func(b *testing.B) { benchEncode(b, tradesPrev(simTrades(b, n)), v.opts) })
		}
		b.Run("trades/"+v.name, func(b *testing.B) { benchEncode(b, benchTrades(n), v.opts) })
		b.Run("simtrades/"+v.name, func(b *testing.B) { benchEncode(b, simTrades(b, n), v.opts) })
	}
}

// tradeRowBefore is TradeRow with the column options it had before
// (timestamps plain, every column compressed): the same columns.
type tradeRowBefore struct {
	EventTime   int64   `parquet:"event_time,timestamp(nanosecond:local)"`
	IngestTime  int64   `parquet:"ingest_time,timestamp(nanosecond:local)"`
	Symbol      string  `parquet:"symbol,dict"`
	VenueKind   string  `parquet:"venue_kind,dict"`
	Chain       string  `parquet:"chain,dict"`
	Market      string  `parquet:"market,dict"`
	VenueSymbol string  `parquet:"venue_symbol,dict"`
	Price       float64 `parquet:"price"`
	Size        float64 `parquet:"size"`
	NotionalUSD float64 `parquet:"notional_usd"`
	Side        string  `parquet:"side,dict"`
	TradeID     string  `parquet:"trade_id"`
	LogIndex    int64   `parquet:"log_index"`
	Wallet      string  `parquet:"wallet"`
}

// tradeRowPrev is TradeRow before wallets were dictionary-encoded and
// trade ids stored uncompressed (both Snappy-compressed plain).
type tradeRowPrev struct {
	EventTime   int64   `parquet:"event_time,timestamp(nanosecond:local),delta,uncompressed"`
	IngestTime  int64   `parquet:"ingest_time,timestamp(nanosecond:local),delta,uncompressed"`
	Symbol      string  `parquet:"symbol,dict,uncompressed"`
	VenueKind   string  `parquet:"venue_kind,dict,uncompressed"`
	Chain       string  `parquet:"chain,dict,uncompressed"`
	Market      string  `parquet:"market,dict,uncompressed"`
	VenueSymbol string  `parquet:"venue_symbol,dict,uncompressed"`
	Price       float64 `parquet:"price"`
	Size        float64 `parquet:"size,uncompressed"`
	NotionalUSD float64 `parquet:"notional_usd,uncompressed"`
	Side        string  `parquet:"side,dict,uncompressed"`
	TradeID     string  `parquet:"trade_id"`
	LogIndex    int64   `parquet:"log_index"`
	Wallet      string  `parquet:"wallet"`
}

func tradesPrev(rows []TradeRow) []tradeRowPrev {
	out := make([]tradeRowPrev, len(rows))
	for i, r := range rows {
		out[i] = tradeRowPrev(r)
	}
	return out
}

func tradesBefore(rows []TradeRow) []tradeRowBefore {
	out := make([]tradeRowBefore, len(rows))
	for i, r := range rows {
		out[i] = tradeRowBefore(r)
	}
	return out
}

func benchEncode[T any](b *testing.B, rows []T, opts []pq.WriterOption) {
	var cw countWriter
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		cw = 0
		if err := encodeWith(&cw, rows, opts); err != nil {
			b.Fatal(err)
		}
	}
	reportRates(b, len(rows)*b.N, c0)
	b.ReportMetric(float64(cw)/float64(len(rows)), "bytes/row")
}

// reportRates reports rows/s (wall clock) and rows/cpu-s for rows
// processed since the CPU time c0.
func reportRates(b *testing.B, rows int, c0 float64) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/(cpuTime()-c0), "rows/cpu-s")
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// beforeOptions are the write options before the change that BENCHMARKS.md
// records: parquet-go's Snappy codec and per-page statistics.
func beforeOptions() []pq.WriterOption {
	opts := withCodec(&snappy.Codec{})
	return append(opts, pq.DataPageStatistics(true))
}

// withCodec returns the write options with another compression codec.
func withCodec(c compress.Codec) []pq.WriterOption {
	return append(writeOptions(), pq.Compression(c))
}

func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkCompact merges 8 sorted parts of 128Ki trades each (a quarter
// of them delivered twice) into a day file: the compaction rate, in rows
// out per second and per CPU-second. "generic-reader" decodes the parts
// with parquet-go's generic reader, as before the column reader.
func BenchmarkCompact(b *testing.B) {
	dir := b.TempDir()
	const parts, per = 8, 128 << 10
	all := benchTrades(parts * per)
	var inputs []string
	for p := 0; p < parts; p++ {
		var rows []TradeRow
		for i := p; i < len(all); i += parts { // interleaved, as flushes are
			rows = append(rows, all[i])
		}
		rows = append(rows, rows[:per/4]...)
		rows = sortDedupe(rows, cmpTrade)
		rows = append(rows, all[p*per/4:p*per/4+per/4]...) // duplicates of another part's rows
		rows = sortDedupe(rows, cmpTrade)
		path := filepath.Join(dir, "part-"+strconv.Itoa(p)+".parquet")
		if err := WriteRows(path, rows); err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, path)
	}
	total := len(all)
	all = nil // not live during the runs: the GC would scan it
	for _, generic := range []bool{true, false} {
		name := "column-reader"
		if generic {
			name = "generic-reader"
		}
		b.Run(name, func(b *testing.B) {
			genericReads = generic
			defer func() { genericReads = false }()
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				n, err := mergeFiles(inputs, filepath.Join(dir, "data.parquet"), cmpTrade)
				if err != nil || n != total {
					b.Fatalf("%d rows, %v; want %d", n, err, total)
				}
			}
			reportRates(b, total*b.N, c0)
		})
	}
}

// simTradeRecords returns n trades of the simulator's default universe in
// arrival order, as the sink receives them.
func simTradeRecords(b *testing.B, n int) []*schemas.Trade {
	start := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	src, err := sim.New(sim.Config{Seed: 1, Start: start, RateScale: 100})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	out := make([]*schemas.Trade, 0, n)
	for len(out) < n {
		rec, err := src.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if rec.Trade != nil {
			out = append(out, rec.Trade)
		}
	}
	return out
}

// BenchmarkSinkTrades measures the sink end to end for trades: 1 Mi
// simulated trades added with AddTrade (conversion, buffering per
// partition) and flushed as part files (sort, dedupe, encode, fsync and
// rename), per CPU-second of the process.
func BenchmarkSinkTrades(b *testing.B) {
	const n = 1 << 20
	trades := simTradeRecords(b, n)
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		s, err := Open(Config{Root: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range trades {
			if err := s.AddTrade(t); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	reportRates(b, n*b.N, c0)
}
