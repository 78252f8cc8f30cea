package treasury

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

// Publisher is the publisher of the curves and the auctions.
const Publisher = "U.S. Department of the Treasury"

// DefaultBaseURL is where Treasury's interest rate feeds live.
const DefaultBaseURL = "https://home.treasury.gov"

// xmlPath is the path of Treasury's daily interest rate XML feed.
const xmlPath = "/resource-center/data-chart-center/interest-rates/pages/xml"

// Feed names of the XML feed's data parameter.
const (
	dataPar  = "daily_treasury_yield_curve"
	dataReal = "daily_treasury_real_yield_curve"
)

// CurveSchedule is when Treasury's curves are read: on weekdays from
// 15:30 to 21:00 New York time (the par and real curves are posted in the
// late afternoon of each bond market business day), and once at 08:00 for
// any overnight revision.
var CurveSchedule = poll.Schedule{
	Loc: uscal.NewYork, Weekdays: true,
	Daily: []time.Duration{8 * time.Hour, 15*time.Hour + 30*time.Minute, 16 * time.Hour, 16*time.Hour + 30*time.Minute,
		17 * time.Hour, 17*time.Hour + 30*time.Minute, 18 * time.Hour, 19 * time.Hour, 21 * time.Hour},
}

// CurveConfig is a "treasury-curve" entry of the sources configuration:
//
//	{"kind": "treasury-curve", "name": "treasury:par", "curve": "par"}
//	{"kind": "treasury-curve", "curve": "real", "base_url": "http://127.0.0.1:8088"}
//	{"kind": "treasury-curve", "curve": "par", "format": "csv", "urls": ["http://.../daily-treasury-rates.csv/2024/all?..."]}
type CurveConfig struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Curve is "par" (the nominal par yield curve) or "real".
	Curve string `json:"curve"`
	// BaseURL replaces DefaultBaseURL (a local server standing in).
	BaseURL string `json:"base_url,omitempty"`
	// URLs, when set, are the documents read at every poll instead of the
	// XML feed of the current month; Format says how to read them.
	URLs   []string `json:"urls,omitempty"`
	Format string   `json:"format,omitempty"` // "xml" (default) or "csv"
	// Every, when set, polls at this interval instead of CurveSchedule.
	Every sources.Duration `json:"every,omitempty"`
}

func (c *CurveConfig) kind() (schemas.CurveKind, string, error) {
	switch c.Curve {
	case "par", "":
		return schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, dataPar, nil
	case "real":
		return schemas.CurveKind_CURVE_KIND_PAR_REAL, dataReal, nil
	}
	return 0, "", fmt.Errorf("cannot use treasury-curve curve %q: accepted values: par, real", c.Curve)
}

// CurveSource polls one of Treasury's curves into a Feed.
type CurveSource struct {
	cfg    CurveConfig
	kind   schemas.CurveKind
	data   string
	feed   *ratesfeed.Feed
	client *poll.Client
	log    interface{ Warn(string, ...any) }

	mu      sync.Mutex
	started bool
	unknown map[string]bool
}

