package newsview

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/schemas"
)

var (
	dictOnce sync.Once
	dict     *newsclass.Dictionary
)

func testDictionary(tb testing.TB) *newsclass.Dictionary {
	tb.Helper()
	dictOnce.Do(func() {
		b, err := os.ReadFile(fixtures.Path(tb, "sec/company_tickers.json"))
		if err != nil {
			tb.Fatal(err)
		}
		tk, err := edgar.ParseTickers(b)
		if err != nil {
			tb.Fatal(err)
		}
		dict = newsclass.NewDictionary(newsfeed.Coins(), newsfeed.Issuers(tk))
	})
	return dict
}

var feeds = []newsfeed.Feed{
	{Name: "rss:coindesk", URL: "news/coindesk_rss_2026-09-25_subset.xml", Category: "crypto", Attribution: "Headline © CoinDesk"},
	{Name: "rss:cointelegraph", URL: "news/cointelegraph_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:decrypt", URL: "news/decrypt_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:theblock", URL: "news/theblock_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:federalreserve", URL: "news/federalreserve_press_all_rss_2026-09-24_subset.xml", Category: "policy"},
}

var fetched = time.Date(2026, 9, 26, 0, 0, 0, 0, time.UTC).UnixNano()

func fixtureItems(tb testing.TB) []*schemas.NewsItem {
	tb.Helper()
	var out []*schemas.NewsItem
	for _, f := range feeds {
		b, err := os.ReadFile(fixtures.Path(tb, f.URL))
		if err != nil {
			tb.Fatal(err)
		}
		res, err := newsfeed.Parse(b, f, fetched)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, res.Items...)
	}
	return out
}

// adbe is the ADBE 8-K of the fixture sec/8k_0000796343-23-000044_*:
// accepted 2023-03-15 16:06:36 ET, items 2.02 and 9.01.
func adbe() *schemas.NewsItem {
	return &schemas.NewsItem{
		Id: "sec:0000796343-23-000044", Kind: schemas.NewsKind_NEWS_KIND_FILING, Provider: "edgar:getcurrent", FeedCategory: "filings",
		Title: "ADOBE INC. (ADBE) files 8-K: Results of Operations and Financial Condition",
		Url:   "https://www.sec.gov/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044-index.html", Source: "sec.gov",
		PublishedNs: time.Date(2023, 3, 15, 20, 6, 36, 0, time.UTC).UnixNano(), FetchedNs: fetched,
		Filing: &schemas.NewsFiling{Accession: "0000796343-23-000044", Form: "8-K", FormFamily: "8-K", Cik: "796343", Company: "ADOBE INC.",
			Ticker: "ADBE", Items: []string{"2.02", "9.01"}, ItemDescriptions: []string{"Results of Operations and Financial Condition", "Financial Statements and Exhibits"},
			FilingUrl: "https://www.sec.gov/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044.txt",
			IndexUrl:  "https://www.sec.gov/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044-index.html", FiledDate: "2023-03-15"},
	}
}

func newView(t testing.TB, retention time.Duration) *View {
	return New(testDictionary(t), retention)
}

func titles(docs []Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Title)
	}
	return out
}

