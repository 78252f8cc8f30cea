package edgar

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Duration is a time.Duration written in JSON as a Go duration string
// ("10m", "24h").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("cannot read duration: want a string like \"10m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("cannot read duration %q: want a non-negative Go duration like \"10m\"", s)
	}
	*d = Duration(v)
	return nil
}

// TTLs say how long a cached response is served without asking EDGAR
// again. Past its TTL a response is revalidated with If-None-Match /
// If-Modified-Since (a 304 costs one request and no body). See
// docs/edgar.md for the reasons behind the defaults.
type TTLs struct {
	// Tickers: company_tickers(.json, _exchange.json). Default 24h; EDGAR
	// regenerates them daily.
	Tickers Duration `json:"tickers"`
	// Submissions: the submissions JSON and its overflow files. Default
	// 10m, so a new filing shows up within ten minutes.
	Submissions Duration `json:"submissions"`
	// CompanyFacts: the XBRL companyfacts JSON. Default 1h; it changes only
	// when the company files a 10-K, 10-Q, 8-K with XBRL, etc.
	CompanyFacts Duration `json:"companyFacts"`
	// Archives: filing index pages, submission text files and documents
	// under /Archives. Default 8760h (a year): a filing's documents never
	// change once accepted.
	Archives Duration `json:"archives"`
	// CurrentFeed: the current-filings Atom feed. Default 0: always asked
	// (the poller that reads it sets its own schedule).
	CurrentFeed Duration `json:"currentFeed"`
	// MaxStale is how long past its TTL a cached response is still served
	// when EDGAR cannot be reached (marked Stale). Default 168h.
	MaxStale Duration `json:"maxStale"`
	// NotFound is how long a 404 is remembered (in memory), so unknown
	// CIKs are not asked again on every call. Default 10m.
	NotFound Duration `json:"notFound"`
}

// DefaultTTLs are the TTLs documented in docs/edgar.md.
var DefaultTTLs = TTLs{
	Tickers:      Duration(24 * time.Hour),
	Submissions:  Duration(10 * time.Minute),
	CompanyFacts: Duration(time.Hour),
	Archives:     Duration(365 * 24 * time.Hour),
	CurrentFeed:  0,
	MaxStale:     Duration(7 * 24 * time.Hour),
	NotFound:     Duration(10 * time.Minute),
}

// MaxRequestsPerSecond is the SEC's fair-access ceiling for one user
// (https://www.sec.gov/os/accessing-edgar-data).
const MaxRequestsPerSecond = 10

// Config configures a Client. The zero value of every field but UserAgent
// means its default.
type Config struct {
	Endpoints
	// UserAgent is sent with every request. The SEC requires it to name
	// the operator and a contact e-mail address ("Sample Company Name
	// AdminContact@samplecompany.com"); New rejects one without '@'.
	UserAgent string `json:"userAgent"`
	// RequestsPerSecond is the request rate shared by every client of the
	// process towards the same host group (www.sec.gov and data.sec.gov
	// count together); at most and by default 10. With several processes
	// behind one address, give each its share.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// CacheDir is the on-disk cache; empty keeps responses in memory only
	// (up to MemoryCacheBytes).
	CacheDir         string `json:"cacheDir"`
	MemoryCacheBytes int    `json:"memoryCacheBytes"`
	TTL              TTLs   `json:"ttl"`
	// MaxBodyBytes bounds one response body; default 256 MiB (the largest
	// companyfacts files are some tens of megabytes).
	MaxBodyBytes int64 `json:"maxBodyBytes"`
	// RequestTimeout bounds one shared fetch, retries included; default
	// 60s. Callers' own deadlines apply on top.
	RequestTimeout Duration `json:"requestTimeout"`
	// MaxAttempts is the number of tries of one request on 403, 429, 5xx
	// and network errors; default 4.
	MaxAttempts int `json:"maxAttempts"`
	// RetryMin and RetryMax bound the backoff between tries (doubling with
	// jitter); defaults 1s and 30s. A Retry-After header overrides them.
	RetryMin Duration `json:"retryMin"`
	RetryMax Duration `json:"retryMax"`

	// HTTP sends the requests; default a *http.Client with RequestTimeout.
	HTTP Doer `json:"-"`
	// Logger receives the unreachable / reachable-again transitions and
	// cache failures; default slog.Default().
	Logger *slog.Logger `json:"-"`
	// Now is the clock of cache ages; default time.Now.
	Now func() time.Time `json:"-"`
}

// Doer sends HTTP requests; *http.Client implements it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// withDefaults validates c and fills its defaults.
func (c Config) withDefaults() (Config, error) {
	if c.WWW == "" {
		c.WWW = DefaultEndpoints.WWW
	}
	if c.Data == "" {
		c.Data = DefaultEndpoints.Data
	}
	for _, u := range []string{c.WWW, c.Data} {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return c, fmt.Errorf("cannot use EDGAR endpoint %q: want an http(s) URL", u)
		}
	}
	c.UserAgent = strings.TrimSpace(c.UserAgent)
	if !strings.Contains(c.UserAgent, "@") {
		return c, fmt.Errorf("cannot use EDGAR user agent %q: the SEC requires a name and a contact e-mail address, e.g. \"Example Corp admin@example.com\"", c.UserAgent)
	}
	if c.RequestsPerSecond == 0 {
		c.RequestsPerSecond = MaxRequestsPerSecond
	}
	if c.RequestsPerSecond < 0 || c.RequestsPerSecond > MaxRequestsPerSecond {
		return c, fmt.Errorf("cannot use %v EDGAR requests per second: want more than 0 and at most %d", c.RequestsPerSecond, MaxRequestsPerSecond)
	}
	if c.MemoryCacheBytes <= 0 {
		c.MemoryCacheBytes = 256 << 20
	}
	d := DefaultTTLs
	def := func(v *Duration, dv Duration) {
		if *v == 0 {
			*v = dv
		}
	}
	def(&c.TTL.Tickers, d.Tickers)
	def(&c.TTL.Submissions, d.Submissions)
	def(&c.TTL.CompanyFacts, d.CompanyFacts)
	def(&c.TTL.Archives, d.Archives)
	def(&c.TTL.MaxStale, d.MaxStale)
	def(&c.TTL.NotFound, d.NotFound)
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 256 << 20
	}
	def(&c.RequestTimeout, Duration(60*time.Second))
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 4
	}
	def(&c.RetryMin, Duration(time.Second))
	def(&c.RetryMax, Duration(30*time.Second))
	if c.RetryMax < c.RetryMin {
		c.RetryMax = c.RetryMin
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: time.Duration(c.RequestTimeout)}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
