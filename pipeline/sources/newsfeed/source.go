package newsfeed

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/schemas"
)

// Kind is the sources-file kind of the news source.
const Kind = "news"

// Defaults and bounds of the schedule.
const (
	DefaultInterval        = 2 * time.Minute
	DefaultFilingsInterval = 2 * time.Minute
	// MaxFilingsInterval: the sec_filing event promises a check at least
	// every 15 minutes (spec §6).
	MaxFilingsInterval  = 15 * time.Minute
	DefaultFilingsPages = 3
	maxFilingsPages     = 10
)

// Config is a "news" entry of the sources file (docs/news.md):
//
//	{"kind": "news", "name": "news", "interval": "2m",
//	 "feeds": [{"name": "rss:coindesk", "url": "https://...", "category": "crypto", ...}],
//	 "filings": {"interval": "2m", "pages": 3, "edgar": {"www": "https://www.sec.gov"},
//	             "seed": ["796343/0000796343-23-000044"]}}
//
// Feeds left out means DefaultFeeds; filings left out means EDGAR's current
// filings with the defaults.
type Config struct {
	Kind     string           `json:"kind"`
	Name     string           `json:"name,omitempty"`
	Disabled bool             `json:"disabled,omitempty"`
	Interval sources.Duration `json:"interval,omitempty"`
	Feeds    []Feed           `json:"feeds,omitempty"`
	Filings  *FilingsConfig   `json:"filings,omitempty"`
}

// FilingsConfig configures the EDGAR side of the news source.
type FilingsConfig struct {
	Disabled bool `json:"disabled,omitempty"`
	// Interval between reads of the current-filings feed; at most 15m.
	Interval sources.Duration `json:"interval,omitempty"`
	// Pages is how many pages of 100 filings one read may walk back while
	// the oldest filing of a page is newer than the newest of the last
	// read (so a busy quarter-hour leaves no gap); default 3, at most 10.
	Pages int `json:"pages,omitempty"`
	// EDGAR are the EDGAR endpoints ("www", "data"); a local server stands
	// in for sec.gov by setting them.
	EDGAR edgar.Endpoints `json:"edgar,omitempty"`
	// Seed lists filings read once at start, as "<cik>/<accession>": a
	// known filing the current feed no longer lists (the offline demo
	// loads the ADBE 8-K of 2023-03-15 this way).
	Seed []string `json:"seed,omitempty"`
}

func init() { sources.Register(Kind, open) }

func open(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
	var c Config
	if err := sc.Decode(&c); err != nil {
		return nil, err
	}
	return New(c, Options{HTTP: env.HTTP, Registry: env.Registry, Logger: env.Logger, Client: poll.ClientOf(env)})
}

// Options are a Source's collaborators.
type Options struct {
	// HTTP is the sources file's http section (User-Agent, limits).
	HTTP sources.HTTPConfig
	// Registry records the pollers' health for /status; nil: a private one.
	Registry *sources.Registry
	Logger   *slog.Logger
	// Clock drives the schedules and stamps fetch times; nil: system.
	Clock clock.Clock
	// Client, when set, replaces the HTTP client made from HTTP.
	Client *poll.Client
	// EDGAR, when set, replaces the EDGAR client made from the config.
	EDGAR *edgar.Client
}

// Source polls the configured feeds and EDGAR and yields news items and
// dead letters for mi.news.v1 (sidetopic.News). It is a live source: the
// pollers start on the first Next and run until Close.
type Source struct {
	name    string
	cfg     Config
	opts    Options
	log     *slog.Logger
	em      *sidetopic.Emitter
	client  *poll.Client
	edgar   *edgar.Client
	edgarEP edgar.Endpoints
	reg     *sources.Registry

	start  sync.Once
	cancel context.CancelFunc

	mu           sync.Mutex
	sent         map[string][32]byte // id or reject key → content hash, this generation
	sentPrev     map[string][32]byte // the previous generation
	lastAccepted time.Time           // newest filing acceptance seen
	seeded       map[string]bool
	tickers      *edgar.Tickers
}

