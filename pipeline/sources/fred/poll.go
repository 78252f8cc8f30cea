package fred

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

// Publisher of the series read through FRED.
const Publisher = "Federal Reserve Bank of St. Louis (FRED)"

// DefaultBaseURL serves fredgraph CSV downloads without an API key.
const DefaultBaseURL = "https://fred.stlouisfed.org"

// Defaults of Config.
const (
	DefaultHistoryDays = 400
	DefaultEvery       = time.Hour
)

// SeriesConfig maps one FRED series onto the rates records.
type SeriesConfig struct {
	// ID is the series id, e.g. DFII10.
	ID string `json:"id"`
	// As says what the series is: "par_nominal:<tenor>" or
	// "par_real:<tenor>" (a tenor of a Treasury curve, e.g. par_real:10Y),
	// "sofr", "effr", "estr" (the rate) or "estr_volume" (€STR's total
	// volume, EUR millions, joined to the rate of the same date).
	As string `json:"as"`
	// URL replaces <base_url>/graph/fredgraph.csv?id=<ID>; a URL with
	// file_type=json is read as the API's observations JSON.
	URL string `json:"url,omitempty"`
}

// Config is a "fred" entry of the sources configuration. FRED stands in
// for a publisher whose own feed is not read (the offline demo replays
// FRED captures; docs/rates.md):
//
//	{"kind": "fred", "name": "fred:real-10y", "series": [{"id": "DFII10", "as": "par_real:10Y"}]}
type Config struct {
	Kind     string         `json:"kind"`
	Name     string         `json:"name,omitempty"`
	Disabled bool           `json:"disabled,omitempty"`
	Series   []SeriesConfig `json:"series"`
	BaseURL  string         `json:"base_url,omitempty"`
	// HistoryDays keeps the observations at most this many days older
	// than each series' newest (default 400).
	HistoryDays int `json:"history_days,omitempty"`
	// Every is the poll interval (default 1h).
	Every sources.Duration `json:"every,omitempty"`
}

// target is what a series feeds.
type target struct {
	curve  schemas.CurveKind // a curve tenor, or
	tenor  string
	rate   schemas.OvernightRateKind // an overnight rate
	volume bool                      // its volume
}

func parseAs(as string) (target, error) {
	if k, tenor, ok := strings.Cut(as, ":"); ok {
		if schemas.TenorIndex(tenor) < 0 {
			return target{}, fmt.Errorf("unknown tenor %q", tenor)
		}
		switch k {
		case "par_nominal":
			return target{curve: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, tenor: tenor}, nil
		case "par_real":
			return target{curve: schemas.CurveKind_CURVE_KIND_PAR_REAL, tenor: tenor}, nil
		}
	}
	switch as {
	case "sofr":
		return target{rate: schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR}, nil
	case "effr":
		return target{rate: schemas.OvernightRateKind_OVERNIGHT_RATE_EFFR}, nil
	case "estr":
		return target{rate: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR}, nil
	case "estr_volume":
		return target{rate: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, volume: true}, nil
	}
	return target{}, fmt.Errorf("accepted values: par_nominal:<tenor>, par_real:<tenor>, sofr, effr, estr, estr_volume")
}

// Source polls FRED series into a Feed.
type Source struct {
	cfg     Config
	targets map[string]target // URL → target
	feed    *ratesfeed.Feed
	client  *poll.Client

	mu   sync.Mutex
	last map[string][]Observation // URL → the series as last read
}

// Cycle is one poll: every series is read (conditionally), then the
// records of all series are built together and handed to the feed
// (unchanged ones are left out by the feed).
func (s *Source) Cycle(ctx context.Context) (time.Time, error) {
	urls := make([]string, 0, len(s.cfg.Series))
	for _, sc := range s.cfg.Series {
		urls = append(urls, sc.URL)
	}
	newest, err := ratesfeed.Fetch(ctx, s.client, urls, s.handle)
	if err != nil {
		return newest, err
	}
	_, err = s.feed.Observe(ctx, strings.Join(urls, " "), s.feed.Now(), s.bodies()...)
	return newest, err
}

func (s *Source) handle(ctx context.Context, u string, r *poll.Response) (time.Time, error) {
	parse := ParseCSV
	if q, err := url.Parse(u); err == nil && q.Query().Get("file_type") == "json" {
		parse = ParseObservationsJSON
	}
	series, err := parse(r.Body)
	if err != nil {
		if rerr := s.feed.Reject(ctx, r.Body, err.Error()); rerr != nil {
			return time.Time{}, rerr
		}
		return time.Time{}, fmt.Errorf("cannot read %s: %w", u, err)
	}
	for _, rj := range series.Rejected {
		if err := s.feed.Reject(ctx, rj.Raw, rj.Reason); err != nil {
			return time.Time{}, err
		}
	}
	obs := series.Observations
	if n := len(obs); n > 0 {
		newest, _ := uscal.ParseDate(obs[n-1].Date)
		cut := newest.AddDays(-s.cfg.HistoryDays).String()
		i := sort.Search(n, func(i int) bool { return obs[i].Date >= cut })
		obs = obs[i:]
	}
	s.mu.Lock()
	s.last[u] = obs
	s.mu.Unlock()
	if len(obs) == 0 {
		return time.Time{}, nil
	}
	d, _ := time.Parse("2006-01-02", obs[len(obs)-1].Date)
	return d, nil
}