// URLs returns the documents a poll at now reads: the configured URLs, or
// the XML feed of the current year on the first poll (the history the
// previous business day and the Parquet files need) and afterwards of the
// current month, with the previous month (year) during its first five
// days, when the previous business day may be in it.
func (s *CurveSource) URLs(now time.Time, first bool) []string {
	if len(s.cfg.URLs) > 0 {
		return s.cfg.URLs
	}
	base := strings.TrimRight(s.cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	ny := now.In(uscal.NewYork)
	feed := func(param, value string) string {
		q := url.Values{"data": {s.data}, param: {value}}
		return base + xmlPath + "?" + q.Encode()
	}
	if first {
		urls := []string{feed("field_tdr_date_value", ny.Format("2006"))}
		if ny.YearDay() <= 10 {
			urls = append([]string{feed("field_tdr_date_value", ny.AddDate(-1, 0, 0).Format("2006"))}, urls...)
		}
		return urls
	}
	urls := []string{feed("field_tdr_date_value_month", ny.Format("200601"))}
	if ny.Day() <= 5 {
		prev := time.Date(ny.Year(), ny.Month(), 1, 12, 0, 0, 0, uscal.NewYork).AddDate(0, -1, 0)
		urls = append([]string{feed("field_tdr_date_value_month", prev.Format("200601"))}, urls...)
	}
	return urls
}

// Cycle is one poll: read the documents, hand their curves to the feed.
func (s *CurveSource) Cycle(ctx context.Context) (time.Time, error) {
	s.mu.Lock()
	first := !s.started
	s.mu.Unlock()
	t, err := ratesfeed.Fetch(ctx, s.client, s.URLs(s.feed.Now(), first), s.handle)
	if err == nil {
		s.mu.Lock()
		s.started = true
		s.mu.Unlock()
	}
	return t, err
}

func (s *CurveSource) handle(ctx context.Context, u string, r *poll.Response) (time.Time, error) {
	var res CurveResult
	var err error
	if s.cfg.Format == "csv" {
		res, err = ParseCurveCSV(r.Body, s.kind)
	} else {
		res, err = ParseCurveXML(r.Body, s.kind)
	}
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
	s.mu.Lock()
	for _, f := range res.Unknown {
		if !s.unknown[f] {
			s.unknown[f] = true
			s.log.Warn("Treasury curve has a field this service does not read", "source", s.feed.Name(), "field", f)
		}
	}
	s.mu.Unlock()
	bodies := make([]ratesfeed.Body, len(res.Curves))
	for i, c := range res.Curves {
		bodies[i] = c
	}
	if _, err := s.feed.Observe(ctx, u, r.Fetched, bodies...); err != nil {
		return time.Time{}, err
	}
	if len(res.Curves) == 0 {
		return time.Time{}, nil
	}
	d, _ := time.ParseInLocation("2006-01-02", res.Curves[len(res.Curves)-1].Date, uscal.NewYork)
	return d, nil
}

// NewCurveSource returns the source of a "treasury-curve" entry; it polls
// when its first record is asked for.
func NewCurveSource(cfg CurveConfig, run ratesfeed.Runner) (*ratesfeed.Source, *CurveSource, error) {
	s := &CurveSource{cfg: cfg, client: run.Client, log: run.Logger, unknown: map[string]bool{}}
	var err error
	if s.kind, s.data, err = cfg.kind(); err != nil {
		return nil, nil, err
	}
	if cfg.Format != "" && cfg.Format != "xml" && cfg.Format != "csv" {
		return nil, nil, fmt.Errorf("cannot use treasury-curve format %q: accepted values: xml, csv", cfg.Format)
	}
	if cfg.Format == "csv" && len(cfg.URLs) == 0 {
		return nil, nil, fmt.Errorf("cannot use treasury-curve format csv without urls: the live feed read is the XML feed")
	}
	if cfg.Name == "" {
		cfg.Name = "treasury:" + cfg.Curve
		if cfg.Curve == "" {
			cfg.Name = "treasury:par"
		}
		s.cfg.Name = cfg.Name
	}
	sched := CurveSchedule
	if cfg.Every > 0 {
		sched = poll.Every(time.Duration(cfg.Every))
	}
	endpoint := cfg.BaseURL
	if len(cfg.URLs) > 0 {
		endpoint = cfg.URLs[0]
	} else if endpoint == "" {
		endpoint = DefaultBaseURL + xmlPath + "?data=" + s.data
	}
	src := ratesfeed.NewSource(cfg.Name, 256, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(cfg.Name, Publisher, emit, run.Clock)
		return run.Run(ctx, cfg.Name, endpoint, sched, s.Cycle)
	})
	return src, s, nil
}

func init() {
	sources.Register("treasury-curve", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg CurveConfig
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		src, _, err := NewCurveSource(cfg, ratesfeed.RunnerOf(env))
		return src, err
	})
}
