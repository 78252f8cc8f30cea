package token

import "github.com/marketintel/mi/query/schema"

var (
	nullableNumber = schema.Nullable("number")

	poolSchema = schema.Object("A pool of the token.", schema.Obj{
		{"address", schema.String}, {"venue", schema.String}, {"kind", schema.Enum("uniswap_v2", "uniswap_v3")},
		{"quote", schema.String}, {"feeTier", schema.Count}, {"liquidityUsd", schema.Number}, {"priceUsd", schema.Number},
	})

	largestSchema = schema.Obj{{"description", "The window's largest swap by USD; null without swaps."}, {"type", []string{"object", "null"}},
		{"properties", schema.Obj{{"usd", schema.Number}, {"side", schema.Enum("BUY", "SELL")}, {"trader", schema.String}, {"txHash", schema.String}, {"block", schema.Count}}},
		{"required", []string{"usd", "side", "trader", "txHash", "block"}}, {"additionalProperties", false}}

	flowObj = schema.Object("Last-hour DEX flow of a token (docs/token.md).", schema.Obj{
		{"token", schema.String}, {"chain", schema.String}, {"symbol", schema.String},
		{"verdict", schema.Enum("ACCUMULATION", "DISTRIBUTION", "BALANCED", "ILLIQUID_OR_INACTIVE", "NO_POOL")},
		{"verdictReason", schema.String},
		{"windowStart", schema.DateTime}, {"windowEnd", schema.DateTime}, {"fromBlock", schema.Count}, {"toBlock", schema.Count},
		{"swaps", schema.Count}, {"buys", schema.Count}, {"sells", schema.Count},
		{"buyVolumeUsd", schema.Number}, {"sellVolumeUsd", schema.Number}, {"volumeUsd", schema.Number}, {"netFlowUsd", schema.Number},
		{"buyPressure", schema.Percent()}, {"priceUsd", schema.Number}, {"priceChangePercent", schema.Number},
		{"largestTrade", largestSchema},
		{"traderConcentration", schema.Object("Share of the USD volume traded by the most active wallets.", schema.Obj{
			{"topWallets", schema.Count}, {"topSharePercent", schema.Percent()}, {"traders", schema.Count}})},
		{"liquidityUsd", schema.Number}, {"pools", schema.Array(poolSchema)},
		{"timestamp", schema.DateTime}, {"readAt", schema.DateTime}, {"notes", schema.Array(schema.String)},
	})

	// FlowSchema is the answer of GET /api/v1/intelligence/token/{address}.
	FlowSchema = schema.Named{Name: "TokenFlow", Schema: flowObj}

	checkSchema = schema.Object("One check.", schema.Obj{
		{"name", schema.String}, {"result", schema.Enum("PASS", "WARN", "FAIL", "UNKNOWN", "INFO")},
		{"detail", schema.String}, {"penalty", schema.Count},
	})

	simulationSchema = schema.Obj{{"description", "The buy/sell simulation's figures; null when it did not run."}, {"type", []string{"object", "null"}},
		{"properties", schema.Obj{{"pool", schema.String}, {"buyer", schema.String}, {"buyerSource", schema.String}, {"quoteIn", schema.String},
			{"buyTax", nullableNumber}, {"sellTax", nullableNumber}, {"buyGas", schema.Count}, {"sellGas", schema.Count}}},
		{"required", []string{"pool", "buyer", "buyerSource", "quoteIn", "buyTax", "sellTax", "buyGas", "sellGas"}}, {"additionalProperties", false}}

	proxySchema = schema.Obj{{"description", "The proxy, null when the token is not one."}, {"type", []string{"object", "null"}},
		{"properties", schema.Obj{{"kind", schema.Enum("eip1967", "eip1967-beacon", "eip1167")}, {"implementation", schema.String}, {"admin", schema.String}}},
		{"required", []string{"kind", "implementation", "admin"}}, {"additionalProperties", false}}

	// RiskSchema is the answer of GET /api/v1/intelligence/token-risk/{address}.
	RiskSchema = schema.Named{Name: "TokenRisk", Schema: schema.Object("Token risk report: automated checks, not an audit (docs/token.md).", schema.Obj{
		{"token", schema.String}, {"chain", schema.String}, {"name", schema.String}, {"symbol", schema.String}, {"decimals", schema.Count},
		{"verdict", schema.Enum("LOW_RISK", "CAUTION", "HIGH_RISK")},
		{"safetyScore", schema.Obj{{"type", "integer"}, {"minimum", 0}, {"maximum", 100}}},
		{"checks", schema.Array(checkSchema)}, {"failedChecks", schema.Array(schema.String)},
		{"simulation", simulationSchema}, {"owner", schema.String}, {"proxy", proxySchema},
		{"flow", schema.Obj{{"description", "The last-hour flow (as the token route answers it)."}, {"anyOf", []any{schema.Ref("TokenFlow"), schema.Obj{{"type", "null"}}}}}},
		{"block", schema.Count}, {"timestamp", schema.DateTime}, {"readAt", schema.DateTime}, {"disclaimer", schema.String},
	})}
)
