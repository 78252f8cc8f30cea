package datasets

import "path/filepath"

// KindRates is the directory of the rates datasets (docs/rates.md):
//
//	<root>/rates/date=YYYY-MM-DD/<dataset>.parquet
//
// one file per dataset and date. Unlike the trade-derived day files, a
// rates file of a date is rewritten (atomically, temp + rename) whenever
// records of that date arrive — the publishers revise past days and the
// volume is small — so it is always whole but not final until its date
// is past.
const KindRates = "rates"

// Rates datasets: the file name (without .parquet) and the date a row is
// filed under.
const (
	RatesCurves     = "curves"      // observation date
	RatesOvernight  = "overnight"   // effective date
	RatesLending    = "lending"     // UTC date of the block
	RatesFundSupply = "fund_supply" // UTC date of the snapshot hour
	RatesAuctions   = "auctions"    // auction date
)

// RatesDatasets lists the rates datasets.
var RatesDatasets = []string{RatesCurves, RatesOvernight, RatesLending, RatesFundSupply, RatesAuctions}

// RatesFile is <root>/rates/date=<day>/<dataset>.parquet.
func RatesFile(root, dataset, day string) string {
	return filepath.Join(root, KindRates, "date="+day, dataset+".parquet")
}

// RatesGlob matches every file of a rates dataset; read it with
// hive_partitioning so date becomes a column.
func RatesGlob(root, dataset string) string {
	return filepath.Join(root, KindRates, "date=*", dataset+".parquet")
}

// Columns common to the rates datasets: where each row comes from.
var ratesProvenance = []Column{
	{"read_at", "TIMESTAMP WITH TIME ZONE", "when the service first read these values, UTC"},
	{"source", "VARCHAR", "configured source that read them, e.g. treasury:par"},
	{"publisher", "VARCHAR", "who published them, e.g. U.S. Department of the Treasury"},
	{"url", "VARCHAR", "what was read: the publisher's URL, or eth_call <chain> <contract>"},
}

func withProvenance(cols ...Column) []Column { return append(cols, ratesProvenance...) }

// RatesCurveColumns are the columns of rates curves files: one row per
// tenor of a published curve version (a revision is a new version with
// its own rows); a tenor the publisher left empty has no row.
var RatesCurveColumns = withProvenance(
	Column{"curve", "VARCHAR", "par_nominal (Treasury par yield curve) or par_real (par real yield curve)"},
	Column{"tenor", "VARCHAR", "1M, 1.5M, 2M, 3M, 4M, 6M, 1Y, 2Y, 3Y, 5Y, 7Y, 10Y, 20Y or 30Y"},
	Column{"months", "DOUBLE", "maturity in months"},
	Column{"yield_percent", "DOUBLE", "par yield, percent (bond-equivalent basis, as published)"},
	Column{"version", "VARCHAR", "content hash of the curve version (16 hex digits); the version with the latest read_at is current"},
)

// RatesOvernightColumns are the columns of rates overnight files: one
// row per fixing version.
var RatesOvernightColumns = withProvenance(
	Column{"rate", "VARCHAR", "sofr, effr or estr"},
	Column{"percent", "DOUBLE", "rate, percent per year"},
	Column{"percentile_1", "DOUBLE", "1st percentile of the day's transactions, percent (NULL when not published)"},
	Column{"percentile_25", "DOUBLE", "25th percentile, percent"},
	Column{"percentile_75", "DOUBLE", "75th percentile, percent"},
	Column{"percentile_99", "DOUBLE", "99th percentile, percent"},
	Column{"volume", "DOUBLE", "underlying volume: USD billions (SOFR, EFFR), EUR millions (estr)"},
	Column{"target_from", "DOUBLE", "FOMC target range low, percent (EFFR)"},
	Column{"target_to", "DOUBLE", "FOMC target range high, percent (EFFR)"},
	Column{"revision_indicator", "VARCHAR", "the publisher's revision flag as published"},
	Column{"version", "VARCHAR", "content hash of the fixing version (16 hex digits)"},
)

// RatesLendingColumns are the columns of rates lending files: one row per
// reserve read (a block).
var RatesLendingColumns = withProvenance(
	Column{"block_time", "TIMESTAMP WITH TIME ZONE", "time of the block read, UTC"},
	Column{"protocol", "VARCHAR", "aave-v3"},
	Column{"chain", "VARCHAR", "ethereum, base, arbitrum, optimism or polygon"},
	Column{"chain_id", "BIGINT", "EIP-155 chain id"},
	Column{"block_number", "BIGINT", "block the Pool was called at"},
	Column{"pool", "VARCHAR", "Pool contract address"},
	Column{"asset", "VARCHAR", "reserve asset address"},
	Column{"asset_symbol", "VARCHAR", "USDC"},
	Column{"supply_apr_percent", "DOUBLE", "currentLiquidityRate / 1e25, percent"},
	Column{"supply_apy_percent", "DOUBLE", "supply APR compounded per second over 31,536,000 s, percent"},
	Column{"borrow_apr_percent", "DOUBLE", "currentVariableBorrowRate / 1e25, percent"},
	Column{"borrow_apy_percent", "DOUBLE", "variable borrow APR compounded per second, percent"},
	Column{"liquidity_rate_ray", "VARCHAR", "currentLiquidityRate as returned, decimal integer, ray (1e27)"},
	Column{"variable_borrow_rate_ray", "VARCHAR", "currentVariableBorrowRate, decimal integer, ray"},
	Column{"liquidity_index_ray", "VARCHAR", "liquidityIndex, decimal integer, ray"},
	Column{"variable_borrow_index_ray", "VARCHAR", "variableBorrowIndex, decimal integer, ray"},
	Column{"reserve_updated_at", "TIMESTAMP WITH TIME ZONE", "reserve lastUpdateTimestamp, UTC"},
	Column{"active", "BOOLEAN", "reserve configuration: active"},
	Column{"frozen", "BOOLEAN", "reserve configuration: frozen"},
	Column{"paused", "BOOLEAN", "reserve configuration: paused"},
)

