package parquet

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// Depeg readings and risk checks go to chain partitions of their day;
// compaction deduplicates a record delivered twice; DuckDB reads every
// documented column with its documented type.
func TestTokenDayFiles(t *testing.T) {
	root := t.TempDir()
	s, err := Open(Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	d0 := time.Date(2026, 8, 2, 13, 0, 0, 0, time.UTC)
	quote := func(sym string, at time.Duration, price float64, oracle bool) *schemas.StablecoinQuote {
		q := &schemas.StablecoinQuote{Symbol: sym, Chain: "ethereum", Pool: "0xpool", Venue: "uniswap_v3", ObservedNs: d0.Add(at).UnixNano(),
			ReadNs: d0.Add(at + time.Second).UnixNano(), Block: 20_000_000, DexPrice: price, DepthUsd: 5e6}
		if oracle {
			q.HasOracle, q.OraclePrice, q.OracleUpdatedNs = true, 0.9995, d0.Add(-time.Hour).UnixNano()
		}
		return q
	}
	for _, q := range []*schemas.StablecoinQuote{
		quote("USDC", 0, 0.9990, true), quote("USDC", 0, 0.9990, true), // delivered twice
		quote("PYUSD", 0, 1.0012, false), quote("USDC", 5*time.Minute, 0.9960, true),
		quote("USDC", 24*time.Hour, 1, true), // next day
	} {
		if err := s.AddStablecoinQuote(q); err != nil {
			t.Fatal(err)
		}
	}
	obs := &schemas.TokenRiskObservation{Chain: "base", Token: "0xT", Symbol: "T", ObservedNs: d0.UnixNano(), ReadNs: d0.UnixNano(), Block: 7,
		Verdict: "HIGH_RISK", SafetyScore: 0, SellSimulation: "FAIL", SellDetail: "sell reverted: x", FailedChecks: []string{"sell_simulation", "liquidity"}}
	if err := s.AddTokenRiskObservation(obs); err != nil {
		t.Fatal(err)
	}
	if err := s.AddStablecoinQuote(quote("USDC", 0, -1, false)); !errors.Is(err, schemas.ErrInvalidTokenRecord) {
		t.Fatalf("bad quote: %v", err)
	}
	if err := s.AddTokenRiskObservation(&schemas.TokenRiskObservation{Chain: "base", Token: "0xT", ObservedNs: d0.UnixNano(), ReadNs: d0.UnixNano(), Verdict: "LOW_RISK", SafetyScore: 101}); !errors.Is(err, schemas.ErrInvalidTokenRecord) {
		t.Fatalf("bad observation: %v", err)
	}
	if days, err := s.FlushAndCompact(); err != nil || len(days) != 1 || days[0] != "2026-08-02" {
		t.Fatalf("compacted %v, %v", days, err)
	}
	rows, err := ReadRows[StablecoinRow](filepath.Join(datasets.StablecoinDir(root, "2026-08-02", "ethereum"), datasets.DayFileName))
	if err != nil || len(rows) != 3 || rows[0].Symbol != "PYUSD" || rows[0].HasOracle || !rows[1].HasOracle || rows[1].OraclePrice != 0.9995 {
		t.Fatalf("%+v %v", rows, err)
	}
	db := duck(t)
	var sym, chain, checks string
	var dev float64
	var oracle float64
	glob := filepath.Join(root, datasets.KindStablecoins, "date=*", "chain=*", datasets.DayFileName)
	if err := db.QueryRow(`SELECT symbol, chain, deviation_bps, oracle_price FROM read_parquet('`+glob+`', hive_partitioning=true) ORDER BY observed_at DESC, symbol LIMIT 1`).Scan(&sym, &chain, &dev, &oracle); err != nil {
		t.Fatal(err)
	}
	if sym != "USDC" || chain != "ethereum" || dev > -39.99 || dev < -40.01 || oracle != 0.9995 {
		t.Fatalf("%s %s %v %v", sym, chain, dev, oracle)
	}
	rglob := filepath.Join(root, datasets.KindTokenRisk, "date=*", "chain=*", datasets.DayFileName)
	if err := db.QueryRow(`SELECT failed_checks FROM read_parquet('` + rglob + `', hive_partitioning=true)`).Scan(&checks); err != nil || checks != "sell_simulation,liquidity" {
		t.Fatalf("%q %v", checks, err)
	}
	for _, c := range []struct {
		glob string
		cols []datasets.Column
	}{{glob, datasets.StablecoinColumns}, {rglob, datasets.TokenRiskColumns}} {
		for _, col := range c.cols {
			var typ string
			if err := db.QueryRow(`SELECT column_type FROM (DESCRIBE SELECT "` + col.Name + `" FROM read_parquet('` + c.glob + `'))`).Scan(&typ); err != nil || !strings.EqualFold(typ, col.Type) {
				t.Fatalf("%s reads as %q, documented %s (%v)", col.Name, typ, col.Type, err)
			}
		}
	}
}
