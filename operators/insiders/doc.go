// Package insiders reads SEC ownership filings — Form 4 and 4/A (and 3, 5)
// ownershipDocument XML, Form 144 notices — and turns the filings of one
// issuer within a window into an insider-activity analysis with a signal
// (spec §2.11: CLUSTER_BUYING, NET_BUYING, PLANNED_SELLING, NET_SELLING,
// NO_OPEN_MARKET_ACTIVITY).
//
// It is pure: no I/O and no clock; the window's end is passed in. The
// transaction codes, the 10b5-1 rules, the value of a transaction, the
// treatment of inconsistent rows and amendments, and the signal rules are
// written down in docs/insiders.md.
package insiders
