package views

import (
	"fmt"
	"testing"

	"github.com/marketintel/mi/schemas"
)

func benchViews(n int) (*Views, []string) {
	v := New()
	symbols := make([]string, n)
	for i := range symbols {
		symbols[i] = fmt.Sprintf("SYM%04dUSD", i)
		for _, w := range schemas.Windows {
			v.Apply(doc(symbols[i], w, 1, 1))
		}
	}
	return v, symbols
}

func BenchmarkGet(b *testing.B) {
	v, symbols := benchViews(500)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := v.Get(symbols[i%len(symbols)], "5m"); !ok {
				panic("BUG: benchmark document missing")
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
}

func BenchmarkApply(b *testing.B) {
	v, symbols := benchViews(500)
	d := doc("X", "5m", 0, 1)
	d.Evidence = []string{"volume 3.2x baseline", "buy pressure 71%", "12 large trades"}
	d.Observations.Quality.Gaps = []*schemas.Gap{{Source: "s", FromNs: 1, ToNs: 2, Reason: "reconnect"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Symbol = symbols[i%len(symbols)]
		d.TimestampNs = int64(i + 2)
		v.Apply(d)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "applies/s")
}

func BenchmarkList(b *testing.B) {
	v, _ := benchViews(500)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if len(v.List("5m")) != 500 {
			panic("BUG: benchmark list incomplete")
		}
	}
}
