package ratesview

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/cputime"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesview/ratesgen"
)

// benchReserves and benchFunds are ratesgen's chains and funds as the
// view's configuration.
var (
	benchReserves = func() []Reserve {
		var out []Reserve
		for i, r := range ratesgen.Reserves {
			out = append(out, Reserve{"aave-v3", r.Chain, int64(i + 1), r.Pool, r.Asset, "USDC"})
		}
		return out
	}()
	benchFunds = func() []Fund {
		var out []Fund
		for _, f := range ratesgen.Funds {
			out = append(out, Fund{f.Symbol, f.Symbol, "issuer", "ethereum", f.Token})
		}
		return out
	}()
)

func genYear(end time.Time) []*schemas.RatesRecord { return ratesgen.Year(end) }

var benchEnd = time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC)

func benchView(b *testing.B) (*View, int) {
	b.Helper()
	rs := genYear(benchEnd)
	v := New(Config{Notice: "N", Reserves: benchReserves, Funds: benchFunds})
	for _, r := range rs {
		if err := v.Apply(r); err != nil {
			b.Fatal(err)
		}
	}
	return v, len(rs)
}

// BenchmarkRebuildYear is the cold start: a year of records decoded from
// their wire bytes and applied to an empty view.
func BenchmarkRebuildYear(b *testing.B) {
	rs := genYear(benchEnd)
	wire := make([][]byte, len(rs))
	for i, r := range rs {
		wire[i], _ = proto.Marshal(r)
	}
	b.ReportMetric(float64(len(rs)), "records")
	cpu0 := cputime.Seconds()
	for b.Loop() {
		v := New(Config{Notice: "N", Reserves: benchReserves, Funds: benchFunds})
		for _, w := range wire {
			var r schemas.RatesRecord
			if err := proto.Unmarshal(w, &r); err != nil {
				b.Fatal(err)
			}
			if err := v.Apply(&r); err != nil {
				b.Fatal(err)
			}
		}
	}
	// CPU time of the process per rebuild: the machine is shared, and
	// the wall time counts the other processes too.
	b.ReportMetric((cputime.Seconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
}

// BenchmarkRoutes answers each route from a view holding a year and
// renders it as JSON; p50 and p99 are reported per call.
func BenchmarkRoutes(b *testing.B) {
	v, _ := benchView(b)
	now := benchEnd.Add(time.Minute)
	routes := []struct {
		name string
		call func() (any, error)
	}{
		{"curve", func() (any, error) { return v.Curve(now) }},
		{"defi-spread", func() (any, error) { return v.DefiSpread(now) }},
		{"tokenized-treasuries", func() (any, error) { return v.TokenizedTreasuries(now) }},
		{"auctions", func() (any, error) { return v.Auctions(now, 14) }},
		{"auctions-60d", func() (any, error) { return v.Auctions(now, 60) }},
	}
	for _, r := range routes {
		b.Run(r.name, func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				t0 := time.Now()
				a, err := r.call()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(a); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
