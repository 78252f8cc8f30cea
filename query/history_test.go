package query

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/gofiber/fiber/v3"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
	"github.com/marketintel/mi/query/openapi"
)

// histDay is the UTC day of the history fixture; the server's clock is the
// next day at noon, so histDay is "yesterday".
var (
	histDay = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	histNow = histDay.Add(36 * time.Hour)
)

// newHistoryServer writes a small history (ETHUSD on a DEX and a CEX venue
// for 3 hours of histDay, BTCUSD 40 days earlier at 5m only, signal
// documents and changes) and returns a server over it.
func newHistoryServer(t testing.TB) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	w := histtest.New(t, root)
	var cs []datasets.Candle
	for m := range 180 {
		ts := histDay.Add(time.Duration(m) * time.Minute)
		p := 100 + float64(m%20)
		a := histtest.Flat("ETHUSD", "uniswap_v3_ethereum", ts, p, 2)
		a.VenueKind, a.Chain = "onchain_dex", "ethereum"
		b := histtest.Flat("ETHUSD", "coinbase", ts, p+1, 1)
		cs = append(cs, a, b)
	}
	w.Candles("1m", false, cs)
	old := histtest.Flat("BTCUSD", "raydium", histDay.AddDate(0, 0, -40), 50_000, 1)
	old.VenueKind, old.Chain = "solana_dex", "solana"
	w.Candles("5m", false, []datasets.Candle{old})
	var docs []history.Signal
	var changes []history.Change
	for m := 0; m < 120; m += 10 {
		sig, ev := "BULLISH", "BREAKOUT"
		if m%20 == 10 {
			sig, ev = "BEARISH", "BREAKDOWN"
		}
		ts := histDay.Add(time.Duration(m) * time.Minute)
		docs = append(docs, history.Signal{Time: ts, Symbol: "ETHUSD", ID: "d", Price: 100 + float64(m%20), Confidence: 75,
			Signal: sig, EventType: ev, BaselineSamples: 30, BaselineReady: true, Momentum: 60, Activity: 50, Anomaly: 20})
		changes = append(changes, history.Change{ChangedAt: ts, Symbol: "ETHUSD", Window: "5m", PreviousSignal: "NEUTRAL",
			Signal: sig, EventType: ev, Confidence: 75, Price: 100 + float64(m%20)})
	}
	w.Signals("5m", false, docs)
	w.Changes(false, changes)
	st, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return histNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(Deps{Now: func() time.Time { return histNow }, History: st}), root
}

// get sends a GET with optional Accept and returns the response with its
// body readable again.
func get(t testing.TB, s *Server, target, accept string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.App().Test(req, fiberTestConfig())
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return httptest.NewRequest(http.MethodGet, target, nil), resp, body
}

func TestHistoryRoutesMatchOpenAPI(t *testing.T) {
	s, _ := newHistoryServer(t)
	_, _, doc := get(t, s, openapi.Path, "")
	document, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(document, config.WithStrictMode(), config.WithFormatAssertions(),
		config.WithStrictIgnorePaths("$.body.signals.*", "$.body.confidenceCalibration.*", "$.body.bySignal.*",
			"$.body.byEventType.*", "$.body.byConfidence.*"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	check := func(target string, want int) {
		t.Helper()
		req, resp, body := get(t, s, target, "")
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", target, resp.StatusCode, want, body)
		}
		if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %s\ndoes not match the document:%s", target, body, describeErrors(errs))
		}
	}
	check("/api/v1/intelligence/candles/ETHUSD", 200)
	check("/api/v1/intelligence/candles/ethusd?interval=15m&limit=3", 200)
	check("/api/v1/datasets", 200)
	check("/api/v1/datasets/ETHUSD", 200)
	check("/api/v1/datasets/BTCUSD?date=2025-11-26&interval=1m", 200)
	check("/api/v1/intelligence/query?symbols=ETHUSD,BTCUSD&from=2026-01-05T00:00:00Z&to=2026-01-05T03:00:00Z", 200)
	check("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2026-01-06&signals=regime,momentum", 200)
	check("/api/v1/intelligence/backtest?start=2026-01-05T00:00:00Z&end=2026-01-05T03:00:00Z", 200)
	check("/api/v1/intelligence/backtest?start=2026-01-05T00:00:00Z&end=2026-01-05T03:00:00Z&persist=true&minBaselineSamples=0", 200)
	_, _, stored := get(t, s, "/api/v1/intelligence/backtest?start=2026-01-05T00:00:00Z&end=2026-01-05T02:00:00Z&persist=true", "")
	var run struct{ ID string }
	if err := json.Unmarshal(stored, &run); err != nil || run.ID == "" {
		t.Fatalf("persisted backtest %s %v", stored, err)
	}
	check("/api/v1/intelligence/backtest/"+run.ID, 200)
	check("/api/v1/intelligence/backtest/bt_20260105T000000Z_00000000000000000000000000000000", 404)
	check("/api/v1/intelligence/track-record?days=3", 200)
	check("/api/v1/intelligence/track-record?symbol=ethusd&window=5m", 200)
	check("/track-record", 200)

	check("/api/v1/intelligence/candles/DOGEUSD", 404)
	check("/api/v1/datasets/ETHUSD?date=2026-01-04", 404)
	check("/api/v1/intelligence/query?symbols=ETHUSD&from=2025-01-05T00:00:00Z&to=2025-01-06T00:00:00Z", 404)
	check("/api/v1/intelligence/backtest", 404) // nothing in the last 24 h
	check("/api/v1/intelligence/track-record?window=1m", 404)
	check("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-06&to=2026-01-05", 400)
	check("/api/v1/datasets/ETHUSD?format=xml", 400)
}

