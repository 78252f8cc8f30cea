package pipeline

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/sinks/alerts"
	"github.com/marketintel/mi/sinks/newsview"
)

// TestNewsEndToEnd follows headlines and filings from the publishers
// (replayed from the real captures) through the news source, mi.news.v1,
// two API instances' views, the news stage (classifier, detectors, day
// files) and the alert outbox to a signed webhook delivery.
func TestNewsEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	fx := func(rel string) string { return fixtures.Path(t, rel) }
	srv, err := pubreplay.New([]pubreplay.Route{
		{Path: "/arc/outboundfeeds/rss/", File: fx("news/coindesk_rss_2026-09-25_subset.xml")},
		{Path: "/feeds/press_all.xml", File: fx("news/federalreserve_press_all_rss_2026-09-24_subset.xml")},
		{Path: "/files/company_tickers.json", File: fx("sec/company_tickers.json")},
		{Path: "/cgi-bin/browse-edgar", Query: url.Values{"action": {"getcurrent"}}, File: fx("sec/edgar_getcurrent_all_forms_atom_8k_heavy.xml")},
		{Path: "/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044.txt", File: fx("sec/8k_0000796343-23-000044_ADBE_item2.02.txt")},
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	src, err := newsfeed.New(newsfeed.Config{
		Feeds: []newsfeed.Feed{
			{Name: "rss:coindesk", URL: l.URL + "/arc/outboundfeeds/rss/", Category: "crypto", Attribution: "Headline © CoinDesk"},
			{Name: "rss:federalreserve", URL: l.URL + "/feeds/press_all.xml", Category: "policy"},
		},
		Filings: &newsfeed.FilingsConfig{EDGAR: edgar.Endpoints{WWW: l.URL, Data: l.URL}, Pages: 1, Seed: []string{"796343/0000796343-23-000044"}},
	}, newsfeed.Options{HTTP: sources.HTTPConfig{Contact: "ops@example.com", DefaultLimit: &sources.Limit{Rate: 100, Burst: 100}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}

	emb, err := StartEmbedded("127.0.0.1:0", t.TempDir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = Ingest(ctx, IngestConfig{Brokers: brokers, Live: true, Logger: quiet}, src, Checkpoint{})
	}()

	// The dictionary every reader builds: registry coins, SEC's tickers.
	b, err := os.ReadFile(fx("sec/company_tickers.json"))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := edgar.ParseTickers(b)
	if err != nil {
		t.Fatal(err)
	}
	dict := newsclass.NewDictionary(newsfeed.Coins(), newsfeed.Issuers(tk))

	// Two API instances follow the topic.
	follow := func() *newsview.View {
		v := newsview.New(dict, 10*365*24*time.Hour)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = FollowSide(ctx, brokers, []SideView{ViewOf(sidetopic.News, v.Apply)}, quiet, nil)
		}()
		return v
	}
	va, vb := follow(), follow()
	waitUntil(t, ctx, "the views", func() bool { return va.Len() >= 7 && vb.Len() == va.Len() })
	adbe, _ := va.Find(newsview.Query{Symbol: "ADBE"})
	if len(adbe) != 1 || adbe[0].Filing == nil || !adbe[0].Filing.Earnings || adbe[0].Filing.Items[0].Item != "2.02" || adbe[0].Category != "filings" {
		t.Fatalf("ADBE: %+v", adbe)
	}
	a, _ := va.Find(newsview.Query{Limit: 100})
	bb, _ := vb.Find(newsview.Query{Limit: 100})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(bb)
	if string(ja) != string(jb) {
		t.Fatal("two instances answer differently")
	}

	// The outbox, a news subscription (default minMateriality 4) and a
	// sec_filing one watching ADBE's 8-Ks, both to a local HTTPS receiver.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "l.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := alerts.Open(ctx, db, alerts.DialectSQLite, alerts.Config{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		body       alerts.Body
		raw        []byte
		ts, sig    string
		subscriber string
	}
	var mu sync.Mutex
	var deliveries []got
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var g got
		g.raw, g.ts, g.sig, g.subscriber = raw, r.Header.Get("X-MI-Timestamp"), r.Header.Get("X-MI-Signature"), r.Header.Get("X-MI-Subscription")
		_ = json.Unmarshal(raw, &g.body)
		mu.Lock()
		deliveries = append(deliveries, g)
		mu.Unlock()
	}))
	defer rcv.Close()
	newsSub, newsSecret, err := st.Create(ctx, alerts.NewSubscription{URL: rcv.URL + "/news", Events: []string{"news"}})
	if err != nil {
		t.Fatal(err)
	}
	secSub, secSecret, err := st.Create(ctx, alerts.NewSubscription{URL: rcv.URL + "/sec", Events: []string{"sec_filing"},
		Filters: alerts.Filters{Symbols: []string{"ADBE"}, Forms: []string{"8-K"}}})
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	wg.Add(2)
	go func() {
		defer wg.Done()
		// The captures are old: the demo's age rule (no limit) applies.
		if err := RunNews(ctx, NewsConfig{Brokers: brokers, Dictionary: dict, DataDir: dataDir, AlertMaxAge: -1, Logger: quiet}); err != nil {
			t.Errorf("news stage: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		_ = SinkEvents(ctx, brokers, st, quiet)
	}()
	pool := x509.NewCertPool()
	pool.AddCert(rcv.Certificate())
	d := alerts.NewDispatcher(st, alerts.DispatcherConfig{Safety: alerts.Safety{AllowLoopback: true}, TLS: &tls.Config{RootCAs: pool}})
	waitUntil(t, ctx, "signed deliveries", func() bool {
		if _, err := d.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		news, sec := 0, 0
		for _, g := range deliveries {
			switch g.subscriber {
			case newsSub.ID:
				news++
			case secSub.ID:
				sec++
			}
		}
		return news >= 2 && sec >= 1
	})
	mu.Lock()
	defer mu.Unlock()
	secrets := map[string]string{newsSub.ID: newsSecret, secSub.ID: secSecret}
	sawHack, sawADBE := false, false
	for _, g := range deliveries {
		if !alerts.Verify(secrets[g.subscriber], g.ts, g.raw, g.sig, time.Now(), 5*time.Minute) {
			t.Errorf("delivery %s: bad signature", g.body.ID)
		}
		var data struct {
			Materiality int    `json:"materiality"`
			Title       string `json:"title"`
			Form        string `json:"form"`
			Earnings    bool   `json:"earnings"`
			Accession   string `json:"accessionNumber"`
		}
		_ = json.Unmarshal(g.body.Data, &data)
		switch g.subscriber {
		case newsSub.ID:
			if g.body.Event != "news" || data.Materiality < 4 {
				t.Errorf("news delivery %s", g.raw)
			}
			sawHack = sawHack || data.Title == "Circle and Tether step in to freeze hacker wallet after massive Bitget crypto heist"
		case secSub.ID:
			if g.body.Event != "sec_filing" || g.body.Symbol != "ADBE" || data.Form != "8-K" {
				t.Errorf("sec delivery %s", g.raw)
			}
			sawADBE = sawADBE || data.Earnings && data.Accession == "0000796343-23-000044"
		}
	}
	if !sawHack || !sawADBE {
		t.Errorf("hack delivered %v, ADBE 8-K delivered %v", sawHack, sawADBE)
	}
	// The day files of the items' publication days.
	for _, day := range []string{"2026-09-25", "2023-03-15"} {
		if _, err := os.Stat(filepath.Join(datasets.NewsDir(dataDir, day), datasets.DayFileName)); err != nil {
			t.Errorf("day file %s: %v", day, err)
		}
	}
}

func waitUntil(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		if ctx.Err() != nil {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
