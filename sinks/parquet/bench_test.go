package parquet

import (
	"io"
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
