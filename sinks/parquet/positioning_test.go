package parquet

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// Snapshots of two days go to venue partitions of their observation day;
// compaction deduplicates a record delivered twice, keeps two reads of the
// same venue figures, and DuckDB reads the columns with the documented types.
func TestPositioningDayFiles(t *testing.T) {
	root := t.TempDir()
	s, err := Open(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	d0 := time.Date(2026, 8, 2, 13, 0, 0, 0, time.UTC)
	snap := func(venue, vs string, at time.Duration, read time.Duration) *schemas.PerpSnapshot {
		return &schemas.PerpSnapshot{Venue: venue, VenueSymbol: vs, Symbol: "BTCUSD", AssetClass: "crypto",
			ObservedNs: d0.Add(at).UnixNano(), ReadNs: d0.Add(read).UnixNano(), OpenInterest: 108833.193, OpenInterestUsd: 6867080628.6789,
			MarkPrice: 63086.4, FundingRate: 0.00009145, FundingIntervalHours: 8, FundingIntervalSource: "default", Source: "poll:test",
			LongShort: &schemas.LongShort{Kind: "global_account", LongShare: 0.6575, ShortShare: 0.3425, Ratio: 1.9197}}
	}
	hist := snap("binance", "BTCUSDT", -time.Hour, 15*time.Minute)
	hist.History, hist.LongShort, hist.FundingIntervalHours = true, nil, 0
	recs := []*schemas.PerpSnapshot{
		snap("binance", "BTCUSDT", 0, 15*time.Minute),
		snap("binance", "BTCUSDT", 0, 15*time.Minute), // delivered twice
		snap("binance", "BTCUSDT", 0, 20*time.Minute), // read again by the next poll
		hist,
		snap("bybit", "BTCUSDT", 5*time.Minute, 5*time.Minute),
		snap("bybit", "BTCUSDT", 24*time.Hour, 24*time.Hour), // next day
	}
	for _, r := range recs {
		if err := s.AddPerpSnapshot(r); err != nil {
			t.Fatal(err)
		}
	}
	q := &schemas.PredictionQuote{Venue: "hyperliquid", MarketId: "2243", Question: "Is BTC above 71169 at 2026-03-27 03:00 UTC?",
		Option: "Yes", Category: "crypto_price", Probability: 0.455, DayVolumeUsd: 9800, ObservedNs: d0.UnixNano(), ReadNs: d0.UnixNano(),
		Coin: "#22430", Underlying: "BTC"}
	if err := s.AddPredictionQuote(q); err != nil {
		t.Fatal(err)
	}
	bad := snap("binance", "BTCUSDT", 0, 0)
	bad.FundingRate = 3
	if err := s.AddPerpSnapshot(bad); !errors.Is(err, schemas.ErrInvalidPositioning) {
		t.Fatalf("bad snapshot: %v", err)
	}
	// The next day's rows move the watermark past 2026-08-02 plus the grace.
	days, err := s.FlushAndCompact()
	if err != nil || len(days) != 1 || days[0] != "2026-08-02" {
		t.Fatalf("compacted %v, %v", days, err)
	}
	rows, err := ReadRows[PositioningRow](filepath.Join(datasets.PositioningDir(root, "2026-08-02", "binance"), datasets.DayFileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Kind != PositioningKindHistory || rows[1].ReadAt >= rows[2].ReadAt || rows[1].Kind != PositioningKindSnapshot {
		t.Fatalf("%+v", rows)
	}
	// 0.00009145 × 1095 × 100 = 10.013775 %/yr.
	if r := rows[1]; r.LongShortKind != "global_account" || r.LongShare != 0.6575 || r.FundingAnnualPct < 10.0137 || r.FundingAnnualPct > 10.0138 {
		t.Fatalf("%+v", r)
	}
	db := duck(t)
	var n int64
	var venue, kind string
	var observed time.Time
	var share, usd float64
	err = db.QueryRow(`SELECT count(*) OVER (), venue, kind, observed_at, long_share, open_interest_usd
		FROM read_parquet('`+datasets.PositioningGlob(root)+`', hive_partitioning=true)
		WHERE venue='binance' AND kind='snapshot' ORDER BY read_at LIMIT 1`).Scan(&n, &venue, &kind, &observed, &share, &usd)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || venue != "binance" || !observed.Equal(d0) || share != 0.6575 || usd != 6867080628.6789 {
		t.Fatalf("%d %s %s %v %v %v", n, venue, kind, observed, share, usd)
	}
	var typ string
	if err := db.QueryRow(`SELECT column_type FROM (DESCRIBE SELECT observed_at FROM read_parquet('` + datasets.PositioningGlob(root) + `'))`).Scan(&typ); err != nil || typ != "TIMESTAMP WITH TIME ZONE" {
		t.Fatalf("observed_at reads as %q, %v", typ, err)
	}
	prs, err := ReadRows[PredictionRow](filepath.Join(datasets.PredictionMarketDir(root, "2026-08-02", "hyperliquid"), datasets.DayFileName))
	if err != nil || len(prs) != 1 || prs[0].Question != q.Question || prs[0].Probability != 0.455 {
		t.Fatalf("%+v %v", prs, err)
	}
	// The open day stays in staging until it closes.
	if staged, _ := StagedDays(root); len(staged) != 1 || staged[0] != "2026-08-03" {
		t.Fatalf("staged %v", staged)
	}
}
