package parquet

import (
	"io"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
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

// BenchmarkWrite measures one writer encoding a file (zstd, dictionary
// strings, row groups of at most 1M rows) to memory: rows/s per writer.
func BenchmarkWrite(b *testing.B) {
	const n = 1 << 20
	b.Run("candles", func(b *testing.B) {
		rows := benchCandles(n)
		b.ResetTimer()
		c0 := cpuTime()
		for range b.N {
			if err := encode(io.Discard, rows); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-c0), "rows/cpu-s")
	})
	b.Run("trades", func(b *testing.B) {
		rows := benchTrades(n)
		b.ResetTimer()
		c0 := cpuTime()
		for range b.N {
			if err := encode(io.Discard, rows); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-c0), "rows/cpu-s")
	})
}

func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkCompact merges 8 sorted parts of 128Ki trades each (a quarter
// of them delivered twice) into a day file: the compaction rate.
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
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		n, err := mergeFiles(inputs, filepath.Join(dir, "data.parquet"), cmpTrade)
		if err != nil || n != len(all) {
			b.Fatalf("%d rows, %v; want %d", n, err, len(all))
		}
	}
	b.ReportMetric(float64(len(all))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(len(all))*float64(b.N)/(cpuTime()-c0), "rows/cpu-s")
}
