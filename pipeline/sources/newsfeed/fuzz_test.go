package newsfeed

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds the parser the real captures and mutations of them: it
// must never panic, and everything it yields keeps the item contract.
func FuzzParse(f *testing.F) {
	for _, ff := range fixtureFeeds {
		f.Add(readFixture(f, ff.file))
	}
	f.Add(readFixture(f, "sec/edgar_getcurrent_form4_atom.xml"))
	f.Add([]byte("<!DOCTYPE html><html><title>x</title></html>"))
	f.Add([]byte(`{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","url":"https://e.com/a","title":"t","date_published":"2026-09-25T14:00:00Z"}]}`))
	feed := Feed{Name: "rss:fuzz", URL: "https://e.com/feed", Category: CategoryCrypto}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := Parse(body, feed, fetchedAt)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Reason == "" {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		ids := map[string]bool{}
		for _, n := range res.Items {
			if n.Title == "" || !utf8.ValidString(n.Title) || !utf8.ValidString(n.Summary) ||
				utf8.RuneCountInString(n.Title) > MaxTitleRunes || utf8.RuneCountInString(n.Summary) > MaxSummaryRunes ||
				!strings.HasPrefix(n.Url, "https://") || n.PublishedNs == 0 || n.PublishedNs > fetchedAt+int64(MaxFutureSkew) ||
				ids[n.Id] || n.Id != ArticleID(n.Url) {
				t.Fatalf("item breaks the contract: %v", n)
			}
			ids[n.Id] = true
		}
		for _, r := range res.Rejects {
			if r.Reason == "" || len(r.Raw) == 0 {
				t.Fatalf("reject without reason or payload: %+v", r)
			}
		}
	})
}

// FuzzCanonicalURL: a canonical URL is a fixed point and keeps its id.
func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"https://cointelegraph.com/news/x?utm_source=rss_feed&utm_medium=rss",
		"HTTP://WWW.Example.COM:80/Path/To/", "https://e.com/a?b=2&a=1", "/rel", "https://[::1]:8080/a",
		"https://e.com/a%2Fb/", "https://e.com/?q=a+b&q=c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := CanonicalURL(raw, "https://base.example/feed")
		if err != nil {
			return
		}
		c2, err := CanonicalURL(c, "")
		if err != nil || c2 != c {
			t.Fatalf("not a fixed point: %q -> %q -> %q (%v)", raw, c, c2, err)
		}
	})
}
