package poll_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

// BenchmarkConditionalGet is one poll of an unchanged document: a GET with
// If-None-Match answered 304 by a local server (keep-alive connection).
// BenchmarkFullGet is the same document (20 kB, the size of a news feed)
// read whole each time, for comparison in one run.
func BenchmarkConditionalGet(b *testing.B) { benchGet(b, true) }

func BenchmarkFullGet(b *testing.B) { benchGet(b, false) }

func benchGet(b *testing.B, conditional bool) {
	doc := strings.Repeat("<item><title>headline</title></item>\n", 540)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if conditional && r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write([]byte(doc))
	}))
	defer srv.Close()
	cfg := sources.HTTPConfig{DefaultLimit: &sources.Limit{}}
	c := poll.NewClient(cfg, poll.Options{Hosts: poll.NewHosts(nil, cfg)})
	ctx := context.Background()
	if _, err := c.Get(ctx, srv.URL); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := c.Get(ctx, srv.URL)
		if err != nil || r.NotModified != conditional {
			b.Fatalf("%v, not modified %v", err, r != nil && r.NotModified)
		}
	}
}
