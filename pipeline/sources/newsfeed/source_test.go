package newsfeed

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/schemas"
)

// replay serves the real captures at the publishers' own paths: three
// feeds, EDGAR's ticker file, current-filings feed and the ADBE 8-K, plus
// an HTML page where a feed should be.
func replay(t *testing.T) (*pubreplay.Server, string) {
	t.Helper()
	fx := func(rel string) string { return fixtures.Path(t, rel) }
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: "/arc/outboundfeeds/rss/", File: fx("news/coindesk_rss_2026-09-25_subset.xml")},
		{Path: "/rss", File: fx("news/cointelegraph_rss_2025-12-12.xml")},
		{Path: "/feeds/press_all.xml", File: fx("news/federalreserve_press_all_rss_2026-09-24_subset.xml")},
		{Path: "/login-wall", Body: []byte("<!DOCTYPE html><html><head><title>Subscribe to read</title></head><body>…</body></html>"), ContentType: "text/html"},
		{Path: "/files/company_tickers.json", File: fx("sec/company_tickers.json")},
		{Path: "/cgi-bin/browse-edgar", Query: url.Values{"action": {"getcurrent"}, "start": {"0"}}, File: fx("sec/edgar_getcurrent_all_forms_atom.xml")},
		{Path: "/cgi-bin/browse-edgar", Query: url.Values{"action": {"getcurrent"}, "start": {"100"}}, File: fx("sec/edgar_getcurrent_all_forms_atom_8k_heavy.xml")},
		{Path: "/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044.txt", File: fx("sec/8k_0000796343-23-000044_ADBE_item2.02.txt")},
	}, pubreplay.LastModified(time.Date(2026, 9, 25, 16, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return srv, l.URL
}

// collector reads a source's records in the background.
type collector struct {
	ch chan sources.Record
}

func collect(t *testing.T, s sources.Source) *collector {
	c := &collector{ch: make(chan sources.Record, 4096)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); s.Close() })
	go func() {
		for {
			r, err := s.Next(ctx)
			if err != nil {
				close(c.ch)
				return
			}
			c.ch <- r
		}
	}()
	return c
}

// take returns the records that arrive until none came for quiet.
func (c *collector) take(quiet time.Duration) []sources.Record {
	var out []sources.Record
	for {
		select {
		case r, ok := <-c.ch:
			if !ok {
				return out
			}
			out = append(out, r)
		case <-time.After(quiet):
			return out
		}
	}
}

