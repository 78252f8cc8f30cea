// Package edgartest serves the real EDGAR captures (edgarreplay's routes,
// on internal/pubreplay) for tests of the EDGAR client and of what is
// built on it, with a few test hooks on top: bodies replaced while
// serving (Set), request counts, the User-Agents seen.
package edgartest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgarreplay"
)

// Server is a local EDGAR.
type Server struct {
	*httptest.Server
	Replay *pubreplay.Server

	mu       sync.Mutex
	over     map[string][]byte
	overHits map[string]int
	agents   map[string]bool
	total    int
}

// New starts a server with the captures plus extra routes (bodies the test
// makes; hand-made variants say so where they are built).
func New(t testing.TB, extra ...pubreplay.Route) *Server {
	t.Helper()
	routes := append(edgarreplay.Routes(fixtures.Dir(t)), extra...)
	rp, err := pubreplay.New(routes)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Replay: rp, over: map[string][]byte{}, overHits: map[string]int{}, agents: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Set serves b at path (any query) from now on, instead of the capture,
// with an ETag and 304s; faults (Fail) apply to captures only.
func (s *Server) Set(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.over[path] = b
}

// Fail makes the next n answers of path status with the given Retry-After
// (empty for none); status 0 cuts the body off after 100 bytes instead.
func (s *Server) Fail(path string, status int, retryAfter string, n int) {
	f := pubreplay.Fault{Status: status, RetryAfter: retryAfter, Times: n}
	if status == 0 {
		f.Truncate = 100
	}
	s.Replay.Inject(path, f)
}

// Hits is the number of requests path received (any query, any answer).
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Replay.Requests(path) + s.overHits[path]
}

// TotalHits is the number of requests received.
func (s *Server) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// UserAgents are the User-Agent headers seen.
func (s *Server) UserAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for a := range s.agents {
		out = append(out, a)
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.total++
	s.agents[r.Header.Get("User-Agent")] = true
	body, over := s.over[r.URL.Path]
	if over {
		s.overHits[r.URL.Path]++
	}
	s.mu.Unlock()
	if !over {
		s.Replay.ServeHTTP(w, r)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(body)
}
