package schemas

import (
	"errors"
	"fmt"
	"math"
)

// Topics of the positioning domain (docs/positioning.md).
const (
	// TopicPositioning carries PerpSnapshot records, key venue|venue_symbol.
	// Cleanup delete with a retention of at least 48 h: the positioning view
	// rebuilds the 24 h open-interest change from it at boot.
	TopicPositioning = "mi.positioning.v1"
	// TopicPredictionMarkets carries PredictionQuote records, key
	// venue|market_id.
	TopicPredictionMarkets = "mi.prediction-markets.v1"
)

// Positioning record bounds: values outside them are refused (a venue
// answering nonsense), so every sum and ratio the view computes stays finite.
const (
	// MaxOpenInterestUSD bounds the open interest of one perp on one venue.
	MaxOpenInterestUSD = 1e13
	// MaxFundingRate bounds the absolute funding rate of one interval
	// (venues cap it far lower, e.g. 0.3 % to 5 %).
	MaxFundingRate = 1.0
	// MaxFundingIntervalHours bounds the funding interval.
	MaxFundingIntervalHours = 24 * 7
)

// ErrInvalidPositioning is wrapped by every error ValidatePerpSnapshot and
// ValidatePredictionQuote return.
var ErrInvalidPositioning = errors.New("invalid positioning record")

// ValidatePerpSnapshot reports why a snapshot cannot enter the pipeline, or
// nil. The error text is the dead-letter reason: a short, stable phrase first
// ("bad open interest", "bad funding rate", ...), then details.
func ValidatePerpSnapshot(s *PerpSnapshot) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case s == nil:
		return fmt.Errorf("%w: missing", ErrInvalidPositioning)
	case s.Venue == "":
		return fmt.Errorf("%w: missing venue", ErrInvalidPositioning)
	case s.VenueSymbol == "":
		return fmt.Errorf("%w: missing venue symbol", ErrInvalidPositioning)
	case s.Symbol == "":
		return fmt.Errorf("%w: missing symbol", ErrInvalidPositioning)
	case s.ObservedNs < MinEventTimeNs || s.ObservedNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd timestamp %d", ErrInvalidPositioning, s.ObservedNs)
	case s.ReadNs < MinEventTimeNs || s.ReadNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd read time %d", ErrInvalidPositioning, s.ReadNs)
	case !finite(s.OpenInterest) || s.OpenInterest < 0:
		return fmt.Errorf("%w: bad open interest %v", ErrInvalidPositioning, s.OpenInterest)
	case !finite(s.OpenInterestUsd) || s.OpenInterestUsd < 0 || s.OpenInterestUsd > MaxOpenInterestUSD:
		return fmt.Errorf("%w: bad open interest %v USD", ErrInvalidPositioning, s.OpenInterestUsd)
	case s.History || s.Delisted:
		return nil // a history point carries open interest only; a delisted perp nothing
	case !finite(s.MarkPrice) || s.MarkPrice < 0:
		return fmt.Errorf("%w: bad mark price %v", ErrInvalidPositioning, s.MarkPrice)
	case !finite(s.IndexPrice) || s.IndexPrice < 0:
		return fmt.Errorf("%w: bad index price %v", ErrInvalidPositioning, s.IndexPrice)
	case !finite(s.FundingRate) || math.Abs(s.FundingRate) > MaxFundingRate:
		return fmt.Errorf("%w: bad funding rate %v", ErrInvalidPositioning, s.FundingRate)
	case !(s.FundingIntervalHours > 0) || s.FundingIntervalHours > MaxFundingIntervalHours:
		return fmt.Errorf("%w: bad funding interval %v h", ErrInvalidPositioning, s.FundingIntervalHours)
	case !finite(s.DayVolumeUsd) || s.DayVolumeUsd < 0:
		return fmt.Errorf("%w: bad volume %v", ErrInvalidPositioning, s.DayVolumeUsd)
	}
	if ls := s.LongShort; ls != nil {
		ok := finite(ls.LongShare) && finite(ls.ShortShare) && ls.LongShare >= 0 && ls.ShortShare >= 0 &&
			ls.LongShare <= 1 && ls.ShortShare <= 1 && ls.LongShare+ls.ShortShare > 0.98 && ls.LongShare+ls.ShortShare < 1.02
		if !ok || ls.Kind == "" {
			return fmt.Errorf("%w: bad long/short share %v/%v (%q)", ErrInvalidPositioning, ls.LongShare, ls.ShortShare, ls.Kind)
		}
	}
	return nil
}

// ValidatePredictionQuote reports why a quote cannot enter the pipeline, or
// nil, like ValidatePerpSnapshot.
func ValidatePredictionQuote(q *PredictionQuote) error {
	switch {
	case q == nil:
		return fmt.Errorf("%w: missing", ErrInvalidPositioning)
	case q.Venue == "" || q.MarketId == "":
		return fmt.Errorf("%w: missing market", ErrInvalidPositioning)
	case q.Question == "":
		return fmt.Errorf("%w: missing question", ErrInvalidPositioning)
	case !(q.Probability >= 0 && q.Probability <= 1):
		return fmt.Errorf("%w: bad probability %v", ErrInvalidPositioning, q.Probability)
	case !(q.DayVolumeUsd >= 0) || math.IsInf(q.DayVolumeUsd, 0):
		return fmt.Errorf("%w: bad volume %v", ErrInvalidPositioning, q.DayVolumeUsd)
	case q.ObservedNs < MinEventTimeNs || q.ObservedNs >= MaxEventTimeNs:
		return fmt.Errorf("%w: absurd timestamp %d", ErrInvalidPositioning, q.ObservedNs)
	}
	return nil
}
