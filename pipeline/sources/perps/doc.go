// Package perps reads perpetual-futures positioning from the venues that
// publish it — Binance USDⓈ-M futures, Bybit v5 linear and Hyperliquid (its
// main dex and HIP-3 builder dexes) — and the prediction markets Hyperliquid
// lists (HIP-4 outcome markets): open interest in contracts and USD, funding
// rate and interval, the long/short share a venue publishes, mark prices, and
// implied probabilities.
//
// The package has two layers. The parsers and builders (binance.go,
// bybit.go, hyperliquid.go, outcomes.go) are pure: they turn a venue's
// response bytes, and the time they were read, into schemas.PerpSnapshot and
// schemas.PredictionQuote records; malformed input is a *ParseError whose text
// is the dead-letter reason, a bad item of a good answer is a Reject. The
// pollers (poller.go) do the I/O through pipeline/sources/poll: one poll
// cycle per venue every 5 minutes (prediction markets every 15), aligned to
// the clock, with backoff, the venues' rate-limit answers (403, 418, 429,
// Retry-After) honoured, conditional GETs, and freshness for /status
// (sources.Health). docs/positioning.md documents every endpoint and rule.
//
// Venue symbols map to normalized symbols in one function, Normalize.
package perps
