package pipeline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

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

// recordSource yields the given records, then io.EOF.
type recordSource struct {
	recs []sources.Record
	i    int
}

func (s *recordSource) Name() string { return "replay:bad" }
func (s *recordSource) Close() error { return nil }
func (s *recordSource) Next(context.Context) (sources.Record, error) {
	if s.i == len(s.recs) {
		return sources.Record{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

// TestIngestFailsWhenEveryRecordIsRejected: in mi run, a finite source
// whose every record was rejected fails naming the top reasons (the error
// mi run exits with), /status's stats count its rejections by reason, and
// the dead letters are committed all the same.
func TestIngestFailsWhenEveryRecordIsRejected(t *testing.T) {
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
	var recs []sources.Record
	for i := range 5 {
		reason := "unknown pool: 0x00000000000000000000000000000000000000aa"
		if i == 4 {
			reason = `bad timestamp: "2024-01-05 00:00:23+00:00"`
		}
		recs = append(recs, sources.Record{Raw: []byte("row"), Reason: reason})
	}
	st := NewStats()
	err = Ingest(ctx, IngestConfig{Brokers: brokers, Stats: st, Logger: slog.New(slog.DiscardHandler)}, &recordSource{recs: recs}, Checkpoint{})
	if err == nil || !strings.Contains(err.Error(), "all 5 of its records were rejected: unknown pool ×4") || !strings.Contains(err.Error(), "bad timestamp ×1") {
		t.Fatalf("Ingest: %v, want the rejection naming the reasons", err)
	}
	srcs, _ := st.Snapshot()
	if len(srcs) != 1 || srcs[0].State != "failed" || srcs[0].RejectedBy["unknown pool"] != 4 || srcs[0].RejectedBy["bad timestamp"] != 1 {
		t.Fatalf("stats %+v", srcs)
	}
	n := 0
	if err := ReadCommitted(ctx, brokers, schemas.TopicTradesDLQ, nil, func(*kgo.Record) { n++ }); err != nil || n != 5 {
		t.Fatalf("%d dead letters committed (%v), want 5", n, err)
	}
}
