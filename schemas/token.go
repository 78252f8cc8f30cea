package schemas

// Topics of the token-analysis records (schemas/token.proto, docs/token.md).
const (
	// TopicStablecoins carries StablecoinQuote records of the depeg
	// watch, key symbol|chain.
	TopicStablecoins = "mi.stablecoins.v1"
	// TopicTokenRisk carries TokenRiskObservation records of the watched
	// tokens' scheduled checks, key chain:token.
	TopicTokenRisk = "mi.token-risk.v1"
)
