// Package newsfeed turns publisher feeds (RSS 2.0, Atom, JSON Feed) and SEC
// EDGAR filings into unclassified news items (schemas.NewsItem) for the
// topic mi.news.v1, and polls them. Feeds are parsed with
// github.com/mmcdole/gofeed; what this package adds is the item contract:
// a canonical URL and a stable id, plain-text headlines, a teaser of at
// most 280 characters (never the article text), publisher timestamps, and a
// dead-letter reason for every feed or item it refuses.
//
// The parsing functions take bytes and a fetch time and do no I/O, so they
// are tested on the real captures and fuzzed; the poller feeds them.
package newsfeed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html/charset"

	"github.com/marketintel/mi/schemas"
)

// Limits of one feed document.
const (
	// MaxFeedBytes is the largest feed body parsed; the poller reads at
	// most this many bytes of a response.
	MaxFeedBytes = 8 << 20
	// MaxItems is the most items taken from one feed document; the rest
	// are refused with reason "too many items".
	MaxItems = 500
	// MaxSummaryRunes bounds the teaser kept from an item's description.
	MaxSummaryRunes = 280
	// MaxTitleRunes bounds a headline.
	MaxTitleRunes = 300
	// MaxFutureSkew is how far past the fetch time a publisher timestamp
	// may lie before the item is refused with reason "future date".
	MaxFutureSkew = time.Hour
	// maxCategories bounds the publisher categories kept per item.
	maxCategories = 16
)

// Categories of a feed channel (Feed.Category).
const (
	CategoryCrypto  = "crypto"
	CategoryStocks  = "stocks"
	CategoryPolicy  = "policy"
	CategoryEurope  = "europe"
	CategoryFilings = "filings"
)

// FeedCategories are the categories a configured publisher feed may have.
var FeedCategories = []string{CategoryCrypto, CategoryStocks, CategoryPolicy, CategoryEurope}

// Reasons of a refused feed document (ParseError.Reason): stable phrases,
// the first part of a dead letter's reason header.
const (
	ReasonEmpty       = "empty body"
	ReasonTooLarge    = "too large"
	ReasonBadEncoding = "bad encoding"
	ReasonNotFeed     = "not a feed"
	ReasonThrottled   = "throttled"
	ReasonMalformed   = "malformed xml"
)

// Reasons of a refused item (Reject.Reason).
const (
	ReasonMissingTitle  = "missing title"
	ReasonBadLink       = "bad link"
	ReasonMissingDate   = "missing date"
	ReasonBadDate       = "bad date"
	ReasonFutureDate    = "future date"
	ReasonDuplicateGUID = "duplicate guid"
	ReasonDuplicateLink = "duplicate link"
	ReasonTooManyItems  = "too many items"
)

// Feed is one configured publisher feed.
type Feed struct {
	// Name is the channel, the provider of its items, e.g. "rss:coindesk".
	Name string `json:"name"`
	// URL is the feed's address.
	URL string `json:"url"`
	// Category is crypto, stocks, policy or europe.
	Category string `json:"category"`
	// Publisher is the publisher's display name, e.g. "CoinDesk".
	Publisher string `json:"publisher,omitempty"`
	// Attribution is the citation shown with each item where the
	// publisher's terms ask for one; empty when none is required.
	Attribution string `json:"attribution,omitempty"`
	// Terms is the address of the publisher's terms of use (documentation
	// only).
	Terms string `json:"terms,omitempty"`
}

// Validate reports a configuration error of f.
func (f Feed) Validate() error {
	if f.Name == "" {
		return errors.New("feed has no name")
	}
	if f.URL == "" {
		return fmt.Errorf("feed %s has no url", f.Name)
	}
	if !slices.Contains(FeedCategories, f.Category) {
		return fmt.Errorf("feed %s: category %q is not one of %s", f.Name, f.Category, strings.Join(FeedCategories, ", "))
	}
	return nil
}

// ParseError is the refusal of a whole feed document: its Reason is one of
// the Reason constants, Detail says what was found.
type ParseError struct {
	Reason string
	Detail string
}

func (e *ParseError) Error() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Detail
}

// Reject is one refused item: the reason (a Reason constant, then details)
// and the item as read, as JSON, for the dead-letter topic.
type Reject struct {
	Reason string
	Raw    []byte
}

