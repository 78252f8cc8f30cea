package query

import (
	"testing"

	"github.com/marketintel/mi/operators/decision"
)

// BenchmarkPreTradeHistoryCandles is the pre-trade check of a symbol the
// live candle view does not keep: its volatility from the history store's
// candles. cold reads them with DuckDB on every call (the first call of a
// symbol and window in a minute); warm is every other call.
func BenchmarkPreTradeHistoryCandles(b *testing.B) {
	s, _ := newScanServer(b)
	b.Run("warm", func(b *testing.B) {
		if a, ok := s.live.PreTrade("SCANUSD", decision.Buy, "1h"); !ok || a.DataQuality.Sources[1].Status != "ok" {
			b.Fatal(a)
		}
		for b.Loop() {
			s.live.PreTrade("SCANUSD", decision.Buy, "1h")
		}
	})
	b.Run("cold", func(b *testing.B) {
		c := s.live.CandlesSource().(*storeCandles)
		for b.Loop() {
			c.mu.Lock()
			clear(c.cache)
			c.mu.Unlock()
			s.live.PreTrade("SCANUSD", decision.Buy, "1h")
		}
	})
}
