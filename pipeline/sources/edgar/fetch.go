package edgar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/marketintel/mi/pipeline/sources"
)

// Response is a body read from EDGAR or from the cache.
type Response struct {
	URL  string
	Body []byte
	// FetchedAt is when EDGAR last sent or confirmed (304) this body.
	FetchedAt time.Time
	// FromCache is true when no request was made (the entry was within
	// its TTL).
	FromCache bool
	// Revalidated is true when EDGAR answered 304 Not Modified.
	Revalidated bool
	// Stale is true when EDGAR could not be reached and the cached body
	// is past its TTL (but within MaxStale).
	Stale bool
}

// gate is the rate limit and the 403/429 cool-down of one host group,
// shared by every client of the process.
type gate struct {
	lim *rate.Limiter
	mu  sync.Mutex
	// until is the end of the current cool-down after a 403/429.
	until time.Time
}

var (
	gatesMu sync.Mutex
	gates   = map[string]*gate{}
)

// hostGroup is the key of the rate limit of a URL: "sec.gov" for
// www.sec.gov, data.sec.gov and efts.sec.gov (the SEC counts them
// together), the host and port otherwise.
func hostGroup(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	h := strings.ToLower(u.Hostname())
	if h == "sec.gov" || strings.HasSuffix(h, ".sec.gov") {
		return "sec.gov"
	}
	return u.Host
}

// gateFor returns the process-wide gate of a host group, created with rps
// requests per second (burst 1). A later client asking for a lower rate
// lowers it for everyone; a higher rate never raises it.
func gateFor(group string, rps float64) *gate {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	g, ok := gates[group]
	if !ok {
		g = &gate{lim: rate.NewLimiter(rate.Limit(rps), 1)}
		gates[group] = g
		return g
	}
	if rate.Limit(rps) < g.lim.Limit() {
		g.lim.SetLimit(rate.Limit(rps))
	}
	return g
}

// wait blocks until a request may be sent: after any cool-down, then a
// token of the rate limiter. It fails fast with ErrRateLimited when the
// caller's deadline comes first.
func (g *gate) wait(ctx context.Context, now func() time.Time) error {
	g.mu.Lock()
	until := g.until
	g.mu.Unlock()
	if d := until.Sub(now()); d > 0 {
		if dl, ok := ctx.Deadline(); ok && dl.Before(until) {
			return fmt.Errorf("cannot wait %s for EDGAR's cool-down before the deadline: %w", d.Round(time.Millisecond), ErrRateLimited)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	if err := g.lim.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("cannot get an EDGAR request slot before the deadline: %w", ErrRateLimited)
	}
	return nil
}

// coolDown makes every caller of the host group wait d from now.
func (g *gate) coolDown(at time.Time, d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if u := at.Add(d); u.After(g.until) {
		g.until = u
	}
}

// fetcher does the HTTP side of a Client: cache, singleflight, rate limit,
// retries.
type fetcher struct {
	cfg   Config
	cache cache
	group singleflight.Group

	nfMu     sync.Mutex
	notFound map[string]time.Time // URL → when a 404 was seen

	unreachable atomic.Bool
	stats       stats
}

func newFetcher(cfg Config) (*fetcher, error) {
	f := &fetcher{cfg: cfg, notFound: map[string]time.Time{}}
	if cfg.CacheDir != "" {
		dc, err := newDiskCache(cfg.CacheDir)
		if err != nil {
			return nil, err
		}
		f.cache = dc
	} else {
		f.cache = newMemCache(cfg.MemoryCacheBytes)
	}
	return f, nil
}

// get returns the body of rawURL, from the cache when it is younger than
// ttl, else from EDGAR (conditionally when cached). Concurrent calls for
// one URL share one fetch; a caller that gives up does not cancel it for
// the others.
func (f *fetcher) get(ctx context.Context, rawURL string, ttl time.Duration) (Response, error) {
	return f.getKeyed(ctx, rawURL, rawURL, ttl, nil)
}

// getKeyed is get with the cache entry and the shared fetch keyed by key,
// and the body read by read when not nil (to read only a prefix, e.g. a
// submission's header); read must return at most MaxBodyBytes.
func (f *fetcher) getKeyed(ctx context.Context, rawURL, key string, ttl time.Duration, read func(io.Reader) ([]byte, error)) (Response, error) {
	ch := f.group.DoChan(key, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(f.cfg.RequestTimeout))
		defer cancel()
		if dl, ok := ctx.Deadline(); ok {
			// The first caller's deadline still bounds the shared fetch's
			// waits, so an on-demand call is not held by a long cool-down.
			var c2 context.CancelFunc
			fctx, c2 = context.WithDeadline(fctx, dl)
			defer c2()
		}
		return f.fetch(fctx, rawURL, key, ttl, read)
	})
	select {
	case <-ctx.Done():
		return Response{}, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return Response{}, r.Err
		}
		return r.Val.(Response), nil
	}
}

