package okx

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
)

// cpuSeconds is the process's CPU time so far (run with -cpu 1: work per
// CPU second is the rate of one core whatever else the machine runs).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkMessage decodes the real capture's messages as a live
// connection receives them: all (books, tickers, answers, trades) and the
// trades messages only, with the recorded contract values; encoding_json
// decodes the trades messages into a struct of the trade fields (less
// work: no validation, no symbols, no records).
func BenchmarkMessage(b *testing.B) {
	all := captureMessages(b)
	var trades [][]byte
	for _, m := range all {
		if bytes.Contains(m, []byte(`"channel":"trades"`)) && bytes.Contains(m, []byte(`"data"`)) {
			trades = append(trades, m)
		}
	}
	body := instrumentsAnswer(b)
	run := func(b *testing.B, msgs [][]byte) {
		d := New("bench")
		if _, err := d.Instruments(body); err != nil {
			b.Fatal(err)
		}
		var out []sources.Record
		n := 0
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			for _, m := range msgs {
				out = d.Message(m, 1, out[:0])
				n += len(out)
			}
		}
		cpu := cpuSeconds() - c0
		b.ReportMetric(float64(len(msgs)*b.N)/cpu, "msgs/cpu-s")
		b.ReportMetric(float64(n)/cpu, "records/cpu-s")
	}
	b.Run("all", func(b *testing.B) { run(b, all) })
	b.Run("trades", func(b *testing.B) { run(b, trades) })
	b.Run("trades/encoding_json", func(b *testing.B) {
		type msg struct {
			Arg  struct{ Channel, InstID string }
			Data []struct{ InstID, TradeID, Px, Sz, Side, Ts string }
		}
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			for _, m := range trades {
				var v msg
				_ = json.Unmarshal(m, &v)
			}
		}
		b.ReportMetric(float64(len(trades)*b.N)/(cpuSeconds()-c0), "msgs/cpu-s")
	})
}

// BenchmarkInstruments reads the recorded SWAP instruments answer (77 KB,
// every swap OKX listed), as the live connector does before connecting.
func BenchmarkInstruments(b *testing.B) {
	body := instrumentsAnswer(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseInstruments(body); err != nil {
			b.Fatal(err)
		}
	}
}