// bodies joins the series by date into curves and rates.
func (s *Source) bodies() []ratesfeed.Body {
	s.mu.Lock()
	defer s.mu.Unlock()
	curves := map[schemas.CurveKind]map[string]map[string]float64{} // kind → date → tenor → yield
	rates := map[schemas.OvernightRateKind]map[string]*schemas.OvernightRate{}
	volumes := map[schemas.OvernightRateKind]map[string]float64{}
	for u, obs := range s.last {
		tg := s.targets[u]
		for _, o := range obs {
			switch {
			case tg.tenor != "":
				if curves[tg.curve] == nil {
					curves[tg.curve] = map[string]map[string]float64{}
				}
				if curves[tg.curve][o.Date] == nil {
					curves[tg.curve][o.Date] = map[string]float64{}
				}
				curves[tg.curve][o.Date][tg.tenor] = o.Value
			case tg.volume:
				if volumes[tg.rate] == nil {
					volumes[tg.rate] = map[string]float64{}
				}
				volumes[tg.rate][o.Date] = o.Value
			default:
				if rates[tg.rate] == nil {
					rates[tg.rate] = map[string]*schemas.OvernightRate{}
				}
				rates[tg.rate][o.Date] = &schemas.OvernightRate{Kind: tg.rate, Date: o.Date, Percent: o.Value}
			}
		}
	}
	var out []ratesfeed.Body
	for _, kind := range []schemas.CurveKind{schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, schemas.CurveKind_CURVE_KIND_PAR_REAL} {
		for _, date := range sortedKeys(curves[kind]) {
			c := &schemas.YieldCurve{Kind: kind, Date: date}
			for _, t := range schemas.Tenors {
				if v, ok := curves[kind][date][t.Name]; ok {
					c.Points = append(c.Points, &schemas.CurvePoint{Tenor: t.Name, Percent: v})
				}
			}
			out = append(out, c)
		}
	}
	for k := schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR; k <= schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR; k++ {
		for _, date := range sortedKeys(rates[k]) {
			o := rates[k][date]
			if v, ok := volumes[k][date]; ok {
				o.Volume = &v
			}
			out = append(out, o)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NewSource returns the source of a "fred" entry.
func NewSource(cfg Config, run ratesfeed.Runner) (*ratesfeed.Source, *Source, error) {
	if len(cfg.Series) == 0 {
		return nil, nil, fmt.Errorf("cannot use fred source %q: no series", cfg.Name)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HistoryDays == 0 {
		cfg.HistoryDays = DefaultHistoryDays
	}
	if cfg.HistoryDays < 1 {
		return nil, nil, fmt.Errorf("cannot use fred history_days %d: accepted 1 or more", cfg.HistoryDays)
	}
	s := &Source{targets: map[string]target{}, client: run.Client, last: map[string][]Observation{}}
	for i, sc := range cfg.Series {
		tg, err := parseAs(sc.As)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot use fred series %q as %q: %w", sc.ID, sc.As, err)
		}
		if sc.ID == "" {
			return nil, nil, fmt.Errorf("cannot use fred series %d: no id", i)
		}
		if sc.URL == "" {
			cfg.Series[i].URL = strings.TrimRight(cfg.BaseURL, "/") + "/graph/fredgraph.csv?id=" + url.QueryEscape(sc.ID)
		}
		if _, dup := s.targets[cfg.Series[i].URL]; dup {
			return nil, nil, fmt.Errorf("cannot use fred series %q: its URL is listed twice", sc.ID)
		}
		s.targets[cfg.Series[i].URL] = tg
	}
	if cfg.Name == "" {
		cfg.Name = "fred:" + strings.ToLower(cfg.Series[0].ID)
	}
	s.cfg = cfg
	every := DefaultEvery
	if cfg.Every > 0 {
		every = time.Duration(cfg.Every)
	}
	src := ratesfeed.NewSource(cfg.Name, 256, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(cfg.Name, Publisher, emit, run.Clock)
		return run.Run(ctx, cfg.Name, cfg.Series[0].URL, poll.Every(every), s.Cycle)
	})
	return src, s, nil
}

func init() {
	sources.Register("fred", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg Config
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		src, _, err := NewSource(cfg, ratesfeed.RunnerOf(env))
		return src, err
	})
}
