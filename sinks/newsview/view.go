// Package newsview is the news view every API instance keeps from
// mi.news.v1: classified headlines and filings, indexed by symbol, category
// and word, answering the news routes (spec §4.3) and the pre-trade check's
// "news or material filings of the last 24 hours" without scanning.
//
// Applying is order-independent: the view keeps, per item id, the latest
// revision (schemas.NewsNewer) with the fetch time and channel of its first
// copy (schemas.NewsFirstCopy), so any replay order of the same records
// gives the same answers. Time is the items' own: retention counts back
// from the newest publication time applied, never from the wall clock.
package newsview

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/schemas"
)

// DefaultRetention is how far back from the newest item the view keeps
// items; older ones are dropped (the Parquet day files keep them).
const DefaultRetention = 30 * 24 * time.Hour

// MaxLimit and DefaultLimit bound the answers of the news routes (spec §8).
const (
	MaxLimit     = 100
	DefaultLimit = 20
)

// maxRevisions bounds the distinct revisions kept per item.
const maxRevisions = 8

// Disclaimer is carried by answers built from sentiment.
const Disclaimer = "Sentiment is a lightweight keyword measure (docs/news.md), not investment advice."

// Document is one MarketNewsDocument (spec §2.8) with the service's
// documented additions: materiality, alertCategory and, for filings, the
// filing block.
type Document struct {
	ID             string    `json:"id"`
	Source         string    `json:"source"`
	Category       string    `json:"category"`
	Title          string    `json:"title"`
	Summary        string    `json:"summary,omitempty"`
	Provider       string    `json:"provider,omitempty"`
	Attribution    string    `json:"attribution,omitempty"`
	URL            string    `json:"url"`
	PublishedAt    time.Time `json:"publishedAt"`
	FetchedAt      time.Time `json:"fetchedAt"`
	Symbols        []string  `json:"symbols"`
	Keywords       []string  `json:"keywords"`
	Sentiment      string    `json:"sentiment"`
	SentimentScore int       `json:"sentimentScore"`
	// Materiality is 1 (routine) to 5 (market-moving), docs/news.md.
	Materiality int `json:"materiality"`
	// AlertCategory is the news alert category: crypto, stocks, filings,
	// policy or europe.
	AlertCategory string  `json:"alertCategory"`
	Filing        *Filing `json:"filing,omitempty"`
}

// Filing is the filing block of a filing document.
type Filing struct {
	Form       string       `json:"form"`
	FormFamily string       `json:"formFamily"`
	Amendment  bool         `json:"amendment"`
	Accession  string       `json:"accessionNumber"`
	CIK        string       `json:"cik"`
	Company    string       `json:"company"`
	Items      []FilingItem `json:"items"`
	Earnings   bool         `json:"earnings"`
	FiledDate  string       `json:"filingDate,omitempty"`
	FilingURL  string       `json:"filingUrl,omitempty"`
	IndexURL   string       `json:"indexUrl,omitempty"`
}

// FilingItem is one reported item of an 8-K.
type FilingItem struct {
	Item        string `json:"item"`
	Description string `json:"description,omitempty"`
	Earnings    bool   `json:"earnings"`
}

// entry is one item id in the view.
type entry struct {
	id        string
	published int64
	doc       Document
	words     []string // sorted, distinct: the words a query can match
	revisions []*schemas.NewsItem
	dead      bool // replaced or pruned; postings skip it
}

// before orders entries newest first, then by id.
func before(a, b *entry) bool {
	if a.published != b.published {
		return a.published > b.published
	}
	return a.id < b.id
}

// postings is a list of entries kept newest first; appends are sorted in
// lazily (settle), so rebuilding from the topic costs one sort.
type postings struct {
	sorted  []*entry
	pending []*entry
	dead    int
}

func (p *postings) add(e *entry) { p.pending = append(p.pending, e) }