// RatesFundSupplyColumns are the columns of rates fund_supply files: one
// row per fund and hourly snapshot.
var RatesFundSupplyColumns = withProvenance(
	Column{"snapshot_time", "TIMESTAMP WITH TIME ZONE", "the hour the snapshot stands for, UTC"},
	Column{"chain", "VARCHAR", "ethereum"},
	Column{"symbol", "VARCHAR", "fund token symbol: BUIDL, OUSG, USDY, USTB, USYC"},
	Column{"token", "VARCHAR", "token contract address"},
	Column{"supply", "DOUBLE", "total supply in whole tokens (total_supply_raw / 10^decimals)"},
	Column{"total_supply_raw", "VARCHAR", "totalSupply() as returned, decimal integer, base units"},
	Column{"decimals", "BIGINT", "decimals() as returned"},
	Column{"block_number", "BIGINT", "block the token was called at"},
	Column{"block_time", "TIMESTAMP WITH TIME ZONE", "time of that block, UTC"},
)

// RatesAuctionColumns are the columns of rates auctions files: one row
// per auction version (announced, then with results, and any revision).
var RatesAuctionColumns = withProvenance(
	Column{"cusip", "VARCHAR", "CUSIP of the security"},
	Column{"security_type", "VARCHAR", "Bill, Note or Bond"},
	Column{"security_term", "VARCHAR", "term as auctioned, e.g. 13-Week, 9-Year 10-Month"},
	Column{"original_security_term", "VARCHAR", "term at first issue, empty when not published"},
	Column{"kind", "VARCHAR", "Bill, CMB, Note, Bond, TIPS or FRN"},
	Column{"series", "VARCHAR", "series key of the previous auction of the same security, e.g. Note 10-Year"},
	Column{"reopening", "BOOLEAN", "a reopening of an issued security"},
	Column{"status", "VARCHAR", "ANNOUNCED (no results) or AUCTIONED"},
	Column{"announcement_date", "VARCHAR", "YYYY-MM-DD, empty when not published"},
	Column{"issue_date", "VARCHAR", "YYYY-MM-DD"},
	Column{"maturity_date", "VARCHAR", "YYYY-MM-DD"},
	Column{"offering_amount", "BIGINT", "offering amount, US dollars"},
	Column{"high_yield", "DOUBLE", "high yield, percent (notes, bonds, TIPS)"},
	Column{"high_discount_rate", "DOUBLE", "high discount rate, percent (bills)"},
	Column{"high_investment_rate", "DOUBLE", "high investment rate, bond-equivalent percent (bills)"},
	Column{"high_discount_margin", "DOUBLE", "high discount margin, percent (FRNs)"},
	Column{"price_per_100", "DOUBLE", "price per 100 of face value"},
	Column{"bid_to_cover", "DOUBLE", "bid-to-cover ratio as published"},
	Column{"competitive_accepted", "BIGINT", "competitive tenders accepted, US dollars"},
	Column{"indirect_accepted", "BIGINT", "accepted from indirect bidders, US dollars"},
	Column{"direct_accepted", "BIGINT", "accepted from direct bidders, US dollars"},
	Column{"primary_dealer_accepted", "BIGINT", "accepted from primary dealers, US dollars"},
	Column{"total_tendered", "BIGINT", "total tendered, US dollars"},
	Column{"total_accepted", "BIGINT", "total accepted, US dollars"},
	Column{"record_date", "VARCHAR", "Fiscal Data record date (snapshot), empty for TreasuryDirect"},
	Column{"version", "VARCHAR", "content hash of the auction version (16 hex digits)"},
)

// RatesViews are the DuckDB views over the rates files: rates_curves,
// rates_overnight, rates_lending, rates_fund_supply and rates_auctions,
// each with the partition column date.
func RatesViews(root string) []View {
	date := Column{Name: "date", Type: "DATE", Doc: "partition column (from the path)"}
	v := func(dataset string, cols []Column) View {
		return View{"rates_" + dataset, RatesGlob(root, dataset), append(append([]Column{}, cols...), date)}
	}
	return []View{
		v(RatesCurves, RatesCurveColumns),
		v(RatesOvernight, RatesOvernightColumns),
		v(RatesLending, RatesLendingColumns),
		v(RatesFundSupply, RatesFundSupplyColumns),
		v(RatesAuctions, RatesAuctionColumns),
	}
}
