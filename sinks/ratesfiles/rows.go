package ratesfiles

// Row types of the rates datasets: the columns of datasets.Rates*Columns in
// file order. The date is the partition (the path). Times are Unix µs.

// CurveRow is one tenor of a curve version (datasets.RatesCurveColumns).
type CurveRow struct {
	Curve        string  `parquet:"curve,dict"`
	Tenor        string  `parquet:"tenor,dict"`
	Months       float64 `parquet:"months"`
	YieldPercent float64 `parquet:"yield_percent"`
	Version      string  `parquet:"version,dict"`
	ReadAt       int64   `parquet:"read_at,timestamp(microsecond)"`
	Source       string  `parquet:"source,dict"`
	Publisher    string  `parquet:"publisher,dict"`
	URL          string  `parquet:"url,dict"`
}

// OvernightRow is one fixing version (datasets.RatesOvernightColumns).
type OvernightRow struct {
	Rate              string   `parquet:"rate,dict"`
	Percent           float64  `parquet:"percent"`
	Percentile1       *float64 `parquet:"percentile_1,optional"`
	Percentile25      *float64 `parquet:"percentile_25,optional"`
	Percentile75      *float64 `parquet:"percentile_75,optional"`
	Percentile99      *float64 `parquet:"percentile_99,optional"`
	Volume            *float64 `parquet:"volume,optional"`
	TargetFrom        *float64 `parquet:"target_from,optional"`
	TargetTo          *float64 `parquet:"target_to,optional"`
	RevisionIndicator string   `parquet:"revision_indicator,dict"`
	Version           string   `parquet:"version,dict"`
	ReadAt            int64    `parquet:"read_at,timestamp(microsecond)"`
	Source            string   `parquet:"source,dict"`
	Publisher         string   `parquet:"publisher,dict"`
	URL               string   `parquet:"url,dict"`
}

// LendingRow is one reserve read (datasets.RatesLendingColumns).
type LendingRow struct {
	BlockTime              int64   `parquet:"block_time,timestamp(microsecond)"`
	Protocol               string  `parquet:"protocol,dict"`
	Chain                  string  `parquet:"chain,dict"`
	ChainID                int64   `parquet:"chain_id"`
	BlockNumber            int64   `parquet:"block_number"`
	Pool                   string  `parquet:"pool,dict"`
	Asset                  string  `parquet:"asset,dict"`
	AssetSymbol            string  `parquet:"asset_symbol,dict"`
	SupplyAPRPercent       float64 `parquet:"supply_apr_percent"`
	SupplyAPYPercent       float64 `parquet:"supply_apy_percent"`
	BorrowAPRPercent       float64 `parquet:"borrow_apr_percent"`
	BorrowAPYPercent       float64 `parquet:"borrow_apy_percent"`
	LiquidityRateRay       string  `parquet:"liquidity_rate_ray"`
	VariableBorrowRateRay  string  `parquet:"variable_borrow_rate_ray"`
	LiquidityIndexRay      string  `parquet:"liquidity_index_ray"`
	VariableBorrowIndexRay string  `parquet:"variable_borrow_index_ray"`
	ReserveUpdatedAt       int64   `parquet:"reserve_updated_at,timestamp(microsecond)"`
	Active                 bool    `parquet:"active"`
	Frozen                 bool    `parquet:"frozen"`
	Paused                 bool    `parquet:"paused"`
	ReadAt                 int64   `parquet:"read_at,timestamp(microsecond)"`
	Source                 string  `parquet:"source,dict"`
	Publisher              string  `parquet:"publisher,dict"`
	URL                    string  `parquet:"url,dict"`
}

// FundSupplyRow is one fund snapshot (datasets.RatesFundSupplyColumns).
type FundSupplyRow struct {
	SnapshotTime   int64   `parquet:"snapshot_time,timestamp(microsecond)"`
	Chain          string  `parquet:"chain,dict"`
	Symbol         string  `parquet:"symbol,dict"`
	Token          string  `parquet:"token,dict"`
	Supply         float64 `parquet:"supply"`
	TotalSupplyRaw string  `parquet:"total_supply_raw"`
	Decimals       int64   `parquet:"decimals"`
	BlockNumber    int64   `parquet:"block_number"`
	BlockTime      int64   `parquet:"block_time,timestamp(microsecond)"`
	ReadAt         int64   `parquet:"read_at,timestamp(microsecond)"`
	Source         string  `parquet:"source,dict"`
	Publisher      string  `parquet:"publisher,dict"`
	URL            string  `parquet:"url,dict"`
}

// AuctionRow is one auction version (datasets.RatesAuctionColumns).
type AuctionRow struct {
	Cusip                 string   `parquet:"cusip"`
	SecurityType          string   `parquet:"security_type,dict"`
	SecurityTerm          string   `parquet:"security_term,dict"`
	OriginalSecurityTerm  string   `parquet:"original_security_term,dict"`
	Kind                  string   `parquet:"kind,dict"`
	Series                string   `parquet:"series,dict"`
	Reopening             bool     `parquet:"reopening"`
	Status                string   `parquet:"status,dict"`
	AnnouncementDate      string   `parquet:"announcement_date,dict"`
	IssueDate             string   `parquet:"issue_date,dict"`
	MaturityDate          string   `parquet:"maturity_date,dict"`
	OfferingAmount        *int64   `parquet:"offering_amount,optional"`
	HighYield             *float64 `parquet:"high_yield,optional"`
	HighDiscountRate      *float64 `parquet:"high_discount_rate,optional"`
	HighInvestmentRate    *float64 `parquet:"high_investment_rate,optional"`
	HighDiscountMargin    *float64 `parquet:"high_discount_margin,optional"`
	PricePer100           *float64 `parquet:"price_per_100,optional"`
	BidToCover            *float64 `parquet:"bid_to_cover,optional"`
	CompetitiveAccepted   *int64   `parquet:"competitive_accepted,optional"`
	IndirectAccepted      *int64   `parquet:"indirect_accepted,optional"`
	DirectAccepted        *int64   `parquet:"direct_accepted,optional"`
	PrimaryDealerAccepted *int64   `parquet:"primary_dealer_accepted,optional"`
	TotalTendered         *int64   `parquet:"total_tendered,optional"`
	TotalAccepted         *int64   `parquet:"total_accepted,optional"`
	RecordDate            string   `parquet:"record_date,dict"`
	Version               string   `parquet:"version,dict"`
	ReadAt                int64    `parquet:"read_at,timestamp(microsecond)"`
	Source                string   `parquet:"source,dict"`
	Publisher             string   `parquet:"publisher,dict"`
	URL                   string   `parquet:"url,dict"`
}
