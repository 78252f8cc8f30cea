package sec

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgartest"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// at is the answers' clock of a test.
type at struct {
	mu sync.Mutex
	t  time.Time
}

func (a *at) now() time.Time  { a.mu.Lock(); defer a.mu.Unlock(); return a.t }
func (a *at) set(t time.Time) { a.mu.Lock(); a.t = t; a.mu.Unlock() }

func service(t testing.TB, srv *edgartest.Server, clock func() time.Time, snaps *Snapshots) *Service {
	t.Helper()
	hosts := poll.NewHosts(nil, sources.HTTPConfig{Hosts: map[string]sources.Limit{"127.0.0.1": {Rate: 500, Burst: 50}}})
	c, err := edgar.New(edgar.Config{
		Endpoints: edgar.Endpoints{WWW: srv.URL, Data: srv.URL},
		HTTP:      poll.NewClient(sources.HTTPConfig{UserAgent: "mi-tests tests@example.com"}, poll.Options{Hosts: hosts}),
		CacheDir:  t.TempDir(), Logger: quiet, MaxAttempts: 2,
		RetryMin: edgar.Duration(5 * time.Millisecond), RetryMax: edgar.Duration(10 * time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Client: c, Now: clock, Snapshots: snaps, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func routeErr(t *testing.T, err error, status int, code, contains string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Status != status || e.Code != code || !strings.Contains(e.Message, contains) {
		t.Errorf("err = %#v, want %d %s containing %q", err, status, code, contains)
	}
}

// The fundamentals route end to end, from the real captures served at
// EDGAR's paths through the EDGAR client.
func TestFundamentalsEndToEnd(t *testing.T) {
	srv := edgartest.New(t)
	clk := &at{t: time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)}
	root := t.TempDir()
	s := service(t, srv, clk.now, &Snapshots{Root: root})
	ctx := context.Background()
	sym, err := Symbol("aapl")
	if err != nil || sym != "AAPL" {
		t.Fatal(sym, err)
	}
	out, err := s.Fundamentals(ctx, sym)
	if err != nil {
		t.Fatal(err)
	}
	// Apple's FY2025 revenue as its 10-K (0000320193-25-000079) reports it
	// in companyfacts.
	r := out.Financials["revenue"]
	if *r.Value != 416161000000 || r.Concept != "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" ||
		r.AccessionNumber != "0000320193-25-000079" || r.Form != "10-K" || r.FY != 2025 {
		t.Errorf("revenue %+v", r)
	}
	if out.CIK != "0000320193" || out.CompanyName != "Apple Inc." || out.SourceURL != srv.URL+"/api/xbrl/companyfacts/CIK0000320193.json" ||
		!out.AsOf.Equal(clk.now()) || out.Source != "sec_edgar_xbrl_companyfacts" {
		t.Errorf("answer %+v", out)
	}
	// The newest 10-K / 10-Q / 8-K / 20-F / 40-F / 6-K of the AAPL
	// submissions capture: the 8-K of 2026-02-24 (items 5.07, 9.01).
	lf := out.LatestFiling
	if lf == nil || lf.Form != "8-K" || lf.FilingDate != "2026-02-24" || lf.AccessionNumber != "0001140361-26-006577" ||
		lf.PrimaryDocument != "ef20060722_8k.htm" || lf.URL != srv.URL+"/Archives/edgar/data/320193/000114036126006577/ef20060722_8k.htm" {
		t.Errorf("latestFiling %+v", lf)
	}
	if out.DerivedIntelligence.FundamentalSignal != "STRONG" {
		t.Errorf("signal %s", out.DerivedIntelligence.FundamentalSignal)
	}
	b, err := json.Marshal(out)
	if err != nil || !strings.Contains(string(b), `"revenueGrowthYoYPercent":6.43`) {
		t.Errorf("json: %v", err)
	}

	// The answer is kept: the second call asks EDGAR nothing.
	before := srv.TotalHits()
	if _, err := s.Fundamentals(ctx, sym); err != nil || srv.TotalHits() != before {
		t.Errorf("cached answer sent %d requests (err %v)", srv.TotalHits()-before, err)
	}

	// The snapshot reads back with DuckDB over the hive layout.
	db := duck(t)
	var v float64
	var concept, accn string
	err = db.QueryRow(`SELECT value, concept, accession_number FROM read_parquet(?, hive_partitioning=true)
		WHERE symbol = 'AAPL' AND date = DATE '2026-03-21' AND metric = 'revenue'`, datasets.SecFundamentalsGlob(root)).Scan(&v, &concept, &accn)
	if err != nil || v != 416161000000 || accn != "0000320193-25-000079" {
		t.Errorf("snapshot: %v %v %s %s", err, v, concept, accn)
	}
	var growth float64
	if err := db.QueryRow(`SELECT value FROM read_parquet(?, hive_partitioning=true) WHERE metric = 'derived:revenueGrowthYoYPercent'`,
		datasets.SecFundamentalsGlob(root)).Scan(&growth); err != nil || growth != 6.43 {
		t.Errorf("snapshot growth %v %v", growth, err)
	}
	checkColumns(t, db, filepath.Join(datasets.SecFundamentalsDir(root, "2026-03-21", "AAPL"), datasets.DayFileName), datasets.SecFundamentalColumns)
}

func TestFundamentalsErrors(t *testing.T) {
	srv := edgartest.New(t)
	clk := &at{t: time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)}
	s := service(t, srv, clk.now, nil)
	ctx := context.Background()
	for _, bad := range []string{"", "A$B", "ÄPL", strings.Repeat("A", 13), "-A"} {
		_, err := Symbol(bad)
		routeErr(t, err, 400, CodeBadParameter, "not a US equity ticker")
	}
	// A crypto symbol: no SEC filings.
	_, err := s.Fundamentals(ctx, "BTCUSD")
	routeErr(t, err, 404, CodeNoData, "BTCUSD has no SEC filings")
	// A registrant without companyfacts (the capture set has MSFT's
	// submissions but not its facts): 404 with the reason.
	_, err = s.Fundamentals(ctx, "MSFT")
	routeErr(t, err, 404, CodeNoData, "has no XBRL financial data")
	// Truncated companyfacts: a clear 404, never a 5xx.
	srv2 := edgartest.New(t)
	full := get(t, srv2.URL+"/api/xbrl/companyfacts/CIK0000320193.json")
	srv2.Set("/api/xbrl/companyfacts/CIK0000320193.json", full[:len(full)/3])
	_, err = service(t, srv2, clk.now, nil).Fundamentals(ctx, "AAPL")
	routeErr(t, err, 404, CodeNoData, "could not be read")
	// EDGAR down and nothing cached: 503 with a retry hint.
	srv3 := edgartest.New(t)
	s3 := service(t, srv3, clk.now, nil)
	srv3.Close()
	_, err = s3.Fundamentals(ctx, "AAPL")
	routeErr(t, err, 503, CodeUnavailable, "EDGAR cannot be reached")
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	c, err := edgar.New(edgar.Config{Endpoints: edgar.Endpoints{WWW: url, Data: url}, UserAgent: "t t@example.com", Logger: quiet,
		HTTP: poll.NewClient(sources.HTTPConfig{UserAgent: "t t@example.com"}, poll.Options{Hosts: poll.NewHosts(nil, sources.HTTPConfig{})})})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := c.Get(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The insiders route end to end on Apple's submissions as of 2022-06-01:
// 45 Form 4 filings in the year, the newest 40 analyzed; of their
// documents only the Adams filing (0000320193-22-000061) is among the
// captures, so 39 are unavailable and counted as such.
func TestInsidersEndToEnd(t *testing.T) {
	srv := edgartest.New(t)
	clk := &at{t: time.Date(2022, 6, 1, 15, 0, 0, 0, time.UTC)}
	root := t.TempDir()
	s := service(t, srv, clk.now, &Snapshots{Root: root})
	days, err := Days("365")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Insiders(context.Background(), "AAPL", days)
	if err != nil {
		t.Fatal(err)
	}
	dq := a.DataQuality
	if a.Signal != insiders.SignalPlannedSelling || dq.FilingsInWindow != 45 || dq.FilingsConsidered != 40 || dq.FilingsAnalyzed != 1 || dq.FilingsUnavailable != 39 {
		t.Fatalf("signal %s, data quality %+v", a.Signal, dq)
	}
	if a.Summary.PlannedSales.Count != 7 || a.Transactions[0].TenB51Source != "footnote" || a.Transactions[0].AccessionNumber != "0000320193-22-000061" ||
		a.Transactions[0].FilingURL != srv.URL+"/Archives/edgar/data/320193/0000320193-22-000061-index.html" || a.WindowStart != "2021-06-02" {
		t.Errorf("answer %+v %+v", a.Summary, a.Transactions[0])
	}
	if a.CompanyName != "Apple Inc." || a.SourceURL != srv.URL+"/submissions/CIK0000320193.json" {
		t.Errorf("answer head %+v", a)
	}
	db := duck(t)
	var n int
	var planned bool
	if err := db.QueryRow(`SELECT count(*), bool_and(ten_b5_1) FROM read_parquet(?, hive_partitioning=true) WHERE symbol='AAPL' AND code='S'`,
		datasets.SecInsidersGlob(root)).Scan(&n, &planned); err != nil || n != 7 || !planned {
		t.Errorf("insiders snapshot: %v %d %v", err, n, planned)
	}
	checkColumns(t, db, filepath.Join(datasets.SecInsidersDir(root, "2022-06-01", "AAPL"), datasets.DayFileName), datasets.SecInsiderColumns)

	// days outside 1..365 and a crypto symbol.
	for _, bad := range []string{"0", "366", "x", "-1", "1.5"} {
		_, err := Days(bad)
		routeErr(t, err, 400, CodeBadParameter, "not an integer from 1 to 365")
	}
	if d, err := Days(""); err != nil || d != 90 {
		t.Errorf("default days %d %v", d, err)
	}
	_, err = s.Insiders(context.Background(), "DOGEUSD", 90)
	routeErr(t, err, 404, CodeNoData, "no SEC filings")
	// A window with no Form 4 (a Saturday): no open-market activity.
	clk.set(time.Date(2015, 3, 14, 12, 0, 0, 0, time.UTC))
	a, err = s.Insiders(context.Background(), "AAPL", 1)
	if err != nil || a.Signal != insiders.SignalNoActivity || a.DataQuality.FilingsConsidered != 0 {
		t.Errorf("empty window: %v %+v", err, a)
	}
}

func duck(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("SET TimeZone='UTC'; SET threads=1"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// checkColumns compares a file's columns (DuckDB's DESCRIBE) with the
// documented layout.
func checkColumns(t *testing.T, db *sql.DB, file string, cols []datasets.Column) {
	t.Helper()
	rows, err := db.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning=false))", file)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		if i >= len(cols) || cols[i].Name != name || cols[i].Type != typ {
			t.Errorf("%s column %d = %s %s", filepath.Base(file), i, name, typ)
		}
		i++
	}
	if i != len(cols) {
		t.Errorf("%s has %d columns, want %d", file, i, len(cols))
	}
}

// When the overflow file of older filings cannot be read, the answer uses
// filings.recent and says what is missing.
func TestInsidersWithoutOverflow(t *testing.T) {
	srv := edgartest.New(t)
	clk := &at{t: time.Date(2015, 4, 1, 12, 0, 0, 0, time.UTC)}
	a, err := service(t, srv, clk.now, nil).Insiders(context.Background(), "AAPL", 90)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(a.Methodology, " "), "CIK0000320193-submissions-001.json") {
		t.Errorf("methodology does not say the overflow file is missing: %v", a.Methodology)
	}
}
