package market

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func TestSymbolDetail(t *testing.T) {
	f := func(d *schemas.IntelligenceDocument, wantSources string, wantStatus string) {
		t.Helper()
		var body struct {
			Liquidity struct {
				Method         string    `json:"method"`
				AsOf           *string   `json:"as_of"`
				LiquidityScore *int      `json:"liquidity_score"`
				SlippageBps    *struct{} `json:"slippage_bps"`
				Estimates      []any     `json:"estimates"`
				Pools          []any     `json:"pools"`
			} `json:"liquidity"`
			Sources []struct {
				Source, Status string
				AsOf           *string `json:"as_of"`
			} `json:"sources"`
			AsOf   *string `json:"as_of"`
			Symbol string  `json:"symbol"`
		}
		raw := appendSymbolDetail(nil, d, testNow)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, raw)
		}
		l := body.Liquidity
		if l.Method != liquidityMethodNone || l.AsOf != nil || l.LiquidityScore != nil || l.SlippageBps != nil || l.Estimates == nil || l.Pools == nil {
			t.Fatalf("liquidity block: %+v", l)
		}
		got := ""
		for _, s := range body.Sources {
			got += s.Source + ","
			if s.Status != wantStatus || s.AsOf == nil {
				t.Fatalf("source %s: status %s as_of %v, want %s", s.Source, s.Status, s.AsOf, wantStatus)
			}
		}
		if got != wantSources || body.AsOf == nil || body.Symbol != d.Symbol {
			t.Fatalf("sources %q as_of %v symbol %s", got, body.AsOf, body.Symbol)
		}
	}
	d := smallDoc("BTCUSD", "5m", 3, 3)
	d.LastTradeTimeNs = testNow.Add(-time.Minute).UnixNano()
	d.Observations = &schemas.Observations{Quality: &schemas.Quality{Venues: []string{"binance", "coinbase"}}}
	f(d, "binance,coinbase,", "ok")
	d.LastTradeTimeNs = testNow.Add(-21 * time.Minute).UnixNano()
	f(d, "binance,coinbase,", "stale")
	f(smallDoc("ETHUSD", "1m", 1, 1), "", "ok")
}