// Result is what one feed document yields: its items in document order and
// the items it refused.
type Result struct {
	Items   []*schemas.NewsItem
	Rejects []Reject
}

// Parse reads one feed document fetched at fetched (Unix ns) from feed f.
// A document that cannot be read as a feed is refused whole with a
// *ParseError; otherwise each item is either a news item or a Reject.
func Parse(body []byte, f Feed, fetched int64) (Result, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(body)) == 0 {
		return Result{}, &ParseError{Reason: ReasonEmpty}
	}
	if len(body) > MaxFeedBytes {
		return Result{}, &ParseError{Reason: ReasonTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", len(body), MaxFeedBytes)}
	}
	if err := sniff(body); err != nil {
		return Result{}, err
	}
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return Result{}, parseError(err)
	}
	if feed.FeedType == "json" && !strings.HasPrefix(feed.FeedVersion, "https://jsonfeed.org/version/") {
		return Result{}, &ParseError{Reason: ReasonNotFeed, Detail: "JSON without a JSON Feed version"}
	}
	base := feed.Link
	if base == "" {
		base = f.URL
	}
	var res Result
	seenGUID := map[string]bool{}
	seenID := map[string]bool{}
	for i, it := range feed.Items {
		if it == nil {
			continue
		}
		if i >= MaxItems {
			res.Rejects = append(res.Rejects, Reject{
				Reason: fmt.Sprintf("%s: %d items, the first %d taken", ReasonTooManyItems, len(feed.Items), MaxItems),
				Raw:    rawItem(it),
			})
			continue
		}
		n, reason := item(it, f, base, fetched)
		if reason == "" {
			switch {
			case n.Guid != "" && seenGUID[n.Guid]:
				reason = ReasonDuplicateGUID + ": " + n.Guid
			case seenID[n.Id]:
				reason = ReasonDuplicateLink + ": " + n.Url
			}
		}
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{Reason: reason, Raw: rawItem(it)})
			continue
		}
		if n.Guid != "" {
			seenGUID[n.Guid] = true
		}
		seenID[n.Id] = true
		res.Items = append(res.Items, n)
	}
	return res, nil
}

// item converts one feed item, or says why it cannot.
func item(it *gofeed.Item, f Feed, base string, fetched int64) (*schemas.NewsItem, string) {
	title := truncate(plainText(it.Title), MaxTitleRunes)
	if title == "" {
		return nil, ReasonMissingTitle
	}
	link := it.Link
	if link == "" && isURL(it.GUID) {
		link = it.GUID
	}
	if link == "" && len(it.Links) > 0 {
		link = it.Links[0]
	}
	canon, err := CanonicalURL(link, base)
	if err != nil {
		return nil, ReasonBadLink + ": " + err.Error()
	}
	var published, updated int64
	if it.UpdatedParsed != nil {
		updated = it.UpdatedParsed.UnixNano()
	}
	switch {
	case it.PublishedParsed != nil:
		published = it.PublishedParsed.UnixNano()
	case it.Published != "":
		return nil, ReasonBadDate + ": " + truncate(it.Published, 64)
	case updated != 0:
		published = updated
	case it.Updated != "":
		return nil, ReasonBadDate + ": " + truncate(it.Updated, 64)
	default:
		return nil, ReasonMissingDate
	}
	if published > fetched+int64(MaxFutureSkew) {
		return nil, fmt.Sprintf("%s: %s is after the fetch time %s", ReasonFutureDate,
			time.Unix(0, published).UTC().Format(time.RFC3339), time.Unix(0, fetched).UTC().Format(time.RFC3339))
	}
	summary := truncate(plainText(it.Description), MaxSummaryRunes)
	if strings.EqualFold(summary, title) {
		summary = ""
	}
	n := &schemas.NewsItem{
		Id:           ArticleID(canon),
		Kind:         schemas.NewsKind_NEWS_KIND_ARTICLE,
		Provider:     f.Name,
		FeedCategory: f.Category,
		Title:        title,
		Summary:      summary,
		Url:          canon,
		Source:       Hostname(canon),
		PublishedNs:  published,
		UpdatedNs:    updated,
		FetchedNs:    fetched,
		Attribution:  f.Attribution,
		Guid:         truncate(strings.TrimSpace(it.GUID), 512),
	}
	for _, c := range it.Categories {
		c = truncate(plainText(c), 64)
		if c != "" && !slices.Contains(n.PublisherCategories, c) && len(n.PublisherCategories) < maxCategories {
			n.PublisherCategories = append(n.PublisherCategories, c)
		}
	}
	return n, ""
}

func isURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// rawItem is the dead-letter payload of a refused item: what the feed said
// about it, as JSON.
func rawItem(it *gofeed.Item) []byte {
	b, err := json.Marshal(struct {
		Title     string `json:"title,omitempty"`
		Link      string `json:"link,omitempty"`
		GUID      string `json:"guid,omitempty"`
		Published string `json:"published,omitempty"`
		Updated   string `json:"updated,omitempty"`
	}{truncate(it.Title, 500), truncate(it.Link, maxURLLen), truncate(it.GUID, 512), truncate(it.Published, 64), truncate(it.Updated, 64)})
	if err != nil {
		panic("BUG: cannot marshal a rejected item: " + err.Error())
	}
	return b
}

var (
	xmlDeclEncoding = regexp.MustCompile(`^<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)
	htmlTitle       = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	throttleText    = regexp.MustCompile(`(?i)request rate threshold exceeded|too many requests|rate limit(ed)? exceeded|you have been rate limited`)
)

// sniff refuses, before the XML parser runs, a body that is an HTML page
// (a login wall, an error page, EDGAR's throttling notice) or whose bytes
// contradict its declared encoding.
func sniff(body []byte) error {
	head := body[:min(len(body), 2048)]
	trimmed := bytes.ToLower(bytes.TrimSpace(head))
	if bytes.HasPrefix(trimmed, []byte("<!doctype html")) || bytes.HasPrefix(trimmed, []byte("<html")) {
		page := body[:min(len(body), 64<<10)]
		title := ""
		if m := htmlTitle.FindSubmatch(page); m != nil {
			title = truncate(plainText(string(m[1])), 120)
		}
		if throttleText.Match(page) {
			return &ParseError{Reason: ReasonThrottled, Detail: "the server answered with a rate-limit page: " + quoteOrNone(title)}
		}
		return &ParseError{Reason: ReasonNotFeed, Detail: "HTML page " + quoteOrNone(title)}
	}
	enc := "utf-8"
	if m := xmlDeclEncoding.FindSubmatch(bytes.TrimSpace(head)); m != nil {
		enc = strings.ToLower(string(m[1]))
	}
	if e, _ := charset.Lookup(enc); e == nil {
		return &ParseError{Reason: ReasonBadEncoding, Detail: fmt.Sprintf("unknown encoding %q declared", enc)}
	}
	if (enc == "utf-8" || enc == "utf8") && !utf8.Valid(body) {
		at := 0
		for at < len(body) {
			r, n := utf8.DecodeRune(body[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return &ParseError{Reason: ReasonBadEncoding, Detail: fmt.Sprintf("declared %s but byte %d (0x%02x) is not valid UTF-8", enc, at, body[at])}
	}
	return nil
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(no title)"
	}
	return fmt.Sprintf("%q", s)
}

// parseError maps an error of the feed library to a ParseError.
func parseError(err error) *ParseError {
	var syn *xml.SyntaxError
	switch {
	case errors.Is(err, gofeed.ErrFeedTypeNotDetected):
		return &ParseError{Reason: ReasonNotFeed, Detail: "no RSS, Atom or JSON Feed root element"}
	case errors.As(err, &syn):
		if strings.Contains(syn.Msg, "unexpected EOF") {
			return &ParseError{Reason: ReasonMalformed, Detail: fmt.Sprintf("truncated at line %d", syn.Line)}
		}
		if strings.Contains(syn.Msg, "UTF-8") || strings.Contains(syn.Msg, "encoding") {
			return &ParseError{Reason: ReasonBadEncoding, Detail: syn.Msg}
		}
		return &ParseError{Reason: ReasonMalformed, Detail: fmt.Sprintf("line %d: %s", syn.Line, syn.Msg)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &ParseError{Reason: ReasonMalformed, Detail: "truncated"}
	case strings.Contains(err.Error(), "charset") || strings.Contains(err.Error(), "encoding"):
		return &ParseError{Reason: ReasonBadEncoding, Detail: err.Error()}
	}
	return &ParseError{Reason: ReasonMalformed, Detail: err.Error()}
}
