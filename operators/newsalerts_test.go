package operators

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func classified(id string, published time.Time, materiality int32, symbols ...string) *schemas.NewsItem {
	return &schemas.NewsItem{
		Id: id, Kind: schemas.NewsKind_NEWS_KIND_ARTICLE, Provider: "rss:coindesk", FeedCategory: "crypto",
		Title: "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist", Url: "https://www.coindesk.com/x",
		Source: "coindesk.com", PublishedNs: published.UnixNano(), FetchedNs: published.Add(10 * time.Minute).UnixNano(),
		Classification: &schemas.NewsClassification{Version: "mi-news/1.0.0", Category: "crypto", AlertCategory: "crypto", Symbols: symbols,
			Keywords: []string{"hacker", "heist"}, Sentiment: "negative", SentimentScore: -6, Materiality: materiality,
			MaterialityReasons: []string{`term "hacker": 5`}},
	}
}

func adbeFiling(published time.Time) *schemas.NewsItem {
	return &schemas.NewsItem{
		Id: "sec:0000796343-23-000044", Kind: schemas.NewsKind_NEWS_KIND_FILING, Provider: "edgar:getcurrent", FeedCategory: "filings",
		Title: "ADOBE INC. (ADBE) files 8-K: Results of Operations and Financial Condition", Url: "https://www.sec.gov/x-index.html", Source: "sec.gov",
		PublishedNs: published.UnixNano(), FetchedNs: published.Add(time.Minute).UnixNano(),
		Filing: &schemas.NewsFiling{Accession: "0000796343-23-000044", Form: "8-K", FormFamily: "8-K", Cik: "796343", Company: "ADOBE INC.", Ticker: "ADBE",
			Items: []string{"2.02", "9.01"}, ItemDescriptions: []string{"Results of Operations and Financial Condition", "Financial Statements and Exhibits"},
			FilingUrl: "https://www.sec.gov/x.txt", IndexUrl: "https://www.sec.gov/x-index.html", FiledDate: "2023-03-15"},
		Classification: &schemas.NewsClassification{Version: "mi-news/1.0.0", Category: "filings", AlertCategory: "filings", Symbols: []string{"ADBE"},
			Sentiment: "neutral", Materiality: 5, Earnings: true, Summary: "Form 8-K (current report): Item 2.02 ..."},
	}
}

func TestNewsAlertDetector(t *testing.T) {
	t0 := time.Date(2026, 9, 25, 14, 41, 53, 0, time.UTC)
	d := NewNewsAlertDetector()
	evs := d.Push(classified("url:a", t0, 5, "ETHUSD", "BTCUSD"), nil)
	if len(evs) != 1 || evs[0].Event != AlertNews || evs[0].Symbol != "ETHUSD" || !evs[0].OccurredAt.Equal(t0) {
		t.Fatalf("%+v", evs)
	}
	var nd NewsData
	if err := json.Unmarshal(evs[0].Data, &nd); err != nil || nd.Materiality != 5 || nd.Category != "crypto" ||
		!slices.Equal(nd.Symbols, []string{"ETHUSD", "BTCUSD"}) || nd.ItemID != "url:a" || nd.Sentiment != "negative" {
		t.Errorf("%s %v", evs[0].Data, err)
	}
	// A revision of the same item raises nothing.
	rev := classified("url:a", t0.Add(time.Minute), 5, "ETHUSD")
	rev.Title += " (updated)"
	if got := d.Push(rev, nil); len(got) != 0 {
		t.Errorf("revision alerted: %+v", got)
	}
	// A filing: news and sec_filing.
	ft := time.Date(2023, 3, 15, 20, 6, 36, 0, time.UTC)
	evs = d.Push(adbeFiling(ft), nil)
	if len(evs) != 2 || evs[0].Event != AlertNews || evs[1].Event != AlertSECFiling || evs[1].Symbol != "ADBE" {
		t.Fatalf("%+v", evs)
	}
	var fd SECFilingData
	if err := json.Unmarshal(evs[1].Data, &fd); err != nil || fd.Form != "8-K" || !fd.Earnings || fd.Accession != "0000796343-23-000044" ||
		len(fd.Items) != 2 || fd.Items[0] != (SECFilingItem{"2.02", "Results of Operations and Financial Condition", true}) ||
		fd.Items[1].Earnings || fd.IndexURL == "" || fd.FilingURL == "" || !fd.AcceptedAt.Equal(ft) {
		t.Errorf("%s %v", evs[1].Data, err)
	}
	// Not a sec_filing form; no ticker.
	d2 := NewNewsAlertDetector()
	form := adbeFiling(ft)
	form.Filing.FormFamily, form.Filing.Form = "D", "D"
	if evs := d2.Push(form, nil); len(evs) != 1 || evs[0].Event != AlertNews {
		t.Errorf("form D: %+v", evs)
	}
	d3 := NewNewsAlertDetector()
	unlisted := adbeFiling(ft)
	unlisted.Filing.Ticker = ""
	if evs := d3.Push(unlisted, nil); len(evs) != 1 {
		t.Errorf("unlisted: %+v", evs)
	}
	// Backlog: read more than 24 h after publication.
	old := classified("url:old", t0, 5)
	old.FetchedNs = old.PublishedNs + int64(25*time.Hour)
	if evs := NewNewsAlertDetector().Push(old, nil); len(evs) != 0 {
		t.Errorf("backlog alerted: %+v", evs)
	}
	demo := NewNewsAlertDetector()
	demo.MaxAge = 0
	if evs := demo.Push(old, nil); len(evs) != 1 {
		t.Errorf("no age limit: %+v", evs)
	}
	// Unclassified items raise nothing.
	raw := classified("url:raw", t0, 5)
	raw.Classification = nil
	if evs := NewNewsAlertDetector().Push(raw, nil); len(evs) != 0 {
		t.Error("unclassified item alerted")
	}
}

