package ecb

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Frankfurt's zone must not depend on the host's zoneinfo

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
)

// Publisher of €STR.
const Publisher = "European Central Bank"

// DefaultBaseURL is the ECB Data Portal's data API.
const DefaultBaseURL = "https://data-api.ecb.europa.eu"

// DataPath is the €STR series read: the rate, its 25th and 75th
// percentiles and the total volume.
const DataPath = "/service/data/EST/B.EU000A2X2A25.WT+R25+R75+TT"

var frankfurt = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic("BUG: embedded tzdata lacks Europe/Berlin: " + err.Error())
	}
	return loc
}()

// Schedule is when €STR is read, Frankfurt time on weekdays: the ECB
// publishes it at 08:00 CET for the previous TARGET2 business day (at 09:00
// when it has to revise it).
var Schedule = poll.Schedule{
	Loc: frankfurt, Weekdays: true,
	Daily: []time.Duration{8*time.Hour + 5*time.Minute, 8*time.Hour + 35*time.Minute, 9*time.Hour + 10*time.Minute, 10 * time.Hour, 12 * time.Hour},
}

// Observations read at the first poll and at every later one.
const (
	DefaultHistory = 60
	DefaultLast    = 5
)

// Config is an "ecb-estr" entry of the sources configuration:
//
//	{"kind": "ecb-estr", "name": "ecb:estr"}
//	{"kind": "ecb-estr", "format": "jsondata", "base_url": "http://127.0.0.1:8088"}
type Config struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Format is the portal's format: "csvdata" (default) or "jsondata".
	Format string `json:"format,omitempty"`
	// BaseURL replaces DefaultBaseURL (a local server standing in).
	BaseURL string `json:"base_url,omitempty"`
	// History is how many observations per series the first poll reads.
	History int `json:"history,omitempty"`
	// Every, when set, polls at this interval instead of Schedule.
	Every sources.Duration `json:"every,omitempty"`
}

// Source polls €STR into a Feed.
type Source struct {
	cfg     Config
	feed    *ratesfeed.Feed
	client  *poll.Client
	started bool
}

// URL returns the document a poll reads.
func (s *Source) URL(first bool) string {
	n := DefaultLast
	if first {
		n = s.cfg.History
	}
	q := url.Values{"format": {s.cfg.Format}, "lastNObservations": {strconv.Itoa(n)}}
	return strings.TrimRight(s.cfg.BaseURL, "/") + DataPath + "?" + q.Encode()
}

// Cycle is one poll.
func (s *Source) Cycle(ctx context.Context) (time.Time, error) {
	t, err := ratesfeed.Fetch(ctx, s.client, []string{s.URL(!s.started)}, s.handle)
	if err == nil {
		s.started = true
	}
	return t, err
}

func (s *Source) handle(ctx context.Context, u string, r *poll.Response) (time.Time, error) {
	parse := ParseCSV
	if s.cfg.Format == "jsondata" {
		parse = ParseJSON
	}
	res, err := parse(r.Body)
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
		if d, err := time.ParseInLocation("2006-01-02", o.Date, frankfurt); err == nil && d.After(newest) {
			newest = d
		}
	}
	_, err = s.feed.Observe(ctx, u, r.Fetched, bodies...)
	return newest, err
}

// NewSource returns the source of an "ecb-estr" entry.
func NewSource(cfg Config, run ratesfeed.Runner) (*ratesfeed.Source, *Source, error) {
	switch cfg.Format {
	case "":
		cfg.Format = "csvdata"
	case "csvdata", "jsondata":
	default:
		return nil, nil, fmt.Errorf("cannot use ecb-estr format %q: accepted values: csvdata, jsondata", cfg.Format)
	}
	if cfg.History == 0 {
		cfg.History = DefaultHistory
	}
	if cfg.History < 1 || cfg.History > 1000 {
		return nil, nil, fmt.Errorf("cannot use ecb-estr history %d: accepted 1 to 1000", cfg.History)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Name == "" {
		cfg.Name = "ecb:estr"
	}
	s := &Source{cfg: cfg, client: run.Client}
	sched := Schedule
	if cfg.Every > 0 {
		sched = poll.Every(time.Duration(cfg.Every))
	}
	src := ratesfeed.NewSource(cfg.Name, 64, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(cfg.Name, Publisher, emit, run.Clock)
		return run.Run(ctx, cfg.Name, cfg.BaseURL+DataPath, sched, s.Cycle)
	})
	return src, s, nil
}

func init() {
	sources.Register("ecb-estr", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg Config
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		src, _, err := NewSource(cfg, ratesfeed.RunnerOf(env))
		return src, err
	})
}
