package news

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/newsview"
)

// BenchmarkNewsRoute100k is the news routes as the server serves them
// (parameters validated, the view read, the answer rendered) over a view
// of 100,000 items: copies of the real captured headlines and the ADBE
// 8-K, 30 seconds apart. It reports the median and the 99th percentile of
// a mix of requests (target: /api/v1/news p50 < 2 ms).
func BenchmarkNewsRoute100k(b *testing.B) {
	dir := fixtures.Dir(b)
	dict, err := newsreplay.Dictionary(dir)
	if err != nil {
		b.Fatal(err)
	}
	base, err := newsreplay.Items(dir, fetched)
	if err != nil {
		b.Fatal(err)
	}
	v := newsview.New(dict, 10*365*24*time.Hour)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range 100_000 {
		n := proto.Clone(base[i%len(base)]).(*schemas.NewsItem)
		n.Id = fmt.Sprintf("url:%024x", i)
		n.Url = fmt.Sprintf("%s?n=%d", n.Url, i)
		if n.Filing != nil {
			n.Id = fmt.Sprintf("sec:%010d-26-%06d", i, i)
		}
		n.PublishedNs = t0 + int64(i)*int64(30*time.Second)
		if err := v.Apply(n); err != nil {
			b.Fatal(err)
		}
	}
	app, _ := mount(v)
	h := app.Handler()
	targets := []string{"/api/v1/news", "/api/v1/news?category=crypto", "/api/v1/news?query=bitcoin",
		"/api/v1/news?query=ADBE", "/api/v1/news?category=crypto&query=prediction+markets&limit=50",
		"/api/v1/news?limit=100", "/api/v1/news/symbol?symbol=BTC", "/api/v1/news/symbol?symbol=XRPUSD&limit=100"}
	var ctx fasthttp.RequestCtx
	for _, tg := range targets { // settle the view, check the answers
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(tg)
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("GET %s: %d %s", tg, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	lat := make([]time.Duration, 0, b.N)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(targets[i%len(targets)])
		s := time.Now()
		h(&ctx)
		lat = append(lat, time.Since(s))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
