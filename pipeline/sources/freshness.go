package sources

import (
	"cmp"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sources/clock"
)

// Freshness is one live source's state as /status shows it: a plain copy
// the API tier renders. A zero time means "never".
type Freshness struct {
	// Name identifies the source, e.g. "rates:treasury-par" or
	// "chain:base".
	Name string
	// Kind groups sources for /status: "chain", "rates", "news",
	// "filings", "perps", ...
	Kind string
	// Endpoint is where the source reads from, with secrets redacted.
	Endpoint string
	// State is "starting" (no attempt finished yet), "ok" (the last
	// attempt succeeded) or "failing".
	State string
	// Stale is true unless the last attempt succeeded and, when MaxAge is
	// set, the last success is at most MaxAge old.
	Stale bool
	// LastAttempt is when the last attempt started.
	LastAttempt time.Time
	// LastSuccess is when the last successful attempt ended (a "not
	// modified" answer is a success).
	LastSuccess time.Time
	// LastData is the publisher's own time of the newest data read (a
	// curve's date, a feed item's publication time, a block's timestamp),
	// zero when the publisher gives none.
	LastData time.Time
	// ConsecutiveFailures counts the failed attempts since the last
	// success.
	ConsecutiveFailures int
	// LastError is the last failure's message, redacted (see Redact), and
	// LastErrorAt when it happened; kept after a recovery.
	LastError   string
	LastErrorAt time.Time
	// Age is how long ago LastSuccess was, and DataAge how long ago
	// LastData was, at the time of the snapshot; 0 when never.
	Age, DataAge time.Duration
	// MaxAge is the age beyond which the source is stale (0: only a failed
	// last attempt makes it stale).
	MaxAge time.Duration
}

// Health records the attempts of one live source and logs its outages:
// "source unreachable" once when a streak of failures starts and "source
// recovered" once when it ends, never on every attempt. It is safe for
// concurrent use. Get one from Registry.Register.
type Health struct {
	reg *Registry
	mu  sync.Mutex
	f   Freshness
}

// Registry holds the Health of every live source of a process, for
// /status: hand the same Registry to every poller and chain client, and
// Snapshot to the status route. It is safe for concurrent use.
type Registry struct {
	log *slog.Logger
	clk clock.Clock
	mu  sync.Mutex
	m   map[string]*Health
}

// NewRegistry returns an empty registry logging to log (nil: discard) and
// telling ages on c (nil: the system clock).
func NewRegistry(log *slog.Logger, c clock.Clock) *Registry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Registry{log: log, clk: clock.Or(c), m: map[string]*Health{}}
}

// Register returns the Health of the named source, creating it on first
// use; kind and endpoint (redacted here) describe it in /status. The same
// name always returns the same Health.
func (r *Registry) Register(name, kind, endpoint string) *Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.m[name]
	if h == nil {
		h = &Health{reg: r, f: Freshness{Name: name, State: "starting"}}
		r.m[name] = h
	}
	h.mu.Lock()
	h.f.Kind, h.f.Endpoint = kind, Redact(endpoint)
	h.mu.Unlock()
	return h
}

