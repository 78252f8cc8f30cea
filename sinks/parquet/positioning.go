package parquet

import (
	"cmp"
	"strings"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// PositioningRow is one row of a positioning file
// (datasets.PositioningColumns). Date and venue are partition columns.
type PositioningRow struct {
	ObservedAt       int64   `parquet:"observed_at,timestamp(microsecond)"`
	ReadAt           int64   `parquet:"read_at,timestamp(microsecond)"`
	Symbol           string  `parquet:"symbol,dict"`
	VenueSymbol      string  `parquet:"venue_symbol,dict"`
	Dex              string  `parquet:"dex,dict"`
	AssetClass       string  `parquet:"asset_class,dict"`
	Kind             string  `parquet:"kind,dict"`
	OpenInterest     float64 `parquet:"open_interest"`
	OpenInterestUSD  float64 `parquet:"open_interest_usd"`
	MarkPrice        float64 `parquet:"mark_price"`
	IndexPrice       float64 `parquet:"index_price"`
	FundingRate      float64 `parquet:"funding_rate"`
	FundingHours     float64 `parquet:"funding_interval_hours"`
	FundingSource    string  `parquet:"funding_interval_source,dict"`
	FundingAnnualPct float64 `parquet:"funding_annualized_percent"`
	LongShortKind    string  `parquet:"long_short_kind,dict"`
	LongShare        float64 `parquet:"long_share"`
	ShortShare       float64 `parquet:"short_share"`
	LongShortRatio   float64 `parquet:"long_short_ratio"`
	Volume24hUSD     float64 `parquet:"volume_24h_usd"`
	Source           string  `parquet:"source,dict"`
}

// PredictionRow is one row of a prediction-market file
// (datasets.PredictionMarketColumns). Date and venue are partition columns.
type PredictionRow struct {
	ObservedAt   int64   `parquet:"observed_at,timestamp(microsecond)"`
	ReadAt       int64   `parquet:"read_at,timestamp(microsecond)"`
	MarketID     string  `parquet:"market_id,dict"`
	Question     string  `parquet:"question,dict"`
	Option       string  `parquet:"option,dict"`
	Category     string  `parquet:"category,dict"`
	Probability  float64 `parquet:"probability"`
	Volume24hUSD float64 `parquet:"volume_24h_usd"`
	Coin         string  `parquet:"coin,dict"`
	Underlying   string  `parquet:"underlying,dict"`
	Source       string  `parquet:"source,dict"`
}

// Kinds of positioning rows.
const (
	PositioningKindSnapshot = "snapshot"
	PositioningKindHistory  = "history"
	PositioningKindDelisted = "delisted"
)

// PositioningRowOf converts a perp snapshot.
func PositioningRowOf(s *schemas.PerpSnapshot) PositioningRow {
	r := PositioningRow{
		ObservedAt: s.ObservedNs / 1000, ReadAt: s.ReadNs / 1000, Symbol: s.Symbol, VenueSymbol: s.VenueSymbol,
		Dex: s.Dex, AssetClass: s.AssetClass, Kind: PositioningKindSnapshot,
		OpenInterest: s.OpenInterest, OpenInterestUSD: s.OpenInterestUsd, MarkPrice: s.MarkPrice, IndexPrice: s.IndexPrice,
		FundingRate: s.FundingRate, FundingHours: s.FundingIntervalHours, FundingSource: s.FundingIntervalSource,
		FundingAnnualPct: 100 * operators.AnnualizeFunding(s.FundingRate, s.FundingIntervalHours),
		Volume24hUSD:     s.DayVolumeUsd, Source: s.Source,
	}
	switch {
	case s.Delisted:
		r.Kind = PositioningKindDelisted
	case s.History:
		r.Kind = PositioningKindHistory
	}
	if ls := s.LongShort; ls != nil {
		r.LongShortKind, r.LongShare, r.ShortShare, r.LongShortRatio = ls.Kind, ls.LongShare, ls.ShortShare, ls.Ratio
	}
	return r
}

// PredictionRowOf converts a prediction-market quote.
func PredictionRowOf(q *schemas.PredictionQuote) PredictionRow {
	return PredictionRow{
		ObservedAt: q.ObservedNs / 1000, ReadAt: q.ReadNs / 1000, MarketID: q.MarketId, Question: q.Question,
		Option: q.Option, Category: q.Category, Probability: q.Probability, Volume24hUSD: q.DayVolumeUsd,
		Coin: q.Coin, Underlying: q.Underlying, Source: q.Source,
	}
}

func cmpPositioning(a, b *PositioningRow) int {
	return cmp.Or(cmp.Compare(a.ObservedAt, b.ObservedAt), strings.Compare(a.VenueSymbol, b.VenueSymbol),
		strings.Compare(a.Kind, b.Kind), cmp.Compare(a.ReadAt, b.ReadAt))
}

func cmpPrediction(a, b *PredictionRow) int {
	return cmp.Or(cmp.Compare(a.ObservedAt, b.ObservedAt), strings.Compare(a.MarketID, b.MarketID), cmp.Compare(a.ReadAt, b.ReadAt))
}

// AddPerpSnapshot buffers a record of mi.positioning.v1 in the partition of
// its venue and the UTC day of its observation. A record that fails
// schemas.ValidatePerpSnapshot is refused with that error (the caller
// dead-letters it). Positioning records move the sink's watermark but not
// the trade streams' (candles, signals, trades): a sink that also writes
// those closes a day when they pass it; a sink fed positioning alone closes a
// day when the newest observation passes its end plus the grace. A record of
// a day already closed (a late backfill point) reopens it: the next
// compaction merges it into the day file.
func (s *Sink) AddPerpSnapshot(p *schemas.PerpSnapshot) error {
	if err := schemas.ValidatePerpSnapshot(p); err != nil {
		return err
	}
	if err := checkPart("venue", p.Venue); err != nil {
		return err
	}
	day := s.positioning.addByVenue(p.ObservedNs, p.Venue, func(day string) string {
		return datasets.PositioningDir(s.root, day, p.Venue)
	}, PositioningRowOf(p))
	s.mark(day)
	s.observe(streamNone, p.ObservedNs)
	return nil
}

// AddPredictionQuote buffers a record of mi.prediction-markets.v1, like
// AddPerpSnapshot.
func (s *Sink) AddPredictionQuote(q *schemas.PredictionQuote) error {
	if err := schemas.ValidatePredictionQuote(q); err != nil {
		return err
	}
	if err := checkPart("venue", q.Venue); err != nil {
		return err
	}
	day := s.predictions.addByVenue(q.ObservedNs, q.Venue, func(day string) string {
		return datasets.PredictionMarketDir(s.root, day, q.Venue)
	}, PredictionRowOf(q))
	s.mark(day)
	s.observe(streamNone, q.ObservedNs)
	return nil
}
