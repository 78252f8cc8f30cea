package nyfed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
)

// Publisher of SOFR and EFFR.
const Publisher = "Federal Reserve Bank of New York"

// DefaultBaseURL is the Markets Data API.
const DefaultBaseURL = "https://markets.newyorkfed.org"

// Paths of the rates this package reads (last N fixings).
var ratePaths = map[string]string{
	"sofr": "/api/rates/secured/sofr/last/%d.json",
	"effr": "/api/rates/unsecured/effr/last/%d.json",
}

// Schedule is when the rates are read, New York time on weekdays: SOFR is
// published about 08:00 and EFFR about 09:00 for the previous business
// day; the New York Fed may revise a rate until 14:30.
var Schedule = poll.Schedule{
	Loc: uscal.NewYork, Weekdays: true,
	Daily: []time.Duration{8*time.Hour + 5*time.Minute, 8*time.Hour + 35*time.Minute, 9*time.Hour + 5*time.Minute,
		9*time.Hour + 35*time.Minute, 10*time.Hour + 30*time.Minute, 14*time.Hour + 45*time.Minute},
}

// Fixings read at the first poll and at every later one.
const (
	DefaultHistory = 60
	DefaultLast    = 5
)

// Config is an "nyfed" entry of the sources configuration:
//
//	{"kind": "nyfed", "name": "nyfed", "rates": ["sofr", "effr"]}
type Config struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Rates are "sofr" and/or "effr" (default both).
	Rates []string `json:"rates,omitempty"`
	// BaseURL replaces DefaultBaseURL (a local server standing in).
	BaseURL string `json:"base_url,omitempty"`
	// History is how many fixings the first poll reads (default 60).
	History int `json:"history,omitempty"`
	// Every, when set, polls at this interval instead of Schedule.
	Every sources.Duration `json:"every,omitempty"`
}

// Source polls the reference rates into a Feed.
type Source struct {
	cfg     Config
	feed    *ratesfeed.Feed
	client  *poll.Client
	started bool
}

// URLs returns the documents a poll reads.
func (s *Source) URLs(first bool) []string {
	n := DefaultLast
	if first {
		n = s.cfg.History
	}
	base := strings.TrimRight(s.cfg.BaseURL, "/")
	var out []string
	for _, r := range s.cfg.Rates {
		out = append(out, base+fmt.Sprintf(ratePaths[r], n))
	}
	return out
}

// Cycle is one poll.
func (s *Source) Cycle(ctx context.Context) (time.Time, error) {
	t, err := ratesfeed.Fetch(ctx, s.client, s.URLs(!s.started), s.handle)
	if err == nil {
		s.started = true
	}
	return t, err
}

func (s *Source) handle(ctx context.Context, u string, r *poll.Response) (time.Time, error) {
	res, err := ParseRefRates(r.Body)
	if err != nil {
		if rerr := s.feed.Reject(ctx, r.Body, err.Error()); rerr != nil {
			return time.Time{}, rerr
		}
		return time.Time{}, fmt.Errorf("cannot read %s: %w", u, err)
	}
	for _, rj := range res.Rejected {
		if err := s.feed.Reject(ctx, rj.Raw, rj.Reason); err != nil {
			return time.Time{}, err
		}
	}
	bodies := make([]ratesfeed.Body, len(res.Rates))
	var newest time.Time
	for i, o := range res.Rates {
		bodies[i] = o
		if d, err := time.ParseInLocation("2006-01-02", o.Date, uscal.NewYork); err == nil && d.After(newest) {
			newest = d
		}
	}
	_, err = s.feed.Observe(ctx, u, r.Fetched, bodies...)
	return newest, err
}

// NewSource returns the source of an "nyfed" entry.
func NewSource(cfg Config, run ratesfeed.Runner) (*ratesfeed.Source, *Source, error) {
	if len(cfg.Rates) == 0 {
		cfg.Rates = []string{"sofr", "effr"}
	}
	for _, r := range cfg.Rates {
		if ratePaths[r] == "" {
			return nil, nil, fmt.Errorf("cannot use nyfed rate %q: accepted values: sofr, effr", r)
		}
	}
	if cfg.History == 0 {
		cfg.History = DefaultHistory
	}
	if cfg.History < 1 || cfg.History > 1000 {
		return nil, nil, fmt.Errorf("cannot use nyfed history %d: accepted 1 to 1000", cfg.History)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Name == "" {
		cfg.Name = "nyfed"
	}
	s := &Source{cfg: cfg, client: run.Client}
	sched := Schedule
	if cfg.Every > 0 {
		sched = poll.Every(time.Duration(cfg.Every))
	}
	src := ratesfeed.NewSource(cfg.Name, 64, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(cfg.Name, Publisher, emit, run.Clock)
		return run.Run(ctx, cfg.Name, cfg.BaseURL+"/api/rates ("+strings.Join(cfg.Rates, ", ")+")", sched, s.Cycle)
	})
	return src, s, nil
}

func init() {
	sources.Register("nyfed", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg Config
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		src, _, err := NewSource(cfg, ratesfeed.RunnerOf(env))
		return src, err
	})
}
