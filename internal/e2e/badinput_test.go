package e2e

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// TestBadInputIsDeadLettered feeds malformed lines through a replay source
// and malformed, invalid, duplicate and late records straight into
// mi.trades.v1. Every one must land on mi.trades.dlq.v1 with a reason and be
// counted, and the good trades around them must still make candles: the
// pipeline neither crashes nor stalls.
func TestBadInputIsDeadLettered(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"time":"2024-08-08T10:00:01Z","venue":"binance","symbol":"BTCUSDT","price":"60000","size":"0.1","side":"buy","trade_id":"g1"}`,
		`{"time":"2024-08-08T10:00:02Z","venue":"binance","symbol":"BTCUSDT","price":"60010","size":"0.2","side":"sell","trade_id":"g2"`, // truncated
		`not json at all`,
		`{"time":"2024-08-08T10:00:03Z","venue":"binance","symbol":"BTCUSDT","price":"NaN","size":"0.2","side":"sell","trade_id":"g3"}`,
		`{"time":"2024-08-08T10:00:03Z","venue":"binance","symbol":"BTCUSDT","price":"0","size":"0.2","side":"sell","trade_id":"g4"}`,
		`{"time":"2024-08-08T10:00:03Z","venue":"binance","symbol":"BTCUSDT","price":"60000","size":"-1","side":"sell","trade_id":"g5"}`,
		`{"time":"2024-08-08T10:00:03Z","venue":"binance","symbol":"BTCUSDT","price":60000,"size":{"x":1},"side":"sell","trade_id":"g6"}`,
		`{"time":"1970-01-01T00:00:03Z","venue":"binance","symbol":"BTCUSDT","price":"60000","size":"1","side":"buy","trade_id":"g7"}`,
		`{"time":"2024-08-08T10:00:04Z","venue":"binance","symbol":"BTCUSDT","price":"60020","size":"0.3","side":"buy","trade_id":"g8"}`,
		`{"time":"2024-08-08T10:01:30Z","venue":"binance","symbol":"BTCUSDT","price":"60030","size":"0.3","side":"buy","trade_id":"g9"}`,
	}
	path := filepath.Join(dir, "bad.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startPipeline(t, filepath.Join(dir, "data"), "replay:"+path)
	waitDone(t, h.brokers, time.Minute)

	// Now write straight to the topic, past the source's validation.
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	good := func(id string, at time.Time, price float64) *schemas.Trade {
		return &schemas.Trade{Venue: "binance", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
			EventTimeNs: at.UnixNano(), IngestTimeNs: at.UnixNano(), Price: price, Size: 0.5, NotionalUsd: price * 0.5,
			Side: schemas.Side_SIDE_BUY, TradeId: id, Source: "test"}
	}
	base := time.Date(2024, 8, 8, 10, 2, 0, 0, time.UTC)
	var recs [][]byte
	add := func(tr *schemas.Trade) {
		b, err := proto.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b)
	}
	add(good("k1", base, 60100))
	recs = append(recs, []byte{0xff, 0xff, 0xff, 0x01, 0x02}) // not a protobuf message
	nan := good("k2", base.Add(time.Second), math.NaN())
	add(nan)
	absurd := good("k3", base.Add(time.Second), 60100)
	absurd.EventTimeNs = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	add(absurd)
	add(good("k1", base, 60100))                             // duplicate of k1
	add(good("k4", base.Add(2*time.Minute), 60200))          // moves the watermark
	add(good("k5", base.Add(-30*time.Second), 60050))        // out of order, far beyond the lateness: late
	add(good("k6", base.Add(2*time.Minute+time.Second), 60)) // in order again
	add(good("k7", base.Add(4*time.Minute), 60300))          // closes the minutes before
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, v := range recs {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte("BTCUSD"), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		lctx, lcancel := context.WithTimeout(ctx, 5*time.Second)
		lag, err := pipeline.Lag(lctx, h.brokers, "")
		lcancel()
		if err == nil && lag == 0 && h.proc.Trades.Load() >= 2+uint64(len(recs)-1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("operators did not catch up (lag %d, err %v)", lag, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	var reasons []string
	for _, r := range readAll(ctx, h.brokers, schemas.TopicTradesDLQ) {
		for _, hd := range r.Headers {
			if hd.Key == "reason" {
				reasons = append(reasons, string(hd.Value))
			}
		}
	}
	t.Logf("dead-letter reasons: %q", reasons)
	// 7 bad source lines; then a malformed record, NaN, an absurd time, a
	// duplicate and a late trade at the operators.
	const want = 12
	if len(reasons) != want {
		t.Errorf("want %d dead letters, got %d", want, len(reasons))
	}
	for _, phrase := range []string{"malformed json", "wrong type", "bad price", "bad size", "absurd timestamp", "malformed record", "duplicate", "late"} {
		found := false
		for _, r := range reasons {
			found = found || strings.Contains(r, phrase)
		}
		if !found {
			t.Errorf("no dead letter with reason %q", phrase)
		}
	}
	_, dlq := h.stats.Snapshot()
	counted := uint64(0)
	for _, n := range dlq {
		counted += n
	}
	if counted != want {
		t.Errorf("/status counts %d dead letters, want %d: %v", counted, want, dlq)
	}
	// The good trades made candles on both sides of the bad ones.
	c := candlesOf(t, h.brokers)
	for _, minute := range []time.Time{time.Date(2024, 8, 8, 10, 0, 0, 0, time.UTC), base, base.Add(2 * time.Minute)} {
		if _, ok := c["binance|BTCUSD|"+itoa(minute.UnixNano())]; !ok {
			t.Errorf("no candle for %s: the pipeline stalled on bad input (have %d candles)", minute.Format("15:04"), len(c))
		}
	}
}
