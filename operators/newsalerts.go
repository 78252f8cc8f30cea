package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/schemas"
)

// NewsAlertMaxAge is the default age limit of the news detectors: an item
// read more than this after its publication (a feed's backlog at start, a
// filing found late) raises no alert. Both times come from the record.
const NewsAlertMaxAge = 24 * time.Hour

// newsAlertKeep is how long the detector remembers an item it alerted:
// the alert catch-up window.
const newsAlertKeep = 14 * 24 * time.Hour

// NewsData is the data of a news event (docs/alerts.md).
type NewsData struct {
	ItemID         string    `json:"itemId"`
	Title          string    `json:"title"`
	Summary        string    `json:"summary,omitempty"`
	URL            string    `json:"url"`
	Source         string    `json:"source"`
	Provider       string    `json:"provider"`
	Attribution    string    `json:"attribution,omitempty"`
	Category       string    `json:"category"`         // crypto, stocks, filings, policy or europe: the alert category
	DocumentCat    string    `json:"documentCategory"` // crypto, stocks or filings, as the news routes
	Materiality    int       `json:"materiality"`
	Reasons        []string  `json:"materialityReasons"`
	Symbols        []string  `json:"symbols"`
	Keywords       []string  `json:"keywords"`
	Sentiment      string    `json:"sentiment"`
	SentimentScore int       `json:"sentimentScore"`
	PublishedAt    time.Time `json:"publishedAt"`
	FetchedAt      time.Time `json:"fetchedAt"`
	// Earnings marks a filing that reports results (8-K item 2.02).
	Earnings bool `json:"earnings,omitempty"`
}

// SECFilingItem is one reported item of a sec_filing event.
type SECFilingItem struct {
	Item        string `json:"item"`
	Description string `json:"description,omitempty"`
	Earnings    bool   `json:"earnings"`
}

// SECFilingData is the data of a sec_filing event (docs/alerts.md).
type SECFilingData struct {
	// Form is the form family the subscription filter compares ("8-K",
	// "4", "13D"); FormType is the form as filed ("8-K/A", "SC 13D").
	Form       string          `json:"form"`
	FormType   string          `json:"formType"`
	Amendment  bool            `json:"amendment"`
	Items      []SECFilingItem `json:"items"`
	Earnings   bool            `json:"earnings"`
	Accession  string          `json:"accessionNumber"`
	CIK        string          `json:"cik"`
	Company    string          `json:"company"`
	Ticker     string          `json:"ticker"`
	FilingDate string          `json:"filingDate,omitempty"`
	AcceptedAt time.Time       `json:"acceptedAt"`
	FilingURL  string          `json:"filingUrl"`
	IndexURL   string          `json:"indexUrl"`
	Title      string          `json:"title"`
	Summary    string          `json:"summary"`
	// Materiality is the filing's news materiality (docs/news.md).
	Materiality int `json:"materiality"`
}

// NewsAlertDetector raises the news and sec_filing events from classified
// news items (schemas.NewsItem with Classification). It is a pure
// operator: time comes from the items, and the same items give the same
// events with the same ids in any order.
//
//   - news: every item, once per item id (a later revision or copy of an
//     alerted item raises nothing). Subscriptions narrow by category,
//     symbols and minMateriality (sinks/alerts.Match).
//   - sec_filing: every filing item of a listed issuer (with a ticker)
//     whose form family is one of newsclass.AlertForms, once per
//     accession. Subscriptions narrow by symbols and forms.
//
// Items read more than MaxAge after their publication raise nothing.
type NewsAlertDetector struct {
	// MaxAge is the largest fetch − publication gap of an item that
	// alerts; 0 means no limit (the offline demo replays old captures).
	MaxAge time.Duration
	seen   map[string]int64 // event id → item publication time (ns)
	clock  int64            // newest publication time pushed
}

// NewNewsAlertDetector returns a detector with the default age limit.
func NewNewsAlertDetector() *NewsAlertDetector {
	return &NewsAlertDetector{MaxAge: NewsAlertMaxAge, seen: map[string]int64{}}
}

// Push runs one classified item through the detector and appends the
// events it raises to out.
func (d *NewsAlertDetector) Push(n *schemas.NewsItem, out []AlertEvent) []AlertEvent {
	cl := n.GetClassification()
	if cl == nil || n.Id == "" || n.PublishedNs <= 0 {
		return out
	}
	if n.PublishedNs > d.clock {
		d.clock = n.PublishedNs
		d.prune()
	}
	if d.MaxAge > 0 && n.FetchedNs-n.PublishedNs > int64(d.MaxAge) {
		return out
	}
	symbol := ""
	if len(cl.Symbols) > 0 {
		symbol = cl.Symbols[0]
	}
	if e, ok := d.once(AlertNews, n, symbol, newsData(n, cl)); ok {
		out = append(out, e)
	}
	if f := n.Filing; f != nil && f.Ticker != "" && slices.Contains(newsclass.AlertForms, f.FormFamily) {
		if e, ok := d.once(AlertSECFiling, n, f.Ticker, filingData(n, cl)); ok {
			out = append(out, e)
		}
	}
	return out
}