func decode(t *testing.T, recs []sources.Record) (items []*schemas.NewsItem, rejects []sources.Record) {
	t.Helper()
	for _, r := range recs {
		if r.Side == nil {
			if r.DLQ != sidetopic.News.DLQ() || r.Reason == "" {
				t.Errorf("reject without DLQ or reason: %+v", r)
			}
			rejects = append(rejects, r)
			continue
		}
		if r.Side.Topic != sidetopic.News.Name {
			t.Fatalf("record for %s", r.Side.Topic)
		}
		n, err := sidetopic.News.Decode(r.Side.Value)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Side.Key) != n.Id {
			t.Errorf("key %q for id %q", r.Side.Key, n.Id)
		}
		if err := schemas.ValidateNewsItem(n); err != nil {
			t.Errorf("%v: %v", n, err)
		}
		items = append(items, n)
	}
	return items, rejects
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestSourceEndToEnd polls the replayed publishers and EDGAR: items and
// dead letters on the news topic, conditional GETs answered 304 send
// nothing again, a 429 with Retry-After and a truncated body are retried,
// and /status sees it all.
func TestSourceEndToEnd(t *testing.T) {
	srv, base := replay(t)
	clk := clock.NewFake(time.Date(2026, 9, 25, 16, 30, 0, 0, time.UTC))
	reg := sources.NewRegistry(slog.New(slog.DiscardHandler), clk)
	src, err := New(Config{
		Name: "news", Interval: sources.Duration(2 * time.Minute),
		Feeds: []Feed{
			{Name: "rss:coindesk", URL: base + "/arc/outboundfeeds/rss/", Category: CategoryCrypto, Attribution: "Headline © CoinDesk"},
			{Name: "rss:cointelegraph", URL: base + "/rss", Category: CategoryCrypto},
			{Name: "rss:federalreserve", URL: base + "/feeds/press_all.xml", Category: CategoryPolicy},
			{Name: "rss:walled", URL: base + "/login-wall", Category: CategoryStocks},
		},
		Filings: &FilingsConfig{EDGAR: edgar.Endpoints{WWW: base, Data: base}, Pages: 2, Seed: []string{"796343/0000796343-23-000044"}},
	}, Options{HTTP: sources.HTTPConfig{Contact: "ops@example.com", DefaultLimit: &sources.Limit{Rate: 100, Burst: 100}},
		Registry: reg, Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	health := func(name string) sources.Freshness {
		for _, f := range reg.Snapshot() {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no health for %s", name)
		return sources.Freshness{}
	}
	// The Fed's first answer is cut short: that feed fails and is retried
	// after the backoff (10 s ± 25 %).
	srv.Inject("/feeds/press_all.xml", pubreplay.Fault{Truncate: 100})
	c := collect(t, src)
	// advance moves the clock once every poller (4 feeds and EDGAR) waits
	// for its next slot, so no cycle is still computing its schedule.
	advance := func(d time.Duration) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := clk.BlockUntil(ctx, 5); err != nil {
			t.Fatalf("pollers not waiting: %v", err)
		}
		clk.Advance(d)
	}
	first := c.take(3 * time.Second)
	if h := health("rss:federalreserve"); h.ConsecutiveFailures != 1 || !strings.Contains(h.LastError, "truncated") {
		t.Errorf("fed health %+v", h)
	}
	advance(15 * time.Second)
	waitFor(t, "the fed's retry", func() bool { return health("rss:federalreserve").State == "ok" })
	items, rejects := decode(t, append(first, c.take(time.Second)...))

	byProvider := map[string]int{}
	var adbe *schemas.NewsItem
	for _, n := range items {
		byProvider[n.Provider]++
		if n.Id == "sec:0000796343-23-000044" {
			adbe = n
		}
		if n.Kind == schemas.NewsKind_NEWS_KIND_FILING && (n.Filing.Ticker == "" || n.FeedCategory != CategoryFilings) {
			t.Errorf("filing %v", n)
		}
	}
	// 3 + 30 + 3 feed items (counts of the captures).
	if byProvider["rss:coindesk"] != 3 || byProvider["rss:cointelegraph"] != 30 || byProvider["rss:federalreserve"] != 3 || byProvider[FilingsProvider] < 2 {
		t.Errorf("items per provider %v", byProvider)
	}
	// The ADBE 8-K, read from its SEC-HEADER (ITEM INFORMATION lines).
	if adbe == nil || adbe.Filing.FormFamily != "8-K" || !slices.Equal(adbe.Filing.Items, []string{"2.02", "9.01"}) ||
		adbe.Filing.Ticker != "ADBE" || adbe.Filing.Cik != "796343" ||
		adbe.Title != "ADOBE INC. (ADBE) files 8-K: Results of Operations and Financial Condition" ||
		time.Unix(0, adbe.PublishedNs).UTC() != time.Date(2023, 3, 15, 20, 6, 36, 0, time.UTC) {
		t.Errorf("ADBE %v", adbe)
	}
	// The login wall is a dead letter, once.
	if len(rejects) != 1 || !strings.HasPrefix(rejects[0].Reason, "not a feed: HTML page \"Subscribe to read\"") {
		t.Errorf("rejects %+v", rejects)
	}

	// Next slot: every feed answers 304; nothing is sent again, and the
	// unchanged EDGAR feed sends nothing new either.
	reqs := srv.Requests("/rss")
	advance(2 * time.Minute)
	waitFor(t, "the second poll", func() bool { return srv.Requests("/rss") > reqs })
	if again := c.take(time.Second); len(again) != 0 {
		t.Errorf("%d records after unchanged polls", len(again))
	}

	// A 429 with Retry-After: the feed fails, is retried no earlier than
	// Retry-After, then recovers.
	srv.Inject("/arc/outboundfeeds/rss/", pubreplay.Fault{Status: 429, RetryAfter: "300"})
	advance(2 * time.Minute)
	waitFor(t, "the throttled poll", func() bool { return health("rss:coindesk").ConsecutiveFailures == 1 })
	if h := health("rss:coindesk"); h.State != "failing" || !strings.Contains(h.LastError, "429") {
		t.Errorf("health %+v", h)
	}
	n429 := srv.Requests("/arc/outboundfeeds/rss/")
	advance(2 * time.Minute) // before Retry-After: not asked
	time.Sleep(200 * time.Millisecond)
	if srv.Requests("/arc/outboundfeeds/rss/") != n429 {
		t.Error("asked again before Retry-After")
	}
	advance(4 * time.Minute) // past Retry-After
	waitFor(t, "the recovery", func() bool { return health("rss:coindesk").State == "ok" })
	// EDGAR answers its throttling page with a 200: the filings poll fails
	// and the page is a dead letter, once.
	page := []byte("<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body>Your request rate exceeds...</body></html>")
	srv.Inject("/cgi-bin/browse-edgar", pubreplay.Fault{Status: 200, Body: page, Times: 2})
	advance(2 * time.Minute)
	waitFor(t, "the throttled filings poll", func() bool { return health("news:edgar").ConsecutiveFailures == 1 })
	_, rejects = decode(t, c.take(time.Second))
	if len(rejects) != 1 || !strings.HasPrefix(rejects[0].Reason, "malformed feed: ") {
		t.Errorf("edgar rejects %+v", rejects)
	}
	if h := health("rss:cointelegraph"); h.State != "ok" || h.LastData.IsZero() {
		t.Errorf("health %+v", h)
	}
	if h := health("rss:walled"); h.State != "failing" {
		t.Errorf("walled health %+v", h)
	}
}

func TestConfigValidation(t *testing.T) {
	bad := []Config{
		{Interval: sources.Duration(time.Second)},
		{Feeds: []Feed{{Name: "a", URL: "https://e.com", Category: "sports"}}},
		{Feeds: []Feed{{Name: "a", URL: "https://e.com", Category: "crypto"}, {Name: "a", URL: "https://f.com", Category: "crypto"}}},
		{Filings: &FilingsConfig{Interval: sources.Duration(time.Hour)}},
		{Filings: &FilingsConfig{Pages: 11}},
		{Filings: &FilingsConfig{Seed: []string{"not-a-seed"}}},
	}
	for _, c := range bad {
		if _, err := New(c, Options{Logger: slog.New(slog.DiscardHandler)}); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	// Without a contact address EDGAR is refused: headlines only, and the
	// registry says why.
	reg := sources.NewRegistry(slog.New(slog.DiscardHandler), nil)
	s, err := New(Config{}, Options{Registry: reg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if s.edgar != nil || len(s.cfg.Feeds) != len(DefaultFeeds()) {
		t.Errorf("edgar %v feeds %d", s.edgar, len(s.cfg.Feeds))
	}
	snap := reg.Snapshot()
	if len(snap) != 1 || !strings.Contains(snap[0].LastError, "SEC filings disabled") {
		t.Errorf("%+v", snap)
	}
	for _, f := range DefaultFeeds() {
		if err := f.Validate(); err != nil || !strings.HasPrefix(f.URL, "https://") || f.Terms == "" {
			t.Errorf("default feed %+v: %v", f, err)
		}
	}
	if _, err := sources.ParseConfig([]byte(`{"sources":[{"kind":"news","feeds":[{"name":"rss:x","url":"https://x.example/feed","category":"crypto"}],"bogus":1}]}`)); err != nil {
		t.Fatal(err)
	}
	cfg, _ := sources.ParseConfig([]byte(`{"sources":[{"kind":"news","bogus":1}]}`))
	if _, err := cfg.Open(sources.Env{Logger: slog.New(slog.DiscardHandler)}); err == nil || !errors.Is(err, err) || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown field accepted: %v", err)
	}
}
