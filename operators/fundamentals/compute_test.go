package fundamentals

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// asOf is the answer time of the AAPL tests: the day the companyfacts
// capture was recorded (SOURCES.md: recorded 2026-03-21).
var asOf = time.Date(2026, 3, 21, 12, 0, 0, 0, time.UTC)

func aapl(t *testing.T) *Intelligence {
	t.Helper()
	f, err := Decode(aaplFacts(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Compute(Input{Facts: f, Symbol: "AAPL", CIK: "0000320193", CompanyName: "Apple Inc.",
		SourceURL: "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json", AsOf: asOf,
		LatestFiling: &LatestFiling{Form: "10-Q", FilingDate: "2026-01-30", AccessionNumber: "0000320193-26-000006", PrimaryDocument: "aapl-20251227.htm"}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type want struct {
	val        float64
	concept    string
	start, end Date
	fy         int32
	fp, form   string
	filed      Date
	accn       string
}

func checkMetric(t *testing.T, fin map[string]*Metric, name string, w want) {
	t.Helper()
	m := fin[name]
	if m == nil || m.Value == nil {
		t.Errorf("%s missing: %+v", name, m)
		return
	}
	got := want{*m.Value, m.Concept, m.PeriodStart, m.PeriodEnd, m.FY, m.FP, m.Form, m.Filed, m.AccessionNumber}
	if got != w {
		t.Errorf("%s =\n %+v\nwant\n %+v", name, got, w)
	}
}

// One test per metric, each figure read by hand from the AAPL
// companyfacts capture (sec/companyfacts_CIK0000320193_AAPL.json): the
// fact with the named concept, period and accession number. The FY2025
// figures are those of Apple's 10-K for the year ended 2025-09-27
// (accession 0000320193-25-000079, filed 2025-10-31).
func TestAAPLMetrics(t *testing.T) {
	fin := aapl(t).Financials
	const k25, filed25 = "0000320193-25-000079", Date(20251031)
	const k24, filed24 = "0000320193-24-000123", Date(20241101)
	const q126, filedQ126 = "0000320193-26-000006", Date(20260130)
	// Income statement, FY2025 (2024-09-29 .. 2025-09-27).
	checkMetric(t, fin, "revenue", want{416161000000, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "grossProfit", want{195201000000, "us-gaap:GrossProfit", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "operatingIncome", want{133050000000, "us-gaap:OperatingIncomeLoss", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "netIncome", want{112010000000, "us-gaap:NetIncomeLoss", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "epsDiluted", want{7.46, "us-gaap:EarningsPerShareDiluted", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "operatingCashFlow", want{111482000000, "us-gaap:NetCashProvidedByUsedInOperatingActivities", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "capitalExpenditure", want{12715000000, "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	// Prior year, FY2024 (2023-10-01 .. 2024-09-28): the 2024 10-K's
	// value, repeated unchanged in the 2025 10-K, so attributed to the
	// original filing.
	checkMetric(t, fin, "revenuePriorYear", want{391035000000, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", 20231001, 20240928, 2024, "FY", "10-K", filed24, k24})
	checkMetric(t, fin, "netIncomePriorYear", want{93736000000, "us-gaap:NetIncomeLoss", 20231001, 20240928, 2024, "FY", "10-K", filed24, k24})
	// Balance sheet at 2025-09-27 (instants; the 10-Q of 2026-01-30
	// repeats them as comparatives, same values).
	checkMetric(t, fin, "totalAssets", want{359241000000, "us-gaap:Assets", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "totalLiabilities", want{285508000000, "us-gaap:Liabilities", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "stockholdersEquity", want{73733000000, "us-gaap:StockholdersEquity", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "cash", want{35934000000, "us-gaap:CashAndCashEquivalentsAtCarryingValue", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "debtNoncurrent", want{78328000000, "us-gaap:LongTermDebtNoncurrent", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	// Apple reports no DebtCurrent: LongTermDebtCurrent 12,350,000,000 +
	// CommercialPaper 7,979,000,000.
	checkMetric(t, fin, "debtCurrent", want{20329000000, "us-gaap:LongTermDebtCurrent + us-gaap:CommercialPaper", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	checkMetric(t, fin, "totalDebt", want{98657000000, "debtCurrent + debtNoncurrent", 0, 20250927, 2025, "FY", "10-K", filed25, k25})
	// Free cash flow 111,482,000,000 − 12,715,000,000.
	checkMetric(t, fin, "freeCashFlow", want{98767000000, "us-gaap:NetCashProvidedByUsedInOperatingActivities − us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", 20240929, 20250927, 2025, "FY", "10-K", filed25, k25})
	// Latest quarter: Q1 FY2026 (2025-09-28 .. 2025-12-27), 10-Q filed 2026-01-30.
	checkMetric(t, fin, "revenueLatestQuarter", want{143756000000, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", 20250928, 20251227, 2026, "Q1", "10-Q", filedQ126, q126})
	checkMetric(t, fin, "netIncomeLatestQuarter", want{42097000000, "us-gaap:NetIncomeLoss", 20250928, 20251227, 2026, "Q1", "10-Q", filedQ126, q126})
	// TTM to 2025-12-27: Q2 FY25 95,359 + Q3 FY25 94,036 + Q4 FY25
	// (FY 416,161 − 9M YTD 313,695 = 102,466) + Q1 FY26 143,756, in millions.
	checkMetric(t, fin, "revenueTTM", want{435617000000, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", 20241229, 20251227, 2026, "TTM", "10-Q", filedQ126, q126})
	// Net income: 24,780 + 23,434 + (112,010 − 84,544) + 42,097.
	checkMetric(t, fin, "netIncomeTTM", want{117777000000, "us-gaap:NetIncomeLoss", 20241229, 20251227, 2026, "TTM", "10-Q", filedQ126, q126})
	// Operating income: 29,589 + 28,202 + (133,050 − 100,623) + 50,852.
	checkMetric(t, fin, "operatingIncomeTTM", want{141070000000, "us-gaap:OperatingIncomeLoss", 20241229, 20251227, 2026, "TTM", "10-Q", filedQ126, q126})
	// Operating cash flow is reported year-to-date only: Q2 = 6M 53,887 −
	// Q1 29,935; Q3 = 9M 81,754 − 6M 53,887; Q4 = FY 111,482 − 9M 81,754;
	// + Q1 FY26 53,925 = 135,472.
	checkMetric(t, fin, "operatingCashFlowTTM", want{135472000000, "us-gaap:NetCashProvidedByUsedInOperatingActivities", 20241229, 20251227, 2026, "TTM", "10-Q", filedQ126, q126})
	// The latest balance sheet, 2025-12-27.
	checkMetric(t, fin, "totalAssetsLatest", want{379297000000, "us-gaap:Assets", 0, 20251227, 2026, "Q1", "10-Q", filedQ126, q126})
	checkMetric(t, fin, "cashLatest", want{45317000000, "us-gaap:CashAndCashEquivalentsAtCarryingValue", 0, 20251227, 2026, "Q1", "10-Q", filedQ126, q126})
	// 11,827 + 1,997 + 76,685.
	checkMetric(t, fin, "totalDebtLatest", want{90509000000, "debtCurrent + debtNoncurrent", 0, 20251227, 2026, "Q1", "10-Q", filedQ126, q126})

	// The derived Q4 inside the revenue TTM says how it was made.
	var q4 *Metric
	for _, c := range fin["revenueTTM"].Components {
		if c.PeriodEnd == 20250927 {
			q4 = c
		}
	}
	if q4 == nil || *q4.Value != 102466000000 || q4.Derivation != "FY − 9M YTD" || q4.FP != "Q4" || q4.FY != 2025 ||
		q4.PeriodStart != 20250629 || q4.AccessionNumber != k25 || len(q4.Components) != 2 {
		t.Errorf("derived Q4 = %+v", q4)
	}
}

// The ratios, by hand from the figures above.
func TestAAPLRatios(t *testing.T) {
	d := aapl(t).DerivedIntelligence
	f := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	f("revenueGrowthYoYPercent", d.RevenueGrowthYoYPercent, 6.43)   // (416,161 − 391,035) / 391,035
	f("earningsGrowthYoYPercent", d.EarningsGrowthYoYPercent, 19.5) // (112,010 − 93,736) / 93,736 = 19.496
	f("operatingMarginPercent", d.OperatingMarginPercent, 31.97)    // 133,050 / 416,161
	f("netMarginPercent", d.NetMarginPercent, 26.92)                // 112,010 / 416,161
	f("returnOnAssetsPercent", d.ReturnOnAssetsPercent, 31.18)      // 112,010 / 359,241
	f("debtToEquity", d.DebtToEquity, 1.338)                        // 98,657 / 73,733 = 1.33802
	f("cashToDebt", d.CashToDebt, 0.3642)                           // 35,934 / 98,657
	// Components: 50 + 2.5 × 6.43; 50 + 19.5; 40 + 2 × 26.92; 40 + 4 ×
	// 31.18 → 100; 100 − 40 × 1.338; 100 × 0.3642.
	wantC := map[string]float64{"revenueGrowth": 66.1, "earningsGrowth": 69.5, "netMargin": 93.8, "returnOnAssets": 100, "leverage": 46.5, "liquidity": 36.4}
	for k, v := range wantC {
		if d.ScoreComponents[k] != v {
			t.Errorf("component %s = %v, want %v", k, d.ScoreComponents[k], v)
		}
	}
	// (.25×66.1 + .15×69.5 + .20×93.8 + .15×100 + .15×46.5 + .10×36.4) / 1.0 = 71.3
	if d.SignalScore == nil || *d.SignalScore != 71.3 || d.FundamentalSignal != SignalStrong || d.Confidence != 100 {
		t.Errorf("score %v signal %s confidence %v", d.SignalScore, d.FundamentalSignal, d.Confidence)
	}
	if d.FiscalYear != 2025 || d.FiscalPeriodEnd != 20250927 || d.DataAgeDays != 175 || d.Currency != "USD" || d.NullReasons != nil {
		t.Errorf("derived = %+v", d)
	}
}

func TestAAPLGolden(t *testing.T) {
	got, err := json.MarshalIndent(aapl(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/aapl.golden.json"
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("answer differs from %s (go test -update to accept)", path)
	}
}

// company builds a companyfacts document from lines
// "concept unit start end val accn fy fp form filed" (start "-" for an
// instant) and decodes it.
func company(t *testing.T, lines ...string) *Facts {
	t.Helper()
	type fact struct {
		Start string  `json:"start,omitempty"`
		End   string  `json:"end"`
		Val   float64 `json:"val"`
		Accn  string  `json:"accn"`
		FY    int     `json:"fy"`
		FP    string  `json:"fp"`
		Form  string  `json:"form"`
		Filed string  `json:"filed"`
	}
	facts := map[string]map[string]map[string]map[string][]fact{}
	for _, l := range lines {
		var concept, unit, start, end, accn, fp, form, filed string
		var v float64
		var fy int
		if _, err := fmt.Sscan(l, &concept, &unit, &start, &end, &v, &accn, &fy, &fp, &form, &filed); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		tax, name, _ := strings.Cut(concept, ":")
		if facts[tax] == nil {
			facts[tax] = map[string]map[string]map[string][]fact{}
		}
		if facts[tax][name] == nil {
			facts[tax][name] = map[string]map[string][]fact{"units": {}}
		}
		if start == "-" {
			start = ""
		}
		u := facts[tax][name]["units"]
		u[unit] = append(u[unit], fact{start, end, v, accn, fy, fp, form, filed})
	}
	b, _ := json.Marshal(map[string]any{"cik": 1, "entityName": "Test Co", "facts": facts})
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func compute(t *testing.T, f *Facts) *Intelligence {
	t.Helper()
	out, err := Compute(Input{Facts: f, Symbol: "TEST", CIK: "0000000001", AsOf: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// Never Inf or NaN: the answer always encodes.
	if _, err := json.Marshal(out); err != nil {
		t.Fatalf("answer does not encode: %v", err)
	}
	return out
}

// A plain year: FY2024 and FY2023 of a calendar-year company.
var base = []string{
	"us-gaap:Revenues USD 2024-01-01 2024-12-31 1000 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:Revenues USD 2023-01-01 2023-12-31 800 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:NetIncomeLoss USD 2024-01-01 2024-12-31 100 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:NetIncomeLoss USD 2023-01-01 2023-12-31 80 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:OperatingIncomeLoss USD 2024-01-01 2024-12-31 150 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:Assets USD - 2024-12-31 2000 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:StockholdersEquity USD - 2024-12-31 500 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:CashAndCashEquivalentsAtCarryingValue USD - 2024-12-31 300 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:DebtCurrent USD - 2024-12-31 100 k24 2024 FY 10-K 2025-02-01",
	"us-gaap:LongTermDebtNoncurrent USD - 2024-12-31 500 k24 2024 FY 10-K 2025-02-01",
}

func with(extra ...string) []string { return append(append([]string(nil), base...), extra...) }

func replace(old, new string) []string {
	out := append([]string(nil), base...)
	for i, l := range out {
		if strings.HasPrefix(l, old) {
			out[i] = new
		}
	}
	return out
}

func TestRatiosAndNullReasons(t *testing.T) {
	f := func(lines []string, field string, wantVal *float64, wantReason string) {
		t.Helper()
		d := compute(t, company(t, lines...)).DerivedIntelligence
		got := map[string]*float64{"revenueGrowthYoYPercent": d.RevenueGrowthYoYPercent, "earningsGrowthYoYPercent": d.EarningsGrowthYoYPercent,
			"operatingMarginPercent": d.OperatingMarginPercent, "netMarginPercent": d.NetMarginPercent,
			"returnOnAssetsPercent": d.ReturnOnAssetsPercent, "debtToEquity": d.DebtToEquity, "cashToDebt": d.CashToDebt}[field]
		switch {
		case wantVal != nil && (got == nil || *got != *wantVal):
			t.Errorf("%s = %v, want %v (reasons %v)", field, got, *wantVal, d.NullReasons)
		case wantVal == nil && got != nil:
			t.Errorf("%s = %v, want null", field, *got)
		case wantVal == nil && d.NullReasons[field] != wantReason:
			t.Errorf("%s reason = %q, want %q", field, d.NullReasons[field], wantReason)
		}
	}
	v := func(x float64) *float64 { return &x }
	f(base, "revenueGrowthYoYPercent", v(25), "")
	f(base, "earningsGrowthYoYPercent", v(25), "")
	f(base, "operatingMarginPercent", v(15), "")
	f(base, "netMarginPercent", v(10), "")
	f(base, "returnOnAssetsPercent", v(5), "")
	f(base, "debtToEquity", v(1.2), "")
	f(base, "cashToDebt", v(0.5), "")
	// Zero revenue: margins are null, never Inf.
	zeroRev := replace("us-gaap:Revenues USD 2024", "us-gaap:Revenues USD 2024-01-01 2024-12-31 0 k24 2024 FY 10-K 2025-02-01")
	f(zeroRev, "operatingMarginPercent", nil, "revenue is zero")
	f(zeroRev, "netMarginPercent", nil, "revenue is zero")
	f(replace("us-gaap:Revenues USD 2023", "us-gaap:Revenues USD 2023-01-01 2023-12-31 0 k24 2024 FY 10-K 2025-02-01"),
		"revenueGrowthYoYPercent", nil, "revenuePriorYear is zero")
	f(replace("us-gaap:NetIncomeLoss USD 2023", "us-gaap:NetIncomeLoss USD 2023-01-01 2023-12-31 -50 k24 2024 FY 10-K 2025-02-01"),
		"earningsGrowthYoYPercent", nil, "netIncomePriorYear is negative; growth from a loss is not meaningful")
	f(replace("us-gaap:StockholdersEquity", "us-gaap:StockholdersEquity USD - 2024-12-31 -20 k24 2024 FY 10-K 2025-02-01"),
		"debtToEquity", nil, "stockholdersEquity is negative (liabilities exceed assets)")
	f(replace("us-gaap:StockholdersEquity", "us-gaap:StockholdersEquity USD - 2024-12-31 0 k24 2024 FY 10-K 2025-02-01"),
		"debtToEquity", nil, "stockholdersEquity is zero")
	noDebt := replace("us-gaap:DebtCurrent", "us-gaap:DebtCurrent USD - 2024-12-31 0 k24 2024 FY 10-K 2025-02-01")
	noDebt = replace("us-gaap:LongTermDebtNoncurrent", "us-gaap:LongTermDebtNoncurrent USD - 2024-12-31 0 k24 2024 FY 10-K 2025-02-01")
	noDebt[8] = "us-gaap:DebtCurrent USD - 2024-12-31 0 k24 2024 FY 10-K 2025-02-01"
	f(noDebt, "cashToDebt", nil, "totalDebt is zero (no debt reported)")
	f(noDebt, "debtToEquity", v(0), "")
	f(replace("us-gaap:Assets", "us-gaap:Assets USD - 2023-12-31 2000 k24 2024 FY 10-K 2025-02-01"),
		"returnOnAssetsPercent", nil, "totalAssets is not available")
	// No prior year.
	f(base[:2], "revenueGrowthYoYPercent", v(25), "")
	f(base[:1], "revenueGrowthYoYPercent", nil, "revenuePriorYear is not available")
	f([]string{base[0]}, "earningsGrowthYoYPercent", nil, "netIncome is not available")
}

func TestSignalAndConfidence(t *testing.T) {
	out := compute(t, company(t, base...))
	d := out.DerivedIntelligence
	// Components: growth 50+62.5 → 100; earnings 75; net margin 60; ROA
	// 60; leverage 100−48 = 52; liquidity 50. Weighted: 25+11.25+12+9+7.8+5 = 70.05 → 70.1 (rounded).
	if d.SignalScore == nil || *d.SignalScore != 70.1 || d.FundamentalSignal != SignalStrong {
		t.Errorf("score %v signal %s components %v", d.SignalScore, d.FundamentalSignal, d.ScoreComponents)
	}
	// Data age: 2024-12-31 → 2025-06-01 = 152 days, fresh.
	if d.DataAgeDays != 152 || d.Confidence != 100 {
		t.Errorf("age %d confidence %v", d.DataAgeDays, d.Confidence)
	}
	// Two components only: insufficient data.
	out = compute(t, company(t, base[0], base[1], base[2]))
	if out.DerivedIntelligence.FundamentalSignal != SignalInsufficientData {
		t.Errorf("signal %s with components %v", out.DerivedIntelligence.FundamentalSignal, out.DerivedIntelligence.ScoreComponents)
	}
	c := func(components, age int, want float64) {
		t.Helper()
		if got := confidence(components, age, true); got != want {
			t.Errorf("confidence(%d, %d) = %v, want %v", components, age, got, want)
		}
	}
	c(6, 100, 100)
	c(3, 100, 50)
	c(6, 456, 100)
	c(6, 1095, 25)
	c(6, 5000, 25)
	c(6, 775, 62.6) // 1 − 0.75 × 319/639 = 0.6256
	th := func(score float64, want string) {
		t.Helper()
		if got := signalFor(score, 3); got != want {
			t.Errorf("signalFor(%v) = %s, want %s", score, got, want)
		}
	}
	th(70, SignalStrong)
	th(69.9, SignalHealthy)
	th(55, SignalHealthy)
	th(54.9, SignalMixed)
	th(40, SignalMixed)
	th(39.9, SignalWeak)
	th(25, SignalWeak)
	th(24.9, SignalDistressed)
	if signalFor(90, 2) != SignalInsufficientData {
		t.Error("two components gave a signal")
	}
}

func TestRestatementAndLabels(t *testing.T) {
	// A 10-K/A restates FY2024 revenue; the value and its source move to
	// the amendment, restated keeps the original.
	out := compute(t, company(t, with("us-gaap:Revenues USD 2024-01-01 2024-12-31 990 ka 2024 FY 10-K/A 2025-03-15")...))
	r := out.Financials["revenue"]
	if *r.Value != 990 || r.Form != "10-K/A" || r.AccessionNumber != "ka" || r.Restated == nil || r.Restated.PreviousValue != 1000 || r.Restated.PreviousAccessionNumber != "k24" {
		t.Errorf("restated revenue = %+v %+v", r, r.Restated)
	}
	// The same value repeated by a later filing keeps the original source.
	out = compute(t, company(t, with("us-gaap:Revenues USD 2024-01-01 2024-12-31 1000 k25 2025 FY 10-K 2026-02-01")...))
	if r := out.Financials["revenue"]; r.AccessionNumber != "k24" || r.FY != 2024 || r.Restated != nil {
		t.Errorf("repeated revenue = %+v", r)
	}
	// A retailer whose fiscal 2024 ends 2025-02-01: fy labels come from the
	// original 10-K, and a comparative-only year gets the same offset.
	out = compute(t, company(t,
		"us-gaap:Revenues USD 2024-02-04 2025-02-01 1000 kr 2024 FY 10-K 2025-03-20",
		"us-gaap:Revenues USD 2023-01-29 2024-02-03 900 kr 2024 FY 10-K 2025-03-20",
		"us-gaap:NetIncomeLoss USD 2024-02-04 2025-02-01 50 kr 2024 FY 10-K 2025-03-20"))
	if r := out.Financials["revenue"]; r.FY != 2024 || r.FP != "FY" {
		t.Errorf("retailer revenue fy %d fp %s", r.FY, r.FP)
	}
	if r := out.Financials["revenuePriorYear"]; r.FY != 2023 || r.FP != "FY" {
		t.Errorf("retailer prior year fy %d fp %s (comparative only: end year 2024 + offset −1)", r.FY, r.FP)
	}
}

func TestQuartersAndTTM(t *testing.T) {
	// Quarters reported discretely for Q1..Q3, the year only in the 10-K:
	// Q4 = FY − (Q1 + Q2 + Q3). Then Q1 of the next year.
	lines := with(
		"us-gaap:Revenues USD 2024-01-01 2024-03-31 200 q1 2024 Q1 10-Q 2024-05-01",
		"us-gaap:Revenues USD 2024-04-01 2024-06-30 250 q2 2024 Q2 10-Q 2024-08-01",
		"us-gaap:Revenues USD 2024-07-01 2024-09-30 260 q3 2024 Q3 10-Q 2024-11-01",
		"us-gaap:Revenues USD 2025-01-01 2025-03-31 240 q5 2025 Q1 10-Q 2025-05-01",
	)
	fin := compute(t, company(t, lines...)).Financials
	ttm := fin["revenueTTM"]
	// 250 + 260 + (1000 − 710 = 290) + 240.
	if ttm.Value == nil || *ttm.Value != 1040 || ttm.PeriodStart != 20240401 || ttm.PeriodEnd != 20250331 || ttm.AccessionNumber != "q5" {
		t.Fatalf("TTM = %+v", ttm)
	}
	q4 := ttm.Components[2]
	if *q4.Value != 290 || q4.Derivation != "FY − (Q1 + Q2 + Q3)" || q4.FP != "Q4" || q4.PeriodStart != 20241001 {
		t.Errorf("Q4 = %+v", q4)
	}
	if lq := fin["revenueLatestQuarter"]; *lq.Value != 240 || lq.FP != "Q1" || lq.FY != 2025 {
		t.Errorf("latest quarter = %+v", lq)
	}
	// A gap (no Q3) leaves TTM null with its reason.
	fin = compute(t, company(t, with(
		"us-gaap:Revenues USD 2024-01-01 2024-03-31 200 q1 2024 Q1 10-Q 2024-05-01",
		"us-gaap:Revenues USD 2024-04-01 2024-06-30 250 q2 2024 Q2 10-Q 2024-08-01",
		"us-gaap:Revenues USD 2025-01-01 2025-03-31 240 q5 2025 Q1 10-Q 2025-05-01")...)).Financials
	if m := fin["revenueTTM"]; m.Value != nil || !strings.Contains(m.Reason, "3 discrete quarters") {
		t.Errorf("TTM with a gap = %+v", m)
	}
	// Year-to-date only (cash flow style): Q2 = 6M − 3M, Q3 = 9M − 6M, Q4 = FY − 9M.
	fin = compute(t, company(t, with(
		"us-gaap:NetCashProvidedByUsedInOperatingActivities USD 2024-01-01 2024-03-31 10 q1 2024 Q1 10-Q 2024-05-01",
		"us-gaap:NetCashProvidedByUsedInOperatingActivities USD 2024-01-01 2024-06-30 25 q2 2024 Q2 10-Q 2024-08-01",
		"us-gaap:NetCashProvidedByUsedInOperatingActivities USD 2024-01-01 2024-09-30 45 q3 2024 Q3 10-Q 2024-11-01",
		"us-gaap:NetCashProvidedByUsedInOperatingActivities USD 2024-01-01 2024-12-31 70 k24 2024 FY 10-K 2025-02-01")...)).Financials
	m := fin["operatingCashFlowTTM"]
	if m.Value == nil || *m.Value != 70 || len(m.Components) != 4 {
		t.Fatalf("OCF TTM = %+v", m)
	}
	for i, w := range []struct {
		v   float64
		how string
	}{{10, ""}, {15, "6M − 3M YTD"}, {20, "9M − 6M YTD"}, {25, "FY − 9M YTD"}} {
		if c := m.Components[i]; *c.Value != w.v || c.Derivation != w.how {
			t.Errorf("quarter %d = %v %q, want %v %q", i+1, *c.Value, c.Derivation, w.v, w.how)
		}
	}
	// 53-week year (371 days) is still a year.
	fin = compute(t, company(t,
		"us-gaap:Revenues USD 2023-12-31 2025-01-04 1060 k 2024 FY 10-K 2025-02-20",
		"us-gaap:NetIncomeLoss USD 2023-12-31 2025-01-04 60 k 2024 FY 10-K 2025-02-20")).Financials
	if r := fin["revenue"]; r.Value == nil || *r.Value != 1060 || r.FP != "FY" {
		t.Errorf("53-week year = %+v", r)
	}
}

func TestCurrencyConceptsAndErrors(t *testing.T) {
	// A foreign private issuer filing IFRS in EUR: values stay EUR,
	// ratios are unitless, the methodology says so.
	out := compute(t, company(t,
		"ifrs-full:Revenue EUR 2024-01-01 2024-12-31 1000 k 2024 FY 20-F 2025-03-01",
		"ifrs-full:Revenue EUR 2023-01-01 2023-12-31 900 k 2024 FY 20-F 2025-03-01",
		"ifrs-full:ProfitLoss EUR 2024-01-01 2024-12-31 90 k 2024 FY 20-F 2025-03-01",
		"ifrs-full:Assets EUR - 2024-12-31 3000 k 2024 FY 20-F 2025-03-01",
		"ifrs-full:Revenue USD 2024-01-01 2024-12-31 1100 k 2024 FY 20-F 2025-03-01",
	))
	if out.DerivedIntelligence.Currency != "EUR" || out.Financials["revenue"].Unit != "EUR" || *out.Financials["revenue"].Value != 1000 ||
		out.Financials["revenue"].Concept != "ifrs-full:Revenue" || *out.DerivedIntelligence.NetMarginPercent != 9 {
		t.Errorf("EUR company: %+v %+v", out.DerivedIntelligence, out.Financials["revenue"])
	}
	if !strings.Contains(strings.Join(out.Methodology, " "), "reports in EUR") {
		t.Error("methodology does not name the currency")
	}
	// The concept with the most recent period wins over an earlier
	// candidate that stopped (Apple's Revenues ended with fiscal 2018).
	out = compute(t, company(t,
		"us-gaap:Revenues USD 2017-01-01 2017-12-31 500 k17 2017 FY 10-K 2018-02-01",
		"us-gaap:SalesRevenueNet USD 2024-01-01 2024-12-31 1000 k24 2024 FY 10-K 2025-02-01",
		"us-gaap:SalesRevenueNet USD 2023-01-01 2023-12-31 900 k24 2024 FY 10-K 2025-02-01"))
	if r := out.Financials["revenue"]; r.Concept != "us-gaap:SalesRevenueNet" || *r.Value != 1000 {
		t.Errorf("revenue concept = %+v", r)
	}
	// Liabilities from the balance-sheet total when not reported.
	out = compute(t, company(t, with(
		"us-gaap:LiabilitiesAndStockholdersEquity USD - 2024-12-31 2000 k24 2024 FY 10-K 2025-02-01")...))
	if l := out.Financials["totalLiabilities"]; l.Value == nil || *l.Value != 1500 || !strings.Contains(l.Derivation, "LiabilitiesAndStockholdersEquity") {
		t.Errorf("liabilities = %+v", l)
	}
	// Missing concepts: named, with their reason.
	out = compute(t, company(t, base[0], base[1]))
	if m := out.Financials["totalAssets"]; m.Value != nil || !strings.Contains(m.Reason, "us-gaap:Assets") {
		t.Errorf("missing assets = %+v", m)
	}
	// Nothing usable: ErrNoData.
	for _, f := range []*Facts{
		company(t, "dei:EntityCommonStockSharesOutstanding shares - 2024-12-31 100 k 2024 FY 10-K 2025-02-01"),
		company(t, "us-gaap:SomethingElse USD 2024-01-01 2024-12-31 1 k 2024 FY 10-K 2025-02-01"),
		{CIK: 1, Concepts: map[string]*Concept{}},
		nil,
	} {
		if _, err := Compute(Input{Facts: f, AsOf: asOf}); !errors.Is(err, ErrNoData) {
			t.Errorf("err = %v, want ErrNoData", err)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := json.Marshal(aapl(t))
	for i := 0; i < 3; i++ {
		b, _ := json.Marshal(aapl(t))
		if !bytes.Equal(a, b) {
			t.Fatal("two computations of the same facts differ")
		}
	}
}
