package cex

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
)

// BenchmarkWebSocketReplay measures trades/s end to end through a live
// connector: a local server writes the Binance spot capture's messages
// (9,757 trades among 41k messages) over WebSocket, the connector reads,
// decodes, dedupes and tracks gaps, and the benchmark takes every record
// from Next.
func BenchmarkWebSocketReplay(b *testing.B) {
	c := binanceCase("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	t := &testing.T{}
	path := fixtures.Path(b, "trades/"+c.file)
	msgs := c.msgs(t, path)
	want := len(replayTrades(t, path, c.keep))
	b.ResetTimer()
	trades := 0
	for b.Loop() {
		srv := &venueServer{t: t, msgs: msgs, subs: 1, answer: c.answer, cutAfter: len(msgs) + 1}
		conn, err := New(testConfig("binance", "", srv.start(), c.markets, nil))
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		for n := 0; n < want; {
			r, err := conn.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if r.Trade != nil {
				n++
			}
		}
		cancel()
		trades += want
		_ = conn.Close()
		srv.srv.Close()
	}
	b.ReportMetric(float64(trades)/b.Elapsed().Seconds(), "trades/s")
	b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "msgs/s")
}
