package soldex

import (
	"encoding/json"
	"syscall"
	"testing"

	gojson "github.com/goccy/go-json"
)

// BenchmarkParseMeta parses the real transaction metadata (11 KB, 45 log
// lines, 5+5 token balances) into its swap. One op is one transaction.
// Sub-benchmarks: scan is ParseMeta (the scanning decoder), goccy the former
// decoder (goccy/go-json into Meta, then Swaps), encoding_json the general
// decoder (the standard library into Meta, then Swaps). Run with -cpu 1: tx/cpu-s is the rate per
// core (getrusage user + system time around the loop, GC included) and
// MB/cpu-s the bytes per core.
func BenchmarkParseMeta(b *testing.B) {
	raw := readFixture(b)
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	run := func(b *testing.B, parse func() ([]Swap, error)) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		c0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			if s, err := parse(); err != nil || len(s) != 1 {
				b.Fatal(err)
			}
		}
		cpu := cpuSeconds() - c0
		b.ReportMetric(float64(b.N)/cpu, "tx/cpu-s")
		b.ReportMetric(float64(b.N)*float64(len(raw))/cpu/1e6, "MB/cpu-s")
	}
	b.Run("scan", func(b *testing.B) {
		run(b, func() ([]Swap, error) { return ParseMeta(raw, pools) })
	})
	b.Run("goccy", func(b *testing.B) {
		run(b, func() ([]Swap, error) { return goccyMeta(raw, pools) })
	})
	// The same metadata without white space (as the RPC sends it), 8.0 KB.
	pretty := raw
	var m map[string]any
	if err := json.Unmarshal(pretty, &m); err != nil {
		b.Fatal(err)
	}
	compact, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	raw = compact
	b.Run("scan_compact", func(b *testing.B) {
		run(b, func() ([]Swap, error) { return ParseMeta(raw, pools) })
	})
	b.Run("goccy_compact", func(b *testing.B) {
		run(b, func() ([]Swap, error) { return goccyMeta(raw, pools) })
	})
	raw = pretty
	b.Run("encoding_json", func(b *testing.B) {
		run(b, func() ([]Swap, error) { return parseMetaGeneral(raw, pools, nil) })
	})
}

// goccyMeta is the decoder before the scanner: goccy/go-json into Meta, then
// Swaps.
func goccyMeta(raw []byte, pools map[string]*Pool) ([]Swap, error) {
	var m Meta
	if err := gojson.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return Swaps(&m, pools, nil)
}

// cpuSeconds is the process's CPU time (user + system) so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage: " + err.Error())
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
