package poll

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// Defaults of a Client whose configuration leaves them out.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBodyBytes = 32 << 20
	// maxValidators bounds the URLs whose validators a Client remembers.
	maxValidators = 100_000
)

// Client is a polite HTTP client for public publishers. It sends a
// User-Agent naming the operator, asks for gzip, waits for its host's rate
// limit (shared through Hosts), makes GETs conditional on the validators
// (ETag, Last-Modified) of the last complete answer for the same URL,
// bounds every request by a timeout and every body by a size limit, and
// turns 403, 418, 429 and 503 into a ThrottledError that carries the
// publisher's Retry-After. It does not retry: a Poller does. It is safe for
// concurrent use; one Client per process is enough.
type Client struct {
	ua      string
	timeout time.Duration
	maxBody int64
	hosts   *Hosts
	clk     clock.Clock
	hc      *http.Client

	mu   sync.Mutex
	vals map[string]Validators
}

// Options are a Client's collaborators; the zero value is production's.
type Options struct {
	// Clock tells Retry-After and Response.Fetched times; nil: system.
	Clock clock.Clock
	// Hosts are the rate limits to share; nil: the process's (Shared),
	// to which NewClient applies the HTTPConfig's limits (Hosts.Configure).
	Hosts *Hosts
	// Transport replaces http.DefaultTransport.
	Transport http.RoundTripper
}

// NewClient returns a client configured by cfg (see sources.HTTPConfig).
func NewClient(cfg sources.HTTPConfig, o Options) *Client {
	hosts := o.Hosts
	if hosts == nil {
		hosts = shared
		hosts.Configure(cfg)
	}
	return &Client{
		ua:      cfg.UserAgentHeader(),
		timeout: cmp.Or(time.Duration(cfg.Timeout), DefaultTimeout),
		maxBody: cmp.Or(cfg.MaxBodyBytes, DefaultMaxBodyBytes),
		hosts:   hosts, clk: clock.Or(o.Clock),
		hc:   &http.Client{Transport: o.Transport},
		vals: map[string]Validators{},
	}
}

// UserAgent is the User-Agent header the client sends.
func (c *Client) UserAgent() string { return c.ua }

// Validators identify a version of a document for conditional requests.
type Validators struct {
	ETag         string // sent as If-None-Match
	LastModified string // sent as If-Modified-Since, as the server wrote it
}

// Request is one request. The zero Method is GET.
type Request struct {
	Method string
	URL    string
	// Header holds extra headers (Accept, Content-Type, ...).
	Header http.Header
	// Body is sent with POST (e.g. Hyperliquid's /info).
	Body []byte
	// Validators, when not nil, are sent instead of the ones the client
	// remembers for URL (a caller with its own on-disk cache passes its
	// own; a pointer to zero Validators makes the GET unconditional).
	Validators *Validators
	// MaxBodyBytes overrides the client's size limit when not 0.
	MaxBodyBytes int64
}

// Response is a complete answer (2xx) or a "not modified" one (304).
type Response struct {
	URL    string
	Status int
	Header http.Header
	// Body is the decompressed body; nil when NotModified.
	Body []byte
	// NotModified is true for a 304: the document has not changed since
	// the validators sent, and there is no data.
	NotModified bool
	// Validators are the ones of this version (for a 304, the ones sent
	// unless the server sent new ones).
	Validators Validators
	// Modified is the Last-Modified time, zero when absent or unreadable.
	Modified time.Time
	// Fetched is when the answer arrived, on the client's clock.
	Fetched time.Time
}

// Errors a request can end with besides transport errors and
// *StatusError / *ThrottledError.
var (
	// ErrTooLarge: the body (after decompression) is over the size limit;
	// nothing of it is returned.
	ErrTooLarge = errors.New("response body over the size limit")
	// ErrTruncated: the connection ended before the body did.
	ErrTruncated = errors.New("response body truncated")
)

// StatusError is an answer with a status other than 2xx, 304 and the
// throttling ones.
type StatusError struct {
	URL    string
	Status int
	// Snippet is the start of the body, for the log.
	Snippet string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("cannot get %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Snippet != "" {
		s += ": " + e.Snippet
	}
	return s
}

// ThrottledError means the publisher asked us to slow down: 403, 418
// (Binance: the address is banned until Retry-After), 429 or 503. Until is
// the Retry-After time, zero when the answer gave none (then back off).
// Until is also recorded for the host, and until then the client refuses
// requests to it at once with a ThrottledError whose Early is true.
type ThrottledError struct {
	URL    string
	Status int
	Until  time.Time
	Early  bool
}

