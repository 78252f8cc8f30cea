package query

import (
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkQuote402 is the unpaid path of a paid route: the paywall builds
// the 402 (PAYMENT-REQUIRED header with four networks and a fresh sign-in
// challenge, JSON body) through the whole Fiber app.
func BenchmarkQuote402(b *testing.B) {
	s := newPricedServer(b, -1)
	h := s.App().Handler()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI("/api/v1/intelligence/BTCUSD")
		h(&ctx)
		if ctx.Response.StatusCode() != 402 {
			b.Fatalf("status %d", ctx.Response.StatusCode())
		}
	}
}
