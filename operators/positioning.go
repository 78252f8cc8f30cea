package operators

// Positioning rules (spec §2.11 and §6; docs/positioning.md). Pure functions
// of their arguments: the positioning view, the Parquet rows and the
// funding_extreme detector all call these, so a figure means the same thing
// everywhere.

// Positioning flags (spec §2.11).
const (
	FlagCrowdedLong  = "CROWDED_LONG"
	FlagCrowdedShort = "CROWDED_SHORT"
	FlagThin         = "THIN"
	FlagNone         = "NONE"
)

// Positioning thresholds.
const (
	// CrowdedShare is the long (or short) share at and above which a
	// symbol's positioning is crowded.
	CrowdedShare = 0.65
	// ThinOpenInterestUSD is the total open interest below which a symbol's
	// perps are thin, whatever the shares say.
	ThinOpenInterestUSD = 50_000
	// HoursPerYear annualizes funding: 365 days of 24 hours.
	HoursPerYear = 24 * 365
)

// AnnualizeFunding returns the yearly rate (a fraction: 0.5 = 50 %/yr) of
// a funding rate paid every intervalHours hours: rate × 8760 / intervalHours,
// simple (not compounded), as venues and CoinGlass quote it. A Binance rate
// of 0.0001 every 8 h is 0.1095 (10.95 %/yr); a Hyperliquid rate of 0.0000125
// every hour is the same 10.95 %/yr. It returns 0 for an interval that is not
// positive.
func AnnualizeFunding(rate, intervalHours float64) float64 {
	if !(intervalHours > 0) {
		return 0
	}
	return rate * HoursPerYear / intervalHours
}

// PositioningFlag is the positioning flag of a symbol: THIN when its total
// open interest is below ThinOpenInterestUSD; otherwise CROWDED_LONG when the
// long share is at least CrowdedShare, CROWDED_SHORT when the short share is;
// NONE otherwise, and NONE when no venue publishes a share (hasShare false).
// Shares are fractions 0..1. The thin test comes first: a handful of
// accounts long on a $20k market is not a crowd.
func PositioningFlag(openInterestUSD, longShare, shortShare float64, hasShare bool) string {
	switch {
	case !(openInterestUSD >= ThinOpenInterestUSD):
		return FlagThin
	case !hasShare:
		return FlagNone
	case longShare >= CrowdedShare:
		return FlagCrowdedLong
	case shortShare >= CrowdedShare:
		return FlagCrowdedShort
	}
	return FlagNone
}
