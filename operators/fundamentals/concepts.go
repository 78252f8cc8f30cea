package fundamentals

// unitKind says which unit a metric is read in.
type unitKind int

const (
	money    unitKind = iota // the company's reporting currency ("USD")
	perShare                 // currency per share ("USD/shares")
	shares                   // "shares"
)

// metricDef is one metric: its XBRL concepts in order of preference.
// docs/fundamentals.md lists the same table; TestDocsListConcepts keeps
// them in step.
type metricDef struct {
	name     string
	instant  bool
	unit     unitKind
	concepts []string
	// sum, when no concept of concepts has a value for a date, is the
	// list of concepts whose values at that date are added up (those
	// present, at least one).
	sum []string
}

var (
	defRevenue = metricDef{name: "revenue", concepts: []string{
		"us-gaap:Revenues",
		"us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
		"us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
		"us-gaap:SalesRevenueNet",
		"us-gaap:SalesRevenueGoodsNet",
		"us-gaap:SalesRevenueServicesNet",
		"us-gaap:RevenuesNetOfInterestExpense",
		"ifrs-full:Revenue",
		"ifrs-full:RevenueFromContractsWithCustomers",
	}}
	defGrossProfit = metricDef{name: "grossProfit", concepts: []string{
		"us-gaap:GrossProfit",
		"ifrs-full:GrossProfit",
	}}
	defOperatingIncome = metricDef{name: "operatingIncome", concepts: []string{
		"us-gaap:OperatingIncomeLoss",
		"ifrs-full:ProfitLossFromOperatingActivities",
	}}
	defNetIncome = metricDef{name: "netIncome", concepts: []string{
		"us-gaap:NetIncomeLoss",
		"us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic",
		"us-gaap:ProfitLoss",
		"ifrs-full:ProfitLossAttributableToOwnersOfParent",
		"ifrs-full:ProfitLoss",
	}}
	defEPSDiluted = metricDef{name: "epsDiluted", unit: perShare, concepts: []string{
		"us-gaap:EarningsPerShareDiluted",
		"us-gaap:EarningsPerShareBasicAndDiluted",
		"ifrs-full:DilutedEarningsLossPerShare",
	}}
	defOperatingCashFlow = metricDef{name: "operatingCashFlow", concepts: []string{
		"us-gaap:NetCashProvidedByUsedInOperatingActivities",
		"us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
		"ifrs-full:CashFlowsFromUsedInOperatingActivities",
	}}
	defCapex = metricDef{name: "capitalExpenditure", concepts: []string{
		"us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
		"us-gaap:PaymentsToAcquireProductiveAssets",
		"ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
	}}
	defAssets = metricDef{name: "totalAssets", instant: true, concepts: []string{
		"us-gaap:Assets",
		"ifrs-full:Assets",
	}}
	defLiabilities = metricDef{name: "totalLiabilities", instant: true, concepts: []string{
		"us-gaap:Liabilities",
		"ifrs-full:Liabilities",
	}}
	defEquity = metricDef{name: "stockholdersEquity", instant: true, concepts: []string{
		"us-gaap:StockholdersEquity",
		"us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
		"ifrs-full:EquityAttributableToOwnersOfParent",
		"ifrs-full:Equity",
	}}
	defCash = metricDef{name: "cash", instant: true, concepts: []string{
		"us-gaap:CashAndCashEquivalentsAtCarryingValue",
		"us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
		"us-gaap:Cash",
		"ifrs-full:CashAndCashEquivalents",
	}}
	defDebtCurrent = metricDef{name: "debtCurrent", instant: true, concepts: []string{
		"us-gaap:DebtCurrent",
		"ifrs-full:CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings",
	}, sum: []string{
		"us-gaap:LongTermDebtCurrent",
		"us-gaap:CommercialPaper",
		"us-gaap:ShortTermBorrowings",
		"ifrs-full:ShorttermBorrowings",
		"ifrs-full:CurrentPortionOfLongtermBorrowings",
	}}
	defDebtNoncurrent = metricDef{name: "debtNoncurrent", instant: true, concepts: []string{
		"us-gaap:LongTermDebtNoncurrent",
		"us-gaap:LongTermDebtAndCapitalLeaseObligations",
		"ifrs-full:NoncurrentPortionOfNoncurrentBorrowings",
		"ifrs-full:LongtermBorrowings",
	}}
	defShares = metricDef{name: "sharesOutstanding", instant: true, unit: shares, concepts: []string{
		"dei:EntityCommonStockSharesOutstanding",
	}}
	// liabilitiesAndEquity is the balance-sheet total, for the
	// totalLiabilities fallback (total − equity including noncontrolling
	// interests).
	liabilitiesAndEquity = []string{"us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:EquityAndLiabilities"}
	equityWithNCI        = []string{"us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", "us-gaap:StockholdersEquity", "ifrs-full:Equity"}
)

// metricDefs lists every metric read from facts, in documentation order.
var metricDefs = []metricDef{
	defRevenue, defGrossProfit, defOperatingIncome, defNetIncome, defEPSDiluted, defOperatingCashFlow, defCapex,
	defAssets, defLiabilities, defEquity, defCash, defDebtCurrent, defDebtNoncurrent, defShares,
}
