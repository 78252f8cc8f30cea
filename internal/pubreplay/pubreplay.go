// Package pubreplay serves recorded publisher responses over HTTP at the
// publishers' own paths, so that a source's live client, pointed at it through
// the sources configuration, reads real captures exactly as it would read the
// publisher: the same paths and query strings, conditional requests answered
// with 304, and faults (429 with Retry-After, 5xx, truncated bodies) injected
// on demand. The end-to-end tests of every polled source and the offline demo
// use it; nothing in it is specific to one publisher.
//
// A Server is safe for concurrent use. Its routes are fixed when it is built;
// faults can be injected while it serves.
package pubreplay

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Route is one recorded response and the requests it answers.
type Route struct {
	// Method is the request method; empty means GET (HEAD is answered for
	// GET routes too).
	Method string
	// Path is the request path the publisher serves, e.g.
	// "/api/rates/secured/sofr/search.json". It must start with "/".
	Path string
	// Query, when not empty, must be contained in the request's query: every
	// key with exactly these values. Among the routes of one method and
	// path, the one with the most Query keys that matches wins; a request
	// matching none of them answers 404.
	Query url.Values
	// BodyContains, when not empty, must occur in the request body (for
	// POST APIs such as Hyperliquid's info endpoint, whose request type is
	// in the JSON body). Routes with it win over routes without.
	BodyContains string
	// File is the recorded response body. A name ending in ".gz" is served
	// decompressed. Exactly one of File and Body is set.
	File string
	// Body is an inline response body, for hand-made inputs in tests.
	Body []byte
	// Status is the response status; 0 means 200.
	Status int
	// ContentType is the Content-Type header; empty derives it from the
	// file name (json, xml, csv, html, txt; else octet-stream).
	ContentType string
	// Header holds extra response headers.
	Header http.Header
}

// Fault replaces the next Times answers of a path (any query) with an error
// answer or a truncated body.
type Fault struct {
	// Status is the answer's status (e.g. 429, 503, 403); 0 with Truncate
	// set serves the route's own status with a cut body.
	Status int
	// RetryAfter, when not empty, is sent as the Retry-After header
	// (seconds or an HTTP date).
	RetryAfter string
	// Body is the error answer's body (e.g. an HTML throttling page).
	Body []byte
	// Truncate, when above 0, serves only the first Truncate bytes of the
	// route's body, with a Content-Length announcing the whole body, then
	// closes the connection: the client sees an unexpected EOF.
	Truncate int
	// Delay holds the answer back this long (the client's timeout test).
	Delay time.Duration
	// Times is how many answers the fault replaces; 0 means 1.
	Times int
}

// Server answers the requests of its routes.
type Server struct {
	routes  []served
	modTime time.Time

	mu       sync.Mutex
	faults   map[string][]Fault
	requests map[string]int
	misses   []string
}

type served struct {
	Route
	body []byte
	etag string
}

// Option configures a Server.
type Option func(*Server)

// LastModified sets the Last-Modified time of every route (default: the
// time the Server was built, truncated to the second). If-Modified-Since
// requests at or after it answer 304.
func LastModified(t time.Time) Option {
	return func(s *Server) { s.modTime = t.UTC().Truncate(time.Second) }
}

