package cex

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// A Binance connection that misses 400 messages, end to end: connector,
// ingest into the embedded broker, operators. The missed trade ids become a
// gap record on the symbol's partition of mi.trades.v1 (not a trade: the
// operators count only the trades that arrived), and the documents of
// BTCUSD whose windows overlap the gap list it in
// observations.quality.gaps with the connector's reason.
func TestMissedTradesReachDocuments(t *testing.T) {
	c := binanceCase("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	path := fixtures.Path(t, "trades/"+c.file)
	msgs := c.msgs(t, path)[:4000]
	cut, skip := 1500, 400
	p, _, err := NewDecoder("binance", "", "x")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var times []int64
	for _, m := range msgs {
		for _, r := range p.Message(m, 1, nil) {
			if r.Trade != nil {
				ids = append(ids, r.Trade.TradeId)
				times = append(times, r.Trade.EventTimeNs)
			}
		}
	}
	// The trades of the skipped messages: the first trade of message cut
	// is the first missed one (one trade per message in this capture).
	var missedFrom, missedTo int
	n := 0
	for i, m := range msgs {
		k := len(p.Message(m, 1, nil))
		if i == cut {
			missedFrom = n
		}
		if i == cut+skip {
			missedTo = n - 1
		}
		n += k
	}
	wantReason := "missed trades: " + strconv.Itoa(missedTo-missedFrom+1) + " trade ids " + ids[missedFrom] + ".." + ids[missedTo] + " of BTCUSDT"
	wantTrades := len(ids) - (missedTo - missedFrom + 1)

	srv := &venueServer{t: t, msgs: msgs, subs: 1, answer: c.answer, cutAfter: cut, overlap: -skip}
	log := slog.New(slog.DiscardHandler)
	emb, err := pipeline.StartEmbedded("127.0.0.1:0", t.TempDir(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if err := pipeline.EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	stats := pipeline.NewStats()
	conn, err := New(testConfig("binance", "", srv.start(), c.markets, stats))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ps pipeline.ProcessStats
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	done := make(chan error, 2)
	go func() {
		done <- pipeline.Ingest(rctx, pipeline.IngestConfig{Brokers: brokers, Live: true, Stats: stats, Logger: log,
			TxnInterval: 100 * time.Millisecond}, conn, pipeline.Checkpoint{})
	}()
	go func() {
		done <- pipeline.Process(rctx, pipeline.ProcessConfig{Brokers: brokers, Operators: operators.DefaultConfig(),
			Logger: log, CheckpointInterval: 200 * time.Millisecond}, &ps)
	}()

	var docs []*schemas.IntelligenceDocument
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && ps.Trades.Load() < uint64(wantTrades) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // the last outputs commit every poll
	rcancel()
	for range 2 {
		<-done
	}
	if got := ps.Trades.Load(); got != uint64(wantTrades) {
		t.Fatalf("operators consumed %d trades, want %d (the gap record must not count as one)", got, wantTrades)
	}
	if ps.Gaps.Load() != 1 {
		t.Errorf("operators took %d gaps, want 1 (the wall-clock disconnect gap is refused as in the future of the 2024 capture)", ps.Gaps.Load())
	}
	var gapRecords int
	err = pipeline.ReadCommitted(ctx, brokers, schemas.TopicTrades, nil, func(r *kgo.Record) {
		if pipeline.IsGap(r) {
			gapRecords++
			if string(r.Key) != "BTCUSD" {
				t.Errorf("gap record keyed %q", r.Key)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if gapRecords != 2 { // disconnected, missed trades
		t.Errorf("%d gap records on %s, want 2", gapRecords, schemas.TopicTrades)
	}
	err = pipeline.ReadCommitted(ctx, brokers, schemas.TopicSignals, nil, func(r *kgo.Record) {
		d := &schemas.IntelligenceDocument{}
		if err := proto.Unmarshal(r.Value, d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	from, to := times[missedFrom-1], times[missedTo+1]
	listed := 0
	for _, d := range docs {
		if d.Symbol != "BTCUSD" {
			t.Fatalf("document of %s", d.Symbol)
		}
		var found *schemas.Gap
		for _, g := range d.GetObservations().GetQuality().GetGaps() {
			if g.Reason == wantReason {
				found = g
			} else {
				t.Errorf("%s lists gap %q", d.Id, g.Reason)
			}
		}
		if found == nil {
			continue
		}
		listed++
		if found.Source != conn.Name() || found.FromNs != from || found.ToNs != to {
			t.Errorf("%s lists gap %+v, want source %s, %d..%d", d.Id, found, conn.Name(), from, to)
		}
	}
	if listed == 0 {
		t.Fatalf("none of %d documents lists the gap %q", len(docs), wantReason)
	}
	t.Logf("%d of %d documents list the gap", listed, len(docs))
}
