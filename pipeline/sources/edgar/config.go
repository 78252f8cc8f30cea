package edgar

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
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

// Config configures a Client. The zero value of every field means its
// default.
type Config struct {
	Endpoints
	// HTTP sends the requests: the process's polite client
	// (poll.NewClient(cfg.HTTP, ...)) with its User-Agent, its per-host
	// rate limits shared by every caller in the process (the default
	// sources file sets "sec.gov" to 9 per second, burst 1: at most 10
	// requests start in any second, the SEC's ceiling) and its Retry-After
	// handling. Nil: a client sending UserAgent on the process's shared
	// host limits (poll.Shared()).
	HTTP *poll.Client `json:"-"`
	// UserAgent is the User-Agent of the client made when HTTP is nil. The
	// SEC requires it to name the operator and a contact e-mail address
	// ("Sample Company Name AdminContact@samplecompany.com"); New logs a
	// warning when the User-Agent sent has no '@'.
	UserAgent string `json:"userAgent"`
	// Health, when set, records every request to EDGAR for /status
	// (sources.Registry.Register("sec:edgar", "filings", ...)).
	Health *sources.Health `json:"-"`
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
	// MaxAttempts is the number of tries of one request on 403, 429, 5xx,
	// cut-off bodies and network errors; default 4.
	MaxAttempts int `json:"maxAttempts"`
	// RetryMin and RetryMax bound the backoff between tries (doubling with
	// jitter); defaults 1s and 30s. A Retry-After overrides them.
	RetryMin Duration `json:"retryMin"`
	RetryMax Duration `json:"retryMax"`

	// Logger receives warnings (User-Agent without contact, cache write
	// failures); default slog.Default().
	Logger *slog.Logger `json:"-"`
	// Clock tells cache ages and waits; default the system clock.
	Clock clock.Clock `json:"-"`
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
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Clock = clock.Or(c.Clock)
	if c.HTTP == nil {
		c.HTTP = poll.NewClient(sources.HTTPConfig{UserAgent: c.UserAgent}, poll.Options{Clock: c.Clock, Hosts: poll.Shared()})
	}
	if ua := c.HTTP.UserAgent(); !strings.Contains(ua, "@") {
		c.Logger.Warn("EDGAR User-Agent names no contact e-mail; the SEC refuses undeclared clients (set http.contact in the sources file)", "user_agent", ua)
	}
	return c, nil
}
