package groundtruth

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/replay"
)

// captures are the real trade captures replayed by TestRealCaptures, with
// the least number of trades each must yield. Several files of one entry
// are merged by event time.
var captures = []struct {
	name      string
	files     []string
	minTrades int
}{
	{"Binance spot BTCUSDT (11 min)", []string{"trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz", "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz"}, 19000},
	{"Binance spot ETHUSDT (11 min)", []string{"trades/binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz", "trades/binance_spot_ETHUSDT_ws_raw_2024-08-09.txt.gz"}, 14000},
	{"Binance USD-M BTCUSDT (6 min)", []string{"trades/binance_usdm_BTCUSDT_ws_raw_2024-08-08.txt.gz"}, 20000},
	{"Binance COIN-M BTCUSD_PERP (5 min)", []string{"trades/binance_coinm_BTCUSD_PERP_ws_raw_2024-08-09.txt.gz"}, 2900},
	{"Tardis Binance futures BTCUSDT (2 h)", []string{"trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv"}, 9999},
	{"Coinbase Advanced Trade BTC/ETH (25 s)", []string{"trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz"}, 250},
	{"Bybit v5 BTC/ETH/SOL/DOGE (45 s)", []string{"trades/cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz"}, 10},
	{"Hyperliquid BTC (26 s)", []string{"trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz"}, 9},
	{"Uniswap v3 USDC/WETH 0.05% + 0.3% (1 day)", []string{
		"defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_raw_logs_2024-01-05.csv",
		"defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_raw_logs_2024-01-05.csv"}, 1000},
}

// TestRealCaptures replays every real capture through the operators and
// prints what the detectors make of it (the table of docs/signals.md). It
// asserts the invariants that hold on any input: documents exist for every
// capture with trades, no event type other than NORMAL without a ready
// baseline (so nothing fires on captures shorter than eleven window
// lengths), and every capture long enough for a ready 1m baseline yields
// ready documents.
func TestRealCaptures(t *testing.T) {
	var table strings.Builder
	table.WriteString("| capture | trades | span | window | documents | ready | max samples | max anomaly | non-NORMAL event types | signal changes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range captures {
		paths := make([]string, len(c.files))
		for i, f := range c.files {
			paths[i] = fixtures.Path(t, f)
		}
		src, err := replay.OpenAll(paths)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := Replay(context.Background(), src)
		_ = src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rc.Trades < c.minTrades {
			t.Errorf("%s: %d trades, want ≥ %d", c.name, rc.Trades, c.minTrades)
		}
		span := rc.Last.Sub(rc.First)
		for _, w := range Windows {
			wc := rc.Windows[w]
			if wc.Documents == 0 {
				t.Errorf("%s %s: no documents", c.name, w)
			}
			nonNormal := wc.Documents - wc.Events[operators.EventNormal]
			if nonNormal > wc.Ready {
				t.Errorf("%s %s: %d non-NORMAL documents but only %d with a ready baseline", c.name, w, nonNormal, wc.Ready)
			}
			if span < Warmup(w) && nonNormal > 0 {
				t.Errorf("%s %s: %d non-NORMAL documents in a %s capture", c.name, w, nonNormal, span)
			}
			fmt.Fprintf(&table, "| %s | %d | %s | %s | %d | %d | %d | %.0f | %s | %d |\n", c.name, rc.Trades,
				span.Round(1e9), w, wc.Documents, wc.Ready, wc.MaxSamples, wc.MaxAnomaly, rc.NonNormal(w), wc.Changes)
		}
		if span >= Warmup("1m")+2*60e9 && rc.Windows["1m"].Ready == 0 {
			t.Errorf("%s: %s of trades but no ready 1m baseline", c.name, span)
		}
	}
	t.Logf("\n%s", table.String())
}