func TestHistoryRouteBodies(t *testing.T) {
	s, root := newHistoryServer(t)
	_, resp, body := get(t, s, "/api/v1/intelligence/candles/ETHUSD?limit=2", "")
	var cd struct {
		Candles []struct {
			TS         time.Time `json:"ts"`
			Volume     float64   `json:"volume"`
			TradeCount int64     `json:"tradeCount"`
		} `json:"candles"`
	}
	if err := json.Unmarshal(body, &cd); err != nil || resp.StatusCode != 200 || len(cd.Candles) != 2 {
		t.Fatalf("candles %d %s %v", resp.StatusCode, body, err)
	}
	// Both venues are summed: 2 + 1 base units, 2 + 2 trades.
	if !cd.Candles[1].TS.Equal(histDay.Add(179*time.Minute)) || cd.Candles[1].Volume != 3 || cd.Candles[1].TradeCount != 4 {
		t.Errorf("latest candle %+v", cd.Candles[1])
	}

	// Datasets: only the DEX venue, CSV parses with encoding/csv.
	_, resp, body = get(t, s, "/api/v1/datasets/ETHUSD?format=csv", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		resp.Header.Get("Content-Disposition") != `attachment; filename="ETHUSD_2026-01-05_1m.csv"` {
		t.Fatalf("csv %d %v", resp.StatusCode, resp.Header)
	}
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(recs) != 181 || strings.Join(recs[0], ",") != strings.Join(datasets.CSVHeader, ",") {
		t.Fatalf("csv rows %d %v", len(recs), err)
	}
	if recs[1][2] != "uniswap_v3_ethereum" || recs[1][3] != "onchain_dex" || recs[1][6] != "100" {
		t.Errorf("first csv row %v", recs[1])
	}
	// A finer interval than stored answers the stored one and says so.
	_, _, body = get(t, s, "/api/v1/datasets/BTCUSD?date=2025-11-26&interval=1m", "")
	var ds struct {
		Interval, RequestedInterval string
		Note                        *string
		Venues                      []struct{ Venue string }
	}
	if err := json.Unmarshal(body, &ds); err != nil || ds.Interval != "5m" || ds.RequestedInterval != "1m" || ds.Note == nil || len(ds.Venues) != 1 {
		t.Errorf("coarser day %s %v", body, err)
	}
	// 1h roll-up of the DEX venue: 3 buckets.
	_, _, body = get(t, s, "/api/v1/datasets/ETHUSD?interval=1h", "")
	if err := json.Unmarshal(body, &cd); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte(`"interval":"1h"`)) || bytes.Count(body, []byte(`"ts"`)) != 3 {
		t.Errorf("1h dataset %s", body)
	}
	// Parquet and Arrow.
	_, resp, body = get(t, s, "/api/v1/datasets/ETHUSD?format=parquet", "")
	if resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("PAR1")) {
		t.Errorf("parquet %d %q", resp.StatusCode, body[:min(8, len(body))])
	}
	pq := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(pq, body, 0o644)
	var n int64
	if err := s.d.History.DB().QueryRow(`SELECT count(*) FROM read_parquet(?)`, pq).Scan(&n); err != nil || n != 180 {
		t.Errorf("DuckDB reads %d rows of the Parquet answer: %v", n, err)
	}
	for _, target := range []string{"/api/v1/datasets/ETHUSD", "/api/v1/intelligence/candles/ETHUSD?limit=7",
		"/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2026-01-06"} {
		_, resp, body = get(t, s, target, history.ArrowMIME)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != history.ArrowMIME {
			t.Fatalf("arrow %s: %d %s", target, resp.StatusCode, body)
		}
		r, err := ipc.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		r.Release()
		want := map[bool]int{true: 7, false: 180}[strings.Contains(target, "limit=7")]
		if rows != want {
			t.Errorf("arrow %s: %d rows, want %d", target, rows, want)
		}
	}

	// Query: window, resolution by age, one result per symbol.
	_, _, body = get(t, s, "/api/v1/intelligence/query?symbols=ETHUSD,BTCUSD&from=2026-01-05T00:00:00Z&to=2026-01-05T01:00:00Z&signals=regime", "")
	var q struct {
		Window struct {
			DurationSeconds int64
		}
		Resolution string
		Results    []struct {
			Symbol, Status string
			CandleCount    int
			Signals        map[string]map[string]any
		}
	}
	if err := json.Unmarshal(body, &q); err != nil || q.Window.DurationSeconds != 3600 || q.Resolution != "1m" || len(q.Results) != 2 {
		t.Fatalf("query %s %v", body, err)
	}
	if q.Results[0].CandleCount != 60 || q.Results[1].Status != "no_data" || len(q.Results[0].Signals) != 1 ||
		q.Results[0].Signals["regime"]["latestSignal"] != "BEARISH" {
		t.Errorf("query results %+v", q.Results)
	}
	_, _, body = get(t, s, "/api/v1/intelligence/query?symbols=BTCUSD&from=2025-11-26&to=2025-11-27", "")
	if !bytes.Contains(body, []byte(`"resolution":"15m"`)) {
		t.Errorf("41 days back: %s", body)
	}

	// Backtest persisted: the id names a file under the data dir.
	_, _, body = get(t, s, "/api/v1/intelligence/backtest?start=2026-01-05T00:00:00Z&end=2026-01-05T03:00:00Z&persist=true&minBaselineSamples=1", "")
	var bt history.BacktestResults
	if err := json.Unmarshal(body, &bt); err != nil || bt.ID == "" || bt.MinBaselineSamples != 2 || bt.SignalsEvaluated != 12 {
		t.Fatalf("backtest %s %v", body, err)
	}
	if _, err := os.Stat(filepath.Join(root, history.BacktestDir, bt.ID+".json")); err != nil {
		t.Error(err)
	}
	// The stored run answers free, by its id, the same body.
	_, resp, again := get(t, s, "/api/v1/intelligence/backtest/"+bt.ID, "")
	if resp.StatusCode != 200 || !bytes.Equal(again, body) {
		t.Errorf("GET backtest/%s: %d\n%s\nwant\n%s", bt.ID, resp.StatusCode, again, body)
	}
	for _, id := range []string{"bt_20260105T000000Z_0123456789abcdef0123456789abcdef", "nope", "..%2F..%2Fetc%2Fpasswd",
		"bt_20260105T000000Z_" + strings.Repeat("a", 33), bt.ID + "x", strings.ToUpper(bt.ID)} {
		_, resp, body := get(t, s, "/api/v1/intelligence/backtest/"+id, "")
		if resp.StatusCode != 404 || !bytes.Contains(body, []byte(`"error":"no_data"`)) {
			t.Errorf("GET backtest/%s: %d %s", id, resp.StatusCode, body)
		}
	}
}