func (p *postings) settle() {
	if len(p.pending) == 0 && p.dead*2 <= len(p.sorted) {
		return
	}
	all := make([]*entry, 0, len(p.sorted)+len(p.pending))
	for _, e := range p.sorted {
		if !e.dead {
			all = append(all, e)
		}
	}
	for _, e := range p.pending {
		if !e.dead {
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool { return before(all[i], all[j]) })
	p.sorted, p.pending, p.dead = all, p.pending[:0], 0
}

// View is the news view. It is safe for concurrent use.
type View struct {
	mu         sync.RWMutex
	classifier *newsclass.Classifier
	dict       *newsclass.Dictionary
	retention  int64
	clock      int64 // newest publication time applied, ns
	items      map[string]*entry
	all        postings
	byCategory map[string]*postings
	bySymbol   map[string]*postings
	byWord     map[string]*postings
	pruned     int64 // clock at the last prune
	dirty      bool
}

// pruneSteps: the view prunes each time its clock has advanced by a
// pruneSteps-th of the retention, so pruning costs O(items) that often;
// answers leave out items past the retention in between.

// New returns an empty view that classifies with dict and keeps items for
// retention (0: DefaultRetention) back from the newest one.
func New(dict *newsclass.Dictionary, retention time.Duration) *View {
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &View{
		classifier: newsclass.New(dict), dict: dict, retention: int64(retention),
		items: map[string]*entry{}, byCategory: map[string]*postings{},
		bySymbol: map[string]*postings{}, byWord: map[string]*postings{},
	}
}

// Apply folds one item of mi.news.v1 into the view, classifying it. An
// invalid item is refused with the reason.
func (v *View) Apply(n *schemas.NewsItem) error {
	if err := schemas.ValidateNewsItem(n); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if n.PublishedNs > v.clock {
		v.clock = n.PublishedNs
		if v.clock-v.pruned >= v.retention/pruneSteps {
			v.prune()
		}
	}
	if n.PublishedNs < v.clock-v.retention {
		return nil // older than the retention: the day files have it
	}
	old := v.items[n.Id]
	revs, changed := addRevision(old, n)
	if !changed {
		return nil
	}
	latest := revs[0]
	first := firstCopy(revs, latest)
	cl := latest.Classification
	if cl == nil || cl.Version == "" {
		cl = v.classifier.Classify(latest)
	}
	e := &entry{id: n.Id, published: latest.PublishedNs, revisions: revs}
	e.doc = document(latest, first, cl)
	e.words = wordsOf(&e.doc, v.dict)
	if old != nil {
		v.kill(old)
	}
	v.items[n.Id] = e
	v.index(e)
	return nil
}

// addRevision returns the revisions of an entry with n added, latest
// first, and whether anything changed.
func addRevision(old *entry, n *schemas.NewsItem) ([]*schemas.NewsItem, bool) {
	if old == nil {
		return []*schemas.NewsItem{n}, true
	}
	h := schemas.NewsContentHash(n)
	revs := slices.Clone(old.revisions)
	for i, r := range revs {
		if schemas.NewsContentHash(r) == h {
			if !schemas.NewsFirstCopy(n, r) {
				return nil, false // a later copy of a known revision
			}
			revs[i] = n
			return revs, true
		}
	}
	revs = append(revs, n)
	sort.SliceStable(revs, func(i, j int) bool { return schemas.NewsNewer(revs[i], revs[j]) })
	if len(revs) > maxRevisions {
		revs = revs[:maxRevisions]
	}
	return revs, true
}

// firstCopy is the revision whose fetch time and channel an item shows:
// the earliest read of any revision (the item was known since then).
func firstCopy(revs []*schemas.NewsItem, latest *schemas.NewsItem) *schemas.NewsItem {
	first := latest
	for _, r := range revs {
		if schemas.NewsFirstCopy(r, first) {
			first = r
		}
	}
	return first
}

func (v *View) kill(e *entry) {
	e.dead = true
	v.all.dead++
	for _, p := range v.postingsOf(e, false) {
		p.dead++
	}
}

func (v *View) index(e *entry) {
	for _, p := range v.postingsOf(e, true) {
		p.add(e)
	}
	v.all.add(e)
	v.dirty = true
}

// postingsOf returns the lists e is in, creating them when create.
func (v *View) postingsOf(e *entry, create bool) []*postings {
	var out []*postings
	get := func(m map[string]*postings, k string) {
		p := m[k]
		if p == nil && create {
			p = &postings{}
			m[k] = p
		}
		if p != nil {
			out = append(out, p)
		}
	}
	get(v.byCategory, e.doc.Category)
	for _, s := range e.doc.Symbols {
		get(v.bySymbol, s)
	}
	for _, w := range e.words {
		get(v.byWord, w)
	}
	return out
}

const pruneSteps = 64

// prune drops the entries older than the retention. The caller holds mu.
func (v *View) prune() {
	v.pruned = v.clock
	cut := v.clock - v.retention
	for id, e := range v.items {
		if e.published < cut {
			v.kill(e)
			delete(v.items, id)
		}
	}
}

// settle sorts the pending postings in. The caller holds mu for writing.
func (v *View) settle() {
	if !v.dirty {
		return
	}
	v.all.settle()
	for _, m := range []map[string]*postings{v.byCategory, v.bySymbol, v.byWord} {
		for k, p := range m {
			p.settle()
			if len(p.sorted) == 0 {
				delete(m, k)
			}
		}
	}
	v.dirty = false
}

// read runs fn with the postings settled, under the read lock.
func (v *View) read(fn func()) {
	v.mu.RLock()
	if v.dirty {
		v.mu.RUnlock()
		v.mu.Lock()
		v.settle()
		v.mu.Unlock()
		v.mu.RLock()
	}
	defer v.mu.RUnlock()
	fn()
}

// Len is the number of items in the view.
func (v *View) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.items)
}

