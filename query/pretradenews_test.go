package query

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/newsview"
	"github.com/marketintel/mi/sinks/views"
)

// newsCheck returns the news_24h check of a pre-trade answer of s.
func newsCheck(t *testing.T, s *Server, path string) (result string, observed any) {
	t.Helper()
	_, resp, body := get(t, s, path, "")
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
	}
	var a struct {
		Checks []struct {
			Name          string `json:"name"`
			Result        string `json:"result"`
			ObservedValue any    `json:"observedValue"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Checks {
		if c.Name == "news_24h" {
			return c.Result, c.ObservedValue
		}
	}
	t.Fatalf("no news_24h check in %s", body)
	return "", nil
}

// The server wires its news view (Deps.News) into the pre-trade check: with
// a negative, material item on BTCUSD an hour old the check FAILs for a buy
// and PASSes for a sell; without the news view it is UNKNOWN.
func TestPreTradeReadsNewsView(t *testing.T) {
	v := views.New()
	v.Apply(fullDoc())
	if got, _ := newsCheck(t, New(Deps{Views: v, Version: "t", Now: func() time.Time { return testNow }}),
		"/api/v1/intelligence/pre-trade?symbol=BTCUSD"); got != "UNKNOWN" {
		t.Fatalf("without news view: %s, want UNKNOWN", got)
	}

	dict, err := newsreplay.Dictionary(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	nv := newsview.New(dict, 30*24*time.Hour)
	pub := testNow.Add(-time.Hour).UnixNano()
	item := &schemas.NewsItem{Id: "url:0123456789abcdef01234567", Kind: schemas.NewsKind_NEWS_KIND_ARTICLE, Provider: "rss:test",
		FeedCategory: "crypto", Title: "BITCOIN CRASHES BELOW $80K AS ETF OUTFLOWS MOUNT", Url: "https://example.com/btc-crash",
		Source: "example.com", PublishedNs: pub, FetchedNs: pub}
	if err := nv.Apply(item); err != nil {
		t.Fatal(err)
	}
	docs := nv.Recent("BTCUSD", testNow.Add(-24*time.Hour), testNow, 0)
	if len(docs) != 1 || docs[0].Sentiment != "negative" {
		t.Fatalf("fixture item not classified as expected: %+v", docs)
	}
	s := New(Deps{Views: v, Version: "t", Now: func() time.Time { return testNow }, News: nv})
	buy, obs := newsCheck(t, s, "/api/v1/intelligence/pre-trade?symbol=BTCUSD&side=buy")
	if buy == "UNKNOWN" || obs == nil {
		t.Fatalf("buy with news: %s (%v), want a known result", buy, obs)
	}
	if docs[0].Materiality >= 4 && buy != "FAIL" || docs[0].Materiality < 4 && buy != "WARN" {
		t.Fatalf("buy with a negative item of materiality %d: %s", docs[0].Materiality, buy)
	}
	if sell, _ := newsCheck(t, s, "/api/v1/intelligence/pre-trade?symbol=BTCUSD&side=sell"); sell != "PASS" {
		t.Fatalf("sell with only negative news: %s, want PASS", sell)
	}
}