// Snapshot returns every source's freshness, sorted by name, with ages
// taken now.
func (r *Registry) Snapshot() []Freshness {
	r.mu.Lock()
	hs := make([]*Health, 0, len(r.m))
	for _, h := range r.m {
		hs = append(hs, h)
	}
	r.mu.Unlock()
	out := make([]Freshness, 0, len(hs))
	for _, h := range hs {
		out = append(out, h.Snapshot())
	}
	slices.SortFunc(out, func(a, b Freshness) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Name is the source's name.
func (h *Health) Name() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f.Name
}

// SetMaxAge sets the age beyond which the source is stale (see
// Freshness.MaxAge).
func (h *Health) SetMaxAge(d time.Duration) {
	h.mu.Lock()
	h.f.MaxAge = d
	h.mu.Unlock()
}

// Attempt records the start of an attempt.
func (h *Health) Attempt() {
	now := h.reg.clk.Now()
	h.mu.Lock()
	h.f.LastAttempt = now
	h.mu.Unlock()
}

// Success records a successful attempt; dataTime is the publisher's time of
// the newest data read (zero when unknown or unchanged). It logs "source
// recovered" when it ends a streak of failures.
func (h *Health) Success(dataTime time.Time) {
	now := h.reg.clk.Now()
	h.mu.Lock()
	failures, since := h.f.ConsecutiveFailures, h.f.LastSuccess
	h.f.State, h.f.LastSuccess, h.f.ConsecutiveFailures = "ok", now, 0
	if dataTime.After(h.f.LastData) {
		h.f.LastData = dataTime
	}
	name := h.f.Name
	h.mu.Unlock()
	if failures > 0 {
		args := []any{"source", name, "failures", failures}
		if !since.IsZero() {
			args = append(args, "down_for", now.Sub(since).Round(time.Second).String())
		}
		h.reg.log.Info("source recovered", args...)
	}
}

// Failure records a failed attempt. The first failure after a success (or
// at start) logs "source unreachable" with the redacted error; the next
// ones of the streak only count.
func (h *Health) Failure(err error) {
	now := h.reg.clk.Now()
	msg := "unknown error"
	if err != nil {
		msg = Redact(err.Error())
	}
	h.mu.Lock()
	h.f.State = "failing"
	h.f.ConsecutiveFailures++
	first := h.f.ConsecutiveFailures == 1
	h.f.LastError, h.f.LastErrorAt = msg, now
	name, endpoint := h.f.Name, h.f.Endpoint
	h.mu.Unlock()
	if first {
		h.reg.log.Warn("source unreachable; retrying with backoff", "source", name, "endpoint", endpoint, "error", msg)
	}
}

// Snapshot returns the source's freshness with ages taken now.
func (h *Health) Snapshot() Freshness {
	now := h.reg.clk.Now()
	h.mu.Lock()
	f := h.f
	h.mu.Unlock()
	if !f.LastSuccess.IsZero() {
		f.Age = now.Sub(f.LastSuccess)
	}
	if !f.LastData.IsZero() {
		f.DataAge = now.Sub(f.LastData)
	}
	f.Stale = f.State != "ok" || (f.MaxAge > 0 && f.Age > f.MaxAge)
	return f
}

var (
	urlRE        = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	keySegmentRE = regexp.MustCompile(`^[A-Za-z0-9_-]{20,}$`)
	secretParams = []string{"key", "apikey", "api_key", "api-key", "token", "access_token", "auth", "secret", "signature", "password", "pass"}
)

// Redact removes what may be a secret from s (an error message or an
// endpoint) before it is logged or shown in /status: in every URL it finds,
// the user info, the values of query parameters named like credentials
// (key, apikey, token, secret, signature, ...) and path segments of 20 or
// more letters, digits, '-' or '_' that mix letters and digits (the API key
// of RPC providers such as https://host/v2/<key>) become "REDACTED".
func Redact(s string) string {
	return urlRE.ReplaceAllStringFunc(s, func(raw string) string {
		trail := ""
		for strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, ",") || strings.HasSuffix(raw, ")") || strings.HasSuffix(raw, ".") {
			trail = raw[len(raw)-1:] + trail
			raw = raw[:len(raw)-1]
		}
		u, err := url.Parse(raw)
		if err != nil {
			return "REDACTED-URL" + trail
		}
		changed := false
		if u.User != nil {
			u.User, changed = url.User("REDACTED"), true
		}
		segs := strings.Split(u.Path, "/")
		for i, seg := range segs {
			if keySegmentRE.MatchString(seg) && strings.ContainsAny(seg, "0123456789") && strings.ContainsAny(strings.ToLower(seg), "abcdefghijklmnopqrstuvwxyz") {
				segs[i], changed = "REDACTED", true
			}
		}
		if q, err := url.ParseQuery(u.RawQuery); err != nil {
			u.RawQuery, changed = "REDACTED", true // unreadable: may hide a key
		} else if u.RawQuery != "" {
			for k := range q {
				if slices.Contains(secretParams, strings.ToLower(k)) {
					q[k], changed = []string{"REDACTED"}, true
				}
			}
			u.RawQuery = q.Encode()
		}
		if !changed {
			return raw + trail
		}
		u.Path, u.RawPath = strings.Join(segs, "/"), ""
		return u.String() + trail
	})
}