// Newest is the newest publication time applied (zero before any item).
func (v *View) Newest() time.Time {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.clock == 0 {
		return time.Time{}
	}
	return time.Unix(0, v.clock).UTC()
}

// Query selects news.
type Query struct {
	// Category is crypto, stocks or filings; empty means any.
	Category string
	// Text is a keyword, company name or ticker. A text that is a ticker or
	// pair as Resolve reads it selects the items tagged with the symbol;
	// otherwise every word of it must be a word of the item: of its title,
	// teaser, filer, or of the tickers and names of its symbols.
	Text string
	// Symbol, when set, is a symbol as Resolve returns it.
	Symbol string
	// Since and Until bound the publication time (zero: unbounded; Until
	// is exclusive).
	Since, Until time.Time
	// MinMateriality keeps items of at least this materiality (0: any).
	MinMateriality int
	// Limit is 1..MaxLimit; 0 means DefaultLimit.
	Limit int
}

// Categories are the values of Query.Category.
var Categories = []string{newsclass.CategoryCrypto, newsclass.CategoryStocks, newsclass.CategoryFilings}

// ErrBadQuery is wrapped by Find's errors for a query the routes should
// answer with 400.
var ErrBadQuery = errors.New("bad news query")

// Resolve maps a symbol as a user writes it to the symbol news is tagged
// with (newsclass.Dictionary.Resolve).
func (v *View) Resolve(symbol string) (string, bool) { return v.dict.Resolve(symbol) }