// maxSent bounds a generation of the sent set; two are kept.
const maxSent = 50_000

// New validates c and returns the source.
func New(c Config, o Options) (*Source, error) {
	if c.Name == "" {
		c.Name = Kind
	}
	if c.Interval == 0 {
		c.Interval = sources.Duration(DefaultInterval)
	}
	if c.Interval < sources.Duration(30*time.Second) {
		return nil, fmt.Errorf("cannot use news source %s: interval %v is under 30s", c.Name, time.Duration(c.Interval))
	}
	if c.Feeds == nil {
		c.Feeds = DefaultFeeds()
	}
	names := map[string]bool{}
	for _, f := range c.Feeds {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("cannot use news source %s: %w", c.Name, err)
		}
		if names[f.Name] {
			return nil, fmt.Errorf("cannot use news source %s: feed name %q used twice", c.Name, f.Name)
		}
		names[f.Name] = true
	}
	if c.Filings == nil {
		c.Filings = &FilingsConfig{}
	}
	fc := c.Filings
	if fc.Interval == 0 {
		fc.Interval = sources.Duration(DefaultFilingsInterval)
	}
	if fc.Interval > sources.Duration(MaxFilingsInterval) || fc.Interval < sources.Duration(30*time.Second) {
		return nil, fmt.Errorf("cannot use news source %s: filings interval %v is not from 30s to %v", c.Name, time.Duration(fc.Interval), MaxFilingsInterval)
	}
	if fc.Pages == 0 {
		fc.Pages = DefaultFilingsPages
	}
	if fc.Pages < 1 || fc.Pages > maxFilingsPages {
		return nil, fmt.Errorf("cannot use news source %s: filings pages %d is not from 1 to %d", c.Name, fc.Pages, maxFilingsPages)
	}
	for _, s := range fc.Seed {
		if _, _, err := parseSeed(s); err != nil {
			return nil, fmt.Errorf("cannot use news source %s: %w", c.Name, err)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = sources.NewRegistry(o.Logger, o.Clock)
	}
	s := &Source{
		name: c.Name, cfg: c, opts: o, log: o.Logger.With("source", c.Name),
		em: sidetopic.NewEmitter(c.Name, 256), reg: o.Registry,
		sent: map[string][32]byte{}, sentPrev: map[string][32]byte{}, seeded: map[string]bool{},
	}
	s.client = o.Client
	if s.client == nil {
		s.client = poll.NewClient(o.HTTP, poll.Options{Clock: o.Clock})
	}
	if !fc.Disabled {
		s.edgar = o.EDGAR
		if s.edgar == nil {
			var ec *edgar.Client
			err := fmt.Errorf("SEC EDGAR requires a declared contact: set http.contact to an e-mail address (User-Agent %q)", s.client.UserAgent())
			if strings.Contains(s.client.UserAgent(), "@") {
				// EDGAR's requests go through the process's polite client:
				// its User-Agent and its sec.gov bucket (10 requests/s).
				ec, err = edgar.New(edgar.Config{Endpoints: fc.EDGAR, HTTP: s.client, Logger: o.Logger, Clock: o.Clock})
			}
			if err != nil {
				// EDGAR refuses clients without a contact address: the
				// headlines still flow, and /status says why filings don't.
				s.log.Warn("news source: SEC filings disabled", "err", err)
				h := s.reg.Register(c.Name+":edgar", "news", fc.EDGAR.WWW)
				h.Failure(fmt.Errorf("SEC filings disabled: %w", err))
			} else {
				s.edgar = ec
			}
		}
		s.edgarEP = fc.EDGAR
		if s.edgarEP.WWW == "" {
			s.edgarEP = edgar.DefaultEndpoints
		}
	}
	return s, nil
}

