package query

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/stats"
)

func TestMetrics(t *testing.T) {
	st := stats.New()
	st.SetState("ws:binance", "running", nil)
	st.Trade("ws:binance", testNow.Add(-3*time.Second).UnixNano(), testNow.Add(-2500*time.Millisecond).UnixNano())
	st.Reconnect("ws:binance")
	st.Gap("ws:binance", testNow.Add(-10*time.Second).UnixNano(), testNow.Add(-6*time.Second).UnixNano(), "disconnected")
	st.Reject("ws:binance", "venue error: Invalid request")
	st.SetState("ws:kraken", "unreachable", nil)
	proc := fixedOps{Trades: 7}
	st.AttachOperators(proc)
	s := newTestServer(st, nil, fullDoc())
	app := s.App()
	do(t, app, http.MethodGet, "/healthz")
	do(t, app, http.MethodGet, "/api/v1/intelligence?window=1h")
	do(t, app, http.MethodGet, "/nope")
	status, ct, body := do(t, app, http.MethodGet, "/metrics")
	if status != 200 || !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET /metrics: %d %s", status, ct)
	}
	for _, want := range []string{
		`mi_source_trades_total{source="ws:binance"} 1`,
		`mi_source_reconnects_total{source="ws:binance"} 1`,
		`mi_source_gaps_total{source="ws:binance"} 1`,
		`mi_source_gap_seconds_total{source="ws:binance"} 4`,
		`mi_source_freshness_seconds{source="ws:binance"} 2.5`,
		`mi_source_lag_seconds{source="ws:binance"} 0.5`,
		`mi_source_up{source="ws:kraken",state="unreachable"} 1`,
		`mi_dead_letters_total{reason="venue error"} 1`,
		`mi_operator_events_total{kind="trades"} 7`,
		`mi_sink_views_documents 1`,
		`mi_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`mi_http_requests_total{method="GET",route="/api/v1/intelligence",status="400"} 1`,
		`mi_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`mi_http_request_duration_seconds_count{method="GET",route="/healthz"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

// /metrics and a /status with live-source fields match the document.
func TestOpenAPIMetricsAndLiveStatus(t *testing.T) {
	f := newOpenAPIFixture(t)
	for _, target := range []string{"/metrics", "/status"} {
		req, resp, body := f.send(t, http.MethodGet, target)
		if ok, errs := f.v.ValidateHttpResponse(req, resp); resp.StatusCode != 200 || !ok {
			t.Fatalf("GET %s %d %s:%s", target, resp.StatusCode, body, describeErrors(errs))
		}
	}
	st := stats.New()
	st.SetState("ws:coinbase", "reconnecting", nil)
	st.Trade("ws:coinbase", testNow.Add(-3*time.Second).UnixNano(), testNow.Add(-2*time.Second).UnixNano())
	st.Gap("ws:coinbase", 1, 2, "missed trades: 3 trade ids 10..12 of BTC-USD")
	g := *f
	g.app = newTestServer(st, nil).App()
	req, resp, body := g.send(t, http.MethodGet, "/status")
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok || !strings.Contains(string(body), `"lagMs":1000,"gaps":1,"lastGap":"missed trades: 3 trade ids 10..12 of BTC-USD"`) {
		t.Fatalf("GET /status %s:%s", body, describeErrors(errs))
	}
}
