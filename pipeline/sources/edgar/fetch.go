package edgar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
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

// fetcher does the HTTP side of a Client on top of poll.Client: the
// cache, one fetch per URL, retries, stale answers.
type fetcher struct {
	cfg   Config
	cache cache
	group singleflight.Group

	nfMu     sync.Mutex
	notFound map[string]time.Time // URL → when a 404 was seen

	stats stats
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

func (f *fetcher) now() time.Time { return f.cfg.Clock.Now() }

// get returns the body of rawURL, from the cache when it is younger than
// ttl, else from EDGAR (conditionally when cached). Concurrent calls for
// one URL share one fetch; a caller that gives up does not cancel it for
// the others.
func (f *fetcher) get(ctx context.Context, rawURL string, ttl time.Duration) (Response, error) {
	return f.getLimited(ctx, rawURL, ttl, f.cfg.MaxBodyBytes)
}

// getLimited is get with its own body size limit.
func (f *fetcher) getLimited(ctx context.Context, rawURL string, ttl time.Duration, limit int64) (Response, error) {
	ch := f.group.DoChan(rawURL, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(f.cfg.RequestTimeout))
		defer cancel()
		if dl, ok := ctx.Deadline(); ok {
			// The first caller's deadline still bounds the shared fetch's
			// waits, so an on-demand call is not held by a long Retry-After.
			var c2 context.CancelFunc
			fctx, c2 = context.WithDeadline(fctx, dl)
			defer c2()
		}
		return f.fetch(fctx, rawURL, ttl, limit)
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

func (f *fetcher) fetch(ctx context.Context, rawURL string, ttl time.Duration, limit int64) (Response, error) {
	now := f.now()
	e, cached := f.cache.load(rawURL)
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
	if cached {
		prev = e
	}
	resp, err := f.do(ctx, rawURL, prev, limit)
	switch {
	case err == nil:
		f.stats.success(f.now())
		return resp, nil
	case errors.Is(err, ErrNotFound):
		f.nfMu.Lock()
		f.notFound[rawURL] = f.now()
		f.nfMu.Unlock()
		return Response{}, err
	}
	f.stats.failure(f.now(), err)
	if cached && now.Sub(e.FetchedAt) < ttl+time.Duration(f.cfg.TTL.MaxStale) &&
		(errors.Is(err, ErrUnreachable) || errors.Is(err, ErrRateLimited) || ctx.Err() != nil) {
		f.stats.staleServed.Add(1)
		return Response{URL: rawURL, Body: e.Body, FetchedAt: e.FetchedAt, FromCache: true, Stale: true}, nil
	}
	return Response{}, err
}

// do sends the request through the poll client, retrying throttling,
// 5xx, cut-off bodies and network errors with backoff (or the
// Retry-After), and stores a complete answer in the cache.
func (f *fetcher) do(ctx context.Context, rawURL string, prev *cacheEntry, limit int64) (Response, error) {
	bo := sources.Backoff{Min: time.Duration(f.cfg.RetryMin), Max: time.Duration(f.cfg.RetryMax)}
	for attempt := 1; ; attempt++ {
		resp, wait, err := f.once(ctx, rawURL, prev, limit)
		if err == nil {
			return resp, nil
		}
		if !errors.Is(err, ErrUnreachable) && !errors.Is(err, ErrRateLimited) {
			return Response{}, err
		}
		if attempt >= f.cfg.MaxAttempts {
			return Response{}, fmt.Errorf("%w (after %d tries)", err, attempt)
		}
		d := bo.Next()
		if wait > 0 {
			d = wait
		}
		if dl, ok := ctx.Deadline(); ok && dl.Sub(f.now()) < d {
			return Response{}, fmt.Errorf("%w (no time left to wait %s and retry)", err, d.Round(time.Millisecond))
		}
		if serr := clock.Sleep(ctx, f.cfg.Clock, d); serr != nil {
			return Response{}, fmt.Errorf("%w (gave up waiting: %v)", err, serr)
		}
	}
}

// once sends one request. Errors wrap ErrUnreachable or ErrRateLimited
// when a retry may help; wait is the Retry-After to honour, if any.
func (f *fetcher) once(ctx context.Context, rawURL string, prev *cacheEntry, limit int64) (Response, time.Duration, error) {
	req := poll.Request{URL: rawURL, MaxBodyBytes: limit, Validators: &poll.Validators{}}
	if prev != nil {
		req.Validators = &poll.Validators{ETag: prev.ETag, LastModified: prev.LastModified}
	}
	if h := f.cfg.Health; h != nil {
		h.Attempt()
	}
	f.stats.requests.Add(1)
	r, err := f.cfg.HTTP.Do(ctx, req)
	if err != nil {
		wait, err := classify(rawURL, err, f.now())
		if h := f.cfg.Health; h != nil && !errors.Is(err, ErrNotFound) {
			h.Failure(err)
		}
		if errors.Is(err, ErrRateLimited) {
			f.stats.rateLimited.Add(1)
		}
		return Response{}, wait, err
	}
	if h := f.cfg.Health; h != nil {
		h.Success(time.Time{})
	}
	at := f.now()
	if r.NotModified {
		if prev == nil {
			return Response{}, 0, fmt.Errorf("cannot get %s: %w: 304 to an unconditional request", rawURL, ErrUnreachable)
		}
		f.stats.notModified.Add(1)
		if err := f.cache.touch(rawURL, at); err != nil {
			f.cfg.Logger.Warn("EDGAR cache write failed", "url", rawURL, "err", err)
		}
		return Response{URL: rawURL, Body: prev.Body, FetchedAt: at, Revalidated: true}, 0, nil
	}
	e := &cacheEntry{URL: rawURL, ETag: r.Validators.ETag, LastModified: r.Validators.LastModified, FetchedAt: at, Body: r.Body}
	if err := f.cache.store(e); err != nil {
		f.cfg.Logger.Warn("EDGAR cache write failed", "url", rawURL, "err", err)
	}
	return Response{URL: rawURL, Body: r.Body, FetchedAt: at}, 0, nil
}

// classify maps the poll client's errors to the package's sentinels and
// the Retry-After to wait.
func classify(rawURL string, err error, now time.Time) (time.Duration, error) {
	var te *poll.ThrottledError
	var se *poll.StatusError
	switch {
	case errors.As(err, &te):
		// EDGAR answers 403 "Request Rate Threshold Exceeded" when the rate
		// is exceeded (and to clients without a User-Agent), 429 or 503
		// elsewhere; with a Retry-After poll.Client refuses further
		// requests to sec.gov until then, for every caller.
		var wait time.Duration
		if !te.Until.IsZero() {
			wait = max(te.Until.Sub(now), time.Millisecond)
		}
		return wait, fmt.Errorf("%w: %v", ErrRateLimited, err)
	case errors.As(err, &se):
		switch {
		case se.Status == http.StatusNotFound || se.Status == http.StatusGone:
			return 0, fmt.Errorf("cannot get %s: %w (HTTP %d)", rawURL, ErrNotFound, se.Status)
		case se.Status >= 500:
			return 0, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		return 0, fmt.Errorf("cannot get %s: EDGAR answered HTTP %d", rawURL, se.Status)
	case errors.Is(err, poll.ErrTooLarge):
		return 0, fmt.Errorf("%w: %v", ErrTooLarge, err)
	case errors.Is(err, sources.ErrRateLimited):
		return 0, fmt.Errorf("%w: %v", ErrRateLimited, err)
	}
	// Transport errors, timeouts, bodies cut off (poll.ErrTruncated).
	return 0, fmt.Errorf("%w: %v", ErrUnreachable, err)
}