func parseSeed(s string) (edgar.CIK, edgar.Accession, error) {
	c, a, ok := strings.Cut(s, "/")
	if !ok {
		return 0, "", fmt.Errorf("filings seed %q is not <cik>/<accession>", s)
	}
	cik, err := edgar.ParseCIK(c)
	if err != nil {
		return 0, "", fmt.Errorf("filings seed %q: %w", s, err)
	}
	acc, err := edgar.ParseAccession(a)
	if err != nil {
		return 0, "", fmt.Errorf("filings seed %q: %w", s, err)
	}
	return cik, acc, nil
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// Next implements sources.Source; the first call starts the pollers.
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	s.start.Do(s.run)
	return s.em.Next(ctx)
}

// Close implements sources.Source: it stops the pollers.
func (s *Source) Close() error {
	s.start.Do(func() {}) // never start after Close
	if s.cancel != nil {
		s.cancel()
	}
	return s.em.Close()
}

// Registry returns the registry the source's pollers report to.
func (s *Source) Registry() *sources.Registry { return s.reg }

func (s *Source) run() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	for _, f := range s.cfg.Feeds {
		p := &poll.Poller{
			Schedule: poll.Every(time.Duration(s.cfg.Interval)),
			Health:   s.reg.Register(f.Name, "news", f.URL),
			Clock:    s.opts.Clock,
			Poll:     s.pollFeed(f),
		}
		go p.Run(ctx)
	}
	if s.edgar != nil {
		p := &poll.Poller{
			Schedule: poll.Every(time.Duration(s.cfg.Filings.Interval)),
			Health:   s.reg.Register(s.name+":edgar", "news", s.edgarEP.WWW),
			Clock:    s.opts.Clock,
			Poll:     s.pollFilings,
		}
		go p.Run(ctx)
	}
}

