package pipeline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// listSource yields the given trades, then io.EOF.
type listSource struct {
	trades []*schemas.Trade
	i      int
}

func (s *listSource) Name() string { return "list" }
func (s *listSource) Close() error { return nil }
func (s *listSource) Next(context.Context) (sources.Record, error) {
	if s.i == len(s.trades) {
		return sources.Record{}, io.EOF
	}
	s.i++
	return sources.Record{Trade: s.trades[s.i-1]}, nil
}

// TestIngestLogsCaughtUpOnce: a replay or simulation says once, in the log,
// when its event time has reached the wall clock; trades from the past say
// nothing.
func TestIngestLogsCaughtUpOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	emb, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 1); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tr := func(at time.Time, id string) *schemas.Trade {
		return &schemas.Trade{Venue: "v", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Symbol: "BTCUSD", TradeId: id,
			EventTimeNs: at.UnixNano(), Price: 1, Size: 1, NotionalUsd: 1, Side: schemas.Side_SIDE_BUY}
	}
	var logs bytes.Buffer
	src := &listSource{trades: []*schemas.Trade{tr(now.Add(-time.Hour), "a"), tr(now.Add(-time.Minute), "b"), tr(now, "c"), tr(now.Add(10*time.Millisecond), "d")}}
	if err := Ingest(ctx, IngestConfig{Brokers: brokers, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, src, Checkpoint{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "caught up with real time"); n != 1 || !strings.Contains(logs.String(), "records=2") {
		t.Fatalf("%d caught-up lines, want 1 at record 2:\n%s", n, logs.String())
	}
}
