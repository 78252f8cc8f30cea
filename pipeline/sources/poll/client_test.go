package poll_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

var t0 = time.Date(2026, 3, 2, 10, 2, 17, 0, time.UTC)

// newClient returns a client on a fake clock with no rate limit.
func newClient(t testing.TB, cfg sources.HTTPConfig) (*poll.Client, *clock.Fake) {
	t.Helper()
	f := clock.NewFake(t0)
	cfg.DefaultLimit = &sources.Limit{}
	return poll.NewClient(cfg, poll.Options{Clock: f, Hosts: poll.NewHosts(f, cfg)}), f
}

// versioned serves one document whose version the test changes, with the
// validators of that version, answering 304 to a matching conditional GET;
// it records the conditional headers of every request.
type versioned struct {
	mu       sync.Mutex
	version  int
	etag     bool // send an ETag (else only Last-Modified)
	inm, ims []string
}

func (v *versioned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.inm = append(v.inm, r.Header.Get("If-None-Match"))
	v.ims = append(v.ims, r.Header.Get("If-Modified-Since"))
	etag := fmt.Sprintf(`"v%d"`, v.version)
	lm := time.Date(2026, 3, 1, 0, v.version, 0, 0, time.UTC).Format(http.TimeFormat)
	if v.etag {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		w.Header().Set("Last-Modified", lm)
		if r.Header.Get("If-Modified-Since") == lm {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	fmt.Fprintf(w, "document version %d", v.version)
}

func TestConditionalGet(t *testing.T) {
	for _, etag := range []bool{true, false} {
		t.Run(fmt.Sprintf("etag=%v", etag), func(t *testing.T) {
			v := &versioned{etag: etag, version: 1}
			srv := httptest.NewServer(v)
			defer srv.Close()
			c, _ := newClient(t, sources.HTTPConfig{})
			ctx := context.Background()
			get := func(wantBody string, wantNotModified bool) *poll.Response {
				t.Helper()
				r, err := c.Get(ctx, srv.URL+"/doc")
				if err != nil {
					t.Fatal(err)
				}
				if r.NotModified != wantNotModified || string(r.Body) != wantBody {
					t.Fatalf("got notModified=%v body %q, want %v %q", r.NotModified, r.Body, wantNotModified, wantBody)
				}
				return r
			}
			get("document version 1", false)
			r := get("", true)
			if r.Status != http.StatusNotModified || r.Body != nil {
				t.Fatalf("304 answer: status %d, body %v", r.Status, r.Body)
			}
			v.mu.Lock()
			v.version = 2
			v.mu.Unlock()
			r = get("document version 2", false)
			if !etag && !r.Modified.Equal(time.Date(2026, 3, 1, 0, 2, 0, 0, time.UTC)) {
				t.Fatalf("Modified = %v", r.Modified)
			}
			get("", true)
			c.Forget(srv.URL + "/doc")
			get("document version 2", false)
			want := [][2]string{{"", ""}, {`"v1"`, ""}, {`"v1"`, ""}, {`"v2"`, ""}, {"", ""}}
			if !etag {
				lm := func(k int) string { return time.Date(2026, 3, 1, 0, k, 0, 0, time.UTC).Format(http.TimeFormat) }
				want = [][2]string{{"", ""}, {"", lm(1)}, {"", lm(1)}, {"", lm(2)}, {"", ""}}
			}
			v.mu.Lock()
			defer v.mu.Unlock()
			for i, w := range want {
				if v.inm[i] != w[0] || v.ims[i] != w[1] {
					t.Fatalf("request %d sent If-None-Match %q If-Modified-Since %q, want %q %q", i, v.inm[i], v.ims[i], w[0], w[1])
				}
			}
		})
	}
}

// TestExplicitValidators: a caller with its own cache passes validators;
// the client neither sends its remembered ones nor remembers new ones.
func TestExplicitValidators(t *testing.T) {
	v := &versioned{etag: true, version: 3}
	srv := httptest.NewServer(v)
	defer srv.Close()
	c, _ := newClient(t, sources.HTTPConfig{})
	r, err := c.Do(context.Background(), poll.Request{URL: srv.URL, Validators: &poll.Validators{ETag: `"v3"`}})
	if err != nil || !r.NotModified || r.Validators.ETag != `"v3"` {
		t.Fatalf("got %+v, %v; want not modified with the validators sent", r, err)
	}
	if _, err := c.Get(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if v.inm[1] != "" {
		t.Fatalf("second GET sent If-None-Match %q: explicit validators were remembered", v.inm[1])
	}
}

func TestUserAgentGzipAndPost(t *testing.T) {
	var ua, ae, method, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua, ae, method = r.UserAgent(), r.Header.Get("Accept-Encoding"), r.Method
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(r.Body)
		body = b.String()
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte(strings.Repeat("yield ", 1000)))
		_ = zw.Close()
	}))
	defer srv.Close()
	c, _ := newClient(t, sources.HTTPConfig{UserAgent: "MarketIntel/2.0", Contact: "ops@example.com"})
	r, err := c.Do(context.Background(), poll.Request{Method: http.MethodPost, URL: srv.URL + "/info", Body: []byte(`{"type":"meta"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if ua != "MarketIntel/2.0 (+ops@example.com)" || !strings.Contains(ae, "gzip") || method != "POST" || body != `{"type":"meta"}` {
		t.Fatalf("server saw User-Agent %q, Accept-Encoding %q, %s %q", ua, ae, method, body)
	}
	if string(r.Body) != strings.Repeat("yield ", 1000) {
		t.Fatalf("body not decompressed: %d bytes", len(r.Body))
	}
}

func TestThrottled(t *testing.T) {
	f := func(status int, retryAfter func(now time.Time) string, wantUntil time.Duration) {
		t.Helper()
		var hits atomic.Int32
		var fc *clock.Fake
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) == 1 {
				if ra := retryAfter(fc.Now()); ra != "" {
					w.Header().Set("Retry-After", ra)
				}
				w.WriteHeader(status)
				return
			}
			fmt.Fprint(w, "ok")
		}))
		defer srv.Close()
		var c *poll.Client
		c, fc = newClient(t, sources.HTTPConfig{})
		ctx := context.Background()
		_, err := c.Get(ctx, srv.URL+"/a")
		var te *poll.ThrottledError
		if !errors.As(err, &te) || te.Status != status || te.Early || te.Banned() != (status == 418) {
			t.Fatalf("status %d: got %v, want a ThrottledError", status, err)
		}
		if wantUntil == 0 {
			if !te.Until.IsZero() {
				t.Fatalf("status %d: Until %v without Retry-After", status, te.Until)
			}
			if _, err := c.Get(ctx, srv.URL+"/a"); err != nil {
				t.Fatalf("status %d without Retry-After blocked the host: %v", status, err)
			}
			return
		}
		if !te.Until.Equal(t0.Add(wantUntil)) {
			t.Fatalf("status %d: Until %v, want %v", status, te.Until, t0.Add(wantUntil))
		}
		// Until then, any URL of the host is refused without a request.
		fc.Advance(wantUntil - time.Second)
		_, err = c.Get(ctx, srv.URL+"/b")
		if !errors.As(err, &te) || !te.Early || !te.Until.Equal(t0.Add(wantUntil)) || te.Status != status {
			t.Fatalf("status %d: during Retry-After got %v, want an early ThrottledError", status, err)
		}
		if hits.Load() != 1 {
			t.Fatalf("status %d: %d requests reached the server during Retry-After", status, hits.Load())
		}
		fc.Advance(time.Second)
		if r, err := c.Get(ctx, srv.URL+"/b"); err != nil || string(r.Body) != "ok" {
			t.Fatalf("status %d: after Retry-After got %v", status, err)
		}
	}
	f(429, func(time.Time) string { return "120" }, 120*time.Second)
	f(429, func(now time.Time) string { return now.Add(90 * time.Second).UTC().Format(http.TimeFormat) }, 90*time.Second)
	f(418, func(time.Time) string { return "3600" }, time.Hour)
	f(503, func(time.Time) string { return "30" }, 30*time.Second)
	f(403, func(time.Time) string { return "600" }, 10*time.Minute)
	f(429, func(time.Time) string { return "" }, 0)
	f(429, func(time.Time) string { return "soon" }, 0)
}

func TestStatusError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such\n  series", http.StatusNotFound)
	}))
	defer srv.Close()
	c, _ := newClient(t, sources.HTTPConfig{})
	_, err := c.Get(context.Background(), srv.URL+"/x")
	var se *poll.StatusError
	if !errors.As(err, &se) || se.Status != 404 || se.Snippet != "no such series" {
		t.Fatalf("got %v", err)
	}
	if _, err := c.Get(context.Background(), "ftp://example.com/x"); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Fatalf("ftp URL: %v", err)
	}
}

func TestTruncatedBody(t *testing.T) {
	var inm []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inm = append(inm, r.Header.Get("If-None-Match"))
		w.Header().Set("ETag", `"t"`)
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write([]byte("<rss><channel><item>"))
		// the handler returns with 980 bytes missing: the server closes
		// the connection
	}))
	defer srv.Close()
	c, _ := newClient(t, sources.HTTPConfig{})
	for range 2 {
		_, err := c.Get(context.Background(), srv.URL)
		if !errors.Is(err, poll.ErrTruncated) {
			t.Fatalf("got %v, want ErrTruncated", err)
		}
	}
	if inm[1] != "" {
		t.Fatalf("the validators of a truncated body were remembered (If-None-Match %q)", inm[1])
	}
}

func TestBodyLimit(t *testing.T) {
	f := func(name string, h http.HandlerFunc, limit int64, wantErr bool) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		c, _ := newClient(t, sources.HTTPConfig{MaxBodyBytes: limit})
		r, err := c.Get(context.Background(), srv.URL)
		if wantErr != errors.Is(err, poll.ErrTooLarge) || (!wantErr && err != nil) {
			t.Fatalf("%s: got %v, want ErrTooLarge %v", name, err, wantErr)
		}
		if wantErr && r != nil {
			t.Fatalf("%s: a response came with ErrTooLarge", name)
		}
	}
	body := strings.Repeat("x", 100)
	announced := func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }
	chunked := func(w http.ResponseWriter, r *http.Request) {
		for range 10 {
			fmt.Fprint(w, body[:10])
			w.(http.Flusher).Flush()
		}
	}
	gz := func(w http.ResponseWriter, r *http.Request) { // 100 kB in ~130 bytes
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(bytes.Repeat([]byte{0}, 100_000))
		_ = zw.Close()
	}
	f("announced at the limit", announced, 100, false)
	f("announced over", announced, 99, true)
	f("chunked at the limit", chunked, 100, false)
	f("chunked over", chunked, 99, true)
	f("gzip bomb", gz, 10_000, true)
}

// TestSharedRateLimit: 40 concurrent requests from two clients sharing one
// Hosts, at 10 requests/s with bursts of 2, start exactly on the token
// bucket's slots (read at the server on the fake clock): two at once, then
// one every 100 ms. Time moves only when every request is either done or
// parked on the limiter, so the result does not depend on load.
func TestSharedRateLimit(t *testing.T) {
	fc := clock.NewFake(t0)
	var mu sync.Mutex
	var at []time.Duration
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, fc.Now().Sub(t0))
		mu.Unlock()
	}))
	defer srv.Close()
	cfg := sources.HTTPConfig{Hosts: map[string]sources.Limit{"127.0.0.1": {Rate: 10, Burst: 2}}}
	hosts := poll.NewHosts(fc, cfg)
	clients := []*poll.Client{
		poll.NewClient(cfg, poll.Options{Clock: fc, Hosts: hosts}),
		poll.NewClient(cfg, poll.Options{Clock: fc, Hosts: hosts}),
	}
	const n = 40
	var done atomic.Int32
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := clients[i%2].Get(context.Background(), fmt.Sprintf("%s/oi?symbol=S%d", srv.URL, i))
			errs <- err
			done.Add(1)
		}()
	}
	watchdog := time.Now().Add(time.Minute)
	for int(done.Load()) < n {
		if fc.Waiters()+int(done.Load()) == n && fc.Waiters() > 0 {
			fc.AdvanceToNext()
			continue
		}
		if time.Now().After(watchdog) {
			t.Fatalf("stuck: %d done, %d waiting", done.Load(), fc.Waiters())
		}
		time.Sleep(100 * time.Microsecond)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != n {
		t.Fatalf("%d requests reached the server", len(at))
	}
	// sort: requests released together may arrive in any order
	for i := range at {
		for j := i + 1; j < len(at); j++ {
			if at[j] < at[i] {
				at[i], at[j] = at[j], at[i]
			}
		}
	}
	for i, d := range at {
		want := time.Duration(max(i-1, 0)) * 100 * time.Millisecond
		if d != want {
			t.Fatalf("request %d started at +%v, want +%v (all: %v)", i, d, want, at)
		}
	}
}

// TestRateLimitDeadline: a caller whose deadline comes before its slot is
// refused at once with ErrRateLimited and does not take the slot.
func TestRateLimitDeadline(t *testing.T) {
	fc := clock.NewFake(t0)
	cfg := sources.HTTPConfig{DefaultLimit: &sources.Limit{Rate: 0.001, Burst: 1}}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := poll.NewClient(cfg, poll.Options{Clock: fc, Hosts: poll.NewHosts(fc, cfg)})
	if _, err := c.Get(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Get(ctx, srv.URL); !errors.Is(err, sources.ErrRateLimited) {
		t.Fatalf("got %v, want ErrRateLimited", err)
	}
	fc.Advance(1000 * time.Second) // one token back: the refused call took none
	if _, err := c.Get(ctx, srv.URL); err != nil || hits.Load() != 2 {
		t.Fatalf("after the refill: %v, %d hits", err, hits.Load())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	f := func(v string, want time.Duration, wantOK bool) {
		t.Helper()
		got, ok := poll.ParseRetryAfter(v, now)
		if ok != wantOK || (ok && got.Sub(now) != want) {
			t.Fatalf("ParseRetryAfter(%q) = %v %v, want +%v %v", v, got, ok, want, wantOK)
		}
	}
	f("120", 120*time.Second, true)
	f(" 0 ", 0, true)
	f("Mon, 02 Mar 2026 10:05:00 GMT", 5*time.Minute, true)
	f("Monday, 02-Mar-26 10:05:00 GMT", 5*time.Minute, true) // RFC 850
	f("Mon Mar  2 10:05:00 2026", 5*time.Minute, true)       // asctime
	f("Mon, 02 Mar 2026 09:00:00 GMT", 0, true)              // past: now
	f("99999999999999999999", 7*24*time.Hour, true)
	f("2592000", 7*24*time.Hour, true) // 30 days: cut to 7
	f("-5", 0, false)
	f("1.5", 0, false)
	f("", 0, false)
	f("tomorrow", 0, false)
}
