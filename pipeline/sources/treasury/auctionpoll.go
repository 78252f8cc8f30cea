package treasury

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

// Default endpoints of the auction publishers.
const (
	DefaultTreasuryDirectURL = "https://www.treasurydirect.gov"
	DefaultFiscalDataURL     = "https://api.fiscaldata.treasury.gov"
	tdAuctioned              = "/TA_WS/securities/auctioned"
	tdAnnounced              = "/TA_WS/securities/announced"
	fdResults                = "/services/api/fiscal_service/v1/accounting/od/auctions_query"
	fdUpcoming               = "/services/api/fiscal_service/v1/accounting/od/upcoming_auctions"
)

// AuctionSchedule is when auctions are read: on weekdays, New York time,
// after the announcements (about 11:00) and the results (11:30 for bills,
// 13:00 for notes and bonds), and once in the morning and late afternoon.
var AuctionSchedule = poll.Schedule{
	Loc: uscal.NewYork, Weekdays: true,
	Daily: []time.Duration{8 * time.Hour, 11*time.Hour + 5*time.Minute, 11*time.Hour + 35*time.Minute, 12*time.Hour + 5*time.Minute,
		13*time.Hour + 5*time.Minute, 13*time.Hour + 35*time.Minute, 14*time.Hour + 30*time.Minute, 16 * time.Hour},
}

// Auction history read at start (days back), and at every later poll.
const (
	DefaultAuctionHistoryDays = 120
	DefaultAuctionRecentDays  = 14
	maxFiscalDataPages        = 20
)

// AuctionConfig is a "treasury-auctions" entry of the sources
// configuration:
//
//	{"kind": "treasury-auctions"}                                  (TreasuryDirect)
//	{"kind": "treasury-auctions", "api": "fiscaldata"}
//	{"kind": "treasury-auctions", "api": "fiscaldata", "urls": ["http://127.0.0.1:8088/...auctions_query?..."]}
type AuctionConfig struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// API is "treasurydirect" (default: TA_WS securities auctioned and
	// announced) or "fiscaldata" (auctions_query and upcoming_auctions).
	API string `json:"api,omitempty"`
	// BaseURL replaces the API's default (a local server standing in).
	BaseURL string `json:"base_url,omitempty"`
	// URLs, when set, are the documents read at every poll.
	URLs []string `json:"urls,omitempty"`
	// HistoryDays is how far back the first poll reads (default 120, for
	// the previous auction of each series); later polls read 14 days.
	HistoryDays int `json:"history_days,omitempty"`
	// Every, when set, polls at this interval instead of AuctionSchedule.
	Every sources.Duration `json:"every,omitempty"`
}

// AuctionSource polls auctions into a Feed.
type AuctionSource struct {
	cfg    AuctionConfig
	feed   *ratesfeed.Feed
	client *poll.Client

	mu      sync.Mutex
	started bool
}

func (s *AuctionSource) base() string {
	if s.cfg.BaseURL != "" {
		return strings.TrimRight(s.cfg.BaseURL, "/")
	}
	if s.cfg.API == "fiscaldata" {
		return DefaultFiscalDataURL
	}
	return DefaultTreasuryDirectURL
}

// URLs returns the documents a poll at now reads.
func (s *AuctionSource) URLs(now time.Time, first bool) []string {
	if len(s.cfg.URLs) > 0 {
		return s.cfg.URLs
	}
	days := DefaultAuctionRecentDays
	if first {
		days = s.cfg.HistoryDays
	}
	if s.cfg.API == "fiscaldata" {
		since := uscal.DateOf(now.In(uscal.NewYork)).AddDays(-days).String()
		res := url.Values{"filter": {"auction_date:gte:" + since}, "sort": {"auction_date"}, "page[size]": {"1000"}}
		up := url.Values{"filter": {"record_date:gte:" + uscal.DateOf(now.In(uscal.NewYork)).AddDays(-14).String()}, "page[size]": {"1000"}}
		return []string{s.base() + fdResults + "?" + res.Encode(), s.base() + fdUpcoming + "?" + up.Encode()}
	}
	q := url.Values{"format": {"json"}, "days": {strconv.Itoa(days)}}
	return []string{s.base() + tdAuctioned + "?" + q.Encode(), s.base() + tdAnnounced + "?" + q.Encode()}
}

