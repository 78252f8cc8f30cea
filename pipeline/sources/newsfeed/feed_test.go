package newsfeed

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

// fixtureFeeds are the real captures with the feed each was read from.
var fixtureFeeds = []struct {
	file string
	feed Feed
}{
	{"news/coindesk_rss_2026-09-25_subset.xml", Feed{Name: "rss:coindesk", URL: "https://www.coindesk.com/arc/outboundfeeds/rss/", Category: CategoryCrypto, Attribution: "Headline © CoinDesk"}},
	{"news/cointelegraph_rss_2025-12-12.xml", Feed{Name: "rss:cointelegraph", URL: "https://cointelegraph.com/rss", Category: CategoryCrypto}},
	{"news/decrypt_rss_2025-12-12.xml", Feed{Name: "rss:decrypt", URL: "https://decrypt.co/feed", Category: CategoryCrypto}},
	{"news/theblock_rss_2025-12-12.xml", Feed{Name: "rss:theblock", URL: "https://www.theblock.co/rss.xml", Category: CategoryCrypto}},
	{"news/federalreserve_press_all_rss_2026-09-24_subset.xml", Feed{Name: "rss:federalreserve", URL: "https://www.federalreserve.gov/feeds/press_all.xml", Category: CategoryPolicy}},
}

func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fetchedAt is a fetch time after every capture.
var fetchedAt = time.Date(2026, 9, 25, 16, 30, 0, 0, time.UTC).UnixNano()