func TestHistoryBadInput(t *testing.T) {
	s, _ := newHistoryServer(t)
	many := strings.Repeat("ETHUSD,", 20) + "BTCUSD"
	f := func(target, param string) {
		t.Helper()
		_, resp, body := get(t, s, target, "")
		var e struct {
			Error, Parameter string
			Accepted         any
			Charged          bool
		}
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 400 || e.Parameter != param || e.Accepted == nil || e.Charged {
			t.Errorf("GET %s: %d %s, want 400 naming %s", target, resp.StatusCode, body, param)
		}
	}
	f("/api/v1/intelligence/candles/ETHUSD?interval=2m", "interval")
	f("/api/v1/intelligence/candles/ETHUSD?limit=1001", "limit")
	if _, resp, body := get(t, s, "/api/v1/intelligence/candles/ETH$USD", ""); resp.StatusCode != 404 || !strings.Contains(string(body), `"not_found"`) {
		t.Errorf("a path symbol that is no symbol: %d %s, want 404 not_found", resp.StatusCode, body)
	}
	f("/api/v1/datasets/ETHUSD?date=2026-13-01", "date")
	f("/api/v1/datasets/ETHUSD?date=2026-01-07", "date") // after today
	f("/api/v1/datasets/ETHUSD?date=1999-01-01", "date")
	f("/api/v1/datasets/ETHUSD?date=05-01-2026", "date")
	f("/api/v1/datasets/ETHUSD?format=xlsx", "format")
	f("/api/v1/datasets/ETHUSD?interval=1d", "interval")
	f("/api/v1/intelligence/query?from=2026-01-05&to=2026-01-06", "symbols")
	f("/api/v1/intelligence/query?symbols="+many+"&from=2026-01-05&to=2026-01-06", "symbols")
	f("/api/v1/intelligence/query?symbols=DOGEUSD&from=2026-01-05&to=2026-01-06", "symbols")
	f("/api/v1/intelligence/query?symbols=ETHUSD&to=2026-01-06", "from")
	f("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05", "to")
	f("/api/v1/intelligence/query?symbols=ETHUSD&from=yesterday&to=2026-01-06", "from")
	f("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05T00:00:00Z&to=2026-01-04T00:00:00Z", "to")
	f("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2030-01-01", "to")
	f("/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2026-01-06&signals=momentum,price", "signals")
	f("/api/v1/intelligence/backtest?window=1h", "window")
	f("/api/v1/intelligence/backtest?minConfidence=101", "minConfidence")
	f("/api/v1/intelligence/backtest?minBaselineSamples=-1", "minBaselineSamples")
	f("/api/v1/intelligence/backtest?start=2026-01-06T00:00:00Z&end=2026-01-05T00:00:00Z", "end")
	f("/api/v1/intelligence/backtest?end=2026-02-30T00:00:00Z", "end")
	f("/api/v1/intelligence/backtest?persist=yes", "persist")
	f("/api/v1/intelligence/backtest?symbols=NOPEUSD", "symbols")
	f("/api/v1/intelligence/track-record?days=0", "days")
	f("/api/v1/intelligence/track-record?days=366", "days")
	f("/api/v1/intelligence/track-record?window=2m", "window")
	f("/api/v1/intelligence/track-record?symbol=NOPEUSD", "symbol")
}

