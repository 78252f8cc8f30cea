package sec

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

type contextLike = context.Context

// computeTimeout bounds one computation (EDGAR reads included); it goes
// on when the caller that started it leaves, for the others.
const computeTimeout = 90 * time.Second

// cache keeps computed answers by key for a TTL, at most max of them (the
// oldest dropped first), and shares one computation among concurrent
// callers of a key.
type cache[V any] struct {
	mu      sync.Mutex
	max     int
	entries map[string]cacheEntry[V]
	order   []string
	group   singleflight.Group
}

type cacheEntry[V any] struct {
	v  V
	at time.Time
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{max: max, entries: map[string]cacheEntry[V]{}}
}

func (c *cache[V]) get(key string, now time.Time, ttl time.Duration) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.at) >= ttl || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *cache[V]) put(key string, v V, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok {
		c.order = append(c.order, key)
	}
	c.entries[key] = cacheEntry[V]{v, at}
	for len(c.entries) > c.max && len(c.order) > 0 {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

// do returns the cached answer or computes it once for all concurrent
// callers; a caller that gives up does not cancel the computation.
func (c *cache[V]) do(ctx context.Context, key string, now time.Time, ttl time.Duration, compute func(context.Context) (V, error)) (V, error) {
	if v, ok := c.get(key, now, ttl); ok {
		return v, nil
	}
	ch := c.group.DoChan(key, func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), computeTimeout)
		defer cancel()
		v, err := compute(cctx)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	})
	select {
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			var zero V
			return zero, r.Err
		}
		return r.Val.(V), nil
	}
}