func (f *fetcher) fetch(ctx context.Context, rawURL, key string, ttl time.Duration, read func(io.Reader) ([]byte, error)) (Response, error) {
	now := f.cfg.Now()
	e, cached := f.cache.load(key)
	if cached && now.Sub(e.FetchedAt) < ttl {
		f.stats.cacheHits.Add(1)
		return Response{URL: rawURL, Body: e.Body, FetchedAt: e.FetchedAt, FromCache: true}, nil
	}
	f.nfMu.Lock()
	seen, nf := f.notFound[rawURL]
	f.nfMu.Unlock()
	if nf && now.Sub(seen) < time.Duration(f.cfg.TTL.NotFound) {
		return Response{}, fmt.Errorf("cannot get %s: %w (answered %s ago)", rawURL, ErrNotFound, now.Sub(seen).Round(time.Second))
	}
	var prev *cacheEntry
	if cached && read == nil {
		prev = e
	}
	resp, err := f.do(ctx, rawURL, key, prev, read)
	switch {
	case err == nil:
		f.markReachable()
		f.stats.success(f.cfg.Now())
		return resp, nil
	case errors.Is(err, ErrNotFound):
		f.markReachable()
		f.nfMu.Lock()
		f.notFound[rawURL] = f.cfg.Now()
		f.nfMu.Unlock()
		return Response{}, err
	}
	f.stats.failure(f.cfg.Now(), err)
	if errors.Is(err, ErrUnreachable) {
		f.markUnreachable(err)
	}
	if cached && now.Sub(e.FetchedAt) < ttl+time.Duration(f.cfg.TTL.MaxStale) &&
		(errors.Is(err, ErrUnreachable) || errors.Is(err, ErrRateLimited) || ctx.Err() != nil) {
		f.stats.staleServed.Add(1)
		return Response{URL: rawURL, Body: e.Body, FetchedAt: e.FetchedAt, FromCache: true, Stale: true}, nil
	}
	return Response{}, err
}

