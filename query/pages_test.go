package query

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/marketintel/mi/query/web"
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
