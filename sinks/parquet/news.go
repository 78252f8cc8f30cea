package parquet

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// NewsRow is one row of a news day file (datasets.NewsColumns). Date is the
// partition column.
type NewsRow struct {
	ID                string   `parquet:"id"`
	PublishedAt       int64    `parquet:"published_at,timestamp(microsecond)"`
	UpdatedAt         int64    `parquet:"updated_at,timestamp(microsecond)"`
	FetchedAt         int64    `parquet:"fetched_at,timestamp(microsecond)"`
	Kind              string   `parquet:"kind,dict"`
	Provider          string   `parquet:"provider,dict"`
	Source            string   `parquet:"source,dict"`
	Category          string   `parquet:"category,dict"`
	AlertCategory     string   `parquet:"alert_category,dict"`
	Title             string   `parquet:"title"`
	Summary           string   `parquet:"summary"`
	URL               string   `parquet:"url"`
	Attribution       string   `parquet:"attribution,dict"`
	Symbols           []string `parquet:"symbols,list"`
	Keywords          []string `parquet:"keywords,list"`
	Sentiment         string   `parquet:"sentiment,dict"`
	SentimentScore    int64    `parquet:"sentiment_score"`
	Materiality       int64    `parquet:"materiality"`
	Form              string   `parquet:"form,dict"`
	FormFamily        string   `parquet:"form_family,dict"`
	Accession         string   `parquet:"accession"`
	CIK               string   `parquet:"cik"`
	Items             []string `parquet:"items,list"`
	Earnings          bool     `parquet:"earnings"`
	ClassifierVersion string   `parquet:"classifier_version,dict"`
	Revision          string   `parquet:"revision"`
}

// NewsRowOf converts a news item and its classification.
func NewsRowOf(n *schemas.NewsItem, cl *schemas.NewsClassification) NewsRow {
	h := schemas.NewsContentHash(n)
	kind := "article"
	if n.Kind == schemas.NewsKind_NEWS_KIND_FILING {
		kind = "filing"
	}
	r := NewsRow{
		ID: n.Id, PublishedAt: n.PublishedNs / 1e3, UpdatedAt: n.UpdatedNs / 1e3, FetchedAt: n.FetchedNs / 1e3,
		Kind: kind, Provider: n.Provider, Source: n.Source, Title: n.Title, URL: n.Url, Attribution: n.Attribution,
		Revision: hex.EncodeToString(h[:]),
		Symbols:  []string{}, Keywords: []string{}, Items: []string{},
	}
	if cl != nil {
		r.Category, r.AlertCategory, r.Summary = cl.Category, cl.AlertCategory, cl.Summary
		r.Symbols = append(r.Symbols, cl.Symbols...)
		r.Keywords = append(r.Keywords, cl.Keywords...)
		r.Sentiment, r.SentimentScore, r.Materiality = cl.Sentiment, int64(cl.SentimentScore), int64(cl.Materiality)
		r.Earnings, r.ClassifierVersion = cl.Earnings, cl.Version
	}
	if f := n.Filing; f != nil {
		r.Form, r.FormFamily, r.Accession, r.CIK = f.Form, f.FormFamily, f.Accession, f.Cik
		r.Items = append(r.Items, f.Items...)
	}
	return r
}

// newerRow is schemas.NewsNewer on rows: the later update, then the later
// publication, then the greater content hash.
func newerRow(a, b *NewsRow) bool {
	if a.UpdatedAt != b.UpdatedAt {
		return a.UpdatedAt > b.UpdatedAt
	}
	if a.PublishedAt != b.PublishedAt {
		return a.PublishedAt > b.PublishedAt
	}
	return a.Revision > b.Revision
}

// mergeNewsRow folds row b into row a of the same id, as the news view
// does: the latest revision's content, with the fetch time and channel of
// the copy read first.
func mergeNewsRow(a, b NewsRow) NewsRow {
	first := a
	if b.FetchedAt < a.FetchedAt || b.FetchedAt == a.FetchedAt && b.Provider < a.Provider {
		first = b
	}
	out := a
	if b.Revision != a.Revision && newerRow(&b, &a) {
		out = b
	}
	out.FetchedAt, out.Provider, out.Attribution = first.FetchedAt, first.Provider, first.Attribution
	return out
}

