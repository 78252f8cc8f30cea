package pipeline

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// A gap record on mi.trades.v1 is not a trade for the Parquet sink: it is
// consumed without being counted as undecodable and writes no trade row.
func TestParquetSinkSkipsGaps(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", t.TempDir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	base := time.Date(2024, 8, 8, 12, 0, 0, 0, time.UTC).UnixNano()
	var recs []*kgo.Record
	for i := range 3 {
		tr := &schemas.Trade{Venue: "binance", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Symbol: "BTCUSD", Market: "BTCUSDT",
			EventTimeNs: base + int64(i)*1e9, IngestTimeNs: base + int64(i)*1e9, Price: 60000, Size: 0.1, NotionalUsd: 6000,
			Side: schemas.Side_SIDE_BUY, TradeId: string(rune('a' + i)), Source: "s"}
		recs = append(recs, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte("BTCUSD"), Value: schemas.AppendTrade(nil, tr)})
	}
	g, err := proto.Marshal(&schemas.Gap{Source: "s", FromNs: base, ToNs: base + 2e9, Reason: "disconnected"})
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte("BTCUSD"), Value: g,
		Headers: []kgo.RecordHeader{{Key: HeaderKind, Value: []byte(KindGap)}}})
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if !IsGap(recs[3]) || IsGap(recs[0]) {
		t.Fatal("IsGap does not tell the gap record")
	}

	dir := t.TempDir()
	stats := &ParquetSinkStats{}
	sctx, scancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- SinkParquet(sctx, ParquetSinkConfig{Brokers: brokers, DataDir: dir, FlushInterval: 100 * time.Millisecond, Stats: stats, Logger: quiet})
	}()
	for stats.Records.Load() < 4 && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	scancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if stats.Records.Load() != 4 || stats.Undecoded.Load() != 0 || stats.Rows.Load() != 3 {
		t.Fatalf("sink read %d records, %d undecoded, %d rows; want 4, 0, 3", stats.Records.Load(), stats.Undecoded.Load(), stats.Rows.Load())
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	// The day is not closed: the rows are in the staging tree's part files.
	glob := filepath.Join(datasets.Staged(dir, datasets.TradeDir(dir, "2024-08-08", "binance")), "*.parquet")
	if err := db.QueryRow("SELECT count(*) FROM read_parquet(?)", glob).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("%d trade rows, want 3", n)
	}
}
