package fundamentals

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/cputime"
)

// BenchmarkDecode reports wall time and CPU time per decode (cpu-ms/op,
// getrusage: steadier than wall time on the shared machine); the target is
// a 5 MB file in under 100 ms.
//
// fiveMB is the AAPL companyfacts made into a document of about 5 MB: the
// real file (3.7 MB) plus renamed copies of its us-gaap concepts, for the
// target "parse a 5 MB companyfacts file in under 100 ms".
func fiveMB(b *testing.B) []byte {
	raw := aaplFacts(b)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	facts := doc["facts"].(map[string]any)
	gaap := facts["us-gaap"].(map[string]any)
	extra := map[string]any{}
	facts["x-copy"] = extra
	for i := 0; ; i++ {
		for name, c := range gaap {
			extra[fmt.Sprintf("%s%d", name, i)] = c
			if len(extra)%50 == 0 {
				out, _ := json.Marshal(doc)
				if len(out) >= 5<<20 {
					return out
				}
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	aapl := aaplFacts(b)
	big := fiveMB(b)
	for _, c := range []struct {
		name string
		in   []byte
		dec  func([]byte) (*Facts, error)
	}{
		{"aapl-3.7MB/scanner", aapl, decodeFast},
		{"aapl-3.7MB/encoding-json", aapl, decodeReference},
		{"5MB/scanner", big, decodeFast},
		{"5MB/encoding-json", big, decodeReference},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			c0 := cputime.Seconds()
			for i := 0; i < b.N; i++ {
				if _, err := c.dec(c.in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Seconds()-c0)*1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkCompute is the computation of one answer from decoded facts.
func BenchmarkCompute(b *testing.B) {
	f, err := Decode(aaplFacts(b))
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 3, 21, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Compute(Input{Facts: f, Symbol: "AAPL", CIK: "0000320193", AsOf: at}); err != nil {
			b.Fatal(err)
		}
	}
}
