package rates

import (
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The answers of the rates routes, field by field as sinks/ratesview
// writes them (docs/rates.md). Times are RFC 3339 UTC with milliseconds,
// dates YYYY-MM-DD, yields and rates percent, spreads and changes basis
// points.

// orNull is s or null.
func orNull(s any) schema.Obj {
	return schema.Obj{{"oneOf", []any{schema.Obj{{"type", "null"}}, s}}}
}

var (
	nullNumber   = schema.Nullable("number")
	nullDateTime = schema.NullableDateTime
	nullDate     = schema.Obj{{"type", []string{"string", "null"}}, {"format", "date"}}

	sourceSchema = schema.Named{Name: "RatesSource", Schema: schema.Object("Where a figure comes from and when the service first read it.", schema.Obj{
		{"publisher", schema.Described(schema.String, "Who published it, e.g. U.S. Department of the Treasury; Federal Reserve Bank of St. Louis (FRED) for a FRED stand-in.")},
		{"name", schema.Described(schema.String, "The configured source that read it, e.g. treasury:par.")},
		{"url", schema.Described(schema.String, "What was read: the publisher's URL, or eth_call <chain> <contract> <function>.")},
		{"readAt", schema.DateTime},
	})}

	curvePointSchema = schema.Object("One tenor.", schema.Obj{
		{"tenor", schema.Described(schema.String, "1M, 1.5M, 2M, 3M, 4M, 6M, 1Y, 2Y, 3Y, 5Y, 7Y, 10Y, 20Y, 30Y (real: 5Y to 30Y).")},
		{"months", schema.Number},
		{"yield", schema.Described(nullNumber, "Percent; null where the publisher has no value (never zero).")},
		{"previous", schema.Described(nullNumber, "Percent on previousDate.")},
		{"changeBp", schema.Described(nullNumber, "100 x (yield - previous).")},
	})
	curveSchema1 = schema.Named{Name: "RatesYieldCurve", Schema: schema.ObjectRequiring("One day's curve and its change from the previous business day.", schema.Obj{
		{"kind", schema.Enum("par_nominal", "par_real")},
		{"date", schema.Date},
		{"ageDays", schema.Described(schema.Integer, "Calendar days from date to the question's date.")},
		{"previousBusinessDay", schema.Described(schema.Date, "The bond market business day before date (SIFMA calendar).")},
		{"previousDate", schema.Described(nullDate, "The curve the changes are against: the previous business day's, or the latest earlier one held (previousNote says so).")},
		{"previousNote", schema.String},
		{"points", schema.Array(curvePointSchema)},
		{"revisions", schema.Described(schema.Count, "Earlier versions of this date's curve the service read; the points are the latest.")},
		{"source", sourceSchema},
	}, "kind", "date", "ageDays", "previousBusinessDay", "previousDate", "points", "revisions", "source")}
	slopeSchema = schema.Object("A slope of the nominal curve: long minus short.", schema.Obj{
		{"name", schema.Enum("2s10s", "3m10y", "5s30s", "3m2y")},
		{"short", schema.String},
		{"long", schema.String},
		{"date", schema.Date},
		{"bp", nullNumber},
		{"inverted", schema.Described(schema.Nullable("boolean"), "bp < 0.")},
		{"previousBp", nullNumber},
		{"changeBp", nullNumber},
	})
	breakevenSchema = schema.Object("10-year breakeven inflation.", schema.Obj{
		{"date", schema.Date},
		{"ageDays", schema.Integer},
		{"percent", schema.Number},
		{"nominalYield", schema.Number},
		{"realYield", schema.Number},
		{"formula", schema.String},
	})
	overnightSchema = schema.Named{Name: "RatesOvernightFixing", Schema: schema.Object("An overnight rate's latest fixing, with its own date.", schema.Obj{
		{"rate", schema.Enum("SOFR", "EFFR", "ESTR")},
		{"date", schema.Date},
		{"ageDays", schema.Integer},
		{"percent", schema.Number},
		{"percentile1", nullNumber},
		{"percentile25", nullNumber},
		{"percentile75", nullNumber},
		{"percentile99", nullNumber},
		{"volume", nullNumber},
		{"volumeUnit", schema.Described(schema.String, "USD billions (SOFR, EFFR), EUR millions (ESTR).")},
		{"targetFrom", schema.Described(nullNumber, "FOMC target range (EFFR).")},
		{"targetTo", nullNumber},
		{"previousDate", nullDate},
		{"previousPercent", nullNumber},
		{"changeBp", nullNumber},
		{"revised", schema.Described(schema.Bool, "The publisher's revision flag.")},
		{"revisions", schema.Count},
		{"source", sourceSchema},
	})}
	curveSchema = schema.Named{Name: "RatesCurve", Schema: schema.Object("Body of GET /api/v1/rates/curve (docs/rates.md).", schema.Obj{
		{"asOf", schema.DateTime},
		{"nominal", schema.Described(orNull(curveSchema1), "The latest Treasury par yield curve; null before the first.")},
		{"real", schema.Described(orNull(curveSchema1), "The latest par real yield curve; null before the first.")},
		{"slopes", schema.Array(slopeSchema)},
		{"breakeven10y", orNull(breakevenSchema)},
		{"overnight", schema.Object("SOFR, EFFR and euro short-term rate; each null before its first fixing.", schema.Obj{
			{"sofr", orNull(overnightSchema)}, {"effr", orNull(overnightSchema)}, {"estr", orNull(overnightSchema)},
		})},
		{"calendar", schema.Described(schema.String, "The business-day calendar of previousBusinessDay.")},
		{"notice", schema.Described(schema.String, "The notice the New York Fed's terms of use require of a republisher of SOFR and EFFR.")},
		{"noticeUrl", schema.String},
	})}

	billSchema = schema.Object("The 3-month bill of the latest par curve.", schema.Obj{
		{"date", schema.Date},
		{"ageDays", schema.Integer},
		{"yield", schema.Described(schema.Number, "Bond-equivalent yield, percent.")},
		{"apy", schema.Described(schema.Number, "(1 + yield x days/365)^(365/days) - 1, percent.")},
		{"days", schema.Integer},
		{"source", sourceSchema},
	})
	chainRateSchema = schema.ObjectRequiring("One reserve's rates and spread.", schema.Obj{
		{"protocol", schema.String},
		{"chain", schema.String},
		{"chainId", schema.Integer},
		{"pool", schema.String},
		{"asset", schema.String},
		{"symbol", schema.String},
		{"supplyApr", nullNumber},
		{"supplyApy", nullNumber},
		{"borrowApr", nullNumber},
		{"borrowApy", nullNumber},
		{"spreadBp", schema.Described(nullNumber, "100 x (supplyApy - bill APY).")},
		{"blockNumber", schema.Nullable("integer")},
		{"blockTime", nullDateTime},
		{"reserveUpdatedAt", nullDateTime},
		{"active", schema.Nullable("boolean")},
		{"frozen", schema.Nullable("boolean")},
		{"paused", schema.Nullable("boolean")},
		{"stale", schema.Described(schema.Bool, "The chain's last read failed, is older than 15 minutes, or answered from a block older than that; left out of the average.")},
		{"staleReason", schema.String},
		{"staleSince", nullDateTime},
		{"source", orNull(sourceSchema)},
	}, "protocol", "chain", "chainId", "pool", "asset", "symbol", "supplyApr", "supplyApy", "borrowApr", "borrowApy", "spreadBp",
		"blockNumber", "blockTime", "reserveUpdatedAt", "active", "frozen", "paused", "stale", "staleSince", "source")
	defiSchema = schema.Named{Name: "RatesDefiSpread", Schema: schema.Object("Body of GET /api/v1/rates/defi-spread (docs/rates.md).", schema.Obj{
		{"asOf", schema.DateTime},
		{"bill3m", orNull(billSchema)},
		{"chains", schema.Array(chainRateSchema)},
		{"averageSpreadBp", schema.Described(nullNumber, "Mean spreadBp of the chains that are not stale; null when none is, or without a bill.")},
		{"chainsAveraged", schema.Count},
		{"signal", schema.Obj{{"description", "DEFI_PREMIUM, IN_LINE or TREASURY_PREMIUM at ±thresholdBp; null without an average."},
			{"type", []string{"string", "null"}}, {"enum", []any{"DEFI_PREMIUM", "IN_LINE", "TREASURY_PREMIUM", nil}}}},
		{"thresholdBp", schema.Number},
		{"method", schema.String},
	})}

	fundSchema = schema.ObjectRequiring("One fund's latest hourly snapshot and its changes.", schema.Obj{
		{"symbol", schema.String},
		{"name", schema.String},
		{"issuer", schema.String},
		{"chain", schema.String},
		{"token", schema.String},
		{"supply", schema.Described(nullNumber, "Total supply in whole tokens.")},
		{"supplyRaw", schema.Nullable("string")},
		{"decimals", schema.Nullable("integer")},
		{"snapshotTime", nullDateTime},
		{"blockNumber", schema.Nullable("integer")},
		{"blockTime", nullDateTime},
		{"change24hPercent", nullNumber},
		{"base24hTime", nullDateTime},
		{"change7dPercent", nullNumber},
		{"base7dTime", nullDateTime},
		{"stale", schema.Bool},
		{"staleReason", schema.String},
		{"source", orNull(sourceSchema)},
	}, "symbol", "name", "issuer", "chain", "token", "supply", "supplyRaw", "decimals", "snapshotTime", "blockNumber", "blockTime",
		"change24hPercent", "base24hTime", "change7dPercent", "base7dTime", "stale", "source")
	tokenizedSchema = schema.Named{Name: "RatesTokenizedTreasuries", Schema: schema.Object("Body of GET /api/v1/rates/tokenized-treasuries (docs/rates.md).", schema.Obj{
		{"asOf", schema.DateTime},
		{"funds", schema.Array(fundSchema)},
		{"aggregate", schema.Object("Equal-weight mean of the funds' changes (funds not stale with a base snapshot).", schema.Obj{
			{"change24hPercent", nullNumber}, {"funds24h", schema.Count}, {"change7dPercent", nullNumber}, {"funds7d", schema.Count},
		})},
		{"gauge", schema.Obj{{"description", "RISK_OFF_INFLOW, NEUTRAL or RISK_ON_OUTFLOW from the aggregate 24 h change; null without one."},
			{"type", []string{"string", "null"}}, {"enum", []any{"RISK_OFF_INFLOW", "NEUTRAL", "RISK_ON_OUTFLOW", nil}}}},
		{"thresholdPercentPerDay", schema.Number},
		{"method", schema.String},
	})}

	auctionProps = schema.Obj{
		{"cusip", schema.String},
		{"securityType", schema.String},
		{"securityTerm", schema.String},
		{"kind", schema.Enum("Bill", "CMB", "Note", "Bond", "TIPS", "FRN")},
		{"series", schema.Described(schema.String, "The key of the same security, e.g. Note 10-Year.")},
		{"reopening", schema.Bool},
		{"status", schema.Enum("AUCTIONED", "ANNOUNCED")},
		{"announcementDate", schema.Date},
		{"auctionDate", schema.Date},
		{"issueDate", schema.Date},
		{"maturityDate", schema.Date},
		{"offeringAmount", schema.Described(schema.Nullable("integer"), "US dollars.")},
		{"highYield", nullNumber},
		{"highDiscountRate", nullNumber},
		{"highInvestmentRate", nullNumber},
		{"highDiscountMargin", nullNumber},
		{"pricePer100", nullNumber},
		{"bidToCover", nullNumber},
		{"indirectSharePercent", schema.Described(nullNumber, "Percent of the competitive accepted amount.")},
		{"directSharePercent", nullNumber},
		{"primaryDealerSharePercent", nullNumber},
		{"competitiveAccepted", schema.Nullable("integer")},
	}
	auctionRequired = []string{"cusip", "securityType", "securityTerm", "kind", "series", "reopening", "status", "auctionDate", "offeringAmount",
		"highYield", "highDiscountRate", "highInvestmentRate", "highDiscountMargin", "pricePer100", "bidToCover",
		"indirectSharePercent", "directSharePercent", "primaryDealerSharePercent", "competitiveAccepted"}
	previousAuctionSchema = schema.Named{Name: "TreasuryAuctionPrevious", Schema: schema.ObjectRequiring("The previous auction of the same security.",
		append(append(schema.Obj{}, auctionProps...), schema.KV{K: "source", V: sourceSchema}), auctionRequired...)}
	auctionSchema = schema.Named{Name: "TreasuryAuction", Schema: schema.ObjectRequiring("One auction, with its results when published.",
		append(append(schema.Obj{}, auctionProps...),
			schema.KV{K: "previous", V: previousAuctionSchema}, // absent when no earlier auction of the series is held
			schema.KV{K: "source", V: sourceSchema}), auctionRequired...)}
	auctionsSchema = schema.Named{Name: "TreasuryAuctions", Schema: schema.Object("Body of GET /api/v1/rates/auctions (docs/rates.md).", schema.Obj{
		{"asOf", schema.DateTime},
		{"dataAsOf", schema.Described(schema.Date, "The newest auction date with results, not after the question's date.")},
		{"days", schema.Integer},
		{"from", schema.Described(schema.Date, "dataAsOf - days + 1.")},
		{"recent", schema.Described(schema.Array(auctionSchema), "Auctions dated from..dataAsOf, newest first.")},
		{"announced", schema.Described(schema.Array(auctionSchema), "Auctions dated after dataAsOf, up to days later, soonest first.")},
	})}

	noDataSchema = schema.Named{Name: "RatesNoDataError", Schema: schema.Object("404 of the rates routes; not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
)
