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
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/perps"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// readEvents returns the alert events of mi.events.v1 named in names.
func readEvents(ctx context.Context, t *testing.T, brokers []string, names ...string) []operators.AlertEvent {
	t.Helper()
	var out []operators.AlertEvent
	err := ReadCommitted(ctx, brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
		var e operators.AlertEvent
		if string(r.Key) == SentinelKey || json.Unmarshal(r.Value, &e) != nil {
			return
		}
		for _, n := range names {
			if e.Event == n {
				out = append(out, e)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hyperliquidOnBroker polls the real Hyperliquid capture of 2026-02-06
// (recorded at rec) and ingests its snapshots on mi.positioning.v1 of an
// embedded broker; ingest adds further side records.
func hyperliquidOnBroker(ctx context.Context, t *testing.T) (brokers []string, rec time.Time, ingest func(name string, recs []sources.Record)) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	rec = time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC)
	srv, err := pubreplay.New([]pubreplay.Route{{Method: "POST", Path: "/info",
		File:   fixtures.Path(t, "perps/hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"),
		Header: http.Header{"Date": {rec.Format(http.TimeFormat)}}}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	clk := clock.NewFake(rec.Add(time.Minute))
	hcfg := sources.HTTPConfig{DefaultLimit: &sources.Limit{Rate: 0}}
	p, err := perps.New(perps.Config{Venue: perps.VenueHyperliquid, URL: l.URL, Clock: clk,
		Client: poll.NewClient(hcfg, poll.Options{Clock: clk, Hosts: poll.NewHosts(clk, hcfg)})})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}

	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	brokers = []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 3); err != nil {
		t.Fatal(err)
	}
	ingest = func(name string, recs []sources.Record) {
		t.Helper()
		e := sidetopic.NewEmitter(name, len(recs)+1)
		for _, r := range recs {
			if err := e.Emit(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		e.End()
		if err := Ingest(ctx, IngestConfig{Brokers: brokers, Logger: quiet}, e, Checkpoint{}); err != nil {
			t.Fatal(err)
		}
	}
	var snaps []sources.Record
	for _, s := range out.Snapshots {
		snaps = append(snaps, sidetopic.Positioning.Record(s))
	}
	ingest(p.Name(), snaps)
	return brokers, rec, ingest
}

// TestPositioningEventStage: a Hyperliquid poll of the real capture and two
// outcome-market quotes go through the embedded broker; the positioning
// event stage raises the capture's seven funding extremes and the 16.5
// point move on mi.events.v1, once each. A second stage (a fresh consumer
// group, reading both topics from the start) restores the detectors from
// their checkpointed state (mi.side-state.v1) and raises nothing again; a
// later quote that reverses the move fires at once.
func TestPositioningEventStage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	brokers, rec, ingest := hyperliquidOnBroker(ctx, t)
	// The BTC price market of docs/positioning.md: 0.455 at 09:00, 0.62 at
	// 09:45, $8,800 of 24 h volume (the hand-made outcome answers of
	// pipeline/sources/perps/testdata: no capture of outcome markets exists).
	day := time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC)
	quote := func(prob float64, at time.Time) sources.Record {
		return sidetopic.PredictionMarkets.Record(&schemas.PredictionQuote{Venue: "hyperliquid", MarketId: "2243",
			Question: "Is BTC above 71169 at 2026-03-27 03:00 UTC?", Option: "Yes", Category: "crypto_price",
			Probability: prob, DayVolumeUsd: 8800, ObservedNs: at.UnixNano(), ReadNs: at.UnixNano(), Coin: "#22430",
			Underlying: "BTC", Source: "poll:hyperliquid-outcomes"})
	}
	ingest("poll:hyperliquid-outcomes", []sources.Record{quote(0.455, day), quote(0.62, day.Add(45*time.Minute))})

	stage := func(group string) (stop func()) {
		sctx, scancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			sc := PositioningEventsConfig{Funding: true, Predictions: true, Group: group}.sideEvents(brokers)
			sc.Logger = quiet
			done <- RunSideEvents(sctx, sc)
		}()
		return func() {
			scancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
	names := []string{operators.AlertFundingExtreme, operators.AlertPredictionMarketMove}
	waitFor := func(n int) []operators.AlertEvent {
		t.Helper()
		for {
			evs := readEvents(ctx, t, brokers, names...)
			if len(evs) >= n {
				return evs
			}
			if ctx.Err() != nil {
				t.Fatalf("%d events of %d", len(evs), n)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	stop := stage("")
	evs := waitFor(8)
	stop()
	var funding []string
	var move operators.PredictionMoveData
	for _, e := range evs {
		switch e.Event {
		case operators.AlertFundingExtreme:
			var d operators.FundingExtremeData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.Side != operators.FundingShortsCrowded || !e.OccurredAt.Equal(rec) {
				t.Fatalf("%+v", d)
			}
			funding = append(funding, d.VenueSymbol)
		case operators.AlertPredictionMarketMove:
			if err := json.Unmarshal(e.Data, &move); err != nil {
				t.Fatal(err)
			}
		}
	}
	sort.Strings(funding)
	// docs/positioning.md: SOL −61.5, XRP −54.5, APT −55.1, TRX −27.7,
	// VIRTUAL −45.5, TRUMP −102.2, MON −161.2 %/yr.
	if got, _ := json.Marshal(funding); string(got) != `["APT","MON","SOL","TRUMP","TRX","VIRTUAL","XRP"]` || len(evs) != 8 {
		t.Fatalf("funding extremes %s of %d events", got, len(evs))
	}
	if move.MarketID != "2243" || move.FromProbability != 0.455 || move.ToProbability != 0.62 || move.Direction != operators.MoveUp ||
		move.Question != "Is BTC above 71169 at 2026-03-27 03:00 UTC?" || move.Category != "crypto_price" {
		t.Fatalf("move %+v", move)
	}

	// A stage of a fresh group reads both topics again from the start: the
	// events it restored keep it quiet. The reversal then fires.
	stop = stage("mi-positioning-events-2")
	ingest("poll:hyperliquid-outcomes-2", []sources.Record{quote(0.5, day.Add(75*time.Minute))})
	evs = waitFor(9)
	stop()
	if len(evs) != 9 {
		t.Fatalf("%d events after the restart, want 9", len(evs))
	}
	var down []operators.PredictionMoveData
	for _, e := range evs {
		var d operators.PredictionMoveData
		if e.Event == operators.AlertPredictionMarketMove && json.Unmarshal(e.Data, &d) == nil && d.Direction == operators.MoveDown {
			down = append(down, d)
		}
	}
	if len(down) != 1 || down[0].FromProbability != 0.62 || down[0].ToProbability != 0.5 {
		t.Fatalf("reversal %+v", down)
	}
}

// A funding extreme of the replayed capture is delivered, signed, to a
// subscription of funding_extreme for SOLUSD: the stage raises it on
// mi.events.v1, the outbox sink stores it for the matching subscription,
// the dispatcher posts it to an HTTPS receiver that verifies the
// signature with the subscription's secret. Other symbols' extremes are
// not delivered to it.
func TestFundingExtremeDelivered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	brokers, rec, _ := hyperliquidOnBroker(ctx, t)

	type delivery struct {
		body     alerts.Body
		verified bool
	}
	got := make(chan delivery, 16)
	var secret atomic.Value
	recv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var d delivery
		_ = json.Unmarshal(b, &d.body)
		s, _ := secret.Load().(string)
		d.verified = alerts.Verify(s, r.Header.Get("X-MI-Timestamp"), b, r.Header.Get("X-MI-Signature"), time.Now(), 5*time.Minute)
		got <- d
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "a.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := alerts.Open(ctx, db, alerts.DialectSQLite, alerts.Config{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	_, sec, err := st.Create(ctx, alerts.NewSubscription{URL: recv.URL + "/hook", Events: []string{operators.AlertFundingExtreme}, Filters: alerts.Filters{Symbols: []string{"SOLUSD"}}})
	if err != nil {
		t.Fatal(err)
	}
	secret.Store(sec)

	pool := x509.NewCertPool()
	pool.AddCert(recv.Certificate())
	d := alerts.NewDispatcher(st, alerts.DispatcherConfig{Poll: 20 * time.Millisecond, Safety: alerts.Safety{AllowLoopback: true}, TLS: &tls.Config{RootCAs: pool}})
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, run := range []func() error{
		func() error {
			sc := PositioningEventsConfig{Funding: true}.sideEvents(brokers)
			sc.Logger = quiet
			return RunSideEvents(sctx, sc)
		},
		func() error { return SinkEvents(sctx, brokers, st, quiet) },
		func() error { return d.Run(sctx) },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(); err != nil && sctx.Err() == nil {
				t.Error(err)
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()

	var first delivery
	select {
	case first = <-got:
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	var data operators.FundingExtremeData
	if err := json.Unmarshal(first.body.Data, &data); err != nil {
		t.Fatal(err)
	}
	// hyperliquid_info_metaAndAssetCtxs_2026-02-06.json, SOL: funding
	// -0.0000702486 per hour = -61.54 %/yr, open interest $333M.
	if !first.verified || first.body.Event != operators.AlertFundingExtreme || first.body.Symbol != "SOLUSD" || !first.body.OccurredAt.Equal(rec) ||
		data.Side != operators.FundingShortsCrowded || data.FundingRate != -0.0000702486 || data.OpenInterestUSD < 5e6 {
		t.Fatalf("delivery %+v data %+v", first, data)
	}
	// The six other extremes are not for this subscription.
	select {
	case d := <-got:
		t.Fatalf("unexpected delivery %+v", d.body)
	case <-time.After(2 * time.Second):
	}
}

// The Parquet sink writes the positioning records of the topic in the
// partition positioning/date=<observation day>/venue=<venue>: the 225
// perps of the Hyperliquid capture, read back with DuckDB.
func TestParquetSinkWritesPositioning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	brokers, _, _ := hyperliquidOnBroker(ctx, t)
	dir := t.TempDir()
	stats := &ParquetSinkStats{}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- SinkParquet(sctx, ParquetSinkConfig{Brokers: brokers, DataDir: dir, FlushInterval: 100 * time.Millisecond, Stats: stats, Logger: quiet})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// The day is still open (no observation has passed its end plus the
	// grace), so the rows are in the staging tree's part files.
	rel, err := filepath.Rel(dir, datasets.PositioningDir(dir, "2026-02-06", "hyperliquid"))
	if err != nil {
		t.Fatal(err)
	}
	glob := filepath.Join(dir, datasets.StagingDir, rel, "part-*.parquet")
	for stats.Rows.Load() < 225 || stats.Flushes.Load() < 2 {
		if ctx.Err() != nil {
			t.Fatalf("%d rows, %d flushes", stats.Rows.Load(), stats.Flushes.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var fr float64
	if err := db.QueryRow(`SELECT count(*), max(funding_rate) FILTER (WHERE venue_symbol = 'SOL') FROM read_parquet(?)`, glob).Scan(&n, &fr); err != nil {
		t.Fatal(err)
	}
	if n != 225 || fr != -0.0000702486 {
		t.Fatalf("%d rows, SOL funding %v", n, fr)
	}
}

// TestPredictionHourSurvivesRestart: quotes that fire nothing (a 5-point
// rise) are consumed; the stage stops and starts again in the same group;
// a quote 20 minutes later, 11 points above the first of the hour, fires —
// the detector's hour of quotes was restored from its checkpointed state,
// not only the markets that had fired.
func TestPredictionHourSurvivesRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	brokers, _, ingest := hyperliquidOnBroker(ctx, t)
	day := time.Date(2026, 3, 26, 10, 0, 0, 0, time.UTC)
	quote := func(prob float64, at time.Time) sources.Record {
		return sidetopic.PredictionMarkets.Record(&schemas.PredictionQuote{Venue: "hyperliquid", MarketId: "2244",
			Question: "Is ETH above 2500 at 2026-03-27 03:00 UTC?", Option: "Yes", Category: "crypto_price",
			Probability: prob, DayVolumeUsd: 9000, ObservedNs: at.UnixNano(), ReadNs: at.UnixNano(), Coin: "#22440",
			Underlying: "ETH", Source: "poll:hyperliquid-outcomes"})
	}
	stage := func() (stop func()) {
		sctx, scancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			sc := PositioningEventsConfig{Predictions: true}.sideEvents(brokers)
			sc.Logger = quiet
			done <- RunSideEvents(sctx, sc)
		}()
		return func() {
			scancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
	stop := stage()
	ingest("poll:hyperliquid-outcomes", []sources.Record{quote(0.50, day), quote(0.55, day.Add(30*time.Minute))})
	// Wait for the checkpoint that holds both quotes.
	for {
		var st []byte
		if err := ReadCommitted(ctx, brokers, TopicSideState, nil, func(r *kgo.Record) {
			if string(r.Key) == "prediction_market_move" {
				st = r.Value
			}
		}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(st), `"p":0.55`) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the stage never checkpointed the two quotes")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	if evs := readEvents(ctx, t, brokers, operators.AlertPredictionMarketMove); len(evs) != 0 {
		t.Fatalf("a 5-point rise fired %d events", len(evs))
	}
	stop = stage()
	defer stop()
	ingest("poll:hyperliquid-outcomes-2", []sources.Record{quote(0.61, day.Add(50*time.Minute))})
	for {
		evs := readEvents(ctx, t, brokers, operators.AlertPredictionMarketMove)
		if len(evs) == 1 {
			var d operators.PredictionMoveData
			if err := json.Unmarshal(evs[0].Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.FromProbability != 0.50 || d.ToProbability != 0.61 || d.Direction != operators.MoveUp {
				t.Fatalf("move %+v", d)
			}
			return
		}
		if len(evs) > 1 || ctx.Err() != nil {
			t.Fatalf("%d events after the restart, want 1", len(evs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
