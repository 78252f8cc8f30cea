package cex

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// A live connector through the pipeline's ingest loop into the embedded
// broker: every trade of the replayed capture is committed to mi.trades.v1,
// including the last ones, which arrive before the venue goes quiet (the
// live ingest commits on time instead of waiting for the next record), and
// the connector's reconnect and gap reach the stats /status reads.
func TestLiveIngestCommitsQuietTail(t *testing.T) {
	c := binanceCase("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	path := fixtures.Path(t, "trades/"+c.file)
	msgs := c.msgs(t, path)[:3000]
	var want int
	p, _, err := NewDecoder("binance", "", "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for _, r := range p.Message(m, 1, nil) {
			if r.Trade != nil {
				want++
			}
		}
	}
	srv := &venueServer{t: t, msgs: msgs, subs: 1, answer: c.answer, cutAfter: 1000, overlap: 100}
	log := slog.New(slog.DiscardHandler)
	emb, err := pipeline.StartEmbedded("127.0.0.1:0", t.TempDir(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := pipeline.EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	stats := pipeline.NewStats()
	conn, err := New(testConfig("binance", "", srv.start(), c.markets, stats))
	if err != nil {
		t.Fatal(err)
	}
	ictx, icancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- pipeline.Ingest(ictx, pipeline.IngestConfig{Brokers: brokers, Live: true, Stats: stats, Logger: log,
			TxnInterval: 100 * time.Millisecond}, conn, pipeline.Checkpoint{})
	}()
	count := func() int {
		n := 0
		err := pipeline.ReadCommitted(ctx, brokers, schemas.TopicTrades, nil, func(r *kgo.Record) {
			if !pipeline.IsGap(r) { // the disconnect is a gap record, not a trade
				n++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	got := 0
	for got < want && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		got = count()
	}
	icancel()
	<-done
	_ = conn.Close()
	if got != want {
		t.Fatalf("committed %d trades, want %d", got, want)
	}
	srcs, _ := stats.Snapshot()
	if len(srcs) != 1 || srcs[0].Trades != uint64(want) || srcs[0].Reconnects < 1 || srcs[0].Gaps < 1 || srcs[0].LastGap != "disconnected" {
		t.Fatalf("stats %+v", srcs)
	}
}