// New reads every route's body and returns a Server. It fails when a route
// has no path, both or neither of File and Body, or a file it cannot read.
func New(routes []Route, opts ...Option) (*Server, error) {
	s := &Server{modTime: time.Now().UTC().Truncate(time.Second), faults: map[string][]Fault{}, requests: map[string]int{}}
	for _, o := range opts {
		o(s)
	}
	for _, r := range routes {
		if !strings.HasPrefix(r.Path, "/") {
			return nil, fmt.Errorf("cannot serve route %q: the path must start with /", r.Path)
		}
		if (r.File == "") == (r.Body == nil) {
			return nil, fmt.Errorf("cannot serve route %s: set exactly one of File and Body", r.Path)
		}
		if r.Method == "" {
			r.Method = http.MethodGet
		}
		body := r.Body
		if r.File != "" {
			b, err := readFile(r.File)
			if err != nil {
				return nil, fmt.Errorf("cannot serve route %s: %w", r.Path, err)
			}
			body = b
		}
		sum := sha256.Sum256(body)
		s.routes = append(s.routes, served{Route: r, body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`})
	}
	return s, nil
}

func readFile(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil || !strings.HasSuffix(name, ".gz") {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("cannot decompress %s: %w", name, err)
	}
	return io.ReadAll(zr)
}

// Inject queues f for the next answers to path.
func (s *Server) Inject(path string, f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	s.faults[path] = append(s.faults[path], f)
	s.mu.Unlock()
}

// Requests returns how many requests reached path (any query, any answer).
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Misses returns the requests that matched no route, as "METHOD path?query",
// in arrival order: a test asserting it is empty catches a client asking for
// a path the publisher does not serve.
func (s *Server) Misses() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.misses)
}

// ServeHTTP answers r from the matching route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var reqBody []byte
	if r.Body != nil {
		reqBody, _ = io.ReadAll(io.LimitReader(r.Body, 1<<20))
	}
	s.mu.Lock()
	s.requests[r.URL.Path]++
	var fault *Fault
	if q := s.faults[r.URL.Path]; len(q) > 0 {
		f := q[0]
		fault = &f
		if q[0].Times--; q[0].Times == 0 {
			s.faults[r.URL.Path] = q[1:]
		}
	}
	rt := s.match(r, reqBody)
	if rt == nil {
		s.misses = append(s.misses, r.Method+" "+r.URL.RequestURI())
	}
	s.mu.Unlock()

	if fault != nil && fault.Delay > 0 {
		select {
		case <-time.After(fault.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if fault != nil && fault.Status != 0 {
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(fault.Status)
		_, _ = w.Write(fault.Body)
		return
	}
	if rt == nil {
		http.Error(w, "no recorded response for "+r.Method+" "+r.URL.RequestURI(), http.StatusNotFound)
		return
	}
	h := w.Header()
	for k, v := range rt.Header {
		h[k] = slices.Clone(v)
	}
	h.Set("Content-Type", rt.contentType())
	h.Set("ETag", rt.etag)
	h.Set("Last-Modified", s.modTime.Format(http.TimeFormat))
	if notModified(r, rt.etag, s.modTime) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	if fault != nil && fault.Truncate > 0 && fault.Truncate < len(rt.body) {
		h.Set("Content-Length", strconv.Itoa(len(rt.body)))
		w.WriteHeader(status)
		_, _ = w.Write(rt.body[:fault.Truncate])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		// Abort the connection so the client sees fewer bytes than announced.
		panic(http.ErrAbortHandler)
	}
	h.Set("Content-Length", strconv.Itoa(len(rt.body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(rt.body)
	}
}

// match returns the best route for r, or nil. Callers hold s.mu.
func (s *Server) match(r *http.Request, body []byte) *served {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	q := r.URL.Query()
	var best *served
	bestScore := -1
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.Method != method || rt.Path != r.URL.Path {
			continue
		}
		if rt.BodyContains != "" && !bytes.Contains(body, []byte(rt.BodyContains)) {
			continue
		}
		ok := true
		for k, want := range rt.Query {
			if !slices.Equal(q[k], want) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		score := len(rt.Query)
		if rt.BodyContains != "" {
			score += 1000
		}
		if score > bestScore {
			best, bestScore = rt, score
		}
	}
	return best
}

func (rt *served) contentType() string {
	if rt.ContentType != "" {
		return rt.ContentType
	}
	name := strings.TrimSuffix(rt.File, ".gz")
	switch {
	case strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".jsonl"):
		return "application/json"
	case strings.HasSuffix(name, ".xml"), strings.HasSuffix(name, ".rss"), strings.HasSuffix(name, ".atom"):
		return "application/xml"
	case strings.HasSuffix(name, ".csv"):
		return "text/csv"
	case strings.HasSuffix(name, ".html"), strings.HasSuffix(name, ".htm"):
		return "text/html; charset=utf-8"
	case strings.HasSuffix(name, ".txt"):
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// notModified reports whether r's conditional headers match: If-None-Match
// (weak comparison, "*" or a list) takes precedence over If-Modified-Since,
// as RFC 9110 §13.2.2 orders them.
func notModified(r *http.Request, etag string, mod time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == etag {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		t, err := http.ParseTime(ims)
		return err == nil && !mod.After(t)
	}
	return false
}

// Listener is a Server listening on a loopback port.
type Listener struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234", to put in the
	// sources configuration in place of the publisher's.
	URL string
	srv *http.Server
	ln  net.Listener
}

// Listen serves s on addr ("127.0.0.1:0" picks a free port) until Close.
func (s *Server) Listen(addr string) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for the publisher replay: %w", addr, err)
	}
	l := &Listener{URL: "http://" + ln.Addr().String(), ln: ln, srv: &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return l, nil
}

// Close stops the listener and the connections it serves.
func (l *Listener) Close() error { return l.srv.Close() }
