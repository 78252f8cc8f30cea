package parquet

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

func newsItem(id string, published time.Time, title string) *schemas.NewsItem {
	return &schemas.NewsItem{
		Id: id, Kind: schemas.NewsKind_NEWS_KIND_ARTICLE, Provider: "rss:a", FeedCategory: "crypto", Title: title,
		Url: "https://e.com/" + id[4:], Source: "e.com", PublishedNs: published.UnixNano(), FetchedNs: published.Add(time.Minute).UnixNano(),
	}
}

func cl(symbols ...string) *schemas.NewsClassification {
	return &schemas.NewsClassification{Version: "mi-news/1.0.0", Category: "crypto", AlertCategory: "crypto", Symbols: symbols,
		Keywords: []string{"rally"}, Sentiment: "positive", SentimentScore: 2, Materiality: 3}
}

// TestNewsWriter writes news day files and reads them back with DuckDB;
// the same items added in another order, with copies and a correction, give
// the same bytes.
func TestNewsWriter(t *testing.T) {
	d1 := time.Date(2025, 12, 12, 21, 0, 0, 0, time.UTC)
	d2 := d1.Add(5 * time.Hour) // 2025-12-13 02:00
	a := newsItem("url:aaaaaaaaaaaaaaaaaaaaaaaa", d1, "Bitcoin rallies")
	b := newsItem("url:bbbbbbbbbbbbbbbbbbbbbbbb", d2, "Ether rallies")
	copyA := proto.Clone(a).(*schemas.NewsItem)
	copyA.Provider, copyA.FetchedNs = "rss:b", a.FetchedNs+int64(time.Hour)
	fixA := proto.Clone(a).(*schemas.NewsItem)
	fixA.Title, fixA.UpdatedNs, fixA.FetchedNs = "Bitcoin rallies (corrected)", a.PublishedNs+int64(time.Hour), a.FetchedNs+int64(2*time.Hour)
	filing := &schemas.NewsItem{Id: "sec:0000796343-23-000044", Kind: schemas.NewsKind_NEWS_KIND_FILING, Provider: "edgar:getcurrent",
		FeedCategory: "filings", Title: "ADOBE INC. 8-K", Url: "https://www.sec.gov/x", Source: "sec.gov", PublishedNs: d1.UnixNano(), FetchedNs: d1.UnixNano(),
		Filing: &schemas.NewsFiling{Accession: "0000796343-23-000044", Form: "8-K", FormFamily: "8-K", Cik: "796343", Items: []string{"2.02", "9.01"}}}
	filingCl := &schemas.NewsClassification{Version: "mi-news/1.0.0", Category: "filings", AlertCategory: "filings", Symbols: []string{"ADBE"},
		Sentiment: "neutral", Materiality: 5, Earnings: true}

	write := func(dir string, order []*schemas.NewsItem) {
		w, err := OpenNewsWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range order {
			c := cl("BTCUSD")
			if n.Kind == schemas.NewsKind_NEWS_KIND_FILING {
				c = filingCl
			}
			if err := w.Add(n, c); err != nil {
				t.Fatal(err)
			}
			if i == 1 { // flush midway: a later Add reloads nothing, rewrites the day
				if err := w.Flush(0); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Flush(0); err != nil {
			t.Fatal(err)
		}
	}
	x, y := t.TempDir(), t.TempDir()
	write(x, []*schemas.NewsItem{a, b, copyA, fixA, filing})
	write(y, []*schemas.NewsItem{fixA, filing, copyA, b, a})
	// A third writer on y, reopened: adding again changes nothing.
	write(y, []*schemas.NewsItem{a, copyA})
	for _, day := range []string{"2025-12-12", "2025-12-13"} {
		p := filepath.Join(datasets.NewsDir(x, day), datasets.DayFileName)
		bx, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		by, _ := os.ReadFile(filepath.Join(datasets.NewsDir(y, day), datasets.DayFileName))
		if !bytes.Equal(bx, by) {
			t.Errorf("%s: the files differ with the order of the items", day)
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT date::VARCHAR, id, title, provider, epoch_ms(fetched_at), symbols, items, earnings, materiality
		FROM read_parquet(?, hive_partitioning = true) ORDER BY published_at, id`, datasets.NewsGlob(x))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type got struct {
		date, id, title, provider string
		fetchedMs                 int64
		symbols, items            []any
		earnings                  bool
		materiality               int64
	}
	var all []got
	for rows.Next() {
		var g got
		if err := rows.Scan(&g.date, &g.id, &g.title, &g.provider, &g.fetchedMs, &g.symbols, &g.items, &g.earnings, &g.materiality); err != nil {
			t.Fatal(err)
		}
		all = append(all, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("%d rows: %+v", len(all), all)
	}
	// The correction's title with the first copy's channel and fetch time.
	// Same publication time: "sec:" sorts before "url:".
	all[0], all[1] = all[1], all[0]
	if all[0].id != a.Id || all[0].title != "Bitcoin rallies (corrected)" || all[0].provider != "rss:a" || all[0].fetchedMs != a.FetchedNs/1e6 ||
		all[0].date != "2025-12-12" || !slices.Equal(all[0].symbols, []any{"BTCUSD"}) {
		t.Errorf("row 0 %+v", all[0])
	}
	if all[1].id != filing.Id || !all[1].earnings || all[1].materiality != 5 || !slices.Equal(all[1].items, []any{"2.02", "9.01"}) {
		t.Errorf("row 1 %+v", all[1])
	}
	if all[2].id != b.Id || all[2].date != "2025-12-13" {
		t.Errorf("row 2 %+v", all[2])
	}
	// The `news` view of mi sql, over the files and over an empty data
	// directory.
	for dir, want := range map[string]int{x: 3, t.TempDir(): 0} {
		for _, v := range datasets.Views(dir) {
			if v.Name != datasets.KindNews {
				continue
			}
			if _, err := db.Exec(v.CreateSQL()); err != nil {
				t.Fatalf("%s: %v", v.CreateSQL(), err)
			}
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM news WHERE len(symbols) >= 0`).Scan(&n); err != nil || n != want {
				t.Errorf("news view over %s: %d rows, %v; want %d", dir, n, err, want)
			}
		}
	}
}
