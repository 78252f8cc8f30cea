package parquet

// SecFundamentalRow is one row of a fundamentals snapshot
// (datasets.SecFundamentalColumns). Date and symbol are partition columns.
type SecFundamentalRow struct {
	AsOf              int64    `parquet:"as_of,timestamp(microsecond)"` // Unix µs, UTC
	CIK               string   `parquet:"cik,dict"`
	CompanyName       string   `parquet:"company_name,dict"`
	Metric            string   `parquet:"metric"`
	Value             *float64 `parquet:"value,optional"`
	Unit              string   `parquet:"unit,dict"`
	Concept           string   `parquet:"concept,dict"`
	PeriodType        string   `parquet:"period_type,dict"`
	PeriodStart       string   `parquet:"period_start,dict"`
	PeriodEnd         string   `parquet:"period_end,dict"`
	FY                int32    `parquet:"fy"`
	FP                string   `parquet:"fp,dict"`
	Form              string   `parquet:"form,dict"`
	Filed             string   `parquet:"filed,dict"`
	AccessionNumber   string   `parquet:"accession_number,dict"`
	Derivation        string   `parquet:"derivation,dict"`
	Reason            string   `parquet:"reason"`
	FundamentalSignal string   `parquet:"fundamental_signal,dict"`
	SignalScore       *float64 `parquet:"signal_score,optional"`
	AlgorithmVersion  string   `parquet:"algorithm_version,dict"`
}

// SecInsiderRow is one row of an insiders snapshot
// (datasets.SecInsiderColumns). Date and symbol are partition columns.
type SecInsiderRow struct {
	AsOf             int64    `parquet:"as_of,timestamp(microsecond)"` // Unix µs, UTC
	IssuerCIK        string   `parquet:"issuer_cik,dict"`
	Days             int32    `parquet:"days"`
	AccessionNumber  string   `parquet:"accession_number,dict"`
	Form             string   `parquet:"form,dict"`
	FilingDate       string   `parquet:"filing_date,dict"`
	TransactionDate  string   `parquet:"transaction_date,dict"`
	Insider          string   `parquet:"insider,dict"`
	InsiderCIK       string   `parquet:"insider_cik,dict"`
	Role             string   `parquet:"role,dict"`
	Code             string   `parquet:"code,dict"`
	Category         string   `parquet:"category,dict"`
	TableName        string   `parquet:"table_name,dict"`
	Security         string   `parquet:"security,dict"`
	AcquiredDisposed string   `parquet:"acquired_disposed,dict"`
	Shares           *float64 `parquet:"shares,optional"`
	PricePerShare    *float64 `parquet:"price_per_share,optional"`
	ValueUSD         *float64 `parquet:"value_usd,optional"`
	SharesOwnedAfter *float64 `parquet:"shares_owned_after,optional"`
	DirectIndirect   string   `parquet:"direct_indirect,dict"`
	TenB51           bool     `parquet:"ten_b5_1"`
	TenB51Source     string   `parquet:"ten_b5_1_source,dict"`
	Superseded       bool     `parquet:"superseded"`
	Inconsistent     string   `parquet:"inconsistent"`
	Signal           string   `parquet:"signal,dict"`
	AlgorithmVersion string   `parquet:"algorithm_version,dict"`
}
