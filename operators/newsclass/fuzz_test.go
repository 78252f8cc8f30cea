package newsclass_test

import (
	"testing"
	"unicode/utf8"

	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/schemas"
)

// FuzzClassify classifies arbitrary headlines and teasers (seeded with the
// real ones): never a panic, and every classification within its contract.
func FuzzClassify(f *testing.F) {
	for _, n := range fixtureItems(f) {
		f.Add(n.Title, n.Summary, n.FeedCategory)
	}
	f.Add("$NOW (NASDAQ: ADBE) BTC-USD don’t not no rally", "", "stocks")
	f.Add("Optimism's OP isn't hacked; SOL jumps", "Bank of America & AT&T", "crypto")
	c := newsclass.New(testDictionary(f))
	f.Fuzz(func(t *testing.T, title, summary, cat string) {
		cl := c.Classify(&schemas.NewsItem{Kind: schemas.NewsKind_NEWS_KIND_ARTICLE, Title: title, Summary: summary, FeedCategory: cat})
		if cl.Materiality < 1 || cl.Materiality > 5 || len(cl.Symbols) > newsclass.MaxSymbols || len(cl.Keywords) > 16 ||
			cl.Version != newsclass.Version || cl.Category == "" {
			t.Fatalf("%+v", cl)
		}
		want := newsclass.Neutral
		if cl.SentimentScore >= newsclass.PositiveAt {
			want = newsclass.Positive
		} else if cl.SentimentScore <= newsclass.NegativeAt {
			want = newsclass.Negative
		}
		if cl.Sentiment != want {
			t.Fatalf("score %d labelled %s", cl.SentimentScore, cl.Sentiment)
		}
		for _, k := range append(cl.Keywords, cl.Symbols...) {
			if k == "" || !utf8.ValidString(k) {
				t.Fatalf("bad keyword or symbol %q", k)
			}
		}
	})
}
