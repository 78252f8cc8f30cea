package cex

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
)

// liveMessages returns the raw venue messages of a capture, as a live
// connection receives them.
func liveMessages(b testing.TB, rel string) [][]byte {
	var out [][]byte
	for _, u := range fixtures.Lines(b, rel) {
		if bytes.HasPrefix(u, []byte(`{"t"`)) { // cryptofeed record
			var r struct{ T, Data string }
			if json.Unmarshal(u, &r) == nil && r.T == "recv" {
				out = append(out, []byte(r.Data))
			}
			continue
		}
		if _, js, ok := bytes.Cut(u, []byte{' '}); ok && bytes.HasPrefix(js, []byte(`{"stream"`)) || bytes.HasPrefix(js, []byte(`{"channel"`)) {
			out = append(out, js)
		}
	}
	if len(out) == 0 {
		b.Fatal("no messages")
	}
	return out
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

// The encoding/json baseline decodes the same messages into typed structs
// holding only the trade fields (less work than the parser: no validation,
// no symbol mapping, no trade records).
type jsonBinance struct {
	Stream string
	Data   struct {
		E  string          `json:"e"`
		S  string          `json:"s"`
		T  json.RawMessage `json:"t"`
		P  string          `json:"p"`
		Q  string          `json:"q"`
		TT int64           `json:"T"`
		M  bool            `json:"m"`
	}
}

type jsonGeneric struct {
	Channel string
	Topic   string
	Events  []struct {
		Trades []struct {
			ProductID string `json:"product_id"`
			TradeID   string `json:"trade_id"`
			Price     string
			Size      string
			Time      string
			Side      string
		}
	}
	Data json.RawMessage
}

func benchMessages(b *testing.B, proto, venue, rel string, baseline bool) {
	msgs := liveMessages(b, rel)
	p, _, err := NewDecoder(proto, venue, "live")
	if err != nil {
		b.Fatal(err)
	}
	var out []sources.Record
	var jb jsonBinance
	var jg jsonGeneric
	trades := 0
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuSeconds()
	for b.Loop() {
		for _, m := range msgs {
			switch {
			case !baseline:
				out = p.Message(m, 1, out[:0])
				trades += len(out)
			case proto == "binance":
				jb = jsonBinance{}
				_ = json.Unmarshal(m, &jb)
			default:
				jg = jsonGeneric{}
				_ = json.Unmarshal(m, &jg)
			}
		}
	}
	cpu := cpuSeconds() - c0
	b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(len(msgs))*float64(b.N)/cpu, "msgs/cpu-s")
	if !baseline {
		b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
		b.ReportMetric(float64(trades)/cpu, "trades/cpu-s")
	}
}

// BenchmarkMessages measures each live parser's messages/s on its capture
// (every message type, as received), next to encoding/json on the same
// messages.
func BenchmarkMessages(b *testing.B) {
	cases := []struct{ name, proto, venue, rel string }{
		{"binance_spot", "binance", "", "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"},
		{"coinbase", "coinbase", "", "trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz"},
		{"bybit_linear", "bybit", "bybit_linear", "trades/cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz"},
		{"hyperliquid", "hyperliquid", "", "trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchMessages(b, c.proto, c.venue, c.rel, false) })
		b.Run(c.name+"/encoding_json", func(b *testing.B) { benchMessages(b, c.proto, c.venue, c.rel, true) })
	}
}

// BenchmarkTradeMessages measures the parsers on trade messages only, the
// part of the stream a trade connector subscribes to (Kraken: the
// hand-written documentation example).
func BenchmarkTradeMessages(b *testing.B) {
	cases := []struct{ name, proto, venue, rel, marker string }{
		{"binance_spot", "binance", "", "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz", `"e":"trade"`},
		{"coinbase", "coinbase", "", "trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz", `"market_trades"`},
		{"bybit_linear", "bybit", "bybit_linear", "trades/cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz", `"publicTrade.`},
		{"hyperliquid", "hyperliquid", "", "trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz", `"channel":"trades"`},
	}
	for _, c := range cases {
		var msgs [][]byte
		for _, m := range liveMessages(b, c.rel) {
			if bytes.Contains(m, []byte(c.marker)) {
				msgs = append(msgs, m)
			}
		}
		run := func(b *testing.B, baseline bool) {
			p, _, _ := NewDecoder(c.proto, c.venue, "live")
			var out []sources.Record
			var jb jsonBinance
			var jg jsonGeneric
			trades := 0
			b.ReportAllocs()
			c0 := cpuSeconds()
			for b.Loop() {
				for _, m := range msgs {
					switch {
					case !baseline:
						out = p.Message(m, 1, out[:0])
						trades += len(out)
					case c.proto == "binance":
						jb = jsonBinance{}
						_ = json.Unmarshal(m, &jb)
					default:
						jg = jsonGeneric{}
						_ = json.Unmarshal(m, &jg)
					}
				}
			}
			cpu := cpuSeconds() - c0
			b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(len(msgs))*float64(b.N)/cpu, "msgs/cpu-s")
			if !baseline {
				b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
				b.ReportMetric(float64(trades)/cpu, "trades/cpu-s")
			}
		}
		b.Run(c.name, func(b *testing.B) { run(b, false) })
		b.Run(c.name+"/encoding_json", func(b *testing.B) { run(b, true) })
	}
	kr := []byte(`{"channel":"trade","type":"update","data":[{"symbol":"BTC/USD","side":"buy","price":67013.0,"qty":0.01,"ord_type":"market","trade_id":80112242,"timestamp":"2024-08-08T23:54:14.250Z"}]}`)
	b.Run("kraken", func(b *testing.B) {
		p, _, _ := NewDecoder("kraken", "", "live")
		var out []sources.Record
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			out = p.Message(kr, 1, out[:0])
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		b.ReportMetric(float64(b.N)/(cpuSeconds()-c0), "msgs/cpu-s")
	})
}
