package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/perps"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/sinks/views"
)

// TestFollowPositioning: a Hyperliquid poll of the real capture goes through
// the embedded broker on mi.positioning.v1 (with a dead letter on its DLQ),
// and two API instances rebuild the positioning view from the topic: both
// answer exactly as a view fed the poll's records in process.
func TestFollowPositioning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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
	if err != nil || len(out.Snapshots) != 225 {
		t.Fatalf("%d snapshots, %v", len(out.Snapshots), err)
	}
	direct := views.NewPositioning()
	e := sidetopic.NewEmitter(p.Name(), len(out.Snapshots)+1)
	if err := e.Emit(ctx, sidetopic.Positioning.Reject([]byte(`[{"universe":`), "malformed json: hyperliquid metaAndAssetCtxs: test")); err != nil {
		t.Fatal(err)
	}
	for _, s := range out.Snapshots {
		if err := direct.Apply(s); err != nil {
			t.Fatal(err)
		}
		if err := e.Emit(ctx, sidetopic.Positioning.Record(s)); err != nil {
			t.Fatal(err)
		}
	}
	e.End()

	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 3); err != nil {
		t.Fatal(err)
	}
	if err := Ingest(ctx, IngestConfig{Brokers: brokers, Logger: quiet}, e, Checkpoint{}); err != nil {
		t.Fatal(err)
	}
	follow := func() *views.Positioning {
		pv := views.NewPositioning()
		ready := make(chan struct{})
		go func() {
			_ = FollowSide(ctx, brokers, []SideView{ViewOf(sidetopic.Positioning, pv.Apply)}, quiet, ready)
		}()
		select {
		case <-ready:
		case <-ctx.Done():
			t.Fatal("side views not ready")
		}
		return pv
	}
	now := rec.Add(time.Hour)
	want, err := direct.Answer("SOLUSD", now, nil)
	if err != nil || want.Venues[0].Funding.AnnualizedPercent > -61 {
		t.Fatalf("%+v %v", want, err)
	}
	wb, _ := json.Marshal(want)
	for _, name := range []string{"A", "B"} {
		pv := follow()
		got, err := pv.Answer("SOLUSD", now, nil)
		if err != nil {
			t.Fatalf("instance %s: %v", name, err)
		}
		gb, _ := json.Marshal(got)
		if !bytes.Equal(gb, wb) {
			t.Fatalf("instance %s:\n%s\nwant\n%s", name, gb, wb)
		}
		if n := len(pv.Symbols()); n != len(direct.Symbols()) {
			t.Fatalf("instance %s has %d symbols, want %d", name, n, len(direct.Symbols()))
		}
	}
}