// once returns the event of item n unless it was raised already.
func (d *NewsAlertDetector) once(name string, n *schemas.NewsItem, symbol string, data any) (AlertEvent, bool) {
	id := newsEventID(name, n.Id)
	if _, dup := d.seen[id]; dup {
		return AlertEvent{}, false
	}
	d.seen[id] = n.PublishedNs
	raw, err := json.Marshal(data)
	if err != nil {
		panic("BUG: cannot marshal news event data: " + err.Error())
	}
	return AlertEvent{ID: id, Event: name, Symbol: symbol, OccurredAt: time.Unix(0, n.PublishedNs).UTC(), Data: raw}, true
}

// newsEventID derives an event's id from its name and the item id only,
// so a revision with another time or title is the same event.
func newsEventID(name, itemID string) string {
	h := sha256.Sum256([]byte(name + "|" + itemID))
	return "evt_" + hex.EncodeToString(h[:12])
}

// prune forgets items older than the catch-up window.
func (d *NewsAlertDetector) prune() {
	for id, at := range d.seen {
		if at < d.clock-int64(newsAlertKeep) {
			delete(d.seen, id)
		}
	}
}

// Observe folds an event the detector published earlier into its state,
// so a restarted detector that reads its own output raises nothing twice.
func (d *NewsAlertDetector) Observe(e AlertEvent) {
	if e.Event != AlertNews && e.Event != AlertSECFiling {
		return
	}
	d.seen[e.ID] = e.OccurredAt.UnixNano()
}

// MarshalState returns the detector's state as JSON, for a checkpoint.
func (d *NewsAlertDetector) MarshalState() []byte {
	b, err := json.Marshal(struct {
		Seen  map[string]int64 `json:"seen"`
		Clock int64            `json:"clock"`
	}{d.seen, d.clock})
	if err != nil {
		panic("BUG: cannot marshal news detector state: " + err.Error())
	}
	return b
}

// RestoreState replaces the state with one MarshalState returned.
func (d *NewsAlertDetector) RestoreState(b []byte) error {
	var st struct {
		Seen  map[string]int64 `json:"seen"`
		Clock int64            `json:"clock"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("cannot restore news detector state: %w", err)
	}
	if st.Seen == nil {
		st.Seen = map[string]int64{}
	}
	d.seen, d.clock = st.Seen, st.Clock
	return nil
}

func newsData(n *schemas.NewsItem, cl *schemas.NewsClassification) NewsData {
	return NewsData{
		ItemID: n.Id, Title: n.Title, Summary: cl.Summary, URL: n.Url, Source: n.Source, Provider: n.Provider,
		Attribution: n.Attribution, Category: cl.AlertCategory, DocumentCat: cl.Category,
		Materiality: int(cl.Materiality), Reasons: nonNilStrings(cl.MaterialityReasons), Symbols: nonNilStrings(cl.Symbols),
		Keywords: nonNilStrings(cl.Keywords), Sentiment: cl.Sentiment, SentimentScore: int(cl.SentimentScore),
		PublishedAt: time.Unix(0, n.PublishedNs).UTC(), FetchedAt: time.Unix(0, n.FetchedNs).UTC(), Earnings: cl.Earnings,
	}
}

func filingData(n *schemas.NewsItem, cl *schemas.NewsClassification) SECFilingData {
	f := n.Filing
	d := SECFilingData{
		Form: f.FormFamily, FormType: f.Form, Amendment: f.Amendment, Items: []SECFilingItem{}, Earnings: cl.Earnings,
		Accession: f.Accession, CIK: f.Cik, Company: f.Company, Ticker: f.Ticker, FilingDate: f.FiledDate,
		AcceptedAt: time.Unix(0, n.PublishedNs).UTC(), FilingURL: f.FilingUrl, IndexURL: f.IndexUrl,
		Title: n.Title, Summary: cl.Summary, Materiality: int(cl.Materiality),
	}
	for i, it := range f.Items {
		si := SECFilingItem{Item: it, Earnings: it == newsclass.EarningsItem}
		if i < len(f.ItemDescriptions) {
			si.Description = f.ItemDescriptions[i]
		}
		d.Items = append(d.Items, si)
	}
	return d
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
