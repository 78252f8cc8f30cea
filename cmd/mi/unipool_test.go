package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources/replay"
)

// TestBackfillResolvedPool replays the eth_getLogs answer of a pool that is
// not built in — PTT/USDC.e on a simulated chain named polygon — through
// mi backfill with the chain's RPC endpoint in --sources-config, and reads
// the trades and candles it wrote; without the configuration the pool is
// unknown and nothing is written.
func TestBackfillResolvedPool(t *testing.T) {
	b := uniswaptest.DeployBridged(t)
	dir := t.TempDir()
	src := "replay:" + b.LogsPath + "#chain=polygon"
	err := cmdBackfill(context.Background(), []string{"--data-dir", dir, "--from", b.Day, "--source", src})
	if err == nil || !strings.Contains(err.Error(), `chain "polygon" has no RPC endpoint`) {
		t.Fatalf("backfill without the chain configured: %v", err)
	}
	cfg := filepath.Join(t.TempDir(), "sources.json")
	if err := os.WriteFile(cfg, []byte(`{"chains":[{"chain":"polygon","rpc":"`+b.Chain.URL+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	defer replay.SetPoolRegistry("polygon", nil)
	if err := cmdBackfill(context.Background(), []string{"--data-dir", dir, "--from", b.Day, "--source", src, "--sources-config", cfg}); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	var out bytes.Buffer
	if err := runSQL(context.Background(), &out, dir, "256MB",
		"SELECT chain, symbol, venue_symbol, side, round(price, 3) AS p FROM trades ORDER BY event_time, log_index", true); err != nil {
		t.Fatal(err)
	}
	// 2 USDC.e per PTT less (a sell) and plus (a buy) the 0.3% fee.
	if got := strings.Fields(out.String()); strings.Join(got, " ") != "chain,symbol,venue_symbol,side,p polygon,PTTUSD,PTT/USDC.e,SELL,1.994 polygon,PTTUSD,PTT/USDC.e,BUY,2.006" {
		t.Fatalf("trades:\n%s", out.String())
	}
	out.Reset()
	if err := runSQL(context.Background(), &out, dir, "256MB",
		"SELECT symbol, sum(trade_count) AS n FROM candles WHERE interval = '1m' GROUP BY ALL", true); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(out.String()), " "); got != "symbol,n PTTUSD,2" {
		t.Fatalf("candles: %q", got)
	}
}
