// Package edgartest serves the real EDGAR captures of ../shared/fixtures/sec
// at EDGAR's own paths, over HTTP, for end-to-end tests of the EDGAR client
// and of what is built on it. It answers conditional requests (ETag,
// If-None-Match → 304) and can be told to fail: 429 or 503 with
// Retry-After, a body cut off before its Content-Length, or a 404 for a
// path. It stands in for internal/pubreplay until that serves the SEC
// files.
package edgartest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
)

// Routes maps EDGAR paths (for the feed: path and query) to fixture files
// under sec/. A filing is served under the CIK of each of its parties, as
// EDGAR does.
var Routes = map[string]string{
	"/files/company_tickers.json":                                                                 "company_tickers.json",
	"/files/company_tickers_exchange.json":                                                        "company_tickers_exchange_2023-05-26.json",
	"/submissions/CIK0000320193.json":                                                             "submissions_CIK0000320193_AAPL.json",
	"/submissions/CIK0000789019.json":                                                             "submissions_CIK0000789019_MSFT.json",
	"/submissions/CIK0001318605.json":                                                             "submissions_CIK0001318605_TSLA.json",
	"/submissions/CIK0001462356.json":                                                             "submissions_CIK0001462356_insider_AdamsKatherine.json",
	"/api/xbrl/companyfacts/CIK0000320193.json":                                                   "companyfacts_CIK0000320193_AAPL.json",
	"/Archives/edgar/data/1462356/000032019322000061/0000320193-22-000061.txt":                    "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt",
	"/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt":                     "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt",
	"/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044.txt":                     "8k_0000796343-23-000044_ADBE_item2.02.txt",
	"/Archives/edgar/data/796343/0000796343-23-000044-index.html":                                 "8k_0000796343-23-000044_ADBE-index.html",
	"/Archives/edgar/data/796343/000079634323000044/adbe-20230315.htm":                            "8k_0000796343-23-000044_ADBE_adbe-20230315.htm",
	"/Archives/edgar/data/320193/0000912057-00-023442-index.html":                                 "10q_0000912057-00-023442_AAPL_2000-05-11-index.html",
	"/cgi-bin/browse-edgar?action=getcurrent&count=100&start=0&type=&owner=include&output=atom":   "edgar_getcurrent_all_forms_atom.xml",
	"/cgi-bin/browse-edgar?action=getcurrent&count=100&start=700&type=&owner=include&output=atom": "edgar_getcurrent_all_forms_atom_8k_heavy.xml",
	"/cgi-bin/browse-edgar?action=getcurrent&count=100&start=0&type=4&owner=include&output=atom":  "edgar_getcurrent_form4_atom.xml",
}

// Server is a local EDGAR.
type Server struct {
	*httptest.Server
	t testing.TB

	mu     sync.Mutex
	files  map[string][]byte
	hits   map[string]int
	agents map[string]bool
	faults []fault
}

type fault struct {
	path       string // "" = any
	status     int    // 0 = cut the body
	retryAfter string
	n          int
}

// New starts a server with Routes; extra adds or overrides paths with
// bodies of the test's own making (hand-made variants say so where they
// are built).
func New(t testing.TB, extra map[string][]byte) *Server {
	t.Helper()
	s := &Server{t: t, files: map[string][]byte{}, hits: map[string]int{}, agents: map[string]bool{}}
	for p, name := range Routes {
		b, err := os.ReadFile(fixtures.Path(t, "sec/"+name))
		if err != nil {
			t.Fatal(err)
		}
		s.files[p] = b
	}
	for p, b := range extra {
		s.files[p] = b
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Set serves b at path from now on (nil removes the path).
func (s *Server) Set(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b == nil {
		delete(s.files, path)
		return
	}
	s.files[path] = b
}

// Fail makes the next n requests of path ("" for any) answer status with
// the given Retry-After (empty for none); status 0 cuts the body off
// halfway instead.
func (s *Server) Fail(path string, status int, retryAfter string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fault{path: path, status: status, retryAfter: retryAfter, n: n})
}

// Hits is the number of requests path received (304s included).
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// TotalHits is the number of requests received.
func (s *Server) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
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
	key := r.URL.Path
	if r.URL.RawQuery != "" {
		key += "?" + r.URL.RawQuery
	}
	s.mu.Lock()
	s.hits[key]++
	s.agents[r.Header.Get("User-Agent")] = true
	body, ok := s.files[key]
	var f *fault
	for i := range s.faults {
		if s.faults[i].n > 0 && (s.faults[i].path == "" || s.faults[i].path == key) {
			s.faults[i].n--
			cp := s.faults[i]
			f = &cp
			break
		}
	}
	s.mu.Unlock()
	if f != nil && f.status != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		http.Error(w, http.StatusText(f.status), f.status)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if f != nil {
		// Cut the body off: half of it, then the connection closes.
		_, _ = w.Write(body[:len(body)/2])
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return
	}
	_, _ = w.Write(body)
}
