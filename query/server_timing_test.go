package query

import (
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/marketintel/mi/schemas"
)

// benchServer returns a server over 200 symbols in every window.
func benchServer() *Server {
	var docs []*schemas.IntelligenceDocument
	for i := 0; i < 200; i++ {
		for _, w := range schemas.Windows {
			d := fullDoc()
			d.Symbol, d.Window, d.TradeCount = fmt.Sprintf("SYM%03dUSD", i), w, int64(i)
			docs = append(docs, d)
		}
	}
	return newTestServer(nil, nil, docs...)
}

// benchRoute serves target through the app's fasthttp handler in memory, no
// network, and reports requests per second.
func benchRoute(b *testing.B, target string, wantStatus int) {
	h := benchServer().App().Handler()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod(fasthttp.MethodGet)
		ctx.Request.SetRequestURI(target)
		h(&ctx)
		if ctx.Response.StatusCode() != wantStatus {
			b.Fatalf("GET %s: status %d, want %d: %s", target, ctx.Response.StatusCode(), wantStatus, ctx.Response.Body())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func BenchmarkSymbolRoute(b *testing.B) {
	benchRoute(b, "/api/v1/intelligence/sym042usd?window=5m", 200)
}

func BenchmarkSymbolRouteNoData(b *testing.B) {
	benchRoute(b, "/api/v1/intelligence/NOPE?window=5m", 404)
}

func BenchmarkListRoute(b *testing.B) {
	benchRoute(b, "/api/v1/intelligence?window=5m&limit=20", 200)
}

// BenchmarkSummaryRoute measures GET /api/v1/intelligence/summary over 200
// symbols.
func BenchmarkSummaryRoute(b *testing.B) {
	benchRoute(b, "/api/v1/intelligence/summary?window=5m", 200)
}
