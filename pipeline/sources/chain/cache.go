package chain

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/marketintel/mi/pipeline/sources/clock"
)

// DefaultCacheEntries bounds a Cache created with max 0.
const DefaultCacheEntries = 10_000

// Cache shares one load per key among the callers of a time window: the
// first Get of a key loads it, every Get during the load waits for that
// load, and every Get within TTL of the load's start gets its value ("the
// requests for one token within 45 s share one chain read"; "a risk report
// is cached 120 s"). Errors are returned to the callers that waited for
// them and never cached. It holds at most max entries (expired ones go
// first, then the oldest). It is safe for concurrent use.
type Cache[V any] struct {
	ttl time.Duration
	max int
	clk clock.Clock
	sf  singleflight.Group

	mu sync.Mutex
	m  map[string]cacheEntry[V]

	hits, misses, loads atomic.Uint64
}

type cacheEntry[V any] struct {
	v       V
	expires time.Time
}

// CacheStats are a cache's counters.
type CacheStats struct {
	Hits   uint64 // Gets answered from a stored value
	Misses uint64 // Gets that started or joined a load
	Loads  uint64 // loads run
}

// NewCache returns a cache keeping values for ttl on c (nil: the system
// clock), holding at most max entries (0: DefaultCacheEntries).
func NewCache[V any](ttl time.Duration, max int, c clock.Clock) *Cache[V] {
	if max <= 0 {
		max = DefaultCacheEntries
	}
	return &Cache[V]{ttl: ttl, max: max, clk: clock.Or(c), m: map[string]cacheEntry[V]{}}
}

// Get returns key's value: stored if loaded within TTL, else from load,
// shared with every concurrent Get of key. load runs with the first
// caller's context values but not its cancellation (others may be
// waiting); each caller waits on its own ctx.
func (c *Cache[V]) Get(ctx context.Context, key string, load func(ctx context.Context) (V, error)) (V, error) {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && c.clk.Now().Before(e.expires) {
		c.hits.Add(1)
		return e.v, nil
	}
	lctx := context.WithoutCancel(ctx)
	ch := c.sf.DoChan(key, func() (any, error) {
		// A load that ended between the lookup above and DoChan stored a
		// value this Get must share.
		c.mu.Lock()
		e, ok := c.m[key]
		c.mu.Unlock()
		start := c.clk.Now()
		if ok && start.Before(e.expires) {
			return e.v, nil
		}
		c.loads.Add(1)
		v, err := load(lctx)
		if err == nil {
			c.put(key, cacheEntry[V]{v: v, expires: start.Add(c.ttl)})
		}
		return v, err
	})
	c.misses.Add(1) // after DoChan: this Get has joined or started the load
	select {
	case r := <-ch:
		if r.Err != nil {
			var zero V
			return zero, r.Err
		}
		return r.Val.(V), nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

func (c *Cache[V]) put(key string, e cacheEntry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok && len(c.m) >= c.max {
		now := c.clk.Now()
		for k, x := range c.m {
			if !now.Before(x.expires) {
				delete(c.m, k)
			}
		}
		for len(c.m) >= c.max {
			var oldest string
			var at time.Time
			for k, x := range c.m {
				if oldest == "" || x.expires.Before(at) {
					oldest, at = k, x.expires
				}
			}
			delete(c.m, oldest)
		}
	}
	c.m[key] = e
}

// Forget drops key's stored value.
func (c *Cache[V]) Forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// Len is the number of stored entries, expired ones included.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Stats returns the counters.
func (c *Cache[V]) Stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Loads: c.loads.Load()}
}
