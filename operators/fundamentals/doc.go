// Package fundamentals turns a company's XBRL facts (the SEC's companyfacts
// JSON) into the numbers of its financial statements, the ratios derived
// from them and a deterministic fundamental signal (spec §2.7,
// SecFundamentalIntelligence).
//
// It is pure: no I/O and no clock. The time of the answer (asOf) is passed
// in, so the same facts give the same answer byte for byte. The rules —
// concept fallbacks per metric, periods, trailing twelve months, Q4
// derivation, restatements, currencies, ratios with their null reasons,
// score, signal and confidence — are written down in docs/fundamentals.md,
// which this package's tests keep in step.
package fundamentals
