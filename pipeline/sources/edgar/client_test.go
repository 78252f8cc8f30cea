package edgar_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgartest"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

const testUA = "mi-tests tests@example.com"

// testClock tells a settable time; its timers are real (the retries of a
// test wait a few milliseconds).
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *testClock) NewTimer(d time.Duration) clock.Timer { return clock.System.NewTimer(d) }

// hosts are rate limits of the tests' own, so tests do not share the
// process's buckets: the local server gets 200 requests per second.
func testHosts(rate float64, burst int) *poll.Hosts {
	return poll.NewHosts(nil, sources.HTTPConfig{Hosts: map[string]sources.Limit{"127.0.0.1": {Rate: rate, Burst: burst}}})
}

func newClient(t *testing.T, srv *edgartest.Server, mod func(*edgar.Config)) *edgar.Client {
	t.Helper()
	cfg := edgar.Config{
		Endpoints: edgar.Endpoints{WWW: srv.URL, Data: srv.URL},
		HTTP:      poll.NewClient(sources.HTTPConfig{UserAgent: testUA}, poll.Options{Hosts: testHosts(200, 20)}),
		CacheDir:  t.TempDir(),
		RetryMin:  edgar.Duration(10 * time.Millisecond),
		RetryMax:  edgar.Duration(50 * time.Millisecond),
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if mod != nil {
		mod(&cfg)
		if cfg.Clock != nil {
			// One clock for the cache ages and poll's Retry-After times.
			cfg.HTTP = poll.NewClient(sources.HTTPConfig{UserAgent: testUA}, poll.Options{Hosts: testHosts(200, 20), Clock: cfg.Clock})
		}
	}
	c, err := edgar.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfig(t *testing.T) {
	if _, err := edgar.New(edgar.Config{UserAgent: testUA, Endpoints: edgar.Endpoints{WWW: "ftp://x"}}); err == nil {
		t.Error("an ftp endpoint was accepted")
	}
	// A User-Agent without a contact is sent (the operator's choice) but
	// warned about: the SEC refuses undeclared clients.
	var logs bytes.Buffer
	if _, err := edgar.New(edgar.Config{UserAgent: "no contact", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		HTTP: poll.NewClient(sources.HTTPConfig{UserAgent: "no contact"}, poll.Options{Hosts: testHosts(1, 1)})}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "names no contact") {
		t.Errorf("no warning: %q", logs.String())
	}
	var c edgar.Config
	if err := json.Unmarshal([]byte(`{"userAgent":"a b@c.d","ttl":{"submissions":"5m"}}`), &c); err != nil || time.Duration(c.TTL.Submissions) != 5*time.Minute {
		t.Errorf("config JSON: %+v %v", c.TTL, err)
	}
	if err := json.Unmarshal([]byte(`{"ttl":{"submissions":"soon"}}`), &c); err == nil {
		t.Error("bad duration accepted")
	}
}

// The whole client against the replayed captures: ticker → CIK,
// submissions, companyfacts, header, index, documents, ownership XML, feed.
func TestClientEndToEnd(t *testing.T) {
	srv := edgartest.New(t)
	c := newClient(t, srv, nil)
	ctx := context.Background()

	co, err := c.Company(ctx, "aapl")
	if err != nil || co.CIK != 320193 || co.Exchange != "Nasdaq" || co.Name != "Apple Inc." {
		t.Fatalf("Company(aapl) = %+v, %v", co, err)
	}
	for _, sym := range []string{"BTCUSD", "DOGE", "XRP"} {
		if _, err := c.Company(ctx, sym); !errors.Is(err, edgar.ErrUnknownTicker) || !errors.Is(err, edgar.ErrNotFound) {
			t.Errorf("Company(%s) err = %v, want ErrUnknownTicker", sym, err)
		}
	}
	if _, err := c.Company(ctx, "A$B"); !errors.Is(err, edgar.ErrUnknownTicker) {
		t.Errorf("Company(A$B) err = %v", err)
	}

	s, src, err := c.Submissions(ctx, co.CIK)
	if err != nil || s.Name != "Apple Inc." || len(s.Filings) != 1005 {
		t.Fatalf("Submissions = %v, %v", s, err)
	}
	if src.URL != srv.URL+"/submissions/CIK0000320193.json" || src.FetchedAt.IsZero() || src.Stale {
		t.Errorf("source = %+v", src)
	}
	facts, _, err := c.CompanyFacts(ctx, co.CIK)
	if err != nil || !bytes.Contains(facts, []byte(`"RevenueFromContractWithCustomerExcludingAssessedTax"`)) {
		t.Fatalf("CompanyFacts: %d bytes, %v", len(facts), err)
	}
	if _, _, err := c.CompanyFacts(ctx, 789019); !errors.Is(err, edgar.ErrNotFound) {
		t.Errorf("CompanyFacts(MSFT, not captured) err = %v, want ErrNotFound", err)
	}

	h, _, err := c.Header(ctx, 796343, "0000796343-23-000044")
	if err != nil || !edgar.HasEarnings(h.Items) || h.Form.Name != "8-K" {
		t.Fatalf("Header = %+v, %v", h, err)
	}
	ix, _, err := c.FilingIndex(ctx, 796343, "0000796343-23-000044")
	if err != nil || len(ix.Items) != 2 {
		t.Fatalf("FilingIndex = %+v, %v", ix, err)
	}
	p, _ := ix.Primary()
	doc, _, err := c.Document(ctx, 796343, "0000796343-23-000044", p.Name)
	if err != nil || len(doc) != 40091 {
		t.Fatalf("primary document: %d bytes, %v", len(doc), err)
	}

	// The Form 4 of the AAPL submissions: its raw XML is not captured, so
	// the client falls back to the complete submission text file.
	var f4 edgar.Filing
	for _, f := range s.Filings {
		if f.Accession == "0000320193-22-000061" {
			f4 = f
		}
	}
	x, src, err := c.OwnershipXML(ctx, 320193, f4)
	if err != nil || !bytes.HasPrefix(x, []byte(`<?xml version="1.0"?>`)) || !bytes.HasSuffix(x, []byte("</ownershipDocument>")) {
		t.Fatalf("OwnershipXML: %.60q, %v", x, err)
	}
	if !strings.HasSuffix(src.URL, "/0000320193-22-000061.txt") {
		t.Errorf("ownership XML read from %s", src.URL)
	}
	if srv.Hits("/Archives/edgar/data/320193/000032019322000061/wf-form4_165187623819106.xml") != 1 {
		t.Error("the raw XML was not tried first")
	}

	feed, _, err := c.CurrentFilings(ctx, edgar.CurrentQuery{Form: "4"})
	if err != nil || len(feed.Entries) != 100 {
		t.Fatalf("CurrentFilings(4): %v", err)
	}
	heavy, _, err := c.CurrentFilings(ctx, edgar.CurrentQuery{Start: 700})
	if err != nil || len(heavy.Filings()) != 94 {
		t.Fatalf("CurrentFilings(start 700): %v", err)
	}
	for _, ua := range srv.UserAgents() {
		if ua != testUA {
			t.Errorf("request sent with User-Agent %q", ua)
		}
	}
	if st := c.Status(); !st.Reachable || st.Requests == 0 || st.LastSuccess.IsZero() || st.AgeSeconds < 0 {
		t.Errorf("status = %+v", st)
	}
}

// Within its TTL a response comes from the cache (also for a new client on
// the same directory); past it the client revalidates with If-None-Match
// and a 304 costs no body.
func TestCacheTTLAndRevalidation(t *testing.T) {
	srv := edgartest.New(t)
	dir := t.TempDir()
	clk := &testClock{now: time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)}
	advance := clk.Advance
	mk := func() *edgar.Client {
		return newClient(t, srv, func(c *edgar.Config) { c.CacheDir = dir; c.Clock = clk })
	}
	const path = "/submissions/CIK0000320193.json"
	c := mk()
	ctx := context.Background()
	if _, _, err := c.Submissions(ctx, 320193); err != nil {
		t.Fatal(err)
	}
	advance(5 * time.Minute)
	if _, src, err := mk().Submissions(ctx, 320193); err != nil || srv.Hits(path) != 1 || !src.FetchedAt.Equal(clk.Now().Add(-5*time.Minute)) {
		t.Fatalf("within the TTL: hits %d, source %+v, err %v", srv.Hits(path), src, err)
	}
	advance(6 * time.Minute) // 11 minutes > the 10-minute submissions TTL
	s, src, err := c.Submissions(ctx, 320193)
	if err != nil || len(s.Filings) != 1005 || srv.Hits(path) != 2 || !src.FetchedAt.Equal(clk.Now()) {
		t.Fatalf("past the TTL: hits %d, source %+v, err %v", srv.Hits(path), src, err)
	}
	if st := c.Status(); st.NotModified != 1 {
		t.Errorf("want one 304, status %+v", st)
	}
	// A changed file is fetched again whole.
	advance(11 * time.Minute)
	b := edgartestFile(t, srv, path)
	srv.Set(path, bytes.Replace(b, []byte(`"name":"Apple Inc."`), []byte(`"name":"Apple Inc. (changed)"`), 1))
	s, _, err = c.Submissions(ctx, 320193)
	if err != nil || s.Name != "Apple Inc. (changed)" {
		t.Fatalf("changed file: %v %v", s.Name, err)
	}
}

func edgartestFile(t *testing.T, srv *edgartest.Server, path string) []byte {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// 429 and 503 with Retry-After, and a body cut off before its
// Content-Length, are retried; the caller sees the document.
func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
	}{{"429", 429, "0"}, {"403", 403, ""}, {"503", 503, "0"}, {"500", 500, ""}, {"truncated", 0, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := edgartest.New(t)
			c := newClient(t, srv, nil)
			const path = "/submissions/CIK0001318605.json"
			srv.Fail(path, tc.status, tc.retryAfter, 2)
			s, _, err := c.Submissions(context.Background(), 1318605)
			if err != nil || s.Name != "Tesla, Inc." {
				t.Fatalf("err %v", err)
			}
			if got := srv.Hits(path); got != 3 {
				t.Errorf("%d requests, want 3 (two failures, one success)", got)
			}
		})
	}
}

