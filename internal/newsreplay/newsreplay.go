// Package newsreplay lists the real publisher feeds of the shared fixtures
// (../shared/fixtures/news, see SOURCES.md) as internal/pubreplay routes at
// the publishers' own paths, and the news source configuration that reads
// them (with EDGAR from edgarreplay's routes on the same server), so the
// offline demo and the end-to-end tests poll them exactly as they poll the
// publishers.
package newsreplay

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/schemas"
)

// Capture is one fixture feed served at its publisher's path.
type Capture struct {
	Feed newsfeed.Feed // URL holds the publisher's path
	File string        // under <fixtures>/news/
}

// Captures are the served feeds, with the feed settings of
// newsfeed.DefaultFeeds.
var Captures = []Capture{
	{feed("rss:coindesk", "/arc/outboundfeeds/rss/"), "coindesk_rss_2026-09-25_subset.xml"},
	{feed("rss:cointelegraph", "/rss"), "cointelegraph_rss_2025-12-12.xml"},
	{feed("rss:decrypt", "/feed"), "decrypt_rss_2025-12-12.xml"},
	{feed("rss:theblock", "/rss.xml"), "theblock_rss_2025-12-12.xml"},
	{feed("rss:federalreserve", "/feeds/press_all.xml"), "federalreserve_press_all_rss_2026-09-24_subset.xml"},
}

// ADBESeed is the filing the replayed EDGAR serves by its SEC-HEADER: the
// ADBE 8-K of 2023-03-15 with item 2.02 (earnings), which no captured
// current-filings page lists.
const ADBESeed = "796343/0000796343-23-000044"

// feed returns the default feed named name, served at path.
func feed(name, path string) newsfeed.Feed {
	for _, f := range newsfeed.DefaultFeeds() {
		if f.Name == name {
			f.URL = path
			return f
		}
	}
	panic("BUG: no default feed " + name)
}

// Routes returns the captures as pubreplay routes, reading the files from
// fixturesDir (the shared fixtures directory, holding news/).
func Routes(fixturesDir string) []pubreplay.Route {
	out := make([]pubreplay.Route, 0, len(Captures))
	for _, c := range Captures {
		out = append(out, pubreplay.Route{Path: c.Feed.URL, File: filepath.Join(fixturesDir, "news", c.File)})
	}
	return out
}

// Config returns the news source configuration reading the captured feeds
// and EDGAR (edgarreplay's routes) from a replay server at base
// ("http://127.0.0.1:PORT"), with the ADBE 8-K as a seed filing.
func Config(base string) newsfeed.Config {
	c := newsfeed.Config{Kind: newsfeed.Kind, Name: "news",
		Filings: &newsfeed.FilingsConfig{EDGAR: edgar.Endpoints{WWW: base, Data: base}, Pages: 1, Seed: []string{ADBESeed}}}
	for _, cp := range Captures {
		f := cp.Feed
		f.URL = base + f.URL
		c.Feeds = append(c.Feeds, f)
	}
	return c
}

// HTTP is the http section the replayed sources need: a contact (EDGAR
// refuses clients without one) and no rate limit on the local server.
func HTTP() sources.HTTPConfig {
	return sources.HTTPConfig{Contact: "demo@localhost.invalid", DefaultLimit: &sources.Limit{Rate: 100, Burst: 100}}
}

// Items parses the captured feeds (Captures) and the seed filing's
// SEC-HEADER (ADBESeed, classified against SEC's captured ticker file) from
// fixturesDir into news items read at fetched (Unix ns), as the news
// source makes them, for tests and benchmarks of what reads the news view
// without a source in between.
func Items(fixturesDir string, fetched int64) ([]*schemas.NewsItem, error) {
	var out []*schemas.NewsItem
	for _, c := range Captures {
		b, err := os.ReadFile(filepath.Join(fixturesDir, "news", c.File))
		if err != nil {
			return nil, err
		}
		res, err := newsfeed.Parse(b, c.Feed, fetched)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %s: %w", c.File, err)
		}
		out = append(out, res.Items...)
	}
	tk, err := tickers(fixturesDir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(fixturesDir, "sec", "8k_0000796343-23-000044_ADBE_item2.02.txt"))
	if err != nil {
		return nil, err
	}
	h, err := edgar.ParseHeader(b)
	if err != nil {
		return nil, err
	}
	n, reason, _ := newsfeed.FilingItem(newsfeed.FilingOfHeader(h), tk, edgar.DefaultEndpoints, fetched)
	if n == nil {
		return nil, fmt.Errorf("the seed filing %s is not news: %s", ADBESeed, reason)
	}
	return append(out, n), nil
}

// Dictionary is the classifier's dictionary of the demo and the tests: the
// symbol registry's coins and the US issuers of SEC's captured ticker file.
func Dictionary(fixturesDir string) (*newsclass.Dictionary, error) {
	tk, err := tickers(fixturesDir)
	if err != nil {
		return nil, err
	}
	return newsclass.NewDictionary(newsfeed.Coins(), newsfeed.Issuers(tk)), nil
}

// tickers reads SEC's captured ticker file.
func tickers(fixturesDir string) (*edgar.Tickers, error) {
	b, err := os.ReadFile(filepath.Join(fixturesDir, "sec", "company_tickers.json"))
	if err != nil {
		return nil, err
	}
	return edgar.ParseTickers(b)
}