// fresh reports whether key's content hash differs from the last one sent
// and records it: a re-poll of unchanged content sends nothing.
func (s *Source) fresh(key string, h [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.sent[key]; ok && old == h {
		return false
	}
	if old, ok := s.sentPrev[key]; ok && old == h {
		s.sent[key] = h
		return false
	}
	if len(s.sent) >= maxSent {
		s.sentPrev, s.sent = s.sent, map[string][32]byte{}
	}
	s.sent[key] = h
	return true
}

func (s *Source) emitItem(ctx context.Context, n *schemas.NewsItem) error {
	if !s.fresh(n.Id, schemas.NewsContentHash(n)) {
		return nil
	}
	return s.em.Emit(ctx, sidetopic.News.Record(n))
}

// emitReject dead-letters raw with reason once: the same refusal seen
// again (the same bad feed polled again) is not sent again.
func (s *Source) emitReject(ctx context.Context, channel string, raw []byte, reason string) error {
	key := "reject|" + channel + "|" + reason
	if !s.fresh(key, sha256.Sum256(raw)) {
		return nil
	}
	return s.em.Emit(ctx, sidetopic.News.Reject(raw, reason))
}

// maxRejectBytes bounds the payload of a refused document.
const maxRejectBytes = 64 << 10

// pollFeed is one cycle of a publisher feed.
func (s *Source) pollFeed(f Feed) poll.PollFunc {
	return func(ctx context.Context) (time.Time, error) {
		resp, err := s.client.Do(ctx, poll.Request{URL: f.URL, MaxBodyBytes: MaxFeedBytes})
		if errors.Is(err, poll.ErrTooLarge) {
			pe := &ParseError{Reason: ReasonTooLarge, Detail: fmt.Sprintf("over %d bytes", MaxFeedBytes)}
			if e := s.emitReject(ctx, f.Name, []byte(f.URL), pe.Error()+" ("+f.Name+")"); e != nil {
				return time.Time{}, e
			}
			return time.Time{}, pe
		}
		if err != nil {
			return time.Time{}, err
		}
		if resp.NotModified {
			return time.Time{}, nil
		}
		res, err := Parse(resp.Body, f, resp.Fetched.UnixNano())
		if err != nil {
			// The next read must not hear "not modified" about a document
			// we refused.
			s.client.Forget(f.URL)
			raw := resp.Body[:min(len(resp.Body), maxRejectBytes)]
			if e := s.emitReject(ctx, f.Name, raw, err.Error()+" ("+f.Name+")"); e != nil {
				return time.Time{}, e
			}
			return time.Time{}, err
		}
		var newest int64
		for _, n := range res.Items {
			newest = max(newest, n.PublishedNs)
			if err := s.emitItem(ctx, n); err != nil {
				return time.Time{}, err
			}
		}
		for _, r := range res.Rejects {
			if err := s.emitReject(ctx, f.Name, r.Raw, r.Reason+" ("+f.Name+")"); err != nil {
				return time.Time{}, err
			}
		}
		if newest == 0 {
			return time.Time{}, nil
		}
		return time.Unix(0, newest), nil
	}
}

// pollFilings is one cycle of EDGAR's current filings: the seeds not read
// yet, then pages of the feed back to the newest filing of the last cycle.
func (s *Source) pollFilings(ctx context.Context) (time.Time, error) {
	if s.tickers == nil {
		t, err := s.edgar.Tickers(ctx)
		if err != nil {
			return time.Time{}, fmt.Errorf("cannot read SEC's ticker file: %w", err)
		}
		s.tickers = t
	}
	fetched := clock.Or(s.opts.Clock).Now().UnixNano()
	var newest time.Time
	handle := func(f Filing) error {
		n, reason, reject := FilingItem(f, s.tickers, s.edgarEP, fetched)
		if n == nil {
			if reject {
				return s.emitReject(ctx, "edgar", []byte(string(f.Accession)+" "+f.Form.Name), reason)
			}
			return nil
		}
		if t := time.Unix(0, n.PublishedNs); t.After(newest) {
			newest = t
		}
		return s.emitItem(ctx, n)
	}
	var seedErr error
	for _, seed := range s.cfg.Filings.Seed {
		if s.seeded[seed] {
			continue
		}
		cik, acc, _ := parseSeed(seed)
		h, _, err := s.edgar.Header(ctx, cik, acc)
		if err != nil {
			seedErr = fmt.Errorf("cannot read the seed filing %s: %w", seed, err)
			continue
		}
		if err := handle(FilingOfHeader(h)); err != nil {
			return time.Time{}, err
		}
		s.seeded[seed] = true
	}
	prev, top := s.lastAccepted, s.lastAccepted
	for page := 0; page < s.cfg.Filings.Pages; page++ {
		feed, _, err := s.edgar.CurrentFilings(ctx, edgar.CurrentQuery{Start: page * 100})
		if err != nil {
			switch {
			case errors.Is(err, edgar.ErrMalformed):
				// A page that is not the feed (an HTML throttling notice
				// served with 200, a cut document).
				if e := s.emitReject(ctx, "edgar", []byte(err.Error()), "malformed feed: "+err.Error()); e != nil {
					return time.Time{}, e
				}
			case errors.Is(err, edgar.ErrRateLimited):
				// EDGAR's 403/429 throttling page: once per streak.
				if e := s.emitReject(ctx, "edgar", []byte("EDGAR current filings"), "throttled: EDGAR answered 403 or 429 (fair-access limit)"); e != nil {
					return time.Time{}, e
				}
			}
			if page == 0 {
				return time.Time{}, err
			}
			break // the next cycle walks back again
		}
		fs := feed.Filings()
		if page == 0 && len(fs) > 0 && fs[0].Accepted.After(top) {
			top = fs[0].Accepted
		}
		for _, f := range fs {
			cf := FilingOfCurrent(f)
			if cf.Form.Family == "8-K" && len(cf.Items) == 0 {
				// The feed's summary listed no items: read them from the
				// filing's header.
				if p, ok := subject(cf.Parties); ok {
					if h, _, err := s.edgar.Header(ctx, p.CIK, cf.Accession); err == nil {
						cf.Items = h.Items
					}
				}
			}
			if err := handle(cf); err != nil {
				return time.Time{}, err
			}
		}
		if len(fs) == 0 || prev.IsZero() || !fs[len(fs)-1].Accepted.After(prev) {
			break
		}
	}
	s.lastAccepted = top
	return newest, seedErr
}
