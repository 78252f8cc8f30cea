package perps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// This file is the HTTP exchange of the pollers: conditional GET (ETag,
// Last-Modified → 304), the venues' rate-limit answers (418 and 429 with
// Retry-After: nothing is sent to the host before it passes), a response size
// limit, a User-Agent naming the operator, a minimum spacing between two
// requests to one host. It stands in for pipeline/sources/poll until that
// package lands on main; the pollers use it only through fetcher.do.

// Fetch errors.
var (
	// ErrRateLimited: the host answered 418 or 429 (or 403 with
	// Retry-After), or is still inside the wait it asked for.
	ErrRateLimited = errors.New("rate limited by the venue")
	// ErrTooLarge: the answer exceeds the size limit.
	ErrTooLarge = errors.New("answer too large")
	// ErrHTTPStatus: an answer that is neither 2xx, 304, a rate limit nor a
	// venue error body (4xx with a JSON error object is returned to the
	// parser, which reports the venue's error).
	ErrHTTPStatus = errors.New("unexpected HTTP status")
)

// RateLimitError is an ErrRateLimited with the time the host allows again.
type RateLimitError struct {
	Host   string
	Status int
	Until  time.Time
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("%v: %s answered %d; next request after %s", ErrRateLimited, e.Host, e.Status, e.Until.UTC().Format(time.RFC3339))
}

func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

// answer is one HTTP answer.
type answer struct {
	body   []byte
	status int
	date   time.Time // the Date header; zero when absent or unparsable
	cached bool      // a 304 answered with the cached body
}

type cachedAnswer struct {
	etag, lastModified string
	body               []byte
	date               time.Time
}

// fetcher performs the pollers' requests. It is safe for concurrent use.
type fetcher struct {
	client    *http.Client
	userAgent string
	maxBytes  int64
	spacing   time.Duration
	now       func() time.Time
	// defaultWait is the wait after a 418/429 without Retry-After.
	defaultWait time.Duration

	mu      sync.Mutex
	blocked map[string]time.Time // host → no request before
	last    map[string]time.Time // host → last request
	cache   map[string]cachedAnswer
}

func newFetcher(client *http.Client, userAgent string, maxBytes int64, spacing time.Duration, now func() time.Time) *fetcher {
	return &fetcher{client: client, userAgent: userAgent, maxBytes: maxBytes, spacing: spacing, now: now,
		defaultWait: time.Minute, blocked: map[string]time.Time{}, last: map[string]time.Time{}, cache: map[string]cachedAnswer{}}
}

// do sends one request (GET when body is nil, else POST of JSON body) and
// returns the answer. 2xx and 4xx answers carrying a body are returned (the
// parsers recognise venue error objects); 304 returns the cached body.
func (f *fetcher) do(ctx context.Context, rawURL string, body []byte) (answer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return answer{}, fmt.Errorf("cannot request %s: %w", rawURL, err)
	}
	host := u.Host
	if err := f.wait(ctx, host); err != nil {
		return answer{}, err
	}
	method := http.MethodGet
	var rd io.Reader
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return answer{}, fmt.Errorf("cannot request %s: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "application/json")
	key := method + " " + rawURL + " " + string(body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	f.mu.Lock()
	c, haveCache := f.cache[key]
	f.mu.Unlock()
	if haveCache {
		if c.etag != "" {
			req.Header.Set("If-None-Match", c.etag)
		}
		if c.lastModified != "" {
			req.Header.Set("If-Modified-Since", c.lastModified)
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("cannot request %s: %w", redact(u), err)
	}
	defer resp.Body.Close()
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	switch {
	case resp.StatusCode == http.StatusNotModified && haveCache:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		if !date.IsZero() {
			c.date = date
		}
		return answer{body: c.body, status: http.StatusOK, date: c.date, cached: true}, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusTeapot ||
		(resp.StatusCode == http.StatusForbidden && resp.Header.Get("Retry-After") != ""):
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		until := f.now().Add(retryAfter(resp.Header.Get("Retry-After"), f.now(), f.defaultWait))
		f.mu.Lock()
		if until.After(f.blocked[host]) {
			f.blocked[host] = until
		}
		f.mu.Unlock()
		return answer{}, &RateLimitError{Host: host, Status: resp.StatusCode, Until: until}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return answer{}, fmt.Errorf("cannot read the answer of %s: %w", redact(u), err)
	}
	if int64(len(b)) > f.maxBytes {
		return answer{}, fmt.Errorf("%w: %s sent more than %d bytes", ErrTooLarge, redact(u), f.maxBytes)
	}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if et, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"); et != "" || lm != "" {
			f.mu.Lock()
			f.cache[key] = cachedAnswer{etag: et, lastModified: lm, body: b, date: date}
			f.mu.Unlock()
		}
		return answer{body: b, status: resp.StatusCode, date: date}, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && len(bytes.TrimSpace(b)) > 0 && bytes.TrimSpace(b)[0] == '{':
		// A venue error object (Binance {"code":-1121,…}): the parser
		// turns it into a venue error.
		return answer{body: b, status: resp.StatusCode, date: date}, nil
	}
	return answer{}, fmt.Errorf("%w %d from %s", ErrHTTPStatus, resp.StatusCode, redact(u))
}

// wait blocks until the host may be asked again: after a rate-limit answer's
// Retry-After it fails at once (the poll cycle moves on), and it keeps the
// spacing between two requests to one host.
func (f *fetcher) wait(ctx context.Context, host string) error {
	f.mu.Lock()
	now := f.now()
	if until := f.blocked[host]; now.Before(until) {
		f.mu.Unlock()
		return &RateLimitError{Host: host, Status: 0, Until: until}
	}
	next := f.last[host].Add(f.spacing)
	d := next.Sub(now)
	if d < 0 {
		d = 0
	}
	f.last[host] = now.Add(d)
	f.mu.Unlock()
	if d == 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// blockedUntil returns when the host may be asked again (zero when now).
func (f *fetcher) blockedUntil(rawURL string) time.Time {
	u, err := url.Parse(rawURL)
	if err != nil {
		return time.Time{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.blocked[u.Host]; f.now().Before(t) {
		return t
	}
	return time.Time{}
}

// retryAfter reads a Retry-After value (seconds or an HTTP date), bounded to
// [1 s, 24 h]; def when absent or unreadable.
func retryAfter(v string, now time.Time, def time.Duration) time.Duration {
	d := def
	if v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			d = time.Duration(s) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, time.Second), 24*time.Hour)
}

// redact drops the query of a URL for logs and errors (no secrets are sent,
// but queries are long).
func redact(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	return c.String()
}