// Cycle is one poll.
func (s *AuctionSource) Cycle(ctx context.Context) (time.Time, error) {
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

func (s *AuctionSource) handle(ctx context.Context, u string, r *poll.Response) (time.Time, error) {
	fiscal := s.cfg.API == "fiscaldata"
	var newest time.Time
	for page := 1; ; page++ {
		var res AuctionResult
		var err error
		if fiscal {
			res, err = ParseFiscalData(r.Body)
		} else {
			res, err = ParseSecurities(r.Body)
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
		bodies := make([]ratesfeed.Body, len(res.Auctions))
		for i, a := range res.Auctions {
			bodies[i] = a
			if a.Status == schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED {
				if d, err := time.ParseInLocation("2006-01-02", a.AuctionDate, uscal.NewYork); err == nil && d.After(newest) {
					newest = d
				}
			}
		}
		if _, err := s.feed.Observe(ctx, u, r.Fetched, bodies...); err != nil {
			return time.Time{}, err
		}
		// Fiscal Data pages: links.next is a query fragment
		// ("&page[number]=2&page[size]=...") that replaces those
		// parameters of the URL.
		if !fiscal || res.Next == "" || len(s.cfg.URLs) > 0 {
			return newest, nil
		}
		if page == maxFiscalDataPages {
			return newest, fmt.Errorf("cannot read %s: more than %d pages", u, maxFiscalDataPages)
		}
		next, err := nextPage(u, res.Next)
		if err != nil {
			return newest, err
		}
		nr, err := s.client.Do(ctx, poll.Request{URL: next, Validators: &poll.Validators{}})
		if err != nil {
			return newest, err
		}
		r = nr
	}
}

// NewAuctionSource returns the source of a "treasury-auctions" entry.
func NewAuctionSource(cfg AuctionConfig, run ratesfeed.Runner) (*ratesfeed.Source, *AuctionSource, error) {
	switch cfg.API {
	case "":
		cfg.API = "treasurydirect"
	case "treasurydirect", "fiscaldata":
	default:
		return nil, nil, fmt.Errorf("cannot use treasury-auctions api %q: accepted values: treasurydirect, fiscaldata", cfg.API)
	}
	if cfg.HistoryDays == 0 {
		cfg.HistoryDays = DefaultAuctionHistoryDays
	}
	if cfg.HistoryDays < 1 || cfg.HistoryDays > 3650 {
		return nil, nil, fmt.Errorf("cannot use treasury-auctions history_days %d: accepted 1 to 3650", cfg.HistoryDays)
	}
	if cfg.Name == "" {
		cfg.Name = "treasury:auctions"
	}
	s := &AuctionSource{cfg: cfg, client: run.Client}
	sched := AuctionSchedule
	if cfg.Every > 0 {
		sched = poll.Every(time.Duration(cfg.Every))
	}
	endpoint := s.base()
	if len(cfg.URLs) > 0 {
		endpoint = cfg.URLs[0]
	}
	src := ratesfeed.NewSource(cfg.Name, 256, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(cfg.Name, Publisher, emit, run.Clock)
		return run.Run(ctx, cfg.Name, endpoint, sched, s.Cycle)
	})
	return src, s, nil
}

func init() {
	sources.Register("treasury-auctions", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg AuctionConfig
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		src, _, err := NewAuctionSource(cfg, ratesfeed.RunnerOf(env))
		return src, err
	})
}

// nextPage applies Fiscal Data's links.next query fragment to u.
func nextPage(u, next string) (string, error) {
	nu, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("cannot page %s: %w", u, err)
	}
	frag, err := url.ParseQuery(strings.TrimPrefix(next, "&"))
	if err != nil {
		return "", fmt.Errorf("cannot page %s: bad links.next %q: %w", u, next, err)
	}
	q := nu.Query()
	for k, v := range frag {
		q[k] = v
	}
	nu.RawQuery = q.Encode()
	return nu.String(), nil
}