// TestNewsAlertDetectorRestart: a detector restored from its state, or that
// observed its own events, raises nothing twice; ids do not depend on the
// order of the items.
func TestNewsAlertDetectorRestart(t *testing.T) {
	t0 := time.Date(2026, 9, 25, 14, 0, 0, 0, time.UTC)
	items := []*schemas.NewsItem{classified("url:a", t0, 5), classified("url:b", t0.Add(time.Hour), 3), adbeFiling(t0.Add(2 * time.Hour))}
	items[2].FetchedNs = items[2].PublishedNs
	ids := func(items []*schemas.NewsItem) []string {
		d := NewNewsAlertDetector()
		var out []string
		for _, n := range items {
			for _, e := range d.Push(n, nil) {
				out = append(out, e.ID)
			}
		}
		slices.Sort(out)
		return out
	}
	want := ids(items)
	if len(want) != 4 || !slices.Equal(ids([]*schemas.NewsItem{items[2], items[0], items[1]}), want) {
		t.Fatalf("%v", want)
	}
	d := NewNewsAlertDetector()
	evs := d.Push(items[0], nil)
	r := NewNewsAlertDetector()
	if err := r.RestoreState(d.MarshalState()); err != nil {
		t.Fatal(err)
	}
	o := NewNewsAlertDetector()
	o.Observe(evs[0])
	for _, x := range []*NewsAlertDetector{r, o} {
		if got := x.Push(items[0], nil); len(got) != 0 {
			t.Errorf("raised twice: %+v", got)
		}
		if got := x.Push(items[1], nil); len(got) != 1 {
			t.Errorf("new item: %+v", got)
		}
	}
	if err := r.RestoreState([]byte("{")); err == nil {
		t.Error("bad state accepted")
	}
}

func TestLiveEvents(t *testing.T) {
	var none *LiveEvents
	if none.Live(AlertNews) || len(none.Names()) != 0 {
		t.Fatal("a nil registry has live events")
	}
	l := NewLiveEvents()
	if got := l.Names(); got == nil || len(got) != 0 {
		t.Fatalf("empty registry: %#v", got)
	}
	l.Register("news", AlertSECFiling, AlertNews, AlertNews)
	l.Register("signals", SignalAlertEvents...)
	l.Register("another", AlertNews)
	if got := l.Names(); !slices.Equal(got, []string{AlertDecisionChange, AlertUnusualFlow, AlertNews, AlertSECFiling}) {
		t.Fatalf("names %v, want spec order", got)
	}
	if !l.Live(AlertNews) || l.Live(AlertFundingExtreme) {
		t.Fatal("Live")
	}
	if got := l.Detectors(AlertNews); !slices.Equal(got, []string{"another", "news"}) {
		t.Fatalf("detectors %v", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "BUG: ") {
			t.Fatalf("an unknown event registered: %v", r)
		}
	}()
	l.Register("bogus", "moon")
}
