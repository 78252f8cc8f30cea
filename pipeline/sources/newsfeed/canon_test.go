package newsfeed

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonicalURL(t *testing.T) {
	f := func(raw, base, want string) {
		t.Helper()
		got, err := CanonicalURL(raw, base)
		if err != nil || got != want {
			t.Errorf("CanonicalURL(%q, %q) = %q, %v; want %q", raw, base, got, err, want)
		}
	}
	// Tracking parameters go, the rest is sorted.
	f("https://cointelegraph.com/news/x?utm_source=rss_feed&utm_medium=rss&utm_campaign=rss_partner_inbound", "", "https://cointelegraph.com/news/x")
	f("https://www.theblock.co/post/382435/fogo?utm_source=rss&utm_medium=rss", "", "https://www.theblock.co/post/382435/fogo")
	f("https://e.com/a?b=2&a=1&fbclid=xyz&UTM_Term=q", "", "https://e.com/a?a=1&b=2")
	f("https://e.com/?p=352201", "", "https://e.com/?p=352201")
	// Scheme, host case, default ports, fragments, trailing slashes.
	f("HTTP://WWW.Example.COM:80/Path/To/", "", "https://www.example.com/Path/To")
	f("https://example.com:443", "", "https://example.com/")
	f("https://example.com:8443/a#section", "", "https://example.com:8443/a")
	f("https://user:pw@example.com/a", "", "https://example.com/a")
	f("https://example.com//", "", "https://example.com/")
	// Relative links resolve against the feed's link.
	f("/news/a", "https://www.federalreserve.gov/feeds/press_all.xml", "https://www.federalreserve.gov/news/a")
	f("  https://e.com/a  ", "", "https://e.com/a")
	bad := func(raw string) {
		t.Helper()
		if got, err := CanonicalURL(raw, ""); !errors.Is(err, ErrBadURL) {
			t.Errorf("CanonicalURL(%q) = %q, %v; want ErrBadURL", raw, got, err)
		}
	}
	bad("")
	bad("javascript:alert(1)")
	bad("ftp://e.com/a")
	bad("mailto:a@e.com")
	bad("/relative/without/base")
	bad("https://")
	bad("https://" + strings.Repeat("a", maxURLLen))
}

// TestArticleIDDedupes: the copies a re-poll or another feed gives of one
// article have one id; different pages have different ids.
func TestArticleIDDedupes(t *testing.T) {
	id := func(raw string) string {
		c, err := CanonicalURL(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		return ArticleID(c)
	}
	a := id("https://www.coindesk.com/markets/2026/09/25/x")
	for _, same := range []string{
		"http://www.coindesk.com/markets/2026/09/25/x/",
		"https://coindesk.com/markets/2026/09/25/x?utm_source=twitter",
		"https://WWW.COINDESK.COM/markets/2026/09/25/x#top",
	} {
		if got := id(same); got != a {
			t.Errorf("%s: id %s, want %s", same, got, a)
		}
	}
	if id("https://www.coindesk.com/markets/2026/09/25/y") == a || id("https://www.coindesk.com/markets/2026/09/25/X") == a {
		t.Error("different pages share an id")
	}
	if !strings.HasPrefix(a, "url:") || len(a) != 4+24 {
		t.Errorf("id %q", a)
	}
	if FilingID("0000796343-23-000044") != "sec:0000796343-23-000044" {
		t.Error("filing id")
	}
	if Hostname("https://www.theblock.co/post/1") != "theblock.co" || Hostname("https://decrypt.co/1") != "decrypt.co" {
		t.Error("hostname")
	}
}