// Find returns the items matching q, newest first.
func (v *View) Find(q Query) ([]Document, error) {
	if q.Category != "" && !slices.Contains(Categories, q.Category) {
		return nil, fmt.Errorf("%w: category %q is not one of %s", ErrBadQuery, q.Category, strings.Join(Categories, ", "))
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return nil, fmt.Errorf("%w: limit %d is not from 1 to %d", ErrBadQuery, q.Limit, MaxLimit)
	}
	words := queryWords(q.Text)
	if s, ok := v.dict.Resolve(q.Text); ok && len(words) > 0 {
		// The whole text is a ticker or pair ("BTC-USD", "$ADBE"): it
		// selects the items tagged with the symbol.
		if q.Symbol != "" && q.Symbol != s {
			return nil, nil
		}
		q.Symbol, words = s, nil
	}
	var out []Document
	v.read(func() {
		// Candidate lists: every constraint that has a list; the shortest
		// is walked, the others are checked per entry.
		var lists []*postings
		if q.Category != "" {
			lists = append(lists, v.byCategory[q.Category])
		}
		if q.Symbol != "" {
			lists = append(lists, v.bySymbol[q.Symbol])
		}
		for _, w := range words {
			lists = append(lists, v.byWord[w])
		}
		walk := &v.all
		for _, p := range lists {
			if p == nil {
				return // a constraint nothing satisfies
			}
			if len(p.sorted) < len(walk.sorted) {
				walk = p
			}
		}
		since, until := v.clock-v.retention, int64(1<<63-1)
		if !q.Since.IsZero() {
			since = max(since, q.Since.UnixNano())
		}
		if !q.Until.IsZero() {
			until = q.Until.UnixNano()
		}
		// Skip to Until by binary search: the list is newest first.
		start := sort.Search(len(walk.sorted), func(i int) bool { return walk.sorted[i].published < until })
		for _, e := range walk.sorted[start:] {
			if e.published < since {
				break
			}
			if e.dead || q.Category != "" && e.doc.Category != q.Category || q.Symbol != "" && !slices.Contains(e.doc.Symbols, q.Symbol) ||
				q.MinMateriality > 0 && e.doc.Materiality < q.MinMateriality || !v.hasWords(e, words) {
				continue
			}
			out = append(out, e.doc)
			if len(out) == q.Limit {
				break
			}
		}
	})
	return out, nil
}

// hasWords reports whether e has every query word.
func (v *View) hasWords(e *entry, words []string) bool {
	for _, w := range words {
		if _, found := slices.BinarySearch(e.words, w); !found {
			return false
		}
	}
	return true
}

// Recent returns the items tagged with symbol published in [since, until),
// newest first, of at least minMateriality: the pre-trade check's "news
// or material filings of the last 24 hours". symbol is resolved first; an
// unknown symbol has no news.
func (v *View) Recent(symbol string, since, until time.Time, minMateriality int) []Document {
	s, ok := v.dict.Resolve(symbol)
	if !ok {
		return nil
	}
	docs, err := v.Find(Query{Symbol: s, Since: since, Until: until, MinMateriality: minMateriality, Limit: MaxLimit})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return docs
}

// maxWordLen bounds the words indexed (in bytes); a longer query word
// matches nothing.
const maxWordLen = 40

// queryWords splits a query into lower-case words as wordsOf does; a word
// longer than maxWordLen is kept (no item has it, so the query matches
// nothing rather than everything).
func queryWords(s string) []string {
	var out []string
	for _, w := range splitWords(s, len(s)) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// splitWords lower-cases s and splits it at everything but letters and
// digits; "'s" endings are dropped, and words longer than maxLen bytes
// (wordsOf: maxWordLen).
func splitWords(s string, maxLen int) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
		f = strings.Trim(f, "'’")
		if f != "" && len(f) <= maxLen {
			out = append(out, f)
		}
	}
	return out
}

