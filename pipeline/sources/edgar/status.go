package edgar

import (
	"sync"
	"sync/atomic"
	"time"
)

// Status is the client's freshness and traffic, for /status.
type Status struct {
	// Reachable is false after a request failed (network, 5xx,
	// throttling) and before the next success.
	Reachable   bool      `json:"reachable"`
	LastSuccess time.Time `json:"lastSuccess,omitzero"`
	// AgeSeconds is the time since LastSuccess; -1 before any success.
	AgeSeconds float64   `json:"ageSeconds"`
	LastError  string    `json:"lastError,omitempty"`
	LastErrAt  time.Time `json:"lastErrorAt,omitzero"`
	// Requests counts requests sent to EDGAR (retries included);
	// NotModified the 304 answers among them; CacheHits the answers
	// served without a request; StaleServed the cached answers served
	// past their TTL because EDGAR failed; RateLimited the 403/429
	// answers.
	Requests    int64 `json:"requests"`
	NotModified int64 `json:"notModified"`
	CacheHits   int64 `json:"cacheHits"`
	StaleServed int64 `json:"staleServed"`
	RateLimited int64 `json:"rateLimited"`
}

type stats struct {
	requests, notModified, cacheHits, staleServed, rateLimited atomic.Int64

	mu          sync.Mutex
	lastSuccess time.Time
	lastError   string
	lastErrAt   time.Time
}

func (s *stats) success(at time.Time) {
	s.mu.Lock()
	s.lastSuccess = at
	s.mu.Unlock()
}

func (s *stats) failure(at time.Time, err error) {
	s.mu.Lock()
	s.lastError, s.lastErrAt = err.Error(), at
	s.mu.Unlock()
}

func (f *fetcher) status() Status {
	s := &f.stats
	s.mu.Lock()
	st := Status{LastSuccess: s.lastSuccess, LastError: s.lastError, LastErrAt: s.lastErrAt}
	st.Reachable = s.lastErrAt.IsZero() || !s.lastSuccess.Before(s.lastErrAt)
	s.mu.Unlock()
	st.AgeSeconds = -1
	if !st.LastSuccess.IsZero() {
		st.AgeSeconds = f.now().Sub(st.LastSuccess).Seconds()
	}
	st.Requests = s.requests.Load()
	st.NotModified = s.notModified.Load()
	st.CacheHits = s.cacheHits.Load()
	st.StaleServed = s.staleServed.Load()
	st.RateLimited = s.rateLimited.Load()
	return st
}