// do sends the request, retrying 403, 429, 5xx and network errors with
// backoff, and stores a 200 in the cache.
func (f *fetcher) do(ctx context.Context, rawURL, key string, prev *cacheEntry, read func(io.Reader) ([]byte, error)) (Response, error) {
	g := gateFor(hostGroup(rawURL), f.cfg.RequestsPerSecond)
	bo := sources.Backoff{Min: time.Duration(f.cfg.RetryMin), Max: time.Duration(f.cfg.RetryMax)}
	var last error
	for attempt := 1; ; attempt++ {
		if err := g.wait(ctx, f.cfg.Now); err != nil {
			if last != nil {
				return Response{}, fmt.Errorf("%w (after: %v)", err, last)
			}
			return Response{}, err
		}
		resp, retryAfter, err := f.once(ctx, rawURL, key, prev, read)
		if err == nil {
			return resp, nil
		}
		last = err
		if !errors.Is(err, ErrUnreachable) && !errors.Is(err, ErrRateLimited) {
			return Response{}, err
		}
		d := bo.Next()
		if retryAfter > 0 {
			d = retryAfter
		}
		if errors.Is(err, ErrRateLimited) {
			// Every caller of the host group waits, not only this one.
			f.stats.rateLimited.Add(1)
			g.coolDown(f.cfg.Now(), d)
		}
		if attempt >= f.cfg.MaxAttempts {
			return Response{}, fmt.Errorf("%w (after %d tries)", err, attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return Response{}, fmt.Errorf("%w (no time left to retry in %s)", err, d.Round(time.Millisecond))
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return Response{}, fmt.Errorf("%w (gave up: %v)", err, ctx.Err())
		case <-t.C:
		}
	}
}

// once sends one request. Errors wrap ErrUnreachable or ErrRateLimited when
// a retry may help.
func (f *fetcher) once(ctx context.Context, rawURL, key string, prev *cacheEntry, read func(io.Reader) ([]byte, error)) (Response, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return Response{}, 0, fmt.Errorf("cannot build the request for %s: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "*/*")
	if prev != nil {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	f.stats.requests.Add(1)
	res, err := f.cfg.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, 0, fmt.Errorf("cannot get %s: %w: %v", rawURL, ErrUnreachable, ctx.Err())
		}
		return Response{}, 0, fmt.Errorf("cannot get %s: %w: %v", rawURL, ErrUnreachable, unwrapURLError(err))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusOK:
		var body []byte
		if read != nil {
			body, err = read(io.LimitReader(res.Body, f.cfg.MaxBodyBytes+1))
			if err != nil && errors.Is(err, ErrMalformed) {
				return Response{}, 0, fmt.Errorf("cannot read %s: %w", rawURL, err)
			}
		} else {
			body, err = io.ReadAll(io.LimitReader(res.Body, f.cfg.MaxBodyBytes+1))
		}
		if err != nil {
			return Response{}, 0, fmt.Errorf("cannot read %s: %w: body cut off: %v", rawURL, ErrUnreachable, err)
		}
		if int64(len(body)) > f.cfg.MaxBodyBytes {
			return Response{}, 0, fmt.Errorf("cannot read %s: %w: more than %d bytes", rawURL, ErrTooLarge, f.cfg.MaxBodyBytes)
		}
		at := f.cfg.Now()
		e := &cacheEntry{URL: key, ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified"),
			FetchedAt: at, Body: body}
		if err := f.cache.store(e); err != nil {
			f.cfg.Logger.Warn("EDGAR cache write failed", "url", rawURL, "err", err)
		}
		return Response{URL: rawURL, Body: body, FetchedAt: at}, 0, nil
	case res.StatusCode == http.StatusNotModified && prev != nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		at := f.cfg.Now()
		f.stats.notModified.Add(1)
		if err := f.cache.touch(key, at); err != nil {
			f.cfg.Logger.Warn("EDGAR cache write failed", "url", rawURL, "err", err)
		}
		return Response{URL: rawURL, Body: prev.Body, FetchedAt: at, Revalidated: true}, 0, nil
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusGone:
		return Response{}, 0, fmt.Errorf("cannot get %s: %w (HTTP %d)", rawURL, ErrNotFound, res.StatusCode)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusForbidden:
		// EDGAR answers 403 "Request Rate Threshold Exceeded" (and 403 to
		// requests without a declared User-Agent), 429 elsewhere.
		return Response{}, retryAfter(res.Header.Get("Retry-After"), f.cfg.Now()),
			fmt.Errorf("cannot get %s: %w (HTTP %d)", rawURL, ErrRateLimited, res.StatusCode)
	case res.StatusCode >= 500:
		return Response{}, retryAfter(res.Header.Get("Retry-After"), f.cfg.Now()),
			fmt.Errorf("cannot get %s: %w (HTTP %d)", rawURL, ErrUnreachable, res.StatusCode)
	}
	return Response{}, 0, fmt.Errorf("cannot get %s: EDGAR answered HTTP %d", rawURL, res.StatusCode)
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable. It is capped at 10 minutes, EDGAR's own block.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.Atoi(v); err == nil {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), 10*time.Minute)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		var ne net.Error
		if errors.As(ue.Err, &ne) && ne.Timeout() {
			return fmt.Errorf("timeout")
		}
		return ue.Err
	}
	return err
}

func (f *fetcher) markUnreachable(err error) {
	if !f.unreachable.Swap(true) {
		f.cfg.Logger.Warn("EDGAR unreachable; later requests retry, cached responses are served meanwhile", "err", err)
	}
}

func (f *fetcher) markReachable() {
	if f.unreachable.Swap(false) {
		f.cfg.Logger.Info("EDGAR reachable again")
	}
}
