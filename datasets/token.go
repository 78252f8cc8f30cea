package datasets

import "path/filepath"

// Kinds of the token-analysis datasets (docs/token.md, docs/datasets.md).
const (
	// KindStablecoins holds every depeg-watch reading of mi.stablecoins.v1.
	KindStablecoins = "stablecoins"
	// KindTokenRisk holds every scheduled risk check of mi.token-risk.v1.
	KindTokenRisk = "token_risk"
)

// StablecoinDir is <root>/stablecoins/date=<day>/chain=<chain>: the day
// is the UTC day of the reading's block time.
func StablecoinDir(root, day, chain string) string {
	return filepath.Join(root, KindStablecoins, "date="+day, "chain="+chain)
}

// TokenRiskDir is <root>/token_risk/date=<day>/chain=<chain>.
func TokenRiskDir(root, day, chain string) string {
	return filepath.Join(root, KindTokenRisk, "date="+day, "chain="+chain)
}

// StablecoinColumns are the columns of a stablecoins file, in file order.
// The partition columns date and chain come from the path.
var StablecoinColumns = []Column{
	{"observed_at", "TIMESTAMP WITH TIME ZONE", "block time of the reading, UTC"},
	{"read_at", "TIMESTAMP WITH TIME ZONE", "when the watch read it, UTC"},
	{"block", "BIGINT", "block number of the reading"},
	{"symbol", "VARCHAR", "the stablecoin: USDC, USDT, DAI, ... (docs/token.md lists the eleven)"},
	{"pool", "VARCHAR", "address of the pool the price comes from"},
	{"venue", "VARCHAR", "the pool's DEX: uniswap_v3, uniswap_v2"},
	{"dex_price", "DOUBLE", "USD per token from the pool, against another listed stablecoin valued at 1"},
	{"deviation_bps", "DOUBLE", "(dex_price - 1) * 10000"},
	{"depth_usd", "DOUBLE", "USD value the pool holds of both tokens"},
	{"has_oracle", "BOOLEAN", "whether a Chainlink feed was read (the two columns below are 0 / the epoch otherwise)"},
	{"oracle_price", "DOUBLE", "Chainlink latestRoundData answer / 10^decimals"},
	{"oracle_updated_at", "TIMESTAMP WITH TIME ZONE", "the feed's updatedAt"},
}

// TokenRiskColumns are the columns of a token_risk file, in file order.
// The partition columns date and chain come from the path.
var TokenRiskColumns = []Column{
	{"observed_at", "TIMESTAMP WITH TIME ZONE", "head block time of the check, UTC (the read time when the check could not run)"},
	{"read_at", "TIMESTAMP WITH TIME ZONE", "when the watch ran the check, UTC"},
	{"block", "BIGINT", "head block number; 0 when the check could not run"},
	{"token", "VARCHAR", "token contract address (checksummed) or Solana mint"},
	{"symbol", "VARCHAR", "the token's symbol() as it declares it"},
	{"verdict", "VARCHAR", "LOW_RISK, CAUTION, HIGH_RISK; ERROR (the check could not run) or UNSUPPORTED (solana)"},
	{"safety_score", "BIGINT", "0..100"},
	{"sell_simulation", "VARCHAR", "PASS, WARN, FAIL or UNKNOWN"},
	{"sell_detail", "VARCHAR", "the sell check's detail (the revert reason of a failed sell)"},
	{"failed_checks", "VARCHAR", "names of the FAIL checks, comma-separated"},
	{"error", "VARCHAR", "why the verdict is ERROR or UNSUPPORTED"},
}
