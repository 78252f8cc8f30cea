package kraken

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
)

// cpuSeconds is the process's CPU time so far (run with -cpu 1).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkRESTPage decodes the recorded Trades page (1,000 trades,
// compacted) with a fresh decoder each time, so every trade is new;
// encoding_json decodes it into the page's shape (less work: no
// validation, no symbols, no records).
func BenchmarkRESTPage(b *testing.B) {
	var c bytes.Buffer
	if err := json.Compact(&c, readPage(b)); err != nil {
		b.Fatal(err)
	}
	page := c.Bytes()
	b.Run("decoder", func(b *testing.B) {
		var out []sources.Record
		n := 0
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			out = New("bench").RESTPage(page, out[:0])
			n += len(out)
		}
		b.ReportMetric(float64(n)/(cpuSeconds()-c0), "trades/cpu-s")
	})
	b.Run("encoding_json", func(b *testing.B) {
		type pg struct {
			Error  []string
			Result map[string]json.RawMessage
		}
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			var p pg
			_ = json.Unmarshal(page, &p)
			var trades [][]any
			_ = json.Unmarshal(p.Result["XBTUSDT"], &trades)
		}
		b.ReportMetric(1000*float64(b.N)/(cpuSeconds()-c0), "trades/cpu-s")
	})
}
