package newsclass_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenFeeds are the real captures whose every item is classified in the
// golden file testdata/fixtures.golden.json.
var goldenFeeds = []newsfeed.Feed{
	{Name: "rss:coindesk", URL: "news/coindesk_rss_2026-09-25_subset.xml", Category: "crypto"},
	{Name: "rss:cointelegraph", URL: "news/cointelegraph_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:decrypt", URL: "news/decrypt_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:theblock", URL: "news/theblock_rss_2025-12-12.xml", Category: "crypto"},
	{Name: "rss:federalreserve", URL: "news/federalreserve_press_all_rss_2026-09-24_subset.xml", Category: "policy"},
}

// fixtureItems parses every golden feed.
func fixtureItems(tb testing.TB) []*schemas.NewsItem {
	tb.Helper()
	fetched := time.Date(2026, 9, 26, 0, 0, 0, 0, time.UTC).UnixNano()
	var out []*schemas.NewsItem
	for _, f := range goldenFeeds {
		b, err := os.ReadFile(fixtures.Path(tb, f.URL))
		if err != nil {
			tb.Fatal(err)
		}
		res, err := newsfeed.Parse(b, f, fetched)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, res.Items...)
	}
	return out
}

// TestGoldenFixtures classifies every item of the real feeds; the golden
// file was read line by line when written (symbols, sentiment and
// materiality of each headline).
func TestGoldenFixtures(t *testing.T) {
	c := newsclass.New(testDictionary(t))
	type row struct {
		Provider    string   `json:"provider"`
		Title       string   `json:"title"`
		Symbols     []string `json:"symbols"`
		Keywords    []string `json:"keywords"`
		Score       int32    `json:"sentimentScore"`
		Sentiment   string   `json:"sentiment"`
		Materiality int32    `json:"materiality"`
		Reasons     []string `json:"materialityReasons"`
		Category    string   `json:"category"`
		Alert       string   `json:"alertCategory"`
	}
	var rows []row
	for _, n := range fixtureItems(t) {
		cl := c.Classify(n)
		rows = append(rows, row{n.Provider, n.Title, cl.Symbols, cl.Keywords, cl.SentimentScore, cl.Sentiment, cl.Materiality, cl.MaterialityReasons, cl.Category, cl.AlertCategory})
	}
	got, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "fixtures.golden.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("classification of the fixtures differs from %s; run with -update and review the diff", path)
	}
}

// BenchmarkClassify measures classification throughput over the real
// headlines (target: 50k items/s per core, BENCHMARKS.md).
func BenchmarkClassify(b *testing.B) {
	c := newsclass.New(testDictionary(b))
	items := fixtureItems(b)
	n := 0
	c0 := cpuSeconds()
	for b.Loop() {
		c.Classify(items[n%len(items)])
		n++
	}
	b.ReportMetric(float64(n)/(cpuSeconds()-c0), "items/cpu-s")
}

// cpuSeconds is the process's CPU time (user + system) so far: on the
// shared machine, items per CPU-second is the per-core rate (run with
// -cpu 1).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
