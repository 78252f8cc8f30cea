package schemas

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// newsTimeMin and newsTimeMax bound the publisher times a news item may
// carry: EDGAR's electronic filings start in the 1990s; nothing is
// published in 2100.
var (
	newsTimeMin = time.Date(1993, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	newsTimeMax = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

// ErrBadNewsItem is wrapped by ValidateNewsItem's errors.
var ErrBadNewsItem = errors.New("bad news item")

// ValidateNewsItem checks what every consumer of mi.news.v1 relies on: an
// id of the form "url:<hex>" or "sec:<accession>", a kind, a title, an
// https URL, a source, a publisher time in range, and a filing for filing
// items.
func ValidateNewsItem(n *NewsItem) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadNewsItem, fmt.Sprintf(format, a...))
	}
	switch {
	case n == nil:
		return bad("nil")
	case !strings.HasPrefix(n.Id, "url:") && !strings.HasPrefix(n.Id, "sec:"):
		return bad("id %q is neither url:... nor sec:...", n.Id)
	case n.Kind != NewsKind_NEWS_KIND_ARTICLE && n.Kind != NewsKind_NEWS_KIND_FILING:
		return bad("kind %v", n.Kind)
	case strings.TrimSpace(n.Title) == "":
		return bad("no title")
	case !strings.HasPrefix(n.Url, "https://"):
		return bad("url %q is not https", n.Url)
	case n.Source == "":
		return bad("no source")
	case n.PublishedNs < newsTimeMin || n.PublishedNs >= newsTimeMax:
		return bad("published time %d out of range", n.PublishedNs)
	case n.Kind == NewsKind_NEWS_KIND_FILING && (n.Filing == nil || n.Filing.Accession == "" || n.Filing.Form == ""):
		return bad("filing without accession or form")
	}
	return nil
}

// NewsContentHash is a digest of what a news item says: everything but
// the channel it came through and when it was read (provider, feed
// category, attribution, fetched time, classification). Two copies of an
// item, from a re-poll or from a second feed, have the same hash; a
// publisher's correction has another.
func NewsContentHash(n *NewsItem) [32]byte {
	h := sha256.New()
	var num [8]byte
	str := func(s string) {
		binary.BigEndian.PutUint64(num[:], uint64(len(s)))
		h.Write(num[:])
		h.Write([]byte(s))
	}
	i64 := func(v int64) {
		binary.BigEndian.PutUint64(num[:], uint64(v))
		h.Write(num[:])
	}
	str(n.Id)
	i64(int64(n.Kind))
	str(n.Title)
	str(n.Summary)
	str(n.Url)
	str(n.Source)
	i64(n.PublishedNs)
	i64(n.UpdatedNs)
	str(strings.Join(n.PublisherCategories, "\x00"))
	if f := n.Filing; f != nil {
		for _, s := range []string{f.Accession, f.Form, f.FormFamily, f.Cik, f.Company, f.Ticker, f.FilingUrl, f.IndexUrl, f.FiledDate, f.Role,
			strings.Join(f.Items, ","), strings.Join(f.ItemDescriptions, "\x00")} {
			str(s)
		}
		i64(f.AcceptedNs)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// NewsNewer reports whether revision a of a news item supersedes revision b
// of the same id: the later publisher update wins, then the later
// publication time, then the greater content hash. The order depends only
// on the two items, so any replay order of a set of revisions keeps the
// same latest one.
func NewsNewer(a, b *NewsItem) bool {
	if a.UpdatedNs != b.UpdatedNs {
		return a.UpdatedNs > b.UpdatedNs
	}
	if a.PublishedNs != b.PublishedNs {
		return a.PublishedNs > b.PublishedNs
	}
	ha, hb := NewsContentHash(a), NewsContentHash(b)
	return string(ha[:]) > string(hb[:])
}

// NewsFirstCopy reports whether copy a of an item (same content hash as b)
// is the one to keep: the one read first, then the smaller provider name.
// It gives every copy the first fetch time and a deterministic channel.
func NewsFirstCopy(a, b *NewsItem) bool {
	if a.FetchedNs != b.FetchedNs {
		return a.FetchedNs < b.FetchedNs
	}
	return a.Provider < b.Provider
}
