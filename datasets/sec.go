package datasets

import "path/filepath"

// Kinds of the SEC snapshots (docs/datasets.md, "SEC snapshots").
const (
	KindSecFundamentals = "sec_fundamentals"
	KindSecInsiders     = "sec_insiders"
)

// SecFundamentalsDir is <root>/sec_fundamentals/date=<day>/symbol=<symbol>:
// the fundamentals answer of one symbol as computed on that UTC day (the
// latest computation of the day replaces the earlier ones).
func SecFundamentalsDir(root, day, symbol string) string {
	return filepath.Join(root, KindSecFundamentals, "date="+day, "symbol="+symbol)
}

// SecInsidersDir is <root>/sec_insiders/date=<day>/symbol=<symbol>: the
// transactions of the filings an insiders answer analyzed on that day.
func SecInsidersDir(root, day, symbol string) string {
	return filepath.Join(root, KindSecInsiders, "date="+day, "symbol="+symbol)
}

// SecFundamentalsGlob is the DuckDB glob over every fundamentals snapshot;
// read it with hive_partitioning so date and symbol become columns.
func SecFundamentalsGlob(root string) string {
	return filepath.Join(root, KindSecFundamentals, "date=*", "symbol=*", DayFileName)
}

// SecInsidersGlob is the DuckDB glob over every insiders snapshot.
func SecInsidersGlob(root string) string {
	return filepath.Join(root, KindSecInsiders, "date=*", "symbol=*", DayFileName)
}

// SecFundamentalColumns are the columns of a fundamentals snapshot, one row
// per figure: every SecMetric of the answer's financials, then its ratios
// (metric "derived:<field>").
var SecFundamentalColumns = []Column{
	{"as_of", "TIMESTAMP WITH TIME ZONE", "when the answer was computed, UTC"},
	{"cik", "VARCHAR", "SEC Central Index Key, 10 digits"},
	{"company_name", "VARCHAR", "registrant name from the submissions JSON"},
	{"metric", "VARCHAR", "financials key (revenue, netIncome, totalAssets, revenueTTM, ...) or derived:<ratio>"},
	{"value", "DOUBLE", "the figure as filed (currency units, not scaled), percent or ratio for derived rows; NULL when not available"},
	{"unit", "VARCHAR", "USD (or the reporting currency), USD/shares, shares, percent, ratio"},
	{"concept", "VARCHAR", "XBRL concept (taxonomy:Name), or how a computed figure was combined"},
	{"period_type", "VARCHAR", "duration or instant"},
	{"period_start", "VARCHAR", "YYYY-MM-DD, empty for instants"},
	{"period_end", "VARCHAR", "YYYY-MM-DD"},
	{"fy", "INTEGER", "fiscal year of the period"},
	{"fp", "VARCHAR", "FY, Q1..Q4 or TTM"},
	{"form", "VARCHAR", "form of the filing the value comes from (10-K, 10-Q, ...)"},
	{"filed", "VARCHAR", "filing date, YYYY-MM-DD"},
	{"accession_number", "VARCHAR", "accession number of that filing"},
	{"derivation", "VARCHAR", "how a computed figure was made (FY − 9M YTD, sum of ...), empty for reported ones"},
	{"reason", "VARCHAR", "why value is NULL"},
	{"fundamental_signal", "VARCHAR", "the answer's signal (docs/fundamentals.md)"},
	{"signal_score", "DOUBLE", "the answer's score 0..100, NULL without components"},
	{"algorithm_version", "VARCHAR", "e.g. mi-fundamentals/1.0.0"},
}

// SecInsiderColumns are the columns of an insiders snapshot, one row per
// transaction of the analyzed Form 4 / 4/A filings (all of them, not only
// the 50 the answer lists).
var SecInsiderColumns = []Column{
	{"as_of", "TIMESTAMP WITH TIME ZONE", "when the answer was computed, UTC"},
	{"issuer_cik", "VARCHAR", "issuer CIK, 10 digits"},
	{"days", "INTEGER", "the answer's window in days"},
	{"accession_number", "VARCHAR", "the Form 4's accession number"},
	{"form", "VARCHAR", "4 or 4/A"},
	{"filing_date", "VARCHAR", "YYYY-MM-DD"},
	{"transaction_date", "VARCHAR", "YYYY-MM-DD"},
	{"insider", "VARCHAR", "first reporting owner's name"},
	{"insider_cik", "VARCHAR", "first reporting owner's CIK"},
	{"role", "VARCHAR", "Director, officer title, 10% owner, other"},
	{"code", "VARCHAR", "transaction code (P, S, A, M, F, G, ...; docs/insiders.md)"},
	{"category", "VARCHAR", "purchase, sale, grant, exercise, taxWithholding, gift, other"},
	{"table_name", "VARCHAR", "nonDerivative or derivative"},
	{"security", "VARCHAR", "security title"},
	{"acquired_disposed", "VARCHAR", "A or D"},
	{"shares", "DOUBLE", "shares (or units) transacted; NULL when not given"},
	{"price_per_share", "DOUBLE", "USD; NULL when not given"},
	{"value_usd", "DOUBLE", "shares × price; NULL without both"},
	{"shares_owned_after", "DOUBLE", "holding after the transaction"},
	{"direct_indirect", "VARCHAR", "D or I"},
	{"ten_b5_1", "BOOLEAN", "made under a Rule 10b5-1 plan"},
	{"ten_b5_1_source", "VARCHAR", "aff10b5One, footnote, remarks or empty"},
	{"superseded", "BOOLEAN", "replaced by a 4/A"},
	{"inconsistent", "VARCHAR", "why the row is left out of the totals, empty when consistent"},
	{"signal", "VARCHAR", "the answer's insider signal"},
	{"algorithm_version", "VARCHAR", "e.g. mi-insiders/1.0.0"},
}
