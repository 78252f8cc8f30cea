package newsclass_test

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

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

// testDictionary is the dictionary of production: the registry's coins
// and SEC's company_tickers.json (the fixture snapshot).
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
	if dict == nil {
		tb.Fatal("no dictionary")
	}
	return dict
}

type want struct {
	symbols     []string
	sentiment   string
	score       int
	keywords    []string
	materiality int
	category    string
}

func article(feedCategory, title, summary string, cats ...string) *schemas.NewsItem {
	return &schemas.NewsItem{Kind: schemas.NewsKind_NEWS_KIND_ARTICLE, FeedCategory: feedCategory, Title: title, Summary: summary, PublisherCategories: cats}
}

func TestClassifyArticles(t *testing.T) {
	c := newsclass.New(testDictionary(t))
	f := func(n *schemas.NewsItem, w want) {
		t.Helper()
		cl := c.Classify(n)
		if !slices.Equal(cl.Symbols, w.symbols) || cl.Sentiment != w.sentiment || int(cl.SentimentScore) != w.score ||
			(w.keywords != nil && !slices.Equal(cl.Keywords, w.keywords)) || int(cl.Materiality) != w.materiality ||
			(w.category != "" && cl.Category != w.category) || cl.Version != newsclass.Version {
			t.Errorf("%q\n got symbols %q %s %d %q m=%d (%q) cat=%s\nwant symbols %q %s %d %q m=%d cat=%s",
				n.Title, cl.Symbols, cl.Sentiment, cl.SentimentScore, cl.Keywords, cl.Materiality, cl.MaterialityReasons, cl.Category,
				w.symbols, w.sentiment, w.score, w.keywords, w.materiality, w.category)
		}
	}
	// Traps: words that are tickers but not symbols here.
	f(article("crypto", "El sol brilla sobre Madrid mientras el mercado espera", ""), want{nil, "neutral", 0, []string{}, 2, "crypto"})
	f(article("stocks", "Sol de Janeiro opens a store in Paris", ""), want{nil, "neutral", 0, []string{}, 2, "stocks"})
	f(article("crypto", "ALL eyes on the Fed as traders wait", ""), want{nil, "neutral", 0, []string{}, 2, ""})
	f(article("stocks", "NOW is the time to rethink IT budgets", ""), want{nil, "neutral", 0, []string{}, 2, ""})
	f(article("stocks", "IT spending slows as CEO confidence dips", ""), want{nil, "neutral", -1, []string{"dips"}, 2, ""})
	f(article("crypto", "A new strategy for the market", ""), want{nil, "neutral", 0, nil, 2, ""})
	f(article("crypto", "Optimism Returns to Crypto Markets", ""), want{nil, "neutral", 1, []string{"optimism"}, 2, ""})
	// ... and what is a symbol.
	f(article("crypto", "SOL jumps 8% as Solana ETF nears approval", ""), want{[]string{"SOLUSD"}, "positive", 3, []string{"jumps", "approval"}, 4, ""})
	f(article("stocks", "$NOW beats estimates, shares climb", ""), want{[]string{"NOW"}, "positive", 3, []string{"beats", "climb"}, 2, ""})
	f(article("stocks", "Adobe (NASDAQ: ADBE) reports record revenue", ""), want{[]string{"ADBE"}, "positive", 3, []string{"record revenue"}, 2, ""})
	f(article("crypto", "Strategy buys 10,000 BTC as Tesla's shares slide", ""), want{[]string{"MSTR", "BTCUSD", "TSLA"}, "neutral", -1, []string{"slide"}, 2, ""})
	f(article("crypto", "BITCOIN CRASHES BELOW $80K AS ETF OUTFLOWS MOUNT", ""), want{[]string{"BTCUSD"}, "negative", -5, []string{"crashes", "outflows"}, 2, ""})
	f(article("crypto", "Coinbase shares jump after earnings beat", ""), want{[]string{"COIN"}, "positive", 2, []string{"jump", "beat"}, 3, ""})
	f(article("crypto", "Bitcoin Trades Near Record High", ""), want{[]string{"BTCUSD"}, "positive", 3, []string{"record high"}, 5, ""})
	// Negation flips the sign within three words, not across a clause;
	// materiality terms count negated or not.
	f(article("crypto", "SEC does not approve spot Solana ETF", ""), want{[]string{"SOLUSD"}, "negative", -2, []string{"not approve"}, 4, ""})
	f(article("crypto", "No rally yet. Bitcoin gains", ""), want{[]string{"BTCUSD"}, "neutral", -1, []string{"not rally", "gains"}, 4, ""})
	f(article("crypto", "Exchange hacked, $40M stolen from hot wallet", ""), want{nil, "negative", -6, []string{"hacked", "stolen"}, 5, ""})
	// Opinion pieces are capped.
	f(article("crypto", "Why the Bitcoin crash is overdone", "", "Opinion"), want{[]string{"BTCUSD"}, "negative", -3, nil, 2, ""})
	// Policy feeds: document category by content, alert category policy.
	f(article("policy", "Federal Reserve Board issues FOMC statement", ""), want{nil, "neutral", 0, nil, 5, "stocks"})
	f(article("policy", "Federal Reserve Board requests comment on payment stablecoin issuers", ""), want{nil, "neutral", 0, nil, 2, "crypto"})
}

