package query

import (
	"testing"

	"github.com/valyala/fasthttp"
)

// benchPage serves target to a browser (Accept: text/html) through the
// app's handler in memory over 200 symbols, and reports pages per second.
func benchPage(b *testing.B, target string) {
	h := benchServer().App().Handler()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod(fasthttp.MethodGet)
		ctx.Request.Header.Set("Accept", browserAccept)
		ctx.Request.SetRequestURI(target)
		h(&ctx)
		if ctx.Response.StatusCode() != fasthttp.StatusOK {
			b.Fatalf("GET %s: status %d: %.300s", target, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkHomePage renders the home page: the preview, status and
// coverage read through the internal route table, the route list.
func BenchmarkHomePage(b *testing.B) { benchPage(b, "/") }

// BenchmarkStatusPage renders /status for a browser.
func BenchmarkStatusPage(b *testing.B) { benchPage(b, "/status") }

// BenchmarkCoveragePage renders /coverage (every symbol's sources).
func BenchmarkCoveragePage(b *testing.B) { benchPage(b, "/coverage") }
