package datasets

// CrossVenueRule is how the query tier combines the candles of one symbol
// and bucket across venues (docs/history.md, "Cross-venue rule"). It is
// written in SQL in query/history (the candles, query, backtest and track
// record statements) and in Go where Go combines venue rows (the backtest
// and track-record scoring, the live preview); every one of them follows
// operators.Leads.
const CrossVenueRule = "cross-venue: volumes, notionals and counts summed; high the highest and low the lowest venue price; " +
	"open and close those of the leading venue (the largest USD volume in the bucket, ties to the venue name that sorts first, " +
	"among the venues with a price), so low <= open, close <= high and a single venue's candle is served as stored; " +
	"vwap = sum(price*size)/sum(size) over all venues; buyPressure = 100*buyVolumeUsd/(buyVolumeUsd+sellVolumeUsd), 50 without aggressor volume"
