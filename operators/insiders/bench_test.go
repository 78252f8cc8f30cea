package insiders

import (
	"testing"
	"time"

	"github.com/marketintel/mi/internal/cputime"
)

// BenchmarkDecodeOwnership measures Form 4 parsing, in documents per
// second of one core (the target is at least 5,000), with the scanner and
// with encoding/xml alone.
func BenchmarkDecodeOwnership(b *testing.B) {
	for _, name := range []string{adamsXML, arwXML, scwoXML} {
		doc := fixture(b, name)
		for _, c := range []struct {
			how   string
			parse func([]byte) (*node, error)
		}{{"scanner", scan}, {"encoding-xml", parseReference}} {
			b.Run(name+"/"+c.how, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				c0 := cputime.Seconds()
				for i := 0; i < b.N; i++ {
					root, err := c.parse(doc)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := ownershipOf(root); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
				b.ReportMetric(float64(b.N)/(cputime.Seconds()-c0), "docs/cpu-s")
			})
		}
	}
}

// BenchmarkAnalyze is one answer from 40 decoded filings.
func BenchmarkAnalyze(b *testing.B) {
	d, err := DecodeOwnership(fixture(b, adamsXML))
	if err != nil {
		b.Fatal(err)
	}
	fs := make([]Filing, 40)
	for i := range fs {
		fs[i] = Filing{Listed: Listed{Accession: "a" + string(rune('A'+i)), Form: "4", FilingDate: "2022-05-06"}, Doc: d}
	}
	p := Params{Symbol: "AAPL", Days: 365, AsOf: time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Analyze(p, fs, nil)
	}
}
