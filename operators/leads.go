package operators

import "math"

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
