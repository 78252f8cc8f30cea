package parquet

import (
	"cmp"
	"strings"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
)

// StablecoinRow is one row of a stablecoins file (datasets.StablecoinColumns).
// Date and chain are partition columns.
type StablecoinRow struct {
	ObservedAt      int64   `parquet:"observed_at,timestamp(microsecond)"`
	ReadAt          int64   `parquet:"read_at,timestamp(microsecond)"`
	Block           int64   `parquet:"block"`
	Symbol          string  `parquet:"symbol,dict"`
	Pool            string  `parquet:"pool,dict"`
	Venue           string  `parquet:"venue,dict"`
	DexPrice        float64 `parquet:"dex_price"`
	DeviationBps    float64 `parquet:"deviation_bps"`
	DepthUSD        float64 `parquet:"depth_usd"`
	HasOracle       bool    `parquet:"has_oracle"`
	OraclePrice     float64 `parquet:"oracle_price"`
	OracleUpdatedAt int64   `parquet:"oracle_updated_at,timestamp(microsecond)"`
}

// TokenRiskRow is one row of a token_risk file (datasets.TokenRiskColumns).
// Date and chain are partition columns.
type TokenRiskRow struct {
	ObservedAt     int64  `parquet:"observed_at,timestamp(microsecond)"`
	ReadAt         int64  `parquet:"read_at,timestamp(microsecond)"`
	Block          int64  `parquet:"block"`
	Token          string `parquet:"token,dict"`
	Symbol         string `parquet:"symbol,dict"`
	Verdict        string `parquet:"verdict,dict"`
	SafetyScore    int64  `parquet:"safety_score"`
	SellSimulation string `parquet:"sell_simulation,dict"`
	SellDetail     string `parquet:"sell_detail"`
	FailedChecks   string `parquet:"failed_checks"`
	Error          string `parquet:"error"`
}

// StablecoinRowOf converts a depeg-watch reading.
func StablecoinRowOf(q *schemas.StablecoinQuote) StablecoinRow {
	r := StablecoinRow{ObservedAt: q.ObservedNs / 1000, ReadAt: q.ReadNs / 1000, Block: int64(q.Block), Symbol: q.Symbol,
		Pool: q.Pool, Venue: q.Venue, DexPrice: q.DexPrice, DeviationBps: (q.DexPrice - 1) * 10_000, DepthUSD: q.DepthUsd}
	if q.HasOracle {
		r.HasOracle, r.OraclePrice, r.OracleUpdatedAt = true, q.OraclePrice, q.OracleUpdatedNs/1000
	}
	return r
}

// TokenRiskRowOf converts a scheduled risk check.
func TokenRiskRowOf(o *schemas.TokenRiskObservation) TokenRiskRow {
	return TokenRiskRow{ObservedAt: o.ObservedNs / 1000, ReadAt: o.ReadNs / 1000, Block: int64(o.Block), Token: o.Token, Symbol: o.Symbol,
		Verdict: o.Verdict, SafetyScore: int64(o.SafetyScore), SellSimulation: o.SellSimulation, SellDetail: o.SellDetail,
		FailedChecks: strings.Join(o.FailedChecks, ","), Error: o.Error}
}

func cmpStablecoin(a, b *StablecoinRow) int {
	return cmp.Or(cmp.Compare(a.ObservedAt, b.ObservedAt), strings.Compare(a.Symbol, b.Symbol), cmp.Compare(a.ReadAt, b.ReadAt))
}

func cmpTokenRisk(a, b *TokenRiskRow) int {
	return cmp.Or(cmp.Compare(a.ObservedAt, b.ObservedAt), strings.Compare(a.Token, b.Token), cmp.Compare(a.ReadAt, b.ReadAt))
}

// AddStablecoinQuote buffers a record of mi.stablecoins.v1 in the
// partition of its chain and the UTC day of its block time, like
// AddPerpSnapshot (natural key: observed_at, symbol, read_at within a
// chain partition). A record that fails schemas.ValidateStablecoinQuote is
// refused with that error.
func (s *Sink) AddStablecoinQuote(q *schemas.StablecoinQuote) error {
	if err := schemas.ValidateStablecoinQuote(q); err != nil {
		return err
	}
	if err := checkPart("chain", q.Chain); err != nil {
		return err
	}
	day := s.stablecoins.addByVenue(q.ObservedNs, q.Chain, func(day string) string {
		return datasets.StablecoinDir(s.root, day, q.Chain)
	}, StablecoinRowOf(q))
	s.mark(day)
	s.observe(streamNone, q.ObservedNs)
	return nil
}

// AddTokenRiskObservation buffers a record of mi.token-risk.v1 (natural
// key: observed_at, token, read_at within a chain partition).
func (s *Sink) AddTokenRiskObservation(o *schemas.TokenRiskObservation) error {
	if err := schemas.ValidateTokenRiskObservation(o); err != nil {
		return err
	}
	if err := checkPart("chain", o.Chain); err != nil {
		return err
	}
	day := s.tokenRisk.addByVenue(o.ObservedNs, o.Chain, func(day string) string {
		return datasets.TokenRiskDir(s.root, day, o.Chain)
	}, TokenRiskRowOf(o))
	s.mark(day)
	s.observe(streamNone, o.ObservedNs)
	return nil
}
