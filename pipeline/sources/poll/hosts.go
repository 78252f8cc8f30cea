package poll

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// DefaultLimit is the rate limit of a host no configuration names: one
// request per second, two at once.
var DefaultLimit = sources.Limit{Rate: 1, Burst: 2}

// Hosts holds the per-host rate limits and the "wait until" times hosts
// asked for (Retry-After), shared by every Client built with it. Every
// Client built without one shares the process's (Shared), so that two
// sources reading one publisher never exceed its limit together. It is safe
// for concurrent use.
type Hosts struct {
	clk clock.Clock
	mu  sync.Mutex
	def sources.Limit
	cfg map[string]sources.Limit // configured keys
	b   map[string]*bucket       // by key (configured) or host (default)
}

type bucket struct {
	limit  sources.Limit
	lim    *sources.Limiter
	until  time.Time // no request before this (Retry-After)
	status int       // the status that asked for until
}

var shared = NewHosts(nil, sources.HTTPConfig{})

// Shared returns the process's Hosts.
func Shared() *Hosts { return shared }

// NewHosts returns limits on c (nil: the system clock) configured by cfg's
// DefaultLimit and Hosts.
func NewHosts(c clock.Clock, cfg sources.HTTPConfig) *Hosts {
	h := &Hosts{clk: clock.Or(c), def: DefaultLimit, cfg: map[string]sources.Limit{}, b: map[string]*bucket{}}
	h.Configure(cfg)
	return h
}

// Configure applies cfg's limits: each key of cfg.Hosts is set (replacing
// that key's limit), and cfg.DefaultLimit replaces the default when set.
// Keys cfg does not name keep their limits, so a client built with a
// partial configuration cannot loosen the process's. Buckets whose limit is
// unchanged keep their state.
func (h *Hosts) Configure(cfg sources.HTTPConfig) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cfg.DefaultLimit != nil {
		h.def = *cfg.DefaultLimit
	}
	for k, l := range cfg.Hosts {
		h.cfg[strings.ToLower(strings.TrimSuffix(k, "."))] = l
	}
	for k, b := range h.b {
		if b.limit != h.limitOf(k) || h.key(k) != k {
			delete(h.b, k) // a new limit, or a host now under a new key
		}
	}
}

// key returns the bucket key of host: the longest configured key that is
// host or a parent domain of it, else host itself.
func (h *Hosts) key(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for k := host; ; {
		if _, ok := h.cfg[k]; ok {
			return k
		}
		i := strings.IndexByte(k, '.')
		if i < 0 {
			return host
		}
		k = k[i+1:]
	}
}

func (h *Hosts) limitOf(key string) sources.Limit {
	if l, ok := h.cfg[key]; ok {
		return l
	}
	return h.def
}

func (h *Hosts) bucket(host string) *bucket {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := h.key(host)
	b := h.b[k]
	if b == nil {
		l := h.limitOf(k)
		b = &bucket{limit: l, lim: sources.NewLimiter(h.clk, l)}
		h.b[k] = b
	}
	return b
}

// Limit returns the limit that applies to host.
func (h *Hosts) Limit(host string) sources.Limit { return h.bucket(host).limit }

// blocked returns the time host asked to be left alone until and the
// status that asked, when that time is still ahead.
func (h *Hosts) blocked(host string) (time.Time, int, bool) {
	b := h.bucket(host)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clk.Now().Before(b.until) {
		return b.until, b.status, true
	}
	return time.Time{}, 0, false
}

// block records that host asked for no request before until.
func (h *Hosts) block(host string, until time.Time, status int) {
	b := h.bucket(host)
	h.mu.Lock()
	defer h.mu.Unlock()
	if until.After(b.until) {
		b.until, b.status = until, status
	}
}

// wait takes a request slot of host.
func (h *Hosts) wait(ctx context.Context, host string) error {
	return h.bucket(host).lim.Wait(ctx)
}