func TestFind(t *testing.T) {
	v := newView(t, 10*365*24*time.Hour)
	items := fixtureItems(t)
	for _, n := range append(items, adbe()) {
		if err := v.Apply(n); err != nil {
			t.Fatal(err)
		}
	}
	if v.Len() != len(items)+1 {
		t.Fatalf("Len %d, want %d", v.Len(), len(items)+1)
	}
	all, err := v.Find(Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: the coindesk item of 2026-09-25 14:41:53 leads.
	if len(all) != 100 || all[0].Title != "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist" ||
		!sort.SliceIsSorted(all, func(i, j int) bool { return all[i].PublishedAt.After(all[j].PublishedAt) }) {
		t.Fatalf("%d docs, first %q", len(all), all[0].Title)
	}
	d := all[0]
	if d.Source != "coindesk.com" || d.Category != "crypto" || d.Provider != "rss:coindesk" || d.Attribution != "Headline © CoinDesk" ||
		d.Sentiment != "negative" || d.Materiality != 5 || !slices.Equal(d.Symbols, []string{"ETHUSD"}) || d.FetchedAt.UnixNano() != fetched {
		t.Errorf("%+v", d)
	}
	f := func(q Query, want int, first string) {
		t.Helper()
		docs, err := v.Find(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != want || want > 0 && docs[0].Title != first {
			t.Errorf("%+v: %d docs %q; want %d, first %q", q, len(docs), titles(docs), want, first)
		}
	}
	f(Query{Category: "filings"}, 1, adbe().Title)
	f(Query{Symbol: "ADBE"}, 1, adbe().Title)
	f(Query{Text: "ADBE"}, 1, adbe().Title)
	f(Query{Text: "adobe"}, 1, adbe().Title)
	// The Block's copy (16:25:59 -0500 = 21:25:59 UTC) is newer than
	// Decrypt's (20:57:55 UTC).
	f(Query{Text: "Juventus"}, 2, "Crypto giant Tether offers to buy famous Italian football club Juventus")
	f(Query{Text: "tether juventus", Category: "crypto"}, 2, "Crypto giant Tether offers to buy famous Italian football club Juventus")
	f(Query{Text: "juventus", Category: "stocks"}, 0, "")
	f(Query{Text: "no-such-word-anywhere"}, 0, "")
	f(Query{Text: "Terra", Limit: 1}, 1, "These Bleak Victim Letters Helped Seal Terra Founder Do Kwon's Fate")
	// "$BTC", "BTC-USD" and "bitcoin" find the items tagged BTCUSD.
	btc, _ := v.Find(Query{Symbol: "BTCUSD", Limit: 100})
	for _, q := range []string{"$BTC", "BTC-USD", "btcusd"} {
		got, _ := v.Find(Query{Text: q, Limit: 100})
		if len(got) != len(btc) || len(btc) < 10 {
			t.Errorf("%q: %d docs, BTCUSD has %d", q, len(got), len(btc))
		}
	}
	if got, _ := v.Find(Query{Text: "bitcoin", Limit: 100}); len(got) < len(btc) {
		t.Errorf("bitcoin: %d docs, fewer than the %d tagged BTCUSD", len(got), len(btc))
	}
	// Policy items: document category by content; the Fed's stablecoin
	// proposal is crypto.
	f(Query{Text: "BancFirst"}, 1, "Federal Reserve Board announces approval of application by BancFirst Corporation")
	docs, _ := v.Find(Query{Text: "BancFirst"})
	if docs[0].Category != "stocks" || docs[0].AlertCategory != "policy" {
		t.Errorf("%+v", docs[0])
	}
	// Time bounds.
	day := time.Date(2025, 12, 12, 0, 0, 0, 0, time.UTC)
	inDay, _ := v.Find(Query{Since: day, Until: day.Add(24 * time.Hour), Limit: 100})
	for _, d := range inDay {
		if d.PublishedAt.Before(day) || !d.PublishedAt.Before(day.Add(24*time.Hour)) {
			t.Errorf("out of bounds: %v", d.PublishedAt)
		}
	}
	if len(inDay) < 30 {
		t.Errorf("%d items on 2025-12-12", len(inDay))
	}
	// Bad queries.
	for _, q := range []Query{{Category: "policy"}, {Limit: 101}, {Limit: -1}} {
		if _, err := v.Find(q); !errors.Is(err, ErrBadQuery) {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// TestADBEEarnings: the done-when check, /api/v1/news/symbol?symbol=ADBE
// shows the 8-K with item 2.02 as earnings.
func TestADBEEarnings(t *testing.T) {
	v := newView(t, 0)
	if err := v.Apply(adbe()); err != nil {
		t.Fatal(err)
	}
	s, ok := v.Resolve("adbe")
	docs, _ := v.Find(Query{Symbol: s})
	if !ok || len(docs) != 1 {
		t.Fatalf("%v %v", ok, docs)
	}
	d := docs[0]
	b, _ := json.Marshal(d)
	if d.Category != "filings" || d.Filing == nil || !d.Filing.Earnings || d.Filing.Items[0] != (FilingItem{"2.02", "Results of Operations and Financial Condition", true}) ||
		d.Materiality != 5 || d.Summary != "Form 8-K (current report): Item 2.02 Results of Operations and Financial Condition (earnings); Item 9.01 Financial Statements and Exhibits; filed 2023-03-15" {
		t.Errorf("%s", b)
	}
	recent := v.Recent("ADBE", time.Date(2023, 3, 15, 0, 0, 0, 0, time.UTC), time.Date(2023, 3, 16, 0, 0, 0, 0, time.UTC), 4)
	if len(recent) != 1 || len(v.Recent("ADBE", time.Date(2023, 3, 16, 0, 0, 0, 0, time.UTC), time.Date(2023, 3, 17, 0, 0, 0, 0, time.UTC), 0)) != 0 {
		t.Errorf("recent %v", recent)
	}
	if v.Recent("NOTATICKER", time.Time{}, time.Now(), 0) != nil {
		t.Error("unknown symbol has news")
	}
}

// TestApplyOrderIndependent: the same records in any order, with
// re-deliveries, second copies and corrections, give the same answers.
func TestApplyOrderIndependent(t *testing.T) {
	base := fixtureItems(t)
	var recs []*schemas.NewsItem
	for i, n := range base {
		recs = append(recs, n)
		if i%5 == 0 { // a re-poll: the same item read later
			c := proto.Clone(n).(*schemas.NewsItem)
			c.FetchedNs += int64(time.Minute)
			recs = append(recs, c)
		}
		if i%7 == 0 { // a second channel with the same article
			c := proto.Clone(n).(*schemas.NewsItem)
			c.Provider, c.FetchedNs = "rss:other", n.FetchedNs+int64(time.Second)
			recs = append(recs, c)
		}
		if i%11 == 0 { // the publisher corrects the headline
			c := proto.Clone(n).(*schemas.NewsItem)
			c.Title += " (updated)"
			c.UpdatedNs = n.PublishedNs + int64(time.Hour)
			c.FetchedNs += int64(2 * time.Hour)
			recs = append(recs, c)
		}
	}
	answer := func(order []*schemas.NewsItem) string {
		v := newView(t, 10*365*24*time.Hour)
		for _, n := range order {
			if err := v.Apply(n); err != nil {
				t.Fatal(err)
			}
		}
		docs, _ := v.Find(Query{Limit: 100})
		sym, _ := v.Find(Query{Symbol: "BTCUSD", Limit: 100})
		b, _ := json.Marshal([][]Document{docs, sym})
		return string(b)
	}
	want := answer(recs)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 5 {
		order := slices.Clone(recs)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if got := answer(order); got != want {
			t.Fatalf("order %d gives another answer", k)
		}
	}
	var docs []Document
	_ = json.Unmarshal([]byte(want), &[]any{&docs})
	v := newView(t, 10*365*24*time.Hour)
	for _, n := range recs {
		_ = v.Apply(n)
	}
	if v.Len() != len(base) {
		t.Errorf("%d items, want %d (copies deduplicated)", v.Len(), len(base))
	}
	got, _ := v.Find(Query{Text: "updated", Limit: 100})
	if len(got) == 0 {
		t.Fatal("corrections not applied")
	}
	for _, d := range got {
		if d.Provider == "rss:other" || d.FetchedAt.UnixNano() != fetched {
			t.Errorf("a correction shows the first copy's channel and fetch time: %+v", d)
		}
	}
}

func TestRetentionAndValidation(t *testing.T) {
	v := newView(t, 48*time.Hour)
	items := fixtureItems(t) // 2025-11-20 .. 2026-09-25
	for _, n := range items {
		if err := v.Apply(n); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := v.Find(Query{Limit: 100})
	newest := all[0].PublishedAt
	for _, d := range all {
		if newest.Sub(d.PublishedAt) > 48*time.Hour {
			t.Errorf("kept an item %v older than the retention", d.PublishedAt)
		}
	}
	// 48 h back from 2026-09-25 14:41:53: the coindesk 3 (09-25) and the
	// Fed's of 09-24 (2); the Fed's of 09-22 20:30 is older.
	if len(all) != 5 {
		t.Errorf("%d items kept: %q", len(all), titles(all))
	}
	bad := proto.Clone(items[0]).(*schemas.NewsItem)
	bad.Url = "http://insecure"
	if err := v.Apply(bad); !errors.Is(err, schemas.ErrBadNewsItem) {
		t.Errorf("%v", err)
	}
}

// BenchmarkFind100k measures the news route's view read with 100k stored
// items (target p50 < 2 ms, BENCHMARKS.md): a mix of the route's queries.
func BenchmarkFind100k(b *testing.B) {
	v := newView(b, 10*365*24*time.Hour)
	base := fixtureItems(b)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range 100_000 {
		n := proto.Clone(base[i%len(base)]).(*schemas.NewsItem)
		n.Id = fmt.Sprintf("url:%024x", i)
		n.Url = fmt.Sprintf("%s?n=%d", n.Url, i)
		n.PublishedNs = t0 + int64(i)*int64(30*time.Second)
		if err := v.Apply(n); err != nil {
			b.Fatal(err)
		}
	}
	queries := []Query{
		{}, {Category: "crypto"}, {Category: "stocks"}, {Symbol: "BTCUSD"}, {Symbol: "XRPUSD", Limit: 100},
		{Text: "bitcoin"}, {Text: "Coinbase"}, {Text: "tether juventus"}, {Text: "ADBE"}, {Text: "nothing-matches"},
		{Category: "crypto", Text: "prediction markets", Limit: 50},
	}
	v.Find(Query{}) // settle
	lat := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		s := time.Now()
		if _, err := v.Find(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(s))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func TestRouteAnswers(t *testing.T) {
	v := newView(t, 10*365*24*time.Hour)
	for _, n := range append(fixtureItems(t), adbe()) {
		if err := v.Apply(n); err != nil {
			t.Fatal(err)
		}
	}
	if docs, err := v.List("", "", 0); err != nil || len(docs) != DefaultLimit {
		t.Errorf("%d %v", len(docs), err)
	}
	if docs, err := v.List("crypto", "Tether", 5); err != nil || len(docs) != 5 || docs[0].Category != "crypto" {
		t.Errorf("%d %v", len(docs), err)
	}
	if _, err := v.List("filings", "bitcoin", 0); !errors.Is(err, ErrNoNews) {
		t.Errorf("%v", err)
	}
	if _, err := v.List("", strings.Repeat("x", MaxQueryLen+1), 0); !errors.Is(err, ErrBadQuery) {
		t.Errorf("%v", err)
	}
	if docs, err := v.ForSymbol("adbe", 1); err != nil || docs[0].ID != "sec:0000796343-23-000044" {
		t.Errorf("%v %v", docs, err)
	}
	if _, err := v.ForSymbol("ZZZZZZ", 0); !errors.Is(err, ErrUnknownSymbol) {
		t.Errorf("%v", err)
	}
	if _, err := v.ForSymbol("MSFT", 0); !errors.Is(err, ErrNoNews) {
		t.Errorf("%v", err)
	}
	if _, err := v.ForSymbol("BTC", 101); !errors.Is(err, ErrBadQuery) {
		t.Errorf("%v", err)
	}
}