// TestHistorySQLInjection sends SQL-injection strings in every parameter of
// every history route: each answers 400 or 404, never 500, and the data
// is intact afterwards.
func TestHistorySQLInjection(t *testing.T) {
	s, root := newHistoryServer(t)
	attacks := []string{`' OR 1=1 --`, `ETHUSD'; DROP TABLE x; --`, `1; COPY (SELECT 1) TO '/tmp/pwn.csv'`,
		`') UNION SELECT * FROM read_csv('/etc/passwd') --`, `ETHUSD" OR ""="`, `%27%20OR%201%3D1`}
	routes := map[string][]string{
		"/api/v1/intelligence/candles/ETHUSD":                                     {"interval", "limit"},
		"/api/v1/datasets/ETHUSD":                                                 {"date", "interval", "format"},
		"/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2026-01-06": {"symbols", "from", "to", "signals"},
		"/api/v1/intelligence/backtest":                                           {"window", "minConfidence", "minBaselineSamples", "start", "end", "symbols", "persist"},
		"/api/v1/intelligence/track-record":                                       {"days", "window", "symbol"},
	}
	for base, params := range routes {
		for _, p := range params {
			for _, a := range attacks {
				u, _ := url.Parse(base)
				q := u.Query()
				q.Set(p, a)
				u.RawQuery = q.Encode()
				_, resp, body := get(t, s, u.String(), "")
				if resp.StatusCode != 400 && resp.StatusCode != 404 {
					t.Errorf("GET %s: %d %s", u, resp.StatusCode, body)
				}
			}
		}
		for _, a := range attacks { // the path symbol
			target := strings.Replace(strings.SplitN(base, "?", 2)[0], "ETHUSD", url.PathEscape(a), 1)
			if !strings.Contains(base, "ETHUSD") || strings.Contains(base, "?") {
				continue
			}
			_, resp, body := get(t, s, target, "")
			if resp.StatusCode != 404 || !strings.Contains(string(body), `"not_found"`) { // no symbol: no route
				t.Errorf("GET %s: %d %s", target, resp.StatusCode, body)
			}
		}
	}
	if _, err := os.Stat("/tmp/pwn.csv"); err == nil {
		t.Error("an injected COPY wrote a file")
	}
	_, resp, _ := get(t, s, "/api/v1/datasets/ETHUSD", "")
	if resp.StatusCode != 200 {
		t.Errorf("data gone after the injection attempts: %d", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(datasets.CandleDir(root, "1m", "2026-01-05", "coinbase"), datasets.DayFileName)); err != nil {
		t.Error(err)
	}
}

func TestHistoryWithoutStore(t *testing.T) {
	s := New(Deps{Now: func() time.Time { return histNow }})
	for _, target := range []string{"/api/v1/intelligence/candles/ETHUSD", "/api/v1/datasets/ETHUSD", "/track-record",
		"/api/v1/intelligence/query?symbols=ETHUSD&from=2026-01-05&to=2026-01-06"} {
		_, resp, body := get(t, s, target, "")
		if resp.StatusCode != 404 || !bytes.Contains(body, []byte(`"charged":false`)) {
			t.Errorf("GET %s: %d %s", target, resp.StatusCode, body)
		}
	}
	_, resp, body := get(t, s, "/api/v1/datasets", "")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"symbols":[]`)) {
		t.Errorf("empty catalog %d %s", resp.StatusCode, body)
	}
}

// fiberTestConfig waits for DuckDB however long the loaded machine takes.
func fiberTestConfig() fiber.TestConfig { return fiber.TestConfig{Timeout: 0} }

func TestHistoryRoutePrices(t *testing.T) {
	want := map[string]int64{
		"GET /api/v1/intelligence/candles/:symbol": 5_000,
		"GET /api/v1/datasets":                     0,
		"GET /api/v1/datasets/:symbol":             20_000,
		"GET /api/v1/intelligence/query":           50_000,
		"GET /api/v1/intelligence/backtest":        50_000,
		"GET /api/v1/intelligence/backtest/:id":    0,
		"GET /api/v1/intelligence/track-record":    5_000,
		"GET /track-record":                        0,
	}
	for _, r := range New(Deps{}).Operations() {
		if p, ok := want[r.Method+" "+r.Path]; ok {
			if r.Price != p {
				t.Errorf("%s %s costs %d, want %d", r.Method, r.Path, r.Price, p)
			}
			delete(want, r.Method+" "+r.Path)
		}
	}
	if len(want) > 0 {
		t.Errorf("routes missing from the table: %v", want)
	}
}

// TestDatasetCatalogOffersOnchainOnly: the catalog lists what
// /api/v1/datasets/{symbol} sells — symbols, venues, days and resolutions
// of the venue kinds onchain_dex and solana_dex — never an exchange's
// (it listed sim_cex, and symbols and days with exchange candles only).
func TestDatasetCatalogOffersOnchainOnly(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	dex := histtest.Flat("ETHUSD", "uniswap_v3_ethereum", histDay, 100, 2)
	dex.VenueKind, dex.Chain = "onchain_dex", "ethereum"
	sol := histtest.Flat("SOLUSD", "raydium", histDay.Add(time.Minute), 150, 1)
	sol.VenueKind, sol.Chain = "solana_dex", "solana"
	w.Candles("1m", false, []datasets.Candle{dex, sol, histtest.Flat("ETHUSD", "sim_cex", histDay, 101, 5)})
	w.Candles("1h", false, []datasets.Candle{histtest.Flat("BTCUSD", "coinbase", histDay.AddDate(0, 0, -3), 50_000, 1)})
	w.Candles("5m", true, []datasets.Candle{histtest.Flat("DOGEUSD", "sim_cex", histDay.AddDate(0, 0, -1), 0.1, 1)})
	st, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return histNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Deps{Now: func() time.Time { return histNow }, History: st})
	_, resp, body := get(t, s, "/api/v1/datasets", "")
	var cat struct {
		Symbols, Venues, VenueKinds, Dates []string
		Resolutions                        []struct{ Interval string }
	}
	if err := json.Unmarshal(body, &cat); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s (%v)", resp.StatusCode, body, err)
	}
	day := histDay.Format("2006-01-02")
	if !slices.Equal(cat.Symbols, []string{"ETHUSD", "SOLUSD"}) || !slices.Equal(cat.Venues, []string{"raydium", "uniswap_v3_ethereum"}) ||
		!slices.Equal(cat.VenueKinds, []string{"onchain_dex", "solana_dex"}) || !slices.Equal(cat.Dates, []string{day}) ||
		len(cat.Resolutions) != 1 || cat.Resolutions[0].Interval != "1m" {
		t.Fatalf("catalog %s", body)
	}
}