func ts(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func parseFixture(t *testing.T, i int) Result {
	t.Helper()
	ff := fixtureFeeds[i]
	res, err := Parse(readFixture(t, ff.file), ff.feed, fetchedAt)
	if err != nil {
		t.Fatalf("%s: %v", ff.file, err)
	}
	return res
}

// TestParseFixtures checks item counts and the first item of each capture
// against the values read by hand from the files.
func TestParseFixtures(t *testing.T) {
	type first struct {
		title, url, source, summaryPrefix, guid string
		published                               int64
		categories                              []string
	}
	want := []struct {
		items int
		first first
	}{
		// coindesk: 3 <item>s; the first at lines 21-36.
		{3, first{
			title:         "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist",
			url:           "https://www.coindesk.com/markets/2026/09/25/circle-and-tether-step-in-to-freeze-hacker-wallet-after-massive-bitget-crypto-heist",
			source:        "coindesk.com",
			summaryPrefix: "The stablecoin issuer blacklisted a wallet holding about $318,000 in USDT and USDC.",
			guid:          "a0b4a6ba-5569-4fef-940c-e402f9698d89",
			published:     ts("2026-09-25T14:41:53Z"),
			categories:    []string{"Markets", "Circle", "Tether", "News"},
		}},
		// cointelegraph: 30 items; the link carries utm_* parameters, the
		// description is HTML with an <img> whose alt repeats the title.
		{30, first{
			title:         "Figure Technology files ‘second IPO’ to bring native equity issuance to Solana",
			url:           "https://cointelegraph.com/news/figure-technology-solana-onchain-equity-second-ipo",
			source:        "cointelegraph.com",
			summaryPrefix: "Figure is planning a second IPO to issue blockchain-native equity on Solana,",
			guid:          "https://cointelegraph.com/news/figure-technology-solana-onchain-equity-second-ipo",
			published:     ts("2025-12-12T16:57:28Z"),
		}},
		// decrypt: 58 items; &#39; in the title; an empty <category/>.
		{58, first{
			title:         "Vanguard Exec Calls Bitcoin a 'Digital Labubu', Even as Firm Offers Crypto ETF Trading",
			url:           "https://decrypt.co/352201/vanguard-exec-calls-bitcoin-digital-labubu-firm-offers-crypto-etf-trading",
			source:        "decrypt.co",
			summaryPrefix: "The Vanguard equity head dismissed Bitcoin as speculative,",
			guid:          "https://decrypt.co/?p=352201",
			published:     ts("2025-12-12T21:59:32Z"),
			categories:    []string{"Coins"},
		}},
		// theblock: 19 items, pubDate in -0500: 17:33:11 -0500 = 22:33:11 UTC.
		{19, first{
			title:         "Fogo cancels $20 million pre-sale, will airdrop tokens instead in upcoming mainnet launch",
			url:           "https://www.theblock.co/post/382435/fogo-solana-svm-airdrop-token-sale-mainnet-launch",
			source:        "theblock.co",
			summaryPrefix: "Fogo will airdrop the tokens set aside for a pre-sale next week,",
			guid:          "https://www.theblock.co/post/382435",
			published:     ts("2025-12-12T22:33:11Z"),
		}},
		// federalreserve: 3 items; the description repeats the title, so
		// there is no teaser.
		{3, first{
			title:     "Federal Reserve Board requests public comment on two proposals related to establishing a regulatory framework for Board-supervised payment stablecoin issuers under the GENIUS Act",
			url:       "https://www.federalreserve.gov/newsevents/pressreleases/bcreg20260924a.htm",
			source:    "federalreserve.gov",
			guid:      "https://www.federalreserve.gov/newsevents/pressreleases/bcreg20260924a.htm",
			published: ts("2026-09-24T18:30:00Z"),
		}},
	}
	for i, w := range want {
		ff := fixtureFeeds[i]
		res := parseFixture(t, i)
		if len(res.Items) != w.items || len(res.Rejects) != 0 {
			t.Errorf("%s: %d items, %d rejects (%v); want %d items", ff.file, len(res.Items), len(res.Rejects), res.Rejects, w.items)
			continue
		}
		n := res.Items[0]
		if n.Title != w.first.title || n.Url != w.first.url || n.Source != w.first.source || n.Guid != w.first.guid || n.PublishedNs != w.first.published {
			t.Errorf("%s: first item\n got %q %q %q %q %v\nwant %q %q %q %q %v", ff.file,
				n.Title, n.Url, n.Source, n.Guid, time.Unix(0, n.PublishedNs).UTC(),
				w.first.title, w.first.url, w.first.source, w.first.guid, time.Unix(0, w.first.published).UTC())
		}
		if w.first.summaryPrefix == "" && n.Summary != "" || !strings.HasPrefix(n.Summary, w.first.summaryPrefix) {
			t.Errorf("%s: summary %q, want prefix %q", ff.file, n.Summary, w.first.summaryPrefix)
		}
		if w.first.categories != nil && !slicesEqual(n.PublisherCategories, w.first.categories) {
			t.Errorf("%s: categories %q, want %q", ff.file, n.PublisherCategories, w.first.categories)
		}
		if n.Provider != ff.feed.Name || n.FeedCategory != ff.feed.Category || n.Kind != schemas.NewsKind_NEWS_KIND_ARTICLE ||
			n.FetchedNs != fetchedAt || n.Attribution != ff.feed.Attribution || n.Id != ArticleID(n.Url) {
			t.Errorf("%s: channel fields %v", ff.file, n)
		}
		for _, it := range res.Items {
			if it.Title == "" || it.PublishedNs == 0 || len([]rune(it.Summary)) > MaxSummaryRunes ||
				strings.ContainsAny(it.Title+it.Summary, "<>") || strings.Contains(it.Url, "utm_") {
				t.Errorf("%s: item breaks the contract: %v", ff.file, it)
			}
		}
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParseAtom reads a real Atom feed (EDGAR's current filings, declared
// ISO-8859-1) as a generic publisher feed: entries become items with their
// <updated> as the publisher time.
func TestParseAtom(t *testing.T) {
	b := readFixture(t, "sec/edgar_getcurrent_all_forms_atom.xml")
	res, err := Parse(b, Feed{Name: "atom:edgar", URL: "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent", Category: CategoryStocks}, fetchedAt)
	if err != nil {
		t.Fatal(err)
	}
	// 100 <entry> elements; 27 of them repeat the <id> (the accession
	// number) of an earlier entry: a Form 4 is listed once for its issuer
	// and once for its reporting owner, under two links. Counted with
	// grep over <id>urn:...</id>. They are real duplicate GUIDs.
	if len(res.Items) != 73 || len(res.Rejects) != 27 {
		t.Fatalf("%d items %d rejects", len(res.Items), len(res.Rejects))
	}
	for _, r := range res.Rejects {
		if !strings.HasPrefix(r.Reason, ReasonDuplicateGUID+": urn:tag:sec.gov,2008:accession-number=") {
			t.Errorf("reject %q", r.Reason)
		}
	}
	n := res.Items[0]
	if !strings.HasPrefix(n.Url, "https://www.sec.gov/Archives/edgar/data/") || n.Source != "sec.gov" || n.PublishedNs == 0 || n.UpdatedNs != n.PublishedNs {
		t.Errorf("first entry %v", n)
	}
}

func TestParseBadInput(t *testing.T) {
	feed := Feed{Name: "rss:test", URL: "https://example.com/feed", Category: CategoryCrypto}
	good := readFixture(t, fixtureFeeds[0].file)
	f := func(name string, body []byte, reason string) {
		t.Helper()
		_, err := Parse(body, feed, fetchedAt)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Reason != reason {
			t.Errorf("%s: err %v, want reason %q", name, err, reason)
		}
	}
	f("empty", nil, ReasonEmpty)
	f("blank", []byte(" \n\t"), ReasonEmpty)
	f("html", []byte("<!DOCTYPE html><html><head><title>Sign in</title></head><body>x</body></html>"), ReasonNotFeed)
	f("edgar throttle", []byte("<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body><h1>Your Request Originates from an Undeclared Automated Tool</h1>Request Rate Threshold Exceeded</body></html>"), ReasonThrottled)
	f("truncated", good[:len(good)/2], ReasonMalformed)
	f("garbage", []byte("<rss version=\"2.0\"><channel><item><title>a</title></item><</channel></rss>"), ReasonMalformed)
	f("json not a feed", []byte(`{"hello":"world"}`), ReasonNotFeed)
	f("plain text", []byte("Service unavailable"), ReasonNotFeed)
	// Declared UTF-8 (by default) but Windows-1252 bytes: refused.
	f("cp1252 as utf-8", []byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel><item><title>caf\xe9 \x93q\x94</title><link>https://e.com/a</link><pubDate>Fri, 25 Sep 2026 14:41:53 +0000</pubDate></item></channel></rss>"), ReasonBadEncoding)
	f("unknown charset", []byte("<?xml version=\"1.0\" encoding=\"x-klingon\"?><rss version=\"2.0\"><channel><item><title>a</title></item></channel></rss>"), ReasonBadEncoding)
	f("huge", append(bytes.Repeat([]byte(" "), MaxFeedBytes), good...), ReasonTooLarge)
}

// TestParseEncodings: ISO-8859-1 declared with Windows-1252 bytes (curly
// quotes at 0x93/0x94) decodes as Windows-1252, as browsers do.
func TestParseEncodings(t *testing.T) {
	body := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><item><title>Caf\xe9 \x93Bitcoin\x94 rally</title><link>https://e.com/a</link><pubDate>Fri, 25 Sep 2026 14:41:53 +0000</pubDate></item></channel></rss>")
	res, err := Parse(body, Feed{Name: "rss:t", URL: "https://e.com/", Category: CategoryCrypto}, fetchedAt)
	if err != nil || len(res.Items) != 1 || res.Items[0].Title != "Café “Bitcoin” rally" {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestParseItemRejects(t *testing.T) {
	feed := Feed{Name: "rss:t", URL: "https://e.com/feed", Category: CategoryCrypto}
	item := func(title, link, guid, date string) string {
		s := "<item>"
		if title != "" {
			s += "<title>" + title + "</title>"
		}
		if link != "" {
			s += "<link>" + link + "</link>"
		}
		if guid != "" {
			s += "<guid>" + guid + "</guid>"
		}
		if date != "" {
			s += "<pubDate>" + date + "</pubDate>"
		}
		return s + "</item>"
	}
	const d = "Fri, 25 Sep 2026 14:41:53 +0000"
	body := "<rss version=\"2.0\"><channel><link>https://e.com/</link>" +
		item("ok", "https://e.com/a?utm_source=x", "g1", d) +
		item("", "https://e.com/b", "g2", d) + // missing title
		item("no date", "https://e.com/c", "g3", "") + // missing date
		item("bad date", "https://e.com/d", "g4", "yesterday-ish") + // bad date
		item("future", "https://e.com/e", "g5", "Fri, 25 Sep 2026 18:00:00 +0000") + // > fetch + 1h
		item("dup guid", "https://e.com/f", "g1", d) +
		item("dup link", "http://www.e.com/a/", "g7", d) + // same article as the first
		item("bad link", "javascript:alert(1)", "g8", d) +
		item("relative", "/g", "g9", d) + // resolved against the channel link
		"</channel></rss>"
	res, err := Parse([]byte(body), feed, fetchedAt)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range res.Rejects {
		reasons = append(reasons, strings.SplitN(r.Reason, ":", 2)[0])
		if len(r.Raw) == 0 {
			t.Errorf("reject %q has no raw item", r.Reason)
		}
	}
	wantReasons := []string{ReasonMissingTitle, ReasonMissingDate, ReasonBadDate, ReasonFutureDate, ReasonDuplicateGUID, ReasonDuplicateLink, ReasonBadLink}
	if !slicesEqual(reasons, wantReasons) {
		t.Errorf("reasons %q\nwant %q", reasons, wantReasons)
	}
	if len(res.Items) != 2 || res.Items[0].Url != "https://e.com/a" || res.Items[1].Url != "https://e.com/g" {
		t.Errorf("items %v", res.Items)
	}
}

func TestParseTooManyItems(t *testing.T) {
	var b strings.Builder
	b.WriteString("<rss version=\"2.0\"><channel>")
	for i := range MaxItems + 3 {
		b.WriteString("<item><title>t</title><link>https://e.com/" + strings.Repeat("x", i%7) + "/" + itoa(i) + "</link><pubDate>Fri, 25 Sep 2026 14:41:53 +0000</pubDate></item>")
	}
	b.WriteString("</channel></rss>")
	res, err := Parse([]byte(b.String()), Feed{Name: "rss:t", URL: "https://e.com/", Category: CategoryCrypto}, fetchedAt)
	if err != nil || len(res.Items) != MaxItems || len(res.Rejects) != 3 || !strings.HasPrefix(res.Rejects[0].Reason, ReasonTooManyItems) {
		t.Fatalf("%v: %d items, %d rejects", err, len(res.Items), len(res.Rejects))
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestPlainTextAndTruncate(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
	f("  a \n b  ", "a b")
	f("Tom &amp; Jerry&#39;s", "Tom & Jerry's")
	f("<p>one</p><p>two</p>", "one two")
	f("<p style=\"x\"><img src=\"a\" alt=\"alt text\"></p><p>Body <b>bold</b></p>", "Body bold")
	f("<script>var a=1;</script>text", "text")
	f("a\u00a0b\u200bc", "a bc")
	g := func(in string, n int, want string) {
		t.Helper()
		if got := truncate(in, n); got != want {
			t.Errorf("truncate(%q, %d) = %q, want %q", in, n, got, want)
		}
	}
	g("short", 10, "short")
	g("exactly ten", 11, "exactly ten")
	g("one two three four five", 12, "one two…")
	g("aaaaaaaaaaaaaaaaaaaa", 5, "aaaa…")
}

// BenchmarkParse parses the Decrypt capture (73 KB, 58 items).
func BenchmarkParse(b *testing.B) {
	ff := fixtureFeeds[2]
	body := readFixture(b, ff.file)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Parse(body, ff.feed, fetchedAt); err != nil {
			b.Fatal(err)
		}
	}
}
