package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
)

// loadUnits reads a fixture, decompressed, into memory as lines.
func loadUnits(b testing.TB, rel string) [][]byte { return fixtures.Lines(b, rel) }

func benchParser(b *testing.B, units [][]byte, newParser func() parser) {
	b.Helper()
	var out []sources.Record
	trades := 0
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuSeconds()
	for b.Loop() {
		p := newParser()
		for _, u := range units {
			out = p.parse(u, out[:0])
			trades += len(out)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(units)*b.N)/sec, "msgs/s")
	b.ReportMetric(float64(trades)/sec, "trades/s")
	b.ReportMetric(float64(len(units)*b.N)/(cpuSeconds()-c0), "msgs/cpu-s")
}

func BenchmarkDecodeBinanceSpot(b *testing.B) {
	units := loadUnits(b, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	benchParser(b, units, func() parser { return newBinanceCapture("binance_spot") })
}

// BenchmarkDecodeBinanceSpotEncodingJSON is the baseline: the same lines
// decoded with encoding/json into a struct (no trade built, no validation).
func BenchmarkDecodeBinanceSpotEncodingJSON(b *testing.B) {
	units := loadUnits(b, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	type msg struct {
		Stream string `json:"stream"`
		Data   struct {
			E string `json:"e"`
			S string `json:"s"`
			T int64  `json:"t"`
			P string `json:"p"`
			Q string `json:"q"`
			M bool   `json:"m"`
		} `json:"data"`
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range units {
			_, js, _ := bytes.Cut(u, []byte{' '})
			var m msg
			_ = json.Unmarshal(js, &m)
		}
	}
	b.ReportMetric(float64(len(units)*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkDecodeCoinbase(b *testing.B) {
	units := loadUnits(b, "trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz")
	benchParser(b, units, func() parser { return newCoinbaseCapture() })
}

func BenchmarkDecodeBybit(b *testing.B) {
	units := loadUnits(b, "trades/cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz")
	benchParser(b, units, func() parser { return newBybitCapture() })
}

func BenchmarkDecodeHyperliquid(b *testing.B) {
	units := loadUnits(b, "trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz")
	benchParser(b, units, func() parser { return newHyperliquidCapture() })
}

func BenchmarkDecodeTardis(b *testing.B) {
	units := loadUnits(b, "trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv")
	benchParser(b, units[1:], func() parser {
		p, err := newTardisParser(tardisColumns)
		if err != nil {
			b.Fatal(err)
		}
		return p
	})
}

// BenchmarkDecodeUniswap reads the recorded day of the 0.05% pool (6,046
// swaps and 189 other logs) as the raw-logs CSV and as eth_getLogs
// elements, in the same run: with the row scanners and the fixed-width
// Swap decoder (scan), with the reference row handling (csvLog, jsonLog)
// and the fixed-width decoder (rows, the path before the scanners), and
// with the reference rows and the ABI alone (abi, the path before the
// fixed-width decoder). Run with -cpu 1 for the per-core msgs/cpu-s.
func BenchmarkDecodeUniswap(b *testing.B) {
	csv := loadUnits(b, "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_raw_logs_2024-01-05.csv")[1:]
	raw, err := os.ReadFile(fixtures.Path(b, "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json"))
	if err != nil {
		b.Fatal(err)
	}
	var doc struct{ Result []json.RawMessage }
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	var js [][]byte
	for _, r := range doc.Result {
		js = append(js, r)
	}
	for _, c := range []struct {
		name  string
		units [][]byte
		pool  string
	}{{"csv", csv, KnownPools[0].Address}, {"getLogs", js, ""}} {
		for _, variant := range []string{"scan", "rows", "abi"} {
			b.Run(c.name+"/"+variant, func(b *testing.B) {
				benchParser(b, c.units, func() parser {
					fast, general := uniswapPair(b, c.pool)
					switch variant {
					case "rows":
						fast.rowsGeneral = true
					case "abi":
						return general
					}
					return fast
				})
			})
		}
	}
}

func BenchmarkDecodeGeneric(b *testing.B) {
	// The Tardis file's trades written as generic NDJSON.
	src := loadUnits(b, "trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv")
	var units [][]byte
	for _, l := range src[1:] {
		c := splitCSV(string(l), nil)
		units = append(units, []byte(`{"time":`+c[2]+`000,"venue":"binance_usdm","symbol":"`+c[1]+`","price":"`+c[6]+`","size":"`+c[7]+`","side":"`+c[5]+`","trade_id":"`+c[4]+`"}`))
	}
	benchParser(b, units, func() parser { return newGenericJSONParser() })
}

// cpuSeconds is the process's CPU time (user + system) so far. Run with
// -cpu 1: the work per CPU second is then the rate of one core, whatever
// else the shared machine runs (wall-clock rates drop with the load).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkDecodeOKX reads the real OKX capture (cryptofeed format 1 and
// its format-2 form) line by line with the capture reader's framer. The
// format-1 file's contract values (its HTTP file, which Open reads once)
// are left out: its one swap trade is rejected.
func BenchmarkDecodeOKX(b *testing.B) {
	for _, c := range []struct{ name, path string }{{"format1", okxFormat1}, {"format2", okxFormat2}} {
		b.Run(c.name, func(b *testing.B) {
			units := fileLines(b, c.path)
			benchParser(b, units, func() parser { return newOKXCapture() })
		})
	}
}

// BenchmarkDecodeKrakenREST reads the real Trades page (compacted, one
// unit) with the pages reader: 1,000 trades per unit.
func BenchmarkDecodeKrakenREST(b *testing.B) {
	page, err := os.ReadFile(krakenPage1)
	if err != nil {
		b.Fatal(err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, page); err != nil {
		b.Fatal(err)
	}
	benchParser(b, [][]byte{c.Bytes()}, func() parser { return newKrakenPages() })
}

// fileLines reads a testdata file, gunzipped, as lines.
func fileLines(b *testing.B, path string) [][]byte {
	s, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if bytes.HasPrefix(s, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(s))
		if err != nil {
			b.Fatal(err)
		}
		if s, err = io.ReadAll(zr); err != nil {
			b.Fatal(err)
		}
	}
	var out [][]byte
	for _, l := range bytes.Split(s, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}
