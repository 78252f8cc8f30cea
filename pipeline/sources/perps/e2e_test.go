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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/perps/perpsreplay"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/sinks/views"
)

// hlRecorded is the recording time of the Hyperliquid cassettes: the Date
// header the replay serves.
var hlRecorded = perpsreplay.HyperliquidRecorded

// replayRoutes are the captures at the venues' paths (perpsreplay).
func replayRoutes(t testing.TB) []pubreplay.Route {
	rs, err := perpsreplay.Routes(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func listen(t *testing.T, routes []pubreplay.Route) (*pubreplay.Server, string) {
	t.Helper()
	s, err := pubreplay.New(routes)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return s, l.URL
}

// testClient is a poll client of its own (own host limits: every test
// server is 127.0.0.1) on clk, without rate limits.
func testClient(clk clock.Clock) *poll.Client {
	cfg := sources.HTTPConfig{UserAgent: "mi-test/1", DefaultLimit: &sources.Limit{Rate: 0}}
	return poll.NewClient(cfg, poll.Options{Clock: clk, Hosts: poll.NewHosts(clk, cfg)})
}

func newPoller(t *testing.T, clk clock.Clock, cfg Config) *Poller {
	t.Helper()
	cfg.Clock = clk
	if cfg.Client == nil {
		cfg.Client = testClient(clk)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// From the venues' answers to the route answer and the funding_extreme
// events: three pollers read the real captures from the publisher replay
// server, their records go through the positioning view and the detector,
// twice.
func TestPollToAnswerAndFundingExtreme(t *testing.T) {
	srv, url := listen(t, replayRoutes(t))
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	bn := newPoller(t, clk, Config{Venue: VenueBinance, URL: url, Symbols: []string{"BTCUSDT"}})
	by := newPoller(t, clk, Config{Venue: VenueBybit, URL: url, Symbols: []string{"BTCUSDT"}})
	hl := newPoller(t, clk, Config{Venue: VenueHyperliquid, URL: url, Dexes: []string{"", "xyz"}})
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
	// fundingInfo, instruments-info and Bybit's account ratio are not
	// served (no capture): Binance pays every 8 h by default, Bybit takes
	// the ticker's interval, the rows have no Bybit share.
	misses := strings.Join(srv.Misses(), " ")
	if !strings.Contains(misses, "/fapi/v1/fundingInfo") || !strings.Contains(misses, "/v5/market/account-ratio") {
		t.Fatalf("misses %s", misses)
	}
	clk.Advance(5 * time.Minute)
	poll()
	// The first poll backfilled (limit=289, 15-minute Bybit history); the
	// second did not ask the history again.
	if srv.Requests("/v5/market/open-interest") != 1 || srv.Requests("/futures/data/openInterestHist") != 2 {
		t.Fatalf("history asked %d / %d times", srv.Requests("/v5/market/open-interest"), srv.Requests("/futures/data/openInterestHist"))
	}

	a, err := view.Answer("BTCUSD", clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byVenue := map[string]views.PositioningVenue{}
	for _, v := range a.Venues {
		byVenue[v.Venue] = v
	}
	// Figures from the captures: Binance's 13:00 open interest and its 1 h
	// change against 12:00 (−0.0345 %), Bybit's ticker, Hyperliquid's BTC.
	b, y, h := byVenue["binance"], byVenue["bybit"], byVenue["hyperliquid"]
	if b.OpenInterest != 108833.193 || b.Change1hPercent == nil || *b.Change1hPercent != -0.0345 || b.LongShort == nil || b.LongShort.LongShare != 0.6575 ||
		b.Funding.AnnualizedPercent != 10.0138 || b.Funding.IntervalSource != "default" || !b.Stale {
		t.Fatalf("binance row %+v", b)
	}
	if y.OpenInterestUSD != 3899996265.01 || y.Funding.IntervalHours != 8 || y.LongShort != nil || h.OpenInterest != 22727.78266 || !h.ObservedAt.Equal(hlRecorded) {
		t.Fatalf("bybit %+v hyperliquid %+v", y, h)
	}
	// The captures are months old and of three different days: every row is
	// stale with its age, and only the newest day's venue (Bybit, 9 Aug) is
	// summed; the others are listed as excluded, never presented as current.
	if !a.Stale || a.Totals.Venues != 1 || len(a.Totals.Excluded) != 2 || a.Flag != operators.FlagNone || h.AgeSeconds < 86400*290 {
		t.Fatalf("answer %+v totals %+v", a, a.Totals)
	}
	// A stock perp of the HIP-3 dex.
	if ts, err := view.Answer("TSLA", clk.Now(), nil); err != nil || ts.Venues[0].VenueSymbol != "xyz:TSLA" || ts.AssetClass != "us_equity" {
		t.Fatalf("%+v %v", ts, err)
	}

	// funding_extreme: the Hyperliquid capture has seven perps above $5M
	// of open interest with funding beyond the thresholds, all shorts
	// crowded. They fire on the first poll only.
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

// 304s: the pollers ask conditionally and use the answer they kept. The
// replay server answers the second and third polls 304 with no body, so only
// the kept answer can give the four tickers again.
func TestPollNotModified(t *testing.T) {
	srv, url := listen(t, replayRoutes(t))
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	by := newPoller(t, clk, Config{Venue: VenueBybit, URL: url, NoBackfill: true})
	var first []byte
	for i := 0; i < 3; i++ {
		out, err := by.Poll(context.Background())
		if err != nil || len(out.Snapshots) != 4 {
			t.Fatalf("poll %d: %d snapshots, %v", i, len(out.Snapshots), err)
		}
		b, _ := json.Marshal(out.Snapshots)
		if first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("poll %d built other records from the kept answer", i)
		}
	}
	if srv.Requests("/v5/market/tickers") != 3 {
		t.Fatal("tickers not asked each poll")
	}
}

// A venue that rate-limits, answers a truncated body, answers malformed JSON,
// or is down: the poll reports it, dead-letters the malformed answer, and
// sends nothing before Retry-After.
func TestPollFaults(t *testing.T) {
	srv, url := listen(t, replayRoutes(t))
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	by := newPoller(t, clk, Config{Venue: VenueBybit, URL: url, Symbols: []string{"BTCUSDT"}})

	// 429 with Retry-After: 120 s.
	srv.Inject("/v5/market/tickers", pubreplay.Fault{Status: http.StatusTooManyRequests, RetryAfter: "120"})
	out, err := by.Poll(context.Background())
	var te *poll.ThrottledError
	if !errors.Is(err, ErrNothingRead) || !errors.As(err, &te) || te.Status != 429 || !te.Until.Equal(clk.Now().Add(120*time.Second)) || len(out.Snapshots) != 0 {
		t.Fatalf("%v", err)
	}
	// Within the wait nothing is sent to the host.
	before := srv.Requests("/v5/market/tickers") + srv.Requests("/v5/market/account-ratio")
	clk.Advance(60 * time.Second)
	if _, err := by.Poll(context.Background()); !errors.As(err, &te) || !te.Early {
		t.Fatal(err)
	}
	if after := srv.Requests("/v5/market/tickers") + srv.Requests("/v5/market/account-ratio"); after != before {
		t.Fatalf("%d requests sent during Retry-After", after-before)
	}
	// After the wait the venue answers again.
	clk.Advance(61 * time.Second)
	if out, err := by.Poll(context.Background()); err != nil || len(out.Snapshots) < 4 {
		t.Fatalf("%d snapshots, %v, %v", len(out.Snapshots), out.Failures, err)
	}

	// Binance's 418 (an IP ban) is the same, with Banned.
	bn := newPoller(t, clk, Config{Venue: VenueBinance, URL: url, Symbols: []string{"BTCUSDT"}})
	srv.Inject("/fapi/v1/premiumIndex", pubreplay.Fault{Status: http.StatusTeapot, RetryAfter: "600"})
	out, err = bn.Poll(context.Background())
	if !errors.As(err, &te) || !te.Banned() {
		t.Fatalf("%v (%v)", err, out.Failures)
	}

	// A truncated answer on the main dex: that request fails, the xyz dex's
	// records are still produced (a partial answer, a success).
	hl := newPoller(t, clk, Config{Venue: VenueHyperliquid, URL: url, Dexes: []string{"", "xyz"}})
	srv.Inject("/info", pubreplay.Fault{Truncate: 1000})
	out, err = hl.Poll(context.Background())
	if err != nil || len(out.Failures) != 1 || !errors.Is(out.Failures[0], poll.ErrTruncated) || len(out.Snapshots) != 43 {
		t.Fatalf("%d snapshots, %v, %v", len(out.Snapshots), out.Failures, err)
	}

	// Malformed JSON (half an answer with its right length): a dead letter
	// whose reason starts "malformed json", with the raw answer.
	xyz := fixture(t, "hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json")
	_, badURL := listen(t, []pubreplay.Route{{Method: "POST", Path: "/info", Body: xyz[:len(xyz)/2]}})
	hb := newPoller(t, clk, Config{Venue: VenueHyperliquid, URL: badURL, Dexes: []string{"xyz"}})
	out, err = hb.Poll(context.Background())
	if !errors.Is(err, ErrNothingRead) || len(out.DeadLetters) != 1 || !strings.HasPrefix(out.DeadLetters[0].Reason, "malformed json: hyperliquid metaAndAssetCtxs") ||
		!bytes.Equal(out.DeadLetters[0].Raw, xyz[:len(xyz)/2]) {
		t.Fatalf("%v %+v", err, out.DeadLetters)
	}
}

// Run polls at start and then on the aligned slots (k·5m + 30 s); a failed
// poll is retried, never before Retry-After; Health says once that the
// venue is unreachable and once that it recovered; a venue that is down
// leaves the poller retrying.
func TestRunSchedule(t *testing.T) {
	srv, url := listen(t, replayRoutes(t))
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 3, 10, 0, time.UTC))
	var logs bytes.Buffer
	reg := sources.NewRegistry(slog.New(slog.NewTextHandler(&logs, nil)), clk)
	hl := newPoller(t, clk, Config{Venue: VenueHyperliquid, URL: url, Health: reg.Register("poll:hyperliquid", "perps", url)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outs := make(chan Output, 8)
	done := make(chan error, 1)
	go func() { done <- hl.Run(ctx, func(o Output) { outs <- o }) }()
	next := func(want time.Time) {
		t.Helper()
		if err := clk.BlockUntil(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if d, _ := clk.Next(); !d.Equal(want) {
			t.Fatalf("next poll at %v, want %v", d, want)
		}
		clk.AdvanceTo(want)
	}
	if o := <-outs; len(o.Snapshots) != 225 { // at start
		t.Fatalf("%d snapshots", len(o.Snapshots))
	}
	srv.Inject("/info", pubreplay.Fault{Status: 429, RetryAfter: "400"})
	next(time.Date(2026, 11, 26, 10, 5, 30, 0, time.UTC)) // the first slot: 429
	// The retry waits for Retry-After (10:12:10), past the 10:10:30 slot.
	next(time.Date(2026, 11, 26, 10, 12, 10, 0, time.UTC))
	if o := <-outs; len(o.Snapshots) != 225 {
		t.Fatalf("%d snapshots after the wait", len(o.Snapshots))
	}
	// The output is emitted from inside the poll, before the poller records
	// its success: wait until the poller sleeps again on the clock.
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f := hl.Freshness()
	if f.State != "ok" || f.ConsecutiveFailures != 0 || !strings.Contains(f.LastError, "429") || !f.LastData.Equal(hlRecorded) {
		t.Fatalf("%+v", f)
	}
	next(time.Date(2026, 11, 26, 10, 15, 30, 0, time.UTC))
	<-outs
	if n := strings.Count(logs.String(), "source unreachable"); n != 1 || !strings.Contains(logs.String(), "source recovered") {
		t.Fatalf("logs:\n%s", logs.String())
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
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
		{"kind":"positioning","venue":"hyperliquid","url":"ftp://x"},
		{"kind":"positioning","venue":"bybit","interval":"5m","offset":"6m"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "", "venue \"kraken\"", "needs symbols", "not a positive duration", "unknown field", "lists no prediction markets", "lower-case", "not an http(s) URL", "not within the interval"}
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
// candles (hand-made answers: no capture exists, see testdata/README.md); a
// move of 10 points within the hour fires prediction_market_move.
func TestOutcomePollerAndMove(t *testing.T) {
	meta := handmade(t, "outcomeMeta_handmade.json")
	mids := handmade(t, "allMids_outcomes_handmade.json")
	candles := handmade(t, "candleSnapshot_outcome_handmade.json")
	day := time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC)
	server := func(mids []byte, at time.Time) *pubreplay.Server {
		s, err := pubreplay.New([]pubreplay.Route{
			{Method: "POST", Path: "/info", BodyContains: `"outcomeMeta"`, Body: meta},
			{Method: "POST", Path: "/info", BodyContains: `"allMids"`, Body: mids, Header: http.Header{"Date": {at.Format(http.TimeFormat)}}},
			{Method: "POST", Path: "/info", BodyContains: `"coin":"#22430"`, Body: candles},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Two recorded states behind one address: before and after the move.
	var cur atomic.Pointer[pubreplay.Server]
	cur.Store(server(mids, day))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cur.Load().ServeHTTP(w, r) }))
	defer hs.Close()
	clk := clock.NewFake(day.Add(time.Minute))
	p := newPoller(t, clk, Config{Venue: VenueHyperliquid, Prediction: true, URL: hs.URL})
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
	// Candles of 5 priced live outcomes × 2 sides were asked; one is served.
	if n := len(out.Failures); n != 9 {
		t.Fatalf("%d failures: %v", n, out.Failures)
	}
	// 45 minutes later the BTC market moved from 0.455 to 0.62.
	cur.Store(server(bytes.Replace(mids, []byte(`"#22430":"0.455"`), []byte(`"#22430":"0.62"`), 1), day.Add(45*time.Minute)))
	clk.Advance(45 * time.Minute)
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
		d.Question != "Is BTC above 71169 at 2026-03-27 03:00 UTC?" || d.Category != CategoryCryptoPrice || events[0].Symbol != "BTCUSD" ||
		d.Volume24hUSD != 8800 {
		t.Fatalf("%+v", d)
	}
}

// The poller as a live source of side records: the ingest loop reads each
// snapshot as a record of mi.positioning.v1 keyed venue|venue_symbol, whose
// value decodes to the snapshot; Close stops the poller.
func TestSourceYieldsSideRecords(t *testing.T) {
	_, url := listen(t, replayRoutes(t))
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 30, 0, time.UTC))
	p := newPoller(t, clk, Config{Venue: VenueHyperliquid, URL: url, Dexes: []string{"xyz"}})
	want, err := p.Poll(context.Background()) // what one poll gives, for comparison
	if err != nil {
		t.Fatal(err)
	}
	src := NewSource(p)
	var _ sources.Source = src
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, s := range want.Snapshots {
		r, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Side == nil || r.Side.Topic != "mi.positioning.v1" || string(r.Side.Key) != "hyperliquid|"+s.VenueSymbol {
			t.Fatalf("record %d: %+v", i, r)
		}
		got, err := sidetopic.Positioning.Decode(r.Side.Value)
		if err != nil || !proto.Equal(got, s) {
			t.Fatalf("record %d decodes to %v, %v; want %v", i, got, err, s)
		}
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(ctx); !errors.Is(err, io.EOF) {
		// The emitter ended: what is queued drains, then EOF.
		for err == nil {
			_, err = src.Next(ctx)
		}
		if !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
	}
	if NewSource(p).Close() != nil {
		t.Fatal("closing a source never read")
	}
	// Dead letters go to the DLQ of the poller's topic.
	rs := records(Output{DeadLetters: []DeadLetter{{Reason: "malformed json: x", Raw: []byte("{")}}}, true)
	if len(rs) != 1 || rs[0].DLQ != "mi.prediction-markets.dlq.v1" || rs[0].Reason != "malformed json: x" {
		t.Fatalf("%+v", rs)
	}
}
