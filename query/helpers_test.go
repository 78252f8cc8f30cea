package query

import (
	"time"

	"github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// Fixtures shared with the rooms' tests (package querytest).
var (
	testNow  = querytest.Now
	fullDoc  = querytest.FullDoc
	smallDoc = querytest.SmallDoc
	do       = querytest.Do
)

// newTestServer returns a server over views holding docs, with a fixed
// clock and the given stats and paywall.
func newTestServer(stats *stats.Stats, pw Paywall, docs ...*schemas.IntelligenceDocument) *Server {
	v := views.New()
	for _, d := range docs {
		v.Apply(d)
	}
	return New(Deps{
		Views:   v,
		Stats:   stats,
		Version: "0.1.0-test",
		Now:     func() time.Time { return testNow },
		Paywall: pw,
	})
}

// fixedOps are operator counters for /status and /metrics.
type fixedOps stats.OperatorCounts

func (f fixedOps) Counts() stats.OperatorCounts { return stats.OperatorCounts(f) }

// Prices of spec §8 the tests check answers against (micro-USD).
const (
	priceIntelligenceList   = 10_000
	priceIntelligenceSymbol = 5_000
	priceSummary            = 10_000
	priceCompare            = 10_000
)
