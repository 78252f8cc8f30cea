package datasets

import "path/filepath"

// Kinds of the positioning datasets (docs/positioning.md, docs/datasets.md).
const (
	// KindPositioning holds every perp snapshot and open-interest history
	// point of mi.positioning.v1.
	KindPositioning = "positioning"
	// KindPredictionMarkets holds every prediction-market quote of
	// mi.prediction-markets.v1.
	KindPredictionMarkets = "prediction_markets"
)

// PositioningDir is <root>/positioning/date=<day>/venue=<venue>: the day is
// the UTC day of the figures' observation time.
func PositioningDir(root, day, venue string) string {
	return filepath.Join(root, KindPositioning, "date="+day, "venue="+venue)
}

// PredictionMarketDir is <root>/prediction_markets/date=<day>/venue=<venue>.
func PredictionMarketDir(root, day, venue string) string {
	return filepath.Join(root, KindPredictionMarkets, "date="+day, "venue="+venue)
}

// PositioningGlob is the DuckDB glob over the positioning day files.
func PositioningGlob(root string) string {
	return filepath.Join(root, KindPositioning, "date=*", "venue=*", DayFileName)
}

// PositioningColumns are the columns of a positioning file, in file order.
// The partition columns date and venue come from the path.
var PositioningColumns = []Column{
	{"observed_at", "TIMESTAMP WITH TIME ZONE", "the venue's time of the figures, UTC (docs/positioning.md: observation time)"},
	{"read_at", "TIMESTAMP WITH TIME ZONE", "when the poller read them, UTC"},
	{"symbol", "VARCHAR", "normalized symbol, e.g. BTCUSD"},
	{"venue_symbol", "VARCHAR", "the venue's own name of the perp: BTCUSDT, BTC, xyz:TSLA"},
	{"dex", "VARCHAR", "Hyperliquid builder dex (xyz), empty otherwise"},
	{"asset_class", "VARCHAR", "crypto, us_equity, perp_only, or empty when the symbol registry does not cover the symbol"},
	{"kind", "VARCHAR", "snapshot (one poll's reading), history (an open-interest point read from the venue's history endpoint: only open interest is set) or delisted"},
	{"open_interest", "DOUBLE", "open interest in contracts (base units: coins, shares)"},
	{"open_interest_usd", "DOUBLE", "open interest in USD"},
	{"mark_price", "DOUBLE", "mark price, USD; 0 on history and delisted rows"},
	{"index_price", "DOUBLE", "index (Hyperliquid: oracle) price, USD; 0 when not published"},
	{"funding_rate", "DOUBLE", "current funding rate per interval, fraction"},
	{"funding_interval_hours", "DOUBLE", "hours between fundings; 0 on history and delisted rows"},
	{"funding_interval_source", "VARCHAR", "venue (published per perp) or default (the venue's documented interval)"},
	{"funding_annualized_percent", "DOUBLE", "funding_rate * 8760 / funding_interval_hours * 100"},
	{"long_short_kind", "VARCHAR", "measure of the long/short share: global_account (Binance), account (Bybit); empty when the venue publishes none"},
	{"long_share", "DOUBLE", "share long, 0..1; 0 when long_short_kind is empty"},
	{"short_share", "DOUBLE", "share short, 0..1; 0 when long_short_kind is empty"},
	{"long_short_ratio", "DOUBLE", "long_share / short_share as published"},
	{"volume_24h_usd", "DOUBLE", "24 h notional volume, USD; 0 when not published"},
	{"source", "VARCHAR", "the poller that read the row"},
}

// PredictionMarketColumns are the columns of a prediction-market file, in
// file order. The partition columns date and venue come from the path.
var PredictionMarketColumns = []Column{
	{"observed_at", "TIMESTAMP WITH TIME ZONE", "the venue's time of the price, UTC"},
	{"read_at", "TIMESTAMP WITH TIME ZONE", "when the poller read it, UTC"},
	{"market_id", "VARCHAR", "the venue's market id (Hyperliquid: outcome id)"},
	{"question", "VARCHAR", "the question the market answers"},
	{"option", "VARCHAR", "the option the probability is for"},
	{"category", "VARCHAR", "crypto_price, price or event"},
	{"probability", "DOUBLE", "implied probability of the option, 0..1"},
	{"volume_24h_usd", "DOUBLE", "notional traded over the last 24 h, all sides, USD"},
	{"coin", "VARCHAR", "the venue's instrument of the option (#1230)"},
	{"underlying", "VARCHAR", "asset of a price market (BTC), empty otherwise"},
	{"source", "VARCHAR", "the poller that read the row"},
}
