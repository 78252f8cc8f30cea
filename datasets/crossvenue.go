package datasets

import "math"

// CrossVenueRule is how the query tier combines the candles of one symbol
// and bucket across venues (docs/history.md, "Cross-venue rule"). It is
// written in SQL in query/history (the candles, query, backtest and track
// record statements) and in Go where Go combines venue rows (the backtest
// and track-record scoring, the live preview); every one of them follows
// Leads.
const CrossVenueRule = "cross-venue: volumes, notionals and counts summed; high the highest and low the lowest venue price; " +
	"open and close those of the leading venue (the largest USD volume in the bucket, ties to the venue name that sorts first, " +
	"among the venues with a price), so low <= open, close <= high and a single venue's candle is served as stored; " +
	"vwap = sum(price*size)/sum(size) over all venues; buyPressure = 100*buyVolumeUsd/(buyVolumeUsd+sellVolumeUsd), 50 without aggressor volume"

// LeadVolume is the USD volume venues are ranked by for the cross-venue
// open and close: an unknown volume (NaN, a NULL in a file) ranks as 0.
func LeadVolume(usd float64) float64 {
	if math.IsNaN(usd) {
		return 0
	}
	return usd + 0 // -0 ranks as 0
}

// Leads reports whether the candle of venue a, with USD volume usdA, leads
// the candle of venue b, with usdB, in the same bucket: its open and close
// are the cross-venue open and close when it has the most USD volume, or
// as much and a name that sorts first. The rule takes prices that traded
// on one venue rather than a mean of several, so the combined open and
// close always lie between the combined low and high (the highest high and
// the lowest low) and a single venue's values come back bit for bit.
func Leads(usdA float64, a string, usdB float64, b string) bool {
	va, vb := LeadVolume(usdA), LeadVolume(usdB)
	if va != vb {
		return va > vb
	}
	return a < b
}
