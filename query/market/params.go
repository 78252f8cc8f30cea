package market

// Parameter defaults and bounds (spec §4, §8).
const (
	defaultWindow    = "5m"
	defaultListLimit = 20
	maxListLimit     = 100
)

// Defaults and bounds of the market routes (spec §4.1, §8).
const (
	defaultRankLimit      = 10
	defaultMinAnomaly     = 70
	defaultMinTrades      = 3
	maxMinTrades          = 1_000_000_000
	defaultMinBuyPressure = 60
	defaultMaxBuyPressure = 40
)
