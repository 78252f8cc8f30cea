package history_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// BenchmarkSmartMoney1M ranks the wallets of one symbol over 1,000,000
// stored on-chain trades (10 day files of 100,000 trades, 5,000 wallets,
// prices on a random walk, a few same-second round trips), the spec's
// performance case (< 2 s).
func BenchmarkSmartMoney1M(b *testing.B) {
	root := b.TempDir()
	w := histtest.New(b, root)
	first := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for d := range 10 {
		day := first.AddDate(0, 0, d)
		dir := datasets.TradeDir(root, datasets.Day(day), "uniswap_v3")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		w.Exec(fmt.Sprintf(`COPY (
  SELECT (TIMESTAMP '%s' + to_microseconds((i * 864)::BIGINT))::TIMESTAMP_NS AS event_time,
         (TIMESTAMP '%s' + to_microseconds((i * 864)::BIGINT))::TIMESTAMP_NS AS ingest_time,
         'TOKUSD' AS symbol, 'onchain_dex' AS venue_kind, 'base' AS chain, '0xpool' || (i %% 3)::VARCHAR AS market,
         'TOK/USDC' AS venue_symbol, 100 + 10 * sin(i / 5000.0) + (hash(i) %% 100) / 100.0 AS price,
         1 + (hash(i * 7) %% 1000) / 10.0 AS size, (100 + 10 * sin(i / 5000.0)) * (1 + (hash(i * 7) %% 1000) / 10.0) AS notional_usd,
         CASE WHEN hash(i * 13) %% 2 = 0 THEN 'BUY' ELSE 'SELL' END AS side,
         '0x' || md5((i + %d)::VARCHAR) AS trade_id, (i %% 64)::BIGINT AS log_index,
         '0xw' || lpad((hash(i * 31) %% 5000)::VARCHAR, 5, '0') AS wallet
  FROM range(100000) t(i)) TO '%s' (FORMAT parquet)`,
			day.Format("2006-01-02 15:04:05"), day.Format("2006-01-02 15:04:05"), d*100000, filepath.Join(dir, datasets.DayFileName)))
	}
	now := first.AddDate(0, 0, 10)
	s, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	b.ResetTimer()
	for range b.N {
		a, err := s.SmartMoney(b.Context(), "TOKUSD", nil)
		if err != nil || a.TradesUsed+a.Excluded.Arbitrage.Trades+a.Excluded.MEVSandwich.Trades+a.Excluded.TwoSidedBots.Trades < 900_000 {
			b.Fatal(err, a.TradesUsed)
		}
	}
}