func (e *ThrottledError) Error() string {
	var b strings.Builder
	if e.Early {
		fmt.Fprintf(&b, "cannot get %s: the host asked for no request before %s (HTTP %d)", e.URL, e.Until.UTC().Format(time.RFC3339), e.Status)
		return b.String()
	}
	fmt.Fprintf(&b, "cannot get %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if !e.Until.IsZero() {
		fmt.Fprintf(&b, "; retry after %s", e.Until.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// Banned is true for Binance's 418: the client's address is banned until
// Until for ignoring earlier 429s.
func (e *ThrottledError) Banned() bool { return e.Status == http.StatusTeapot }

func throttling(status int) bool {
	switch status {
	case http.StatusForbidden, http.StatusTeapot, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// maxRetryAfter bounds a Retry-After (Binance bans last up to 3 days).
const maxRetryAfter = 7 * 24 * time.Hour

// ParseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date,
// relative to now. A date in the past means now; a value over 7 days is
// cut to 7 days; ok is false for an empty or unreadable value.
func ParseRetryAfter(v string, now time.Time) (t time.Time, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if strings.Trim(v, "0123456789") == "" {
		d := maxRetryAfter // also when too long for a uint64
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n < uint64(maxRetryAfter/time.Second) {
			d = time.Duration(n) * time.Second
		}
		return now.Add(d), true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, false
	}
	switch {
	case at.Before(now):
		at = now
	case at.Sub(now) > maxRetryAfter:
		at = now.Add(maxRetryAfter)
	}
	return at, true
}

// Get is Do with a GET of url.
func (c *Client) Get(ctx context.Context, url string) (*Response, error) {
	return c.Do(ctx, Request{URL: url})
}

// Do makes one request: it refuses at once while the host's Retry-After
// runs, waits for the host's rate limit (failing with
// sources.ErrRateLimited when ctx's deadline comes first), then sends the
// request with the client's timeout. A 2xx answer is read whole (ErrTooLarge,
// ErrTruncated otherwise) and its validators remembered for the URL; a 304
// to a conditional GET is a Response with NotModified; any other status is
// an error (*ThrottledError or *StatusError).
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("cannot get %q: not an http(s) URL", r.URL)
	}
	host := u.Hostname()
	if until, status, ok := c.hosts.blocked(host); ok {
		return nil, &ThrottledError{URL: r.URL, Status: status, Until: until, Early: true}
	}
	if err := c.hosts.wait(ctx, host); err != nil {
		return nil, fmt.Errorf("cannot get %s: %w", r.URL, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	method := cmp.Or(r.Method, http.MethodGet)
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, body)
	if err != nil {
		return nil, fmt.Errorf("cannot get %s: %w", r.URL, err)
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("User-Agent", c.ua)
	var sent Validators
	if method == http.MethodGet {
		if r.Validators != nil {
			sent = *r.Validators
		} else {
			c.mu.Lock()
			sent = c.vals[r.URL]
			c.mu.Unlock()
		}
		if sent.ETag != "" {
			req.Header.Set("If-None-Match", sent.ETag)
		}
		if sent.LastModified != "" {
			req.Header.Set("If-Modified-Since", sent.LastModified)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot get %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	now := c.clk.Now()
	out := &Response{URL: r.URL, Status: resp.StatusCode, Header: resp.Header, Fetched: now, Validators: validators(resp.Header)}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		out.Modified = t
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && sent != (Validators{}):
		if out.Validators == (Validators{}) {
			out.Validators = sent
		} else if r.Validators == nil {
			c.remember(r.URL, out.Validators)
		}
		out.NotModified = true
		return out, nil
	case throttling(resp.StatusCode):
		e := &ThrottledError{URL: r.URL, Status: resp.StatusCode}
		if t, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), now); ok {
			e.Until = t
			c.hosts.block(host, t, resp.StatusCode)
		}
		return nil, e
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		snip, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, &StatusError{URL: r.URL, Status: resp.StatusCode, Snippet: strings.ToValidUTF8(strings.Join(strings.Fields(string(snip)), " "), "?")}
	}
	limit := cmp.Or(r.MaxBodyBytes, c.maxBody)
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("cannot read %s: %d bytes announced, limit %d: %w", r.URL, resp.ContentLength, limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("cannot read %s: %w after %d bytes", r.URL, ErrTruncated, len(b))
	case err != nil:
		return nil, fmt.Errorf("cannot read %s: %w", r.URL, err)
	case int64(len(b)) > limit:
		return nil, fmt.Errorf("cannot read %s: more than %d bytes: %w", r.URL, limit, ErrTooLarge)
	}
	out.Body = b
	if method == http.MethodGet && r.Validators == nil {
		c.remember(r.URL, out.Validators)
	}
	return out, nil
}

func validators(h http.Header) Validators {
	return Validators{ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified")}
}

func (c *Client) remember(url string, v Validators) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v == (Validators{}) {
		delete(c.vals, url)
		return
	}
	if _, ok := c.vals[url]; !ok && len(c.vals) >= maxValidators {
		for k := range c.vals { // drop an arbitrary one: a full GET later
			delete(c.vals, k)
			break
		}
	}
	c.vals[url] = v
}

// Forget drops the validators remembered for url: the next GET of it is
// unconditional. A caller that could not use a document calls it so that
// the next poll reads the document again instead of hearing "not
// modified".
func (c *Client) Forget(url string) {
	c.mu.Lock()
	delete(c.vals, url)
	c.mu.Unlock()
}

// sharedKey is the key of the process's client in sources.Env.Shared.
const sharedKey = "poll.Client"

// ClientOf returns the polite client of env's process: one per
// sources.Config.Env, configured by its http section and sharing the
// process's host limits (Shared). Sources opened from a configuration get
// their client here rather than building one, so that validators, the
// User-Agent and the limits are the process's.
func ClientOf(env sources.Env) *Client {
	return env.Shared(sharedKey, func() any { return NewClient(env.HTTP, Options{}) }).(*Client)
}
