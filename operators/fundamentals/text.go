package fundamentals

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// amount writes an amount with a scale suffix: "416.16B USD".
func amount(v float64, unit string) string {
	a := math.Abs(v)
	var s string
	switch {
	case a >= 1e12:
		s = fmt.Sprintf("%.2fT", v/1e12)
	case a >= 1e9:
		s = fmt.Sprintf("%.2fB", v/1e9)
	case a >= 1e6:
		s = fmt.Sprintf("%.2fM", v/1e6)
	case a >= 1e3:
		s = fmt.Sprintf("%.2fK", v/1e3)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	return s + " " + unit
}

func signed(p float64) string {
	if p >= 0 {
		return fmt.Sprintf("+%.2f%%", p)
	}
	return fmt.Sprintf("%.2f%%", p)
}

// interpret writes the one-paragraph reading of the answer.
func interpret(out *Intelligence) string {
	d := &out.DerivedIntelligence
	fin := out.Financials
	name := out.CompanyName
	if name == "" {
		name = out.Symbol
	}
	var parts []string
	if d.FiscalPeriodEnd != 0 {
		parts = append(parts, fmt.Sprintf("%s fiscal %d (year ended %s)", name, d.FiscalYear, d.FiscalPeriodEnd))
	} else {
		parts = append(parts, name+": no fiscal-year statements")
	}
	var facts []string
	if v, ok := val(fin["revenue"]); ok {
		s := "revenue " + amount(v, d.Currency)
		if g := d.RevenueGrowthYoYPercent; g != nil {
			s += " (" + signed(*g) + " year over year)"
		}
		facts = append(facts, s)
	}
	if v, ok := val(fin["netIncome"]); ok {
		s := "net income " + amount(v, d.Currency)
		if g := d.EarningsGrowthYoYPercent; g != nil {
			s += " (" + signed(*g) + ")"
		}
		facts = append(facts, s)
	}
	pct := func(label string, p *float64) {
		if p != nil {
			facts = append(facts, fmt.Sprintf("%s %.2f%%", label, *p))
		}
	}
	pct("operating margin", d.OperatingMarginPercent)
	pct("net margin", d.NetMarginPercent)
	pct("return on assets", d.ReturnOnAssetsPercent)
	if x := d.DebtToEquity; x != nil {
		facts = append(facts, fmt.Sprintf("debt/equity %.2f", *x))
	} else if r, ok := d.NullReasons["debtToEquity"]; ok && strings.Contains(r, "negative") {
		facts = append(facts, "negative stockholders' equity")
	}
	if x := d.CashToDebt; x != nil {
		facts = append(facts, fmt.Sprintf("cash covers %.0f%% of debt", *x*100))
	} else if t, ok := val(fin["totalDebt"]); ok && t == 0 {
		facts = append(facts, "no debt")
	}
	s := parts[0]
	if len(facts) > 0 {
		s += ": " + strings.Join(facts, ", ")
	}
	s += "."
	if d.SignalScore != nil {
		s += fmt.Sprintf(" Fundamental signal %s (score %.1f/100 from %d of %d components, confidence %.0f).",
			d.FundamentalSignal, *d.SignalScore, len(d.ScoreComponents), len(weights), d.Confidence)
	} else {
		s += " Fundamental signal " + d.FundamentalSignal + ": no score component can be computed."
	}
	if d.DataAgeDays > 456 {
		s += fmt.Sprintf(" The latest fiscal year ended %d days ago; the company may have stopped filing.", d.DataAgeDays)
	}
	return s
}

// methodology lists how this answer was made.
func methodology(out *Intelligence, f *Facts) []string {
	d := &out.DerivedIntelligence
	var m []string
	m = append(m, "Figures are XBRL facts from the company's own filings, as the SEC publishes them in companyfacts ("+out.SourceURL+"); each names its concept, period (start, end, fiscal year and period) and the filing (form, date, accession number) it was taken from.")
	if d.FiscalPeriodEnd != 0 {
		m = append(m, fmt.Sprintf("Ratios use fiscal %d (ended %s): income and cash flow for the year, the balance sheet at its end; growth compares with the fiscal year ending about a year before. TTM figures and the latest balance sheet are shown beside them.", d.FiscalYear, d.FiscalPeriodEnd))
	}
	var used []string
	keys := make([]string, 0, len(out.Financials))
	for k := range out.Financials {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, "Latest") || strings.HasSuffix(k, "PriorYear") || strings.HasSuffix(k, "LatestQuarter") {
			continue
		}
		if mt := out.Financials[k]; mt.Value != nil && mt.Derivation == "" {
			used = append(used, k+" = "+mt.Concept)
		}
	}
	if len(used) > 0 {
		m = append(m, "Concepts used (first available of each metric's documented list, the one with the most recent period preferred): "+strings.Join(used, "; ")+".")
	}
	m = append(m,
		"Restatements: for each period the latest filing's value wins; the accession number is the first filing that reported that value (restated lists the value it replaced).",
		"Periods: years are 350-380 days, quarters 80-100 days; instant (balance sheet) and duration facts are kept apart. A quarter not reported on its own is derived from year-to-date figures of the same concept (Q2 = 6M − 3M, Q3 = 9M − 6M, Q4 = FY − 9M) or as FY − (Q1 + Q2 + Q3); TTM is the sum of the latest four contiguous quarters.",
		"Debt is current debt (DebtCurrent, else LongTermDebtCurrent + CommercialPaper + ShortTermBorrowings) plus noncurrent debt (LongTermDebtNoncurrent, ...); operating lease liabilities are not debt here.",
		"Score: weighted mean of six 0-100 components (revenue growth 25%, earnings growth 15%, net margin 20%, return on assets 15%, leverage 15%, liquidity 10%) over those available; STRONG >= 70, HEALTHY >= 55, MIXED >= 40, WEAK >= 25, DISTRESSED below; INSUFFICIENT_DATA with fewer than 3 components. Confidence = 100 x components available / 6 x freshness (1 up to 15 months after the fiscal year end, 0.25 at 3 years). Rules: docs/fundamentals.md, "+AlgorithmVersion+".",
	)
	if d.Currency != "USD" {
		m = append(m, "The company reports in "+d.Currency+": amounts are in "+d.Currency+" as filed, not converted; ratios and growth are unitless.")
	}
	if f.Skipped > 0 {
		m = append(m, fmt.Sprintf("%d facts were left out as unreadable (first: %s).", f.Skipped, f.SkipReason))
	}
	m = append(m, "Deterministic arithmetic on reported figures; not investment advice.")
	return m
}