// wordsOf returns the sorted distinct words a query can match in a
// document: title, teaser, symbols with their tickers and names (so
// "bitcoin" finds an item tagged BTCUSD from "$BTC"), and the filer's name
// and form.
func wordsOf(d *Document, dict *newsclass.Dictionary) []string {
	ws := splitWords(d.Title, maxWordLen)
	ws = append(ws, splitWords(d.Summary, maxWordLen)...)
	for _, s := range d.Symbols {
		ws = append(ws, strings.ToLower(s))
		if c, ok := dict.CoinBySymbol(s); ok {
			ws = append(ws, strings.ToLower(c.Ticker))
			ws = append(ws, splitWords(c.Name, maxWordLen)...)
		} else if is, ok := dict.IssuerByTicker(s); ok {
			ws = append(ws, splitWords(is.Name, maxWordLen)...)
		}
	}
	if f := d.Filing; f != nil {
		ws = append(ws, splitWords(f.Company, maxWordLen)...)
		ws = append(ws, strings.ToLower(f.Form), strings.ToLower(f.FormFamily))
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// document builds the answer of an item from its latest revision, the copy
// that was read first and the classification.
func document(n, first *schemas.NewsItem, cl *schemas.NewsClassification) Document {
	d := Document{
		ID: n.Id, Source: n.Source, Category: cl.Category, Title: n.Title, Summary: cl.Summary,
		Provider: first.Provider, Attribution: first.Attribution, URL: n.Url,
		PublishedAt: time.Unix(0, n.PublishedNs).UTC(), FetchedAt: time.Unix(0, first.FetchedNs).UTC(),
		Symbols: nonNil(cl.Symbols), Keywords: nonNil(cl.Keywords), Sentiment: cl.Sentiment,
		SentimentScore: int(cl.SentimentScore), Materiality: int(cl.Materiality), AlertCategory: cl.AlertCategory,
	}
	if f := n.Filing; f != nil {
		fd := &Filing{Form: f.Form, FormFamily: f.FormFamily, Amendment: f.Amendment, Accession: f.Accession, CIK: f.Cik,
			Company: f.Company, Earnings: cl.Earnings, FiledDate: f.FiledDate, FilingURL: f.FilingUrl, IndexURL: f.IndexUrl,
			Items: []FilingItem{}}
		for i, it := range f.Items {
			fi := FilingItem{Item: it, Earnings: it == newsclass.EarningsItem}
			if i < len(f.ItemDescriptions) {
				fi.Description = f.ItemDescriptions[i]
			}
			fd.Items = append(fd.Items, fi)
		}
		d.Filing = fd
	}
	return d
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Errors of the route answers: the routes answer 404 (not charged).
var (
	// ErrNoNews: nothing matches the query.
	ErrNoNews = errors.New("no news matches")
	// ErrUnknownSymbol: the symbol is neither a covered coin nor a US
	// issuer SEC's ticker file lists.
	ErrUnknownSymbol = errors.New("unknown symbol")
)

// MaxQueryLen bounds the query text of /api/v1/news, in characters
// (Unicode code points, as JSON Schema's maxLength counts them).
const MaxQueryLen = 200

// List answers GET /api/v1/news: category (crypto, stocks, filings or
// empty), query (keyword, company name or ticker; empty for any), limit
// (0 = 20). A bad parameter is ErrBadQuery naming it; no match ErrNoNews.
func (v *View) List(category, query string, limit int) ([]Document, error) {
	if utf8.RuneCountInString(query) > MaxQueryLen {
		return nil, fmt.Errorf("%w: query is longer than %d characters", ErrBadQuery, MaxQueryLen)
	}
	docs, err := v.Find(Query{Category: category, Text: query, Limit: limit})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, ErrNoNews
	}
	return docs, nil
}

// ForSymbol answers GET /api/v1/news/symbol: the items tagged with symbol
// (as Resolve reads it), newest first. An unknown symbol is
// ErrUnknownSymbol, a known one without news ErrNoNews.
func (v *View) ForSymbol(symbol string, limit int) ([]Document, error) {
	s, ok := v.dict.Resolve(symbol)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSymbol, symbol)
	}
	docs, err := v.Find(Query{Symbol: s, Limit: limit})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%w for %s", ErrNoNews, s)
	}
	return docs, nil
}