// Past MaxAttempts the error says why; with a cached copy the client
// serves it marked stale; a 404 is remembered.
func TestFailuresAndStale(t *testing.T) {
	srv := edgartest.New(t)
	clk := &testClock{now: time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)}
	c := newClient(t, srv, func(c *edgar.Config) { c.Clock = clk; c.MaxAttempts = 2 })
	ctx := context.Background()
	const path = "/submissions/CIK0001318605.json"

	srv.Fail(path, 429, "0", 2)
	if _, _, err := c.Submissions(ctx, 1318605); !errors.Is(err, edgar.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	srv.Fail(path, 500, "", 2)
	if _, _, err := c.Submissions(ctx, 1318605); !errors.Is(err, edgar.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if st := c.Status(); st.Reachable || st.LastError == "" {
		t.Errorf("status after failures = %+v", st)
	}
	if _, _, err := c.Submissions(ctx, 1318605); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(); !st.Reachable {
		t.Errorf("status after a success = %+v", st)
	}
	clk.Advance(time.Hour)
	srv.Fail(path, 500, "", 2)
	s, src, err := c.Submissions(ctx, 1318605)
	if err != nil || !src.Stale || s.Name != "Tesla, Inc." {
		t.Fatalf("stale: %+v %v", src, err)
	}

	if _, _, err := c.CompanyFacts(ctx, 1318605); !errors.Is(err, edgar.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	before := srv.TotalHits()
	if _, _, err := c.CompanyFacts(ctx, 1318605); !errors.Is(err, edgar.ErrNotFound) || srv.TotalHits() != before {
		t.Errorf("second 404 asked EDGAR again (err %v)", err)
	}
	// Malformed bodies are errors naming the format, never panics.
	srv.Set("/submissions/CIK0001318605.json", []byte(`{"cik":"1318605","filings":{"recent":{"accessionNumber":["x"]`))
	clk.Advance(time.Hour)
	if _, _, err := c.Submissions(ctx, 1318605); !errors.Is(err, edgar.ErrMalformed) || !strings.Contains(err.Error(), "malformed submissions json") {
		t.Errorf("err = %v, want malformed submissions json", err)
	}
}

// Concurrent requests for one company share one fetch.
func TestSingleflight(t *testing.T) {
	srv := edgartest.New(t)
	c := newClient(t, srv, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := c.CompanyFacts(context.Background(), 320193)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.Hits("/api/xbrl/companyfacts/CIK0000320193.json"); got != 1 {
		t.Errorf("%d requests for 16 concurrent callers, want 1", got)
	}
}

// The rate limit is poll's, shared by every client built on the same
// Hosts (the process's, in production): two EDGAR clients asking 20
// distinct documents at 10 per second (burst 1) take at least ~1.9 s. (A
// lower bound only: a loaded machine can only make it slower.)
func TestRateLimitShared(t *testing.T) {
	srv := edgartest.New(t)
	hosts := testHosts(10, 1)
	a := newClient(t, srv, func(c *edgar.Config) {
		c.HTTP = poll.NewClient(sources.HTTPConfig{UserAgent: testUA}, poll.Options{Hosts: hosts})
	})
	b := newClient(t, srv, func(c *edgar.Config) {
		c.HTTP = poll.NewClient(sources.HTTPConfig{UserAgent: testUA}, poll.Options{Hosts: hosts})
	})
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _, _ = c.Document(context.Background(), 1, "0000000001-00-000000", strings.Repeat("x", i+1))
		}(i)
	}
	wg.Wait()
	if el := time.Since(start); el < 1800*time.Millisecond {
		t.Errorf("20 requests at 10/s took %s", el)
	}
}

// A caller whose deadline ends before the cool-down fails fast with
// ErrRateLimited instead of waiting.
func TestCoolDownFailsFast(t *testing.T) {
	srv := edgartest.New(t)
	c := newClient(t, srv, func(c *edgar.Config) { c.MaxAttempts = 1 })
	srv.Fail("/submissions/CIK0001318605.json", 429, "30", 1)
	if _, _, err := c.Submissions(context.Background(), 1318605); !errors.Is(err, edgar.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	// EDGAR asked for 30 s; a caller with 2 s left fails at once without
	// sending anything.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, _, err := c.Submissions(ctx, 1318605); !errors.Is(err, edgar.ErrRateLimited) {
		t.Fatalf("err = %v (a wait until the deadline would be context.DeadlineExceeded)", err)
	}
	if srv.TotalHits() != 1 {
		t.Errorf("sent %d requests, want only the first", srv.TotalHits())
	}
}

// FilingsSince reads the overflow files only when filings.recent does not
// reach back far enough. The overflow file here is made by the test from
// the real MSFT submissions: the recent filings before 2024-01-01 are moved
// into CIK0000789019-submissions-001.json (the capture's own files[] are
// replaced by that one).
func TestFilingsSinceOverflow(t *testing.T) {
	srv := edgartest.New(t)
	const subPath = "/submissions/CIK0000789019.json"
	var doc map[string]any
	if err := json.Unmarshal(edgartestFile(t, srv, subPath), &doc); err != nil {
		t.Fatal(err)
	}
	filings := doc["filings"].(map[string]any)
	recent := filings["recent"].(map[string]any)
	dates := recent["filingDate"].([]any)
	cut := 0
	for cut < len(dates) && dates[cut].(string) >= "2024-01-01" {
		cut++
	}
	older := map[string]any{}
	for k, v := range recent {
		col := v.([]any)
		recent[k] = col[:cut]
		older[k] = col[cut:]
	}
	const name = "CIK0000789019-submissions-001.json"
	filings["files"] = []any{map[string]any{"name": name, "filingCount": len(dates) - cut,
		"filingFrom": dates[len(dates)-1], "filingTo": dates[cut]}}
	nb, _ := json.Marshal(doc)
	ob, _ := json.Marshal(older)
	srv.Set(subPath, nb)
	srv.Set("/submissions/"+name, ob)

	c := newClient(t, srv, nil)
	ctx := context.Background()
	s, _, err := c.FilingsSince(ctx, 789019, "2024-06-01")
	if err != nil || srv.Hits("/submissions/"+name) != 0 {
		t.Fatalf("recent suffices: err %v, overflow read %d times", err, srv.Hits("/submissions/"+name))
	}
	for _, f := range s.Filings {
		if f.FilingDate < "2024-06-01" {
			t.Fatalf("filing %s of %s is before since", f.Accession, f.FilingDate)
		}
	}
	s, _, err = c.FilingsSince(ctx, 789019, "2023-01-01")
	if err != nil || srv.Hits("/submissions/"+name) != 1 {
		t.Fatalf("overflow needed: err %v, overflow read %d times", err, srv.Hits("/submissions/"+name))
	}
	var n2023 int
	for i, f := range s.Filings {
		if f.FilingDate < "2024-01-01" {
			n2023++
		}
		if i > 0 && f.FilingDate > s.Filings[i-1].FilingDate {
			t.Fatalf("filings not newest first at %d", i)
		}
	}
	if n2023 == 0 || s.Filings[len(s.Filings)-1].FilingDate < "2023-01-01" {
		t.Errorf("%d filings of 2023; oldest %s", n2023, s.Filings[len(s.Filings)-1].FilingDate)
	}
	if srv.Set("/submissions/"+name, []byte(`{"accessionNumber":["0000789019-23-000001"],"filingDate":[]}`)); true {
		c2 := newClient(t, srv, nil)
		if _, _, err := c2.FilingsSince(ctx, 789019, "2023-01-01"); !errors.Is(err, edgar.ErrMalformed) {
			t.Errorf("malformed overflow err = %v", err)
		}
	}
}