// NewsWriter writes the news day files: one file per UTC day of
// publication, holding every item of the day once (its latest revision),
// sorted by publication time then id. A day's file is rewritten whole,
// atomically, by Flush after rows of the day were added; it is a function
// of the set of items added, in any order. It is not safe for concurrent
// use.
type NewsWriter struct {
	root  string
	days  map[string]map[string]NewsRow // day → id → row
	dirty map[string]bool
	used  map[string]time.Time // day → last add, for eviction
}

// OpenNewsWriter returns a writer under root, removing temporary files a
// crash left in the news tree.
func OpenNewsWriter(root string) (*NewsWriter, error) {
	if root == "" {
		return nil, errors.New("cannot open the news writer: no data directory")
	}
	if err := removeTemps(filepath.Join(root, datasets.KindNews)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return &NewsWriter{root: root, days: map[string]map[string]NewsRow{}, dirty: map[string]bool{}, used: map[string]time.Time{}}, nil
}

// Add buffers an item with its classification. The first row of a day
// loads the day's existing file, so a restarted writer keeps what it wrote.
func (w *NewsWriter) Add(n *schemas.NewsItem, cl *schemas.NewsClassification) error {
	row := NewsRowOf(n, cl)
	day := datasets.Day(time.Unix(0, n.PublishedNs))
	rows, err := w.day(day)
	if err != nil {
		return err
	}
	if old, ok := rows[row.ID]; ok {
		merged := mergeNewsRow(old, row)
		if equalNewsRow(merged, old) {
			return nil
		}
		row = merged
	}
	rows[row.ID] = row
	w.dirty[day] = true
	w.used[day] = time.Now() // bookkeeping of memory only; never in data
	return nil
}

func equalNewsRow(a, b NewsRow) bool {
	return a.Revision == b.Revision && a.FetchedAt == b.FetchedAt && a.Provider == b.Provider &&
		a.ClassifierVersion == b.ClassifierVersion && a.Materiality == b.Materiality
}

// day returns the rows of a day, loading its file on first use.
func (w *NewsWriter) day(day string) (map[string]NewsRow, error) {
	if rows, ok := w.days[day]; ok {
		return rows, nil
	}
	rows := map[string]NewsRow{}
	path := filepath.Join(datasets.NewsDir(w.root, day), datasets.DayFileName)
	if _, err := os.Stat(path); err == nil {
		got, err := ReadRows[NewsRow](path)
		if err != nil {
			return nil, fmt.Errorf("cannot load the news of %s: %w", day, err)
		}
		for _, r := range got {
			rows[r.ID] = r
		}
	}
	w.days[day] = rows
	return rows, nil
}

// Flush rewrites the day files that changed since the last Flush, and
// forgets days untouched for keepDays (0: keep all in memory).
func (w *NewsWriter) Flush(keep time.Duration) error {
	days := make([]string, 0, len(w.dirty))
	for d := range w.dirty {
		days = append(days, d)
	}
	sort.Strings(days)
	for _, d := range days {
		rows := make([]NewsRow, 0, len(w.days[d]))
		for _, r := range w.days[d] {
			rows = append(rows, r)
		}
		slices.SortFunc(rows, func(a, b NewsRow) int {
			return cmp.Or(cmp.Compare(a.PublishedAt, b.PublishedAt), cmp.Compare(a.ID, b.ID))
		})
		if err := WriteRows(filepath.Join(datasets.NewsDir(w.root, d), datasets.DayFileName), rows); err != nil {
			return fmt.Errorf("cannot write the news of %s: %w", d, err)
		}
		delete(w.dirty, d)
	}
	if keep > 0 {
		for d, at := range w.used {
			if !w.dirty[d] && time.Since(at) > keep {
				delete(w.days, d)
				delete(w.used, d)
			}
		}
	}
	return nil
}
