package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/perps"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/schemas"
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

// TestPositioningEventStage: a Hyperliquid poll of the real capture and two
// outcome-market quotes go through the embedded broker; the positioning
// event stage raises the capture's seven funding extremes and the 16.5
// point move on mi.events.v1, once each. A second stage (a fresh consumer
// group, reading both topics from the start) restores the detectors from
// those events and raises nothing again; a later quote that reverses the
// move fires at once.
func TestPositioningEventStage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	rec := time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC)
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
	defer l.Close()
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
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 3); err != nil {
		t.Fatal(err)
	}
	ingest := func(name string, recs []sources.Record) {
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
			done <- RunPositioningEvents(sctx, PositioningEventsConfig{Brokers: brokers, Funding: true, Predictions: true, Group: group, Logger: quiet})
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