// TestClassifyFiling: the ADBE 8-K of 2023-03-15 (fixture
// sec/8k_0000796343-23-000044_ADBE_item2.02.txt: ITEM INFORMATION "Results
// of Operations and Financial Condition" and "Financial Statements and
// Exhibits") is earnings; Adobe is rank 41 of company_tickers.json.
func TestClassifyFiling(t *testing.T) {
	c := newsclass.New(testDictionary(t))
	n := &schemas.NewsItem{Kind: schemas.NewsKind_NEWS_KIND_FILING, Title: "ADOBE INC. 8-K", Filing: &schemas.NewsFiling{
		Accession: "0000796343-23-000044", Form: "8-K", FormFamily: "8-K", Cik: "796343", Company: "ADOBE INC.",
		Items: []string{"2.02", "9.01"}, ItemDescriptions: []string{"Results of Operations and Financial Condition", "Financial Statements and Exhibits"},
		FiledDate: "2023-03-15",
	}}
	cl := c.Classify(n)
	wantSummary := "Form 8-K (current report): Item 2.02 Results of Operations and Financial Condition (earnings); Item 9.01 Financial Statements and Exhibits; filed 2023-03-15"
	if !cl.Earnings || !slices.Equal(cl.Symbols, []string{"ADBE"}) || cl.Materiality != 5 || cl.Category != "filings" || cl.AlertCategory != "filings" ||
		cl.Summary != wantSummary || cl.Sentiment != "neutral" {
		t.Errorf("%+v", cl)
	}
	f := func(form string, items []string, cik string, wantM int, wantSent string) {
		t.Helper()
		fm := edgar.ParseForm(form)
		n := &schemas.NewsItem{Kind: schemas.NewsKind_NEWS_KIND_FILING, Filing: &schemas.NewsFiling{Form: fm.Name, FormFamily: fm.Family, Amendment: fm.Amendment, Cik: cik, Items: items}}
		cl := c.Classify(n)
		if int(cl.Materiality) != wantM || cl.Sentiment != wantSent {
			t.Errorf("%s %v %s: materiality %d %s (%q), want %d %s", form, items, cik, cl.Materiality, cl.Sentiment, cl.MaterialityReasons, wantM, wantSent)
		}
	}
	f("8-K", []string{"1.03"}, "1425450", 5, "negative") // OrthoPediatrics: bankruptcy item
	f("8-K", []string{"7.01", "9.01"}, "1425450", 2, "neutral")
	f("8-K/A", []string{"2.02"}, "796343", 4, "neutral") // amendment -1, large +1
	f("4", nil, "320193", 3, "neutral")                  // Apple: rank 2
	f("4", nil, "2104409", 1, "neutral")                 // no listed ticker: -1
	f("SC 13D", nil, "1045810", 4, "neutral")            // NVIDIA
	f("D", nil, "1045810", 2, "neutral")                 // not a listed form: 1, +1
	f("8-K", []string{"4.02", "9.01"}, "1318605", 5, "negative")
}

// TestClassifyDeterministic: classifying is a function of the item.
func TestClassifyDeterministic(t *testing.T) {
	d := testDictionary(t)
	n := article("crypto", "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist", "Most of the stolen funds sit in ether, which can't be frozen.")
	a, b := newsclass.New(d).Classify(n), newsclass.New(d).Classify(n)
	c := newsclass.New(d)
	c.Classify(article("stocks", "Other item to dirty the buffers", "x"))
	if x := c.Classify(n); !slices.Equal(a.Keywords, x.Keywords) || !slices.Equal(a.Symbols, b.Symbols) || a.SentimentScore != x.SentimentScore {
		t.Errorf("%v %v %v", a, b, x)
	}
	if strings.Join(a.Symbols, ",") != "ETHUSD" || a.Materiality != 5 || a.Sentiment != "negative" {
		t.Errorf("%v", a)
	}
}

func TestResolve(t *testing.T) {
	d := testDictionary(t)
	f := func(in, want string) {
		t.Helper()
		got, ok := d.Resolve(in)
		if got != want || ok != (want != "") {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	f("BTC", "BTCUSD")
	f("$btc", "BTCUSD")
	f("BTCUSD", "BTCUSD")
	f("btc-usdt", "BTCUSD")
	f("ETH", "ETHUSD") // the coin, not Grayscale's ETH trust
	f("adbe", "ADBE")
	f("BRK.B", "BRK-B")
	f("TSLAUSD", "TSLA")
	f("NOW", "NOW")
	f("", "")
	f("NOTATICKER", "")
	f("XYZUSD", "")
}
