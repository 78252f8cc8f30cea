package perps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// route is what the replay server answers to one request.
type route struct {
	body       []byte
	etag       string    // answer 304 to If-None-Match with it
	date       time.Time // the Date header (the capture's recording time); zero = now
	status     int       // 0 = 200
	retryAfter string
	truncate   bool // promise more bytes than sent (the connection drops mid-body)
}

// replayServer answers the venues' REST endpoints with the real captures.
// GET routes are keyed "GET <path>", Hyperliquid's POST /info by
// "POST <type>[:<dex>]".
type replayServer struct {
	t      *testing.T
	mu     sync.Mutex
	routes map[string]route
	hits   map[string]int
	urls   []string
	srv    *httptest.Server
}

func newReplayServer(t *testing.T) *replayServer {
	s := &replayServer{t: t, routes: map[string]route{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *replayServer) set(key string, r route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[key] = r
}

func (s *replayServer) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[key]
}

func (s *replayServer) handle(w http.ResponseWriter, r *http.Request) {
	key := "GET " + r.URL.Path
	if r.Method == http.MethodPost {
		var req struct {
			Type string `json:"type"`
			Dex  string `json:"dex"`
			Req  struct {
				Coin string `json:"coin"`
			} `json:"req"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &req) != nil {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		key = "POST " + req.Type
		if req.Dex != "" {
			key += ":" + req.Dex
		}
		if req.Req.Coin != "" {
			key += ":" + req.Req.Coin
		}
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "mi-positioning/") {
		s.t.Errorf("User-Agent %q", ua)
	}
	s.mu.Lock()
	s.hits[key]++
	s.urls = append(s.urls, r.URL.String())
	rt, ok := s.routes[key]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if !rt.date.IsZero() {
		w.Header().Set("Date", rt.date.UTC().Format(http.TimeFormat))
	}
	if rt.retryAfter != "" {
		w.Header().Set("Retry-After", rt.retryAfter)
	}
	if rt.status != 0 {
		w.WriteHeader(rt.status)
		w.Write(rt.body)
		return
	}
	if rt.etag != "" {
		w.Header().Set("ETag", rt.etag)
		if r.Header.Get("If-None-Match") == rt.etag {
			s.mu.Lock()
			s.hits["304 "+key]++
			s.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rt.truncate {
		w.Header().Set("Content-Length", strconv.Itoa(len(rt.body)))
		w.WriteHeader(http.StatusOK)
		w.Write(rt.body[:len(rt.body)/2])
		if hj, ok := w.(http.Hijacker); ok {
			c, _, _ := hj.Hijack()
			c.Close()
		}
		return
	}
	w.Write(rt.body)
}

// A clock for the pollers: read times are the test's, never the wall's.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newPoller(t *testing.T, cfg Config) *Poller {
	t.Helper()
	cfg.Spacing = time.Nanosecond
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hlRecorded is the recording time of the Hyperliquid cassettes.
var hlRecorded = time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC)

func serveCaptures(t *testing.T, s *replayServer) {
	s.set("GET /fapi/v1/premiumIndex", route{body: fixture(t, "binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json"), etag: `"p1"`})
	s.set("GET /futures/data/openInterestHist", route{body: fixture(t, "binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json")})
	s.set("GET /futures/data/globalLongShortAccountRatio", route{body: fixture(t, "binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json")})
	s.set("GET /v5/market/tickers", route{body: bybitRESTTickers(t, 1786310820000)})
	s.set("GET /v5/market/open-interest", route{body: fixture(t, "bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json")})
	s.set("POST metaAndAssetCtxs", route{body: fixture(t, "hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"), date: hlRecorded})
	s.set("POST metaAndAssetCtxs:xyz", route{body: fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json"), date: hlRecorded})
}

// From the venues' answers to the route answer and the funding_extreme
// events: three pollers read the real captures from a local server, their
// records go through the positioning view and the detector, twice.
func TestPollToAnswerAndFundingExtreme(t *testing.T) {
	s := newReplayServer(t)
	serveCaptures(t, s)
	clk := &testClock{now: time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC)}
	bn := newPoller(t, Config{Venue: VenueBinance, URL: s.srv.URL, Symbols: []string{"BTCUSDT"}, Now: clk.Now})
	by := newPoller(t, Config{Venue: VenueBybit, URL: s.srv.URL, Symbols: []string{"BTCUSDT"}, Now: clk.Now})
	hl := newPoller(t, Config{Venue: VenueHyperliquid, URL: s.srv.URL, Dexes: []string{"", "xyz"}, Now: clk.Now})
	view := views.NewPositioning()
	det := operators.NewFundingExtremeDetector()
	var events []operators.AlertEvent
	poll := func() {
		for _, p := range []*Poller{bn, by, hl} {
			out, err := p.Poll(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			if len(out.DeadLetters) != 0 {
				t.Fatalf("%s dead letters: %+v", p.Name(), out.DeadLetters)
			}
			for _, r := range out.Snapshots {
				if err := view.Apply(r); err != nil {
					t.Fatal(err)
				}
				events = det.Push(r, events)
			}
		}
	}
	poll()
	// Binance's first poll asks 24 h of history; fundingInfo is not served:
	// every symbol pays every 8 h by default, and the poll is degraded.
	if !strings.Contains(strings.Join(s.urls, " "), "limit=289") || bn.Freshness().State != StateDegraded {
		t.Fatalf("first poll: %v, state %s", s.urls, bn.Freshness().State)
	}
	clk.add(5 * time.Minute)
	s.urls = nil
	poll()
	if strings.Contains(strings.Join(s.urls, " "), "limit=289") || s.count("GET /v5/market/open-interest") != 1 {
		t.Fatalf("second poll backfilled again: %v", s.urls)
	}
	// The second premiumIndex was a 304: the cached body served.
	if s.count("GET /fapi/v1/premiumIndex") != 2 || s.count("304 GET /fapi/v1/premiumIndex") != 1 {
		t.Fatal("premiumIndex not asked conditionally")
	}

	a, err := view.Answer("BTCUSD", clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byVenue := map[string]views.PositioningVenue{}
	for _, v := range a.Venues {
		byVenue[v.Venue] = v
	}
	// Figures from the captures: Binance 13:00 open interest and its 1 h
	// change against 12:00 (−0.0345 %), Bybit's ticker, Hyperliquid's BTC.
	b, y, h := byVenue["binance"], byVenue["bybit"], byVenue["hyperliquid"]
	if b.OpenInterest != 108833.193 || b.Change1hPercent == nil || *b.Change1hPercent != -0.0345 || b.LongShort == nil || b.LongShort.LongShare != 0.6575 ||
		b.Funding.AnnualizedPercent != 10.0138 || !b.Stale {
		t.Fatalf("binance row %+v", b)
	}
	if y.OpenInterestUSD != 3899996265.01 || y.Funding.IntervalHours != 8 || h.OpenInterest != 22727.78266 || !h.ObservedAt.Equal(hlRecorded) {
		t.Fatalf("bybit %+v hyperliquid %+v", y, h)
	}
	// The captures are months old and of three different days: every row is
	// stale with its age, and only the newest day's venue (Bybit, 9 Aug) is
	// summed; the others are listed as excluded, never presented as current.
	if !a.Stale || a.Totals.Venues != 1 || len(a.Totals.Excluded) != 2 || a.Flag != operators.FlagNone || h.AgeSeconds < 86400*290 {
		t.Fatalf("answer %+v totals %+v", a, a.Totals)
	}
	// A stock perp of the HIP-3 dex.
	if ts, err := view.Answer("TSLAUSD", clk.Now(), nil); err != nil || ts.Venues[0].VenueSymbol != "xyz:TSLA" || ts.AssetClass != "us_equity" {
		t.Fatalf("%+v %v", ts, err)
	}

	// funding_extreme: the Hyperliquid capture has seven perps above $5M
	// of open interest with funding beyond the thresholds (SOL −61.54 %/yr,
	// XRP −54.51, APT −55.13, TRX −27.70, VIRTUAL −45.51, TRUMP −102.22, MON
	// −161.19; all shorts crowded). They fire on the first poll only.
	want := map[string]float64{"SOL": -61.54, "XRP": -54.51, "APT": -55.13, "TRX": -27.70, "VIRTUAL": -45.51, "TRUMP": -102.22, "MON": -161.19}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for _, e := range events {
		var d operators.FundingExtremeData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		w, ok := want[d.VenueSymbol]
		if !ok || d.Side != operators.FundingShortsCrowded || d.Venue != "hyperliquid" || d.FundingIntervalHours != 1 ||
			math.Abs(d.AnnualizedFundingPercent-w) > 0.005 || d.OpenInterestUSD <= 5e6 || !e.OccurredAt.Equal(hlRecorded) {
			t.Fatalf("event %s %+v", e.Symbol, d)
		}
	}
}

// A venue that rate-limits, answers a truncated body, answers malformed JSON,
// or is down: the poll reports it, dead-letters the malformed answer, waits
// for Retry-After without sending, and says once that the venue is
// unreachable.
func TestPollFaults(t *testing.T) {
	s := newReplayServer(t)
	serveCaptures(t, s)
	clk := &testClock{now: time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC)}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	obs := &stateLog{}
	by := newPoller(t, Config{Venue: VenueBybit, URL: s.srv.URL, Symbols: []string{"BTCUSDT"}, Now: clk.Now, Logger: log, Observer: obs})

	// 429 with Retry-After: 120 s.
	s.set("GET /v5/market/tickers", route{status: http.StatusTooManyRequests, retryAfter: "120", body: []byte(`{"retCode":10006,"retMsg":"Too many visits!"}`)})
	out, err := by.Poll(context.Background())
	var rl *RateLimitError
	if !errors.Is(err, ErrNothingRead) || !errors.As(err, &rl) || rl.Status != 429 || !rl.Until.Equal(clk.Now().Add(120*time.Second)) {
		t.Fatalf("%v", err)
	}
	f := by.Freshness()
	if f.State != StateRateLimited || !f.BlockedUntil.Equal(rl.Until) || len(out.Snapshots) != 0 {
		t.Fatalf("%+v", f)
	}
	// Within the wait nothing is sent to the host.
	before := s.count("GET /v5/market/tickers") + s.count("GET /v5/market/account-ratio")
	clk.add(60 * time.Second)
	if _, err := by.Poll(context.Background()); !errors.As(err, &rl) {
		t.Fatal(err)
	}
	if after := s.count("GET /v5/market/tickers") + s.count("GET /v5/market/account-ratio"); after != before {
		t.Fatalf("%d requests sent during Retry-After", after-before)
	}
	// Binance 418 (IP ban) is the same (another host).
	s2 := newReplayServer(t)
	bn := newPoller(t, Config{Venue: VenueBinance, URL: s2.srv.URL, Symbols: []string{"BTCUSDT"}, Now: clk.Now})
	s2.set("GET /fapi/v1/premiumIndex", route{status: http.StatusTeapot, retryAfter: "600"})
	if _, err := bn.Poll(context.Background()); !errors.As(err, &rl) || rl.Status != http.StatusTeapot {
		t.Fatal(err)
	}

	// After the wait: the venue answers again.
	clk.add(61 * time.Second)
	serveCaptures(t, s)
	if out, err := by.Poll(context.Background()); err != nil || len(out.Snapshots) != 4 {
		t.Fatalf("%d snapshots, %v, %v", len(out.Snapshots), out.Failures, err)
	}
	if by.Freshness().State != StateOK && by.Freshness().State != StateDegraded {
		t.Fatalf("%+v", by.Freshness())
	}

	// Truncated body on the xyz dex: that request fails, the main dex's
	// records are still produced (a partial answer).
	hl := newPoller(t, Config{Venue: VenueHyperliquid, URL: s.srv.URL, Dexes: []string{"", "xyz"}, Now: clk.Now, Logger: log})
	s.set("POST metaAndAssetCtxs:xyz", route{body: fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json"), truncate: true})
	out, err = hl.Poll(context.Background())
	if err != nil || len(out.Failures) != 1 || len(out.Snapshots) != 225 || hl.Freshness().State != StateDegraded {
		t.Fatalf("%d snapshots, %v, %v", len(out.Snapshots), out.Failures, err)
	}
	// Malformed JSON (half an answer with a correct length): a dead letter
	// whose reason starts "malformed json", with the raw answer.
	xyz := fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json")
	s.set("POST metaAndAssetCtxs:xyz", route{body: xyz[:len(xyz)/2]})
	out, _ = hl.Poll(context.Background())
	if len(out.DeadLetters) != 1 || !strings.HasPrefix(out.DeadLetters[0].Reason, "malformed json: hyperliquid metaAndAssetCtxs") ||
		!bytes.Equal(out.DeadLetters[0].Raw, xyz[:len(xyz)/2]) {
		t.Fatalf("%+v", out.DeadLetters)
	}

	// Down: every poll fails; the warning is logged once, recovery once.
	s.srv.Close()
	for i := 0; i < 3; i++ {
		clk.add(5 * time.Minute)
		if _, err := hl.Poll(context.Background()); !errors.Is(err, ErrNothingRead) {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), `positioning source unreachable; retrying" source=poll:hyperliquid`); n != 1 {
		t.Fatalf("logged unreachable %d times:\n%s", n, logs.String())
	}
	if f := hl.Freshness(); f.State != StateUnreachable || f.ConsecutiveFailures != 3 || f.LastError == "" || !f.LastSuccess.Before(f.LastAttempt) {
		t.Fatalf("%+v", f)
	}
	if !obs.saw(StateRateLimited) || !obs.saw(StateOK) && !obs.saw(StateDegraded) {
		t.Fatalf("observer states %v", obs.states)
	}
}

type stateLog struct {
	mu     sync.Mutex
	states []string
}

func (o *stateLog) SetState(name, state string, err error) {
	o.mu.Lock()
	o.states = append(o.states, state)
	o.mu.Unlock()
}
func (o *stateLog) Reconnect(string)                 {}
func (o *stateLog) Gap(string, int64, int64, string) {}
func (o *stateLog) saw(s string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, x := range o.states {
		if x == s {
			return true
		}
	}
	return false
}

var _ sources.Observer = (*stateLog)(nil)

// Run waits for the aligned slots (k·5m + 30 s) and retries a failed poll
// with backoff, never before Retry-After.
func TestRunSchedule(t *testing.T) {
	s := newReplayServer(t)
	serveCaptures(t, s)
	clk := &testClock{now: time.Date(2026, 11, 26, 10, 3, 10, 0, time.UTC)}
	var slept []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hl := newPoller(t, Config{Venue: VenueHyperliquid, URL: s.srv.URL, Now: clk.Now,
		Sleep: func(ctx context.Context, d time.Duration) error {
			slept = append(slept, d)
			if len(slept) == 4 {
				cancel()
				return ctx.Err()
			}
			clk.add(d)
			return nil
		}})
	var outs []Output
	first := true
	err := hl.Run(ctx, func(o Output) {
		outs = append(outs, o)
		if first {
			// The next poll is rate-limited for 400 s.
			s.set("POST metaAndAssetCtxs", route{status: 429, retryAfter: "400"})
			first = false
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	// 10:03:10 → 10:05:30 (2m20s); → 10:10:30 (5m): 429, Retry-After 400 s;
	// the 10:15:30 slot is skipped, the poll waits for 10:17:10 (6m40s):
	// 429 again, so 10:20:30 is skipped too, until 10:23:50 (6m40s).
	if len(slept) != 4 || slept[0] != 2*time.Minute+20*time.Second || slept[1] != 5*time.Minute ||
		slept[2] != 6*time.Minute+40*time.Second || slept[3] != 6*time.Minute+40*time.Second {
		t.Fatalf("slept %v", slept)
	}
	if len(outs) != 1 || len(outs[0].Snapshots) != 225 {
		t.Fatalf("%d outputs", len(outs))
	}
	if got := nextSlot(time.Date(2026, 11, 26, 10, 5, 30, 0, time.UTC), 5*time.Minute, 30*time.Second); !got.Equal(time.Date(2026, 11, 26, 10, 10, 30, 0, time.UTC)) {
		t.Fatalf("nextSlot at a slot = %v", got)
	}
}

func TestConfigOf(t *testing.T) {
	c, err := sources.ParseConfig([]byte(`{"sources":[
		{"kind":"positioning","name":"poll:binance-usdm","venue":"binance","url":"http://127.0.0.1:1","symbols":["BTCUSDT"],"interval":"5m","currentOpenInterest":true},
		{"kind":"prediction-markets","name":"poll:hl-outcomes","venue":"hyperliquid","interval":"15m","maxMarkets":10},
		{"kind":"positioning","venue":"kraken"},
		{"kind":"positioning","venue":"binance"},
		{"kind":"positioning","venue":"bybit","interval":"5 minutes"},
		{"kind":"positioning","venue":"bybit","colour":"red"},
		{"kind":"prediction-markets","venue":"bybit"},
		{"kind":"positioning","venue":"hyperliquid","dexes":["XYZ"]},
		{"kind":"positioning","venue":"hyperliquid","url":"ftp://x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "", "venue \"kraken\"", "needs symbols", "not a positive duration", "unknown field", "lists no prediction markets", "lower-case", "not an http(s) URL"}
	for i, sc := range c.Sources {
		cfg, err := ConfigOf(sc, sources.Env{})
		if want[i] == "" {
			if err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want[i]) {
			t.Fatalf("entry %d: %v, want an error with %q (%+v)", i, err, want[i], cfg)
		}
	}
	cfg, _ := ConfigOf(c.Sources[1], sources.Env{})
	if !cfg.Prediction || cfg.Interval != 15*time.Minute || cfg.MaxMarkets != 10 {
		t.Fatalf("%+v", cfg)
	}
}

// The prediction-market poller reads outcomeMeta, allMids and the outcome
// candles (hand-made answers: no capture exists); a move of 10 points
// within the hour fires prediction_market_move.
func TestOutcomePollerAndMove(t *testing.T) {
	s := newReplayServer(t)
	meta := handmade(t, "outcomeMeta_handmade.json")
	mids := handmade(t, "allMids_outcomes_handmade.json")
	candles := handmade(t, "candleSnapshot_outcome_handmade.json")
	day := time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC)
	s.set("POST outcomeMeta", route{body: meta})
	s.set("POST allMids", route{body: mids, date: day})
	s.set("POST candleSnapshot:#22430", route{body: candles})
	clk := &testClock{now: day.Add(time.Minute)}
	p := newPoller(t, Config{Venue: VenueHyperliquid, Prediction: true, URL: s.srv.URL, Now: clk.Now})
	if p.Interval() != 15*time.Minute || p.Name() != "poll:hyperliquid-outcomes" {
		t.Fatalf("%s %s", p.Name(), p.Interval())
	}
	det := operators.NewPredictionMoveDetector()
	var events []operators.AlertEvent
	out, err := p.Poll(context.Background())
	if err != nil || len(out.Quotes) != 5 {
		t.Fatalf("%d quotes, %v, %v", len(out.Quotes), out.Failures, err)
	}
	for _, q := range out.Quotes {
		events = det.Push(q, events)
	}
	// Candles of 5 priced live outcomes × 2 sides were asked; one served.
	if n := len(out.Failures); n != 9 {
		t.Fatalf("%d failures: %v", n, out.Failures)
	}
	// 45 minutes later the BTC market moved from 0.455 to 0.62.
	s.set("POST allMids", route{body: bytes.Replace(mids, []byte(`"#22430":"0.455"`), []byte(`"#22430":"0.62"`), 1), date: day.Add(45 * time.Minute)})
	clk.add(45 * time.Minute)
	out, err = p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range out.Quotes {
		events = det.Push(q, events)
	}
	if len(events) != 1 {
		t.Fatalf("%d events", len(events))
	}
	var d operators.PredictionMoveData
	if err := json.Unmarshal(events[0].Data, &d); err != nil {
		t.Fatal(err)
	}
	// The hand-made candles hold 12,000 × 0.43 + 8,000 × 0.455 = $8,800 of
	// volume within the 24 h: above $5,000.
	if d.MarketID != "2243" || d.FromProbability != 0.455 || d.ToProbability != 0.62 || d.Direction != operators.MoveUp ||
		d.Question != "Is BTC above 71169 at 2026-03-27 03:00 UTC?" || d.Category != CategoryCryptoPrice || events[0].Symbol != "BTCUSD" {
		t.Fatalf("%+v", d)
	}
	var _ = schemas.TopicPredictionMarkets
}
