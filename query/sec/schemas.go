package sec

import (
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/fundamentals"
	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The bodies of the SEC routes, field by field, in the order the answers
// write them (docs/fundamentals.md, docs/insiders.md).

var (
	nullNumber    = schema.Nullable("number")
	accessionNo   = schema.Described(schema.Obj{{"type", "string"}, {"pattern", `^[0-9]{10}-[0-9]{2}-[0-9]{6}$`}}, "EDGAR accession number, e.g. 0000320193-25-000079.")
	dateOrNothing = schema.Described(schema.Obj{{"type", "string"}, {"pattern", `^([0-9]{4}-[0-9]{2}-[0-9]{2})?$`}}, "YYYY-MM-DD, or empty when unknown.")
	url           = schema.Obj{{"type", "string"}, {"format", "uri"}}
	stringMap     = schema.Obj{{"type", "object"}, {"additionalProperties", schema.String}}
	numberMap     = schema.Obj{{"type", "object"}, {"additionalProperties", schema.Number}}
)

// metricProps is a SecMetric whose components are component (a SecMetric
// one level down: the levels are written out because the answer's nesting
// is bounded, two derivations deep, and validators render no recursion).
func metricProps(desc string, component any) schema.Obj {
	return schema.ObjectRequiring(desc, schema.Obj{
		{"value", schema.Described(nullNumber, "The number as filed; null when not available (see reason).")},
		{"unit", schema.Described(schema.String, "USD (or the reporting currency), USD/shares, shares.")},
		{"concept", schema.Described(schema.String, "taxonomy:Name of the XBRL concept (us-gaap:NetIncomeLoss); \"a + b\" for a sum.")},
		{"periodType", schema.Enum("duration", "instant")},
		{"periodStart", schema.Described(schema.Date, "First day of a duration; absent for an instant.")},
		{"periodEnd", schema.Described(schema.Date, "Last day of the period, or the instant.")},
		{"fy", schema.Described(schema.Integer, "Fiscal year the value describes.")},
		{"fp", schema.Described(schema.String, "Fiscal period the value describes: FY, Q1 to Q4, TTM.")},
		{"form", schema.Described(schema.String, "Form of the filing the value is taken from (10-K, 10-Q, 10-K/A, ...).")},
		{"filed", schema.Described(schema.Date, "Filing date of that filing.")},
		{"accessionNumber", accessionNo},
		{"derivation", schema.Described(schema.String, "How a computed value was made (a sum, FY minus three quarters, four quarters summed).")},
		{"components", schema.Described(schema.Array(component), "The figures a computed value was made from.")},
		{"restated", schema.Object("The value a later filing replaced.", schema.Obj{
			{"previousValue", schema.Number},
			{"previousAccessionNumber", accessionNo},
			{"previousFiled", schema.Nullable("string")},
		})},
		{"reason", schema.Described(schema.String, "Why value is null.")},
	}, "value")
}

// Fundamentals (spec §2.7).
var (
	metricSchema = schema.Named{Name: "SecMetric", Schema: metricProps(
		"One figure of the company's filings: the value as filed (not scaled) with the XBRL concept, period and filing it comes from, or null with the reason (docs/fundamentals.md, \"SecMetric\").",
		schema.Named{Name: "SecMetricComponent", Schema: metricProps("A SecMetric a computed figure was made from.",
			schema.Named{Name: "SecMetricPart", Schema: metricProps("A SecMetric a computed component was made from.",
				schema.Obj{{"type", "object"}, {"description", "A SecMetric (deeper levels are not expanded in this document)."}})})})}
	latestFilingSchema = schema.Named{Name: "SecLatestFiling", Schema: schema.ObjectRequiring(
		"Spec §2.7 latestFiling: the newest 10-K, 10-Q, 8-K, 20-F, 40-F or 6-K of the submissions (amendments included).",
		schema.Obj{
			{"form", schema.String},
			{"filingDate", schema.Date},
			{"accessionNumber", accessionNo},
			{"primaryDocument", schema.String},
			{"reportDate", dateOrNothing},
			{"url", schema.Described(url, "The primary document on www.sec.gov.")},
		}, "form", "filingDate", "accessionNumber", "primaryDocument")}

	derivedSchema = schema.Named{Name: "SecDerivedIntelligence", Schema: schema.ObjectRequiring(
		"Ratios of the latest fiscal year, the score and the signal (docs/fundamentals.md, \"Ratios\" and \"Score, signal, confidence\"). A ratio that cannot be computed is null and nullReasons says why.",
		schema.Obj{
			{"revenueGrowthYoYPercent", nullNumber},
			{"earningsGrowthYoYPercent", nullNumber},
			{"operatingMarginPercent", nullNumber},
			{"netMarginPercent", nullNumber},
			{"returnOnAssetsPercent", nullNumber},
			{"debtToEquity", nullNumber},
			{"cashToDebt", nullNumber},
			{"signalScore", schema.Described(schema.Obj{{"type", []string{"number", "null"}}, {"minimum", 0}, {"maximum", 100}}, "0 to 100; null without any score component.")},
			{"confidence", schema.Described(schema.Percent(), "0 to 100, from the components available and the age of the data.")},
			{"fundamentalSignal", schema.Enum(fundamentals.Signals...)},
			{"interpretation", schema.String},
			{"nullReasons", schema.Described(stringMap, "Ratio name → why it is null.")},
			{"scoreComponents", schema.Described(numberMap, "Component → its 0 to 100 part of signalScore.")},
			{"basis", schema.Described(schema.String, "The period the ratios use: FY, the latest fiscal year.")},
			{"fiscalYear", schema.Integer},
			{"fiscalPeriodEnd", schema.Date},
			{"currency", schema.String},
			{"dataAgeDays", schema.Described(schema.Integer, "asOf minus fiscalPeriodEnd, in days.")},
			{"algorithmVersion", schema.String},
		}, "revenueGrowthYoYPercent", "earningsGrowthYoYPercent", "operatingMarginPercent", "netMarginPercent",
		"returnOnAssetsPercent", "debtToEquity", "cashToDebt", "signalScore", "confidence", "fundamentalSignal",
		"interpretation", "scoreComponents", "basis", "currency", "dataAgeDays", "algorithmVersion")}

	fundamentalsSchema = schema.Named{Name: "SecFundamentalIntelligence", Schema: schema.Object(
		"Spec §2.7: a US-listed company's fundamentals from its SEC filings (XBRL company facts and submissions). Every figure names its concept, period and filing. Not investment advice.",
		schema.Obj{
			{"symbol", schema.Described(schema.String, "Normalized US equity ticker (BRK.B is BRK-B).")},
			{"cik", schema.Described(schema.Obj{{"type", "string"}, {"pattern", `^[0-9]{10}$`}}, "SEC Central Index Key, 10 digits.")},
			{"companyName", schema.Described(schema.String, "From the SEC submissions.")},
			{"source", schema.Const(fundamentals.Source)},
			{"sourceUrl", schema.Described(url, "The companyfacts URL on data.sec.gov the figures were read from.")},
			{"asOf", schema.Described(schema.DateTime, "When the answer was computed.")},
			{"latestFiling", schema.Obj{{"oneOf", []any{latestFilingSchema, schema.Obj{{"type", "null"}}}}}},
			{"financials", schema.Described(schema.Obj{{"type", "object"}, {"additionalProperties", metricSchema}},
				"Metric name → SecMetric: revenue, netIncome, operatingIncome, totalAssets, totalLiabilities, stockholdersEquity, debtCurrent, debtNoncurrent, cash, operatingCashFlow, ... (docs/fundamentals.md lists every key).")},
			{"derivedIntelligence", derivedSchema},
			{"methodology", schema.Described(schema.Array(schema.String), "How the figures were selected and computed, and when EDGAR was read.")},
		})}
)

// Insiders (spec §4.3, §2.11).
var (
	flowSchema = schema.Named{Name: "InsiderFlow", Schema: schema.ObjectRequiring("Totals of one kind of transaction.", schema.Obj{
		{"count", schema.Count},
		{"shares", schema.Number},
		{"valueUsd", schema.Described(schema.Number, "Sum of shares × price of the rows that have a price.")},
		{"insiders", schema.Described(schema.Count, "Distinct insiders (summary only; absent when 0).")},
		{"rowsWithoutPrice", schema.Described(schema.Count, "Rows counted in shares but not in valueUsd (absent when 0).")},
	}, "count", "shares", "valueUsd")}

	insiderSummarySchema = schema.Object("Totals of the window's transactions (docs/insiders.md, \"Totals\").", schema.Obj{
		{"filingsAnalyzed", schema.Count},
		{"transactions", schema.Count},
		{"openMarketPurchases", flowSchema},
		{"openMarketSales", flowSchema},
		{"plannedSales", flowSchema},
		{"discretionarySales", flowSchema},
		{"grants", flowSchema},
		{"optionExercises", flowSchema},
		{"taxWithholding", flowSchema},
		{"gifts", flowSchema},
		{"other", flowSchema},
		{"netOpenMarketShares", schema.Described(schema.Number, "Purchases minus sales, in shares.")},
		{"netOpenMarketValueUsd", schema.Described(schema.Number, "Purchases minus sales, in USD.")},
		{"plannedSalesPercent", schema.Described(schema.Obj{{"type", []string{"number", "null"}}, {"minimum", 0}, {"maximum", 100}}, "Share of the sales under 10b5-1 plans by measure; null without sales.")},
		{"measure", schema.Described(schema.Enum("valueUsd", "shares"), "shares when a P or S row has no price.")},
	})

	insiderTotalSchema = schema.Named{Name: "InsiderTotal", Schema: schema.ObjectRequiring("One insider's transactions in the window.", schema.Obj{
		{"name", schema.String},
		{"cik", schema.String},
		{"role", schema.Described(schema.String, "Director, the officer title, 10% owner, or the filing's other text.")},
		{"isDirector", schema.Bool},
		{"isOfficer", schema.Bool},
		{"officerTitle", schema.String},
		{"isTenPercentOwner", schema.Bool},
		{"filings", schema.Count},
		{"purchases", flowSchema},
		{"sales", flowSchema},
		{"plannedSales", flowSchema},
		{"grants", flowSchema},
		{"optionExercises", flowSchema},
		{"taxWithholding", flowSchema},
		{"gifts", flowSchema},
		{"netOpenMarketShares", schema.Number},
		{"netOpenMarketValueUsd", schema.Number},
		{"latestTransactionDate", schema.Date},
		{"sharesOwnedAfter", schema.Described(nullNumber, "Holding after the insider's latest non-derivative transaction of the window.")},
	}, "name", "cik", "role", "isDirector", "isOfficer", "isTenPercentOwner", "filings", "purchases", "sales", "plannedSales",
		"grants", "optionExercises", "taxWithholding", "gifts", "netOpenMarketShares", "netOpenMarketValueUsd", "latestTransactionDate", "sharesOwnedAfter")}

	transactionSchema = schema.Named{Name: "InsiderTransaction", Schema: schema.ObjectRequiring("One row of a Form 4 table.", schema.Obj{
		{"date", schema.Described(dateOrNothing, "Transaction date.")},
		{"insider", schema.String},
		{"insiderCik", schema.String},
		{"role", schema.String},
		{"jointFilers", schema.Described(schema.Array(schema.String), "Further reporting owners of a joint filing.")},
		{"code", schema.Described(schema.String, "Form 4 transaction code: P purchase, S sale, A grant, M option exercise, F tax withholding, G gift, ... (docs/insiders.md).")},
		{"codeDescription", schema.String},
		{"category", schema.Enum(insiders.CatPurchase, insiders.CatSale, insiders.CatGrant, insiders.CatExercise, insiders.CatTaxWithholding, insiders.CatGift, insiders.CatOther)},
		{"table", schema.Enum(insiders.NonDerivative, insiders.Derivative)},
		{"security", schema.String},
		{"acquiredDisposed", schema.Described(schema.String, "A (acquired) or D (disposed), as filed.")},
		{"shares", nullNumber},
		{"pricePerShare", nullNumber},
		{"valueUsd", schema.Described(nullNumber, "shares × pricePerShare; null without both.")},
		{"sharesOwnedAfter", nullNumber},
		{"directIndirect", schema.Described(schema.String, "D (direct) or I (indirect), as filed.")},
		{"tenB51", schema.Described(schema.Bool, "Under a Rule 10b5-1 trading plan.")},
		{"tenB51Source", schema.Described(schema.Enum("aff10b5One", "footnote", "remarks"), "How tenB51 is known.")},
		{"priceNote", schema.Described(schema.String, "The weighted-average price footnote.")},
		{"priceRangeLow", schema.Number},
		{"priceRangeHigh", schema.Number},
		{"footnotes", schema.Array(schema.String)},
		{"inconsistent", schema.Described(schema.String, "Why the row is left out of the totals (a code contradicting its A/D flag).")},
		{"accessionNumber", accessionNo},
		{"form", schema.String},
		{"filingDate", schema.Date},
		{"filingUrl", schema.Described(url, "The filing's index page on www.sec.gov.")},
		{"superseded", schema.Described(schema.Bool, "The filing was replaced by its amendment (left out of the totals).")},
	}, "date", "insider", "insiderCik", "role", "code", "codeDescription", "category", "table", "security", "acquiredDisposed",
		"shares", "pricePerShare", "valueUsd", "sharesOwnedAfter", "directIndirect", "tenB51", "accessionNumber", "form", "filingDate", "filingUrl")}

	proposedSaleSchema = schema.Named{Name: "InsiderProposedSale", Schema: schema.ObjectRequiring("A Form 144 notice of proposed sale in the window.", schema.Obj{
		{"seller", schema.String},
		{"relationships", schema.Array(schema.String)},
		{"security", schema.String},
		{"units", nullNumber},
		{"aggregateMarketValueUsd", nullNumber},
		{"approxSaleDate", schema.String},
		{"broker", schema.String},
		{"tenB51", schema.Bool},
		{"planAdoptionDates", schema.Array(schema.String)},
		{"accessionNumber", accessionNo},
		{"filingDate", schema.Date},
		{"filingUrl", url},
	}, "seller", "security", "units", "aggregateMarketValueUsd", "approxSaleDate", "tenB51", "accessionNumber", "filingDate", "filingUrl")}

	dataQualitySchema = schema.Object("What could not be used, and why (docs/insiders.md, \"Data quality\").", schema.Obj{
		{"filingsInWindow", schema.Count},
		{"filingsConsidered", schema.Described(schema.Count, "The latest 40 of them at most.")},
		{"filingsAnalyzed", schema.Count},
		{"filingsUnavailable", schema.Count},
		{"filingsMalformed", schema.Count},
		{"amendments", schema.Count},
		{"amendmentsMatched", schema.Count},
		{"amendmentsUnmatched", schema.Count},
		{"inconsistentRows", schema.Count},
		{"rowsWithoutPrice", schema.Count},
		{"tenB51Conflicts", schema.Count},
		{"unknownCodes", schema.Count},
		{"problems", schema.Array(schema.String)},
	})

	insidersSchema = schema.Named{Name: "InsiderAnalysis", Schema: schema.Object(
		"Spec §4.3 insider analysis with signal (§2.11): the latest 40 Form 4 / 4/A filings of the window, summary only (docs/insiders.md). Not investment advice.",
		schema.Obj{
			{"symbol", schema.String},
			{"cik", schema.String},
			{"companyName", schema.String},
			{"asOf", schema.Described(schema.DateTime, "The date the window ends on (the answer's clock).")},
			{"days", schema.Obj{{"type", "integer"}, {"minimum", insiders.MinDays}, {"maximum", insiders.MaxDays}}},
			{"windowStart", schema.Date},
			{"windowEnd", schema.Date},
			{"signal", schema.Enum(insiders.Signals...)},
			{"signalReason", schema.Described(schema.String, "The numbers that decided the signal.")},
			{"summary", insiderSummarySchema},
			{"insiders", schema.Array(insiderTotalSchema)},
			{"transactions", schema.Described(schema.Obj{{"type", "array"}, {"items", transactionSchema}, {"maxItems", insiders.MaxTransactions}}, "The latest 50 rows, newest first.")},
			{"proposedSales", schema.Array(proposedSaleSchema)},
			{"dataQuality", dataQualitySchema},
			{"methodology", schema.Array(schema.String)},
			{"source", schema.Const(insiders.Source)},
			{"sourceUrl", schema.Described(url, "The submissions JSON on data.sec.gov the filings were listed from.")},
			{"algorithmVersion", schema.String},
		})}
)

// Errors.
var (
	noDataSchema = schema.Named{Name: "SecNoDataError", Schema: schema.Object("404 of the SEC routes; not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)},
		{"message", schema.Described(schema.String, "Why there is nothing to answer: no SEC filings for the ticker, no XBRL financial data, ...")},
		{"symbol", schema.Described(schema.String, "The requested ticker, normalized.")},
		{"charged", schema.Const(false)},
	})}
	unavailableSchema = schema.Named{Name: "SecUnavailableError", Schema: schema.Object("503: EDGAR cannot be reached and nothing is cached; not charged.", schema.Obj{
		{"error", schema.Const(CodeUnavailable)},
		{"message", schema.String},
		{"symbol", schema.String},
		{"charged", schema.Const(false)},
	})}
	unavailableResponse = api.Response{Status: fiber.StatusServiceUnavailable, Desc: "EDGAR cannot be reached right now and no cached copy exists; not charged. Retry after Retry-After seconds.",
		Schema:  unavailableSchema,
		Headers: schema.Obj{{"Retry-After", schema.Obj{{"description", "Seconds to wait before asking again."}, {"schema", schema.Integer}}}}}
)
