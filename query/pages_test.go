package query

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/query/web"
	"github.com/marketintel/mi/sinks/views"
)

// browserAccept is what Chromium sends when it navigates to a page.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// TestPagesShareTheirPaths: a path with a page answers HTML to a browser
// and, to everyone else, the JSON it answered before, with the same
// status; both say Vary: Accept; pages carry the CSP; card checkout is off
// (404 with the reason, as a page and as JSON) without a Stripe key
// (docs/pages.md, docs/checkout.md).
func TestPagesShareTheirPaths(t *testing.T) {
	s, _ := newHistoryServer(t)
	for _, path := range []string{"/", "/status", "/coverage", "/track-record", "/api/v1/datasets", "/api/v1/datasets?symbol=NOPE"} {
		for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0.5,application/json"} {
			_, resp, body := get(t, s, path, accept)
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !json.Valid(body) {
				t.Fatalf("GET %s (Accept %q): %d %s %.200s", path, accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		}
		_, jr, _ := get(t, s, path, "")
		_, hr, page := get(t, s, path, browserAccept)
		if !strings.HasPrefix(hr.Header.Get("Content-Type"), "text/html") || hr.StatusCode != jr.StatusCode ||
			hr.Header.Get("Content-Security-Policy") != web.ContentSecurityPolicy || !strings.Contains(string(page), "<!doctype html>") {
			t.Fatalf("GET %s as a browser: %d (JSON %d) %s %.300s", path, hr.StatusCode, jr.StatusCode, hr.Header, page)
		}
		for _, r := range []*http.Response{jr, hr} {
			if !strings.Contains(r.Header.Get("Vary"), "Accept") {
				t.Fatalf("GET %s: Vary %q", path, r.Header.Get("Vary"))
			}
		}
		if strings.Contains(string(page), "<script>") || strings.Contains(string(page), " onclick=") {
			t.Fatalf("GET %s: an inline script the CSP would block", path)
		}
	}
	// Card checkout is off without a Stripe key.
	_, resp, page := get(t, s, "/checkout", browserAccept)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(page), "not configured") {
		t.Fatalf("/checkout off: %d %.300s", resp.StatusCode, page)
	}
	_, _, home := get(t, s, "/", browserAccept)
	if !strings.Contains(string(home), "Card payment is not configured") {
		t.Fatal("the home page does not say card payment is off")
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/credits/checkout/5", nil)
	r, err := s.App().Test(req, fiberTestConfig())
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Error, Message string }
	if err := json.NewDecoder(r.Body).Decode(&e); err != nil || r.StatusCode != http.StatusNotFound || e.Error != "checkout_unavailable" ||
		!strings.Contains(e.Message, "x402") {
		t.Fatalf("checkout off: %d %+v %v", r.StatusCode, e, err)
	}
}

// TestStatusFeeds: /status lists the freshness of the chain readers and
// polled sources as "feeds", and the status page shows them as a table
// with their ages and states.
func TestStatusFeeds(t *testing.T) {
	clk := clock.NewFake(testNow)
	reg := sources.NewRegistry(nil, clk)
	ok := reg.Register("chain:base", "chain", "https://base.example/rpc")
	ok.Attempt()
	ok.Success(testNow.Add(-12 * time.Second))
	bad := reg.Register("rates:treasury-par", "rates", "https://home.treasury.gov/x")
	bad.Attempt()
	bad.Failure(errors.New("dial tcp: connection refused"))
	clk.Advance(90 * time.Second)
	s := New(Deps{Views: views.New(), Now: func() time.Time { return testNow.Add(90 * time.Second) }, Feeds: reg.Snapshot})
	_, _, body := get(t, s, "/status", "")
	var st struct {
		Feeds []struct {
			Name, State         string
			Stale               bool
			AgeMs, DataAgeMs    *int64
			ConsecutiveFailures int
			LastError           *string
		}
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	f := st.Feeds
	if len(f) != 2 || f[0].Name != "chain:base" || f[0].State != "ok" || f[0].AgeMs == nil || *f[0].AgeMs != 90_000 ||
		*f[0].DataAgeMs != 102_000 || f[1].State != "failing" || !f[1].Stale || f[1].ConsecutiveFailures != 1 ||
		f[1].LastError == nil || f[1].AgeMs != nil {
		t.Fatalf("feeds %s", body)
	}
	_, _, page := get(t, s, "/status", browserAccept)
	for _, want := range []string{`data-table="feeds"`, `data-row="chain:base"`, `data-row="rates:treasury-par"`, "1 min", "failing"} {
		if !strings.Contains(string(page), want) {
			t.Fatalf("status page without %q", want)
		}
	}
}
