package query

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCORS: a browser may preflight a paid call with the payment headers and
// read PAYMENT-REQUIRED and PAYMENT-RESPONSE.
func TestCORS(t *testing.T) {
	app := newPricedServer(t, -1).App()
	req := httptest.NewRequest(http.MethodOptions, "/api/v1/intelligence/BTCUSD", nil)
	req.Header.Set("Origin", "https://agent.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "payment-signature, x-api-key, sign-in-with-x")
	resp, err := app.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "payment-signature") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req = httptest.NewRequest(http.MethodGet, "/api/v1/intelligence/BTCUSD", nil)
	req.Header.Set("Origin", "https://agent.example")
	resp, err = app.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	exposed := resp.Header.Get("Access-Control-Expose-Headers")
	if resp.StatusCode != 402 || !strings.Contains(exposed, "PAYMENT-REQUIRED") || !strings.Contains(exposed, "PAYMENT-RESPONSE") {
		t.Fatalf("402: %d expose %q", resp.StatusCode, exposed)
	}
}
