package fundamentals

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// AlgorithmVersion names the rules of this package; it changes whenever a
// concept list, period rule, formula, threshold or signal value of
// docs/fundamentals.md changes.
const AlgorithmVersion = "mi-fundamentals/1.0.0"

// ErrNoData: the company has no XBRL financial statements to read (no
// us-gaap or ifrs-full facts, or none of the metrics' concepts).
var ErrNoData = errors.New("no XBRL financial data")

// Input is what an answer is computed from.
type Input struct {
	Facts       *Facts
	Symbol      string // normalized ticker
	CIK         string // 10 digits
	CompanyName string // from the submissions JSON
	// LatestFiling is the newest periodic or current report (10-K, 10-Q,
	// 8-K, 20-F, 40-F, 6-K and amendments) of the submissions; nil when
	// unknown.
	LatestFiling *LatestFiling
	// SourceURL is the companyfacts URL the facts were read from;
	// FetchedAt when EDGAR sent or confirmed them.
	SourceURL string
	FetchedAt time.Time
	// AsOf is the answer's time (the caller's clock).
	AsOf time.Time
}

// LatestFiling is spec §2.7's latestFiling.
type LatestFiling struct {
	Form            string `json:"form"`
	FilingDate      string `json:"filingDate"`
	AccessionNumber string `json:"accessionNumber"`
	PrimaryDocument string `json:"primaryDocument"`
	ReportDate      string `json:"reportDate,omitempty"`
	// URL is the primary document on www.sec.gov.
	URL string `json:"url,omitempty"`
}

// Intelligence is spec §2.7's SecFundamentalIntelligence.
type Intelligence struct {
	Symbol              string             `json:"symbol"`
	CIK                 string             `json:"cik"`
	CompanyName         string             `json:"companyName"`
	Source              string             `json:"source"`
	SourceURL           string             `json:"sourceUrl"`
	AsOf                time.Time          `json:"asOf"`
	LatestFiling        *LatestFiling      `json:"latestFiling"`
	Financials          map[string]*Metric `json:"financials"`
	DerivedIntelligence Derived            `json:"derivedIntelligence"`
	Methodology         []string           `json:"methodology"`
}

// Source is the value of Intelligence.Source.
const Source = "sec_edgar_xbrl_companyfacts"

// Metric is a SecMetric: one figure with the concept, period and filing it
// comes from. Value is null when the figure is not available; Reason then
// says why.
type Metric struct {
	Value           *float64     `json:"value"`
	Unit            string       `json:"unit,omitempty"`
	Concept         string       `json:"concept,omitempty"`
	PeriodType      string       `json:"periodType,omitempty"` // "duration" or "instant"
	PeriodStart     Date         `json:"periodStart,omitempty"`
	PeriodEnd       Date         `json:"periodEnd,omitempty"`
	FY              int32        `json:"fy,omitempty"`
	FP              string       `json:"fp,omitempty"` // FY, Q1..Q4, TTM
	Form            string       `json:"form,omitempty"`
	Filed           Date         `json:"filed,omitempty"`
	AccessionNumber string       `json:"accessionNumber,omitempty"`
	Derivation      string       `json:"derivation,omitempty"`
	Components      []*Metric    `json:"components,omitempty"`
	Restated        *Restatement `json:"restated,omitempty"`
	Reason          string       `json:"reason,omitempty"`
}

// Restatement is the value a later filing replaced.
type Restatement struct {
	PreviousValue           float64 `json:"previousValue"`
	PreviousAccessionNumber string  `json:"previousAccessionNumber"`
	PreviousFiled           Date    `json:"previousFiled"`
}

// Derived is spec §2.7's derivedIntelligence. Ratios are null when they
// cannot be computed; NullReasons says why, per field.
type Derived struct {
	RevenueGrowthYoYPercent  *float64 `json:"revenueGrowthYoYPercent"`
	EarningsGrowthYoYPercent *float64 `json:"earningsGrowthYoYPercent"`
	OperatingMarginPercent   *float64 `json:"operatingMarginPercent"`
	NetMarginPercent         *float64 `json:"netMarginPercent"`
	ReturnOnAssetsPercent    *float64 `json:"returnOnAssetsPercent"`
	DebtToEquity             *float64 `json:"debtToEquity"`
	CashToDebt               *float64 `json:"cashToDebt"`
	// SignalScore is 0..100, null without any score component.
	SignalScore       *float64 `json:"signalScore"`
	Confidence        float64  `json:"confidence"`
	FundamentalSignal string   `json:"fundamentalSignal"`
	Interpretation    string   `json:"interpretation"`

	NullReasons map[string]string `json:"nullReasons,omitempty"`
	// ScoreComponents are the 0..100 parts of SignalScore.
	ScoreComponents map[string]float64 `json:"scoreComponents"`
	// Basis is the period the ratios use: "FY" (the latest fiscal year).
	Basis           string `json:"basis"`
	FiscalYear      int32  `json:"fiscalYear,omitempty"`
	FiscalPeriodEnd Date   `json:"fiscalPeriodEnd,omitempty"`
	Currency        string `json:"currency"`
	// DataAgeDays is asOf − FiscalPeriodEnd, in days.
	DataAgeDays      int    `json:"dataAgeDays"`
	AlgorithmVersion string `json:"algorithmVersion"`
}

// Signal values.
const (
	SignalStrong           = "STRONG"
	SignalHealthy          = "HEALTHY"
	SignalMixed            = "MIXED"
	SignalWeak             = "WEAK"
	SignalDistressed       = "DISTRESSED"
	SignalInsufficientData = "INSUFFICIENT_DATA"
)

// Signals lists the fundamentalSignal values.
var Signals = []string{SignalStrong, SignalHealthy, SignalMixed, SignalWeak, SignalDistressed, SignalInsufficientData}

// Score weights and the minimum number of components for a signal.
var weights = map[string]float64{
	"revenueGrowth": 0.25, "earningsGrowth": 0.15, "netMargin": 0.20,
	"returnOnAssets": 0.15, "leverage": 0.15, "liquidity": 0.10,
}

const minComponents = 3

// Compute builds the answer. It fails with ErrNoData when the facts hold
// none of the metrics' concepts.
func Compute(in Input) (*Intelligence, error) {
	if in.Facts == nil {
		return nil, fmt.Errorf("cannot compute fundamentals: %w: no facts", ErrNoData)
	}
	b := newBook(in.Facts)
	cur, ok := b.currency()
	if !ok {
		return nil, fmt.Errorf("cannot compute fundamentals of CIK %s: %w: no us-gaap or ifrs-full monetary facts", in.CIK, ErrNoData)
	}
	unitOf := func(d metricDef) string {
		switch d.unit {
		case perShare:
			return cur + "/shares"
		case shares:
			return "shares"
		}
		return cur
	}
	ser := map[string]series{}
	for _, d := range metricDefs {
		ser[d.name] = b.merge(d.concepts, unitOf(d), d.instant)
	}

	out := &Intelligence{
		Symbol: in.Symbol, CIK: in.CIK, CompanyName: in.CompanyName, Source: Source, SourceURL: in.SourceURL,
		AsOf: in.AsOf.UTC(), LatestFiling: in.LatestFiling, Financials: map[string]*Metric{},
	}
	if out.CompanyName == "" {
		out.CompanyName = in.Facts.EntityName
	}
	d := &out.DerivedIntelligence
	d.Basis, d.Currency, d.AlgorithmVersion = "FY", cur, AlgorithmVersion
	d.NullReasons = map[string]string{}
	d.ScoreComponents = map[string]float64{}
	fin := out.Financials

	// The basis: the latest fiscal year of the income and cash-flow
	// statements.
	var basis *point
	for _, name := range []string{"revenue", "netIncome", "operatingIncome", "operatingCashFlow"} {
		if a := ser[name].annuals(); len(a) > 0 && (basis == nil || a[0].end > basis.end) {
			basis = a[0]
		}
	}
	flows := []metricDef{defRevenue, defGrossProfit, defOperatingIncome, defNetIncome, defEPSDiluted, defOperatingCashFlow, defCapex}
	stocks := []metricDef{defAssets, defLiabilities, defEquity, defCash, defDebtCurrent, defDebtNoncurrent}
	if basis == nil {
		for _, m := range flows {
			fin[m.name] = missing(fmt.Sprintf("no fiscal-year value of %s", strings.Join(m.concepts, ", ")))
		}
	} else {
		d.FiscalYear, d.FiscalPeriodEnd = basis.fy, basis.end
		for _, m := range flows {
			if pt := ser[m.name].annualEnding(basis.end); pt != nil {
				fin[m.name] = metricOf(pt)
			} else {
				fin[m.name] = missing(fmt.Sprintf("no value for the fiscal year ending %s among %s", basis.end, strings.Join(m.concepts, ", ")))
			}
		}
		for _, m := range []metricDef{defRevenue, defNetIncome} {
			key := m.name + "PriorYear"
			if pt := priorYear(ser[m.name], basis.end); pt != nil {
				fin[key] = metricOf(pt)
			} else {
				fin[key] = missing(fmt.Sprintf("no fiscal-year value ending about a year before %s", basis.end))
			}
		}
		// Free cash flow = operating cash flow − capital expenditure.
		ocf, capex := ser["operatingCashFlow"].annualEnding(basis.end), ser["capitalExpenditure"].annualEnding(basis.end)
		if ocf != nil && capex != nil {
			fcf := &point{period: ocf.period, val: ocf.val - capex.val, unit: ocf.unit, concept: ocf.concept + " − " + capex.concept,
				fy: ocf.fy, fp: ocf.fp, derivation: "operatingCashFlow − capitalExpenditure", components: []*point{ocf, capex}}
			fcf.form, fcf.filed, fcf.accn = ocf.form, ocf.filed, ocf.accn
			if capex.filed > ocf.filed {
				fcf.form, fcf.filed, fcf.accn = capex.form, capex.filed, capex.accn
			}
			fin["freeCashFlow"] = metricOf(fcf)
		} else {
			fin["freeCashFlow"] = missing("needs operatingCashFlow and capitalExpenditure for the same fiscal year")
		}
		for _, m := range stocks {
			fin[m.name] = metricAt(b, ser, m, cur, basis.end)
		}
		fin["totalDebt"] = totalDebt(fin["debtCurrent"], fin["debtNoncurrent"])
	}
	// Trailing twelve months and the latest quarter.
	for _, m := range []metricDef{defRevenue, defOperatingIncome, defNetIncome, defOperatingCashFlow} {
		qs := ser[m.name].quarters()
		if pt, why := ttm(qs); pt != nil {
			fin[m.name+"TTM"] = metricOf(pt)
		} else if ser[m.name] != nil {
			fin[m.name+"TTM"] = missing(why)
		}
		if m.name == "revenue" || m.name == "netIncome" {
			if len(qs) > 0 {
				fin[m.name+"LatestQuarter"] = metricOf(qs[len(qs)-1])
			}
		}
	}
	// The latest balance sheet when newer than the fiscal year end.
	if latest := ser["totalAssets"].latestEnd(); latest != 0 && (basis == nil || latest > basis.end) {
		for _, m := range []metricDef{defAssets, defEquity, defCash} {
			fin[m.name+"Latest"] = metricAt(b, ser, m, cur, latest)
		}
		fin["totalDebtLatest"] = totalDebt(metricAt(b, ser, defDebtCurrent, cur, latest), metricAt(b, ser, defDebtNoncurrent, cur, latest))
	}
	if s := ser["sharesOutstanding"]; len(s) > 0 {
		fin["sharesOutstanding"] = metricOf(s[period{end: s.latestEnd()}])
	}
	found := false
	for _, m := range fin {
		found = found || m.Value != nil
	}
	if !found {
		return nil, fmt.Errorf("cannot compute fundamentals of CIK %s: %w: none of the metrics' concepts has a value in %s", in.CIK, ErrNoData, cur)
	}

	ratios(d, fin)
	score(d, fin)
	if basis != nil {
		d.DataAgeDays = basis.end.DaysTo(dateOf(in.AsOf))
	}
	d.Confidence = confidence(len(d.ScoreComponents), d.DataAgeDays, basis != nil)
	d.Interpretation = interpret(out)
	out.Methodology = methodology(out, in.Facts)
	if len(d.NullReasons) == 0 {
		d.NullReasons = nil
	}
	return out, nil
}

// currency is the unit of most of the company's monetary facts among the
// metrics' concepts (USD on a tie); ok is false when there are none.
func (b *book) currency() (string, bool) {
	count := map[string]int{}
	for _, d := range metricDefs {
		if d.unit != money {
			continue
		}
		for _, k := range append(append([]string(nil), d.concepts...), d.sum...) {
			if c := b.facts.Concepts[k]; c != nil {
				for u, fs := range c.Units {
					if isCurrency(u) {
						count[u] += len(fs)
					}
				}
			}
		}
	}
	best, n := "", 0
	for u, c := range count {
		if c > n || (c == n && (u == "USD" || (best != "USD" && u < best))) {
			best, n = u, c
		}
	}
	return best, n > 0
}

func isCurrency(u string) bool {
	if len(u) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if u[i] < 'A' || u[i] > 'Z' {
			return false
		}
	}
	return true
}

func priorYear(s series, end Date) *point {
	for _, a := range s.annuals() {
		if g := a.end.DaysTo(end); g >= annualMin && g <= annualMax {
			return a
		}
	}
	return nil
}

// metricAt is an instant metric on a date, with its fallbacks: the sum of
// its component concepts for debtCurrent, total − equity for
// totalLiabilities.
func metricAt(b *book, ser map[string]series, m metricDef, cur string, at Date) *Metric {
	if pt := ser[m.name][period{end: at}]; pt != nil {
		return metricOf(pt)
	}
	if len(m.sum) > 0 {
		var parts []*point
		for _, k := range m.sum {
			if pt := b.conceptSeries(k, cur, true)[period{end: at}]; pt != nil {
				parts = append(parts, pt)
			}
		}
		if len(parts) > 0 {
			return metricOf(sumOf(parts, "sum of "+strings.Join(names(parts), ", ")))
		}
	}
	if m.name == "totalLiabilities" {
		total := b.merge(liabilitiesAndEquity, cur, true)[period{end: at}]
		eq := b.merge(equityWithNCI, cur, true)[period{end: at}]
		if total != nil && eq != nil {
			pt := sumOf([]*point{total, eq}, "LiabilitiesAndStockholdersEquity − equity including noncontrolling interests")
			pt.val = total.val - eq.val
			pt.concept = total.concept + " − " + eq.concept
			return metricOf(pt)
		}
	}
	return missing(fmt.Sprintf("no value at %s among %s", at, strings.Join(append(append([]string(nil), m.concepts...), m.sum...), ", ")))
}

func names(ps []*point) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.concept)
	}
	return out
}

// sumOf adds points of one date; the source is the latest-filed part.
func sumOf(parts []*point, how string) *point {
	pt := &point{period: parts[0].period, unit: parts[0].unit, fy: parts[0].fy, fp: parts[0].fp, derivation: how, components: parts}
	var cs []string
	latest := parts[0]
	for _, p := range parts {
		pt.val += p.val
		cs = append(cs, p.concept)
		if p.filed > latest.filed {
			latest = p
		}
	}
	pt.concept = strings.Join(cs, " + ")
	pt.form, pt.filed, pt.accn = latest.form, latest.filed, latest.accn
	return pt
}

func totalDebt(cur, nonCur *Metric) *Metric {
	switch {
	case cur.Value != nil && nonCur.Value != nil:
		v := *cur.Value + *nonCur.Value
		m := &Metric{Value: &v, Unit: cur.Unit, PeriodType: "instant", PeriodEnd: cur.PeriodEnd, FY: cur.FY, FP: cur.FP,
			Concept: "debtCurrent + debtNoncurrent", Derivation: "debtCurrent + debtNoncurrent", Components: []*Metric{cur, nonCur}}
		src := cur
		if nonCur.Filed > cur.Filed {
			src = nonCur
		}
		m.Form, m.Filed, m.AccessionNumber = src.Form, src.Filed, src.AccessionNumber
		return m
	case cur.Value != nil || nonCur.Value != nil:
		only, name := cur, "debtCurrent"
		if only.Value == nil {
			only, name = nonCur, "debtNoncurrent"
		}
		cp := *only
		cp.Derivation = name + " only (the other part is not reported)"
		cp.Components = []*Metric{only}
		return &cp
	}
	return missing("neither current nor noncurrent debt is reported")
}

func missing(reason string) *Metric { return &Metric{Reason: reason} }

func metricOf(pt *point) *Metric {
	v := pt.val
	m := &Metric{Value: &v, Unit: pt.unit, Concept: pt.concept, PeriodStart: pt.start, PeriodEnd: pt.end, FY: pt.fy, FP: pt.fp,
		Form: pt.form, Filed: pt.filed, AccessionNumber: pt.accn, Derivation: pt.derivation}
	m.PeriodType = "duration"
	if pt.instant() {
		m.PeriodType = "instant"
	}
	for _, c := range pt.components {
		m.Components = append(m.Components, metricOf(c))
	}
	if pt.restated != nil {
		m.Restated = &Restatement{PreviousValue: pt.restated.val, PreviousAccessionNumber: pt.restated.accn, PreviousFiled: pt.restated.filed}
	}
	return m
}

func dateOf(t time.Time) Date {
	t = t.UTC()
	return Date(t.Year()*10000 + int(t.Month())*100 + t.Day())
}

func val(m *Metric) (float64, bool) {
	if m == nil || m.Value == nil {
		return 0, false
	}
	return *m.Value, true
}

// ratios fills the seven ratios or their null reasons.
func ratios(d *Derived, fin map[string]*Metric) {
	set := func(field string, dst **float64, num, den *Metric, numName, denName string, scale float64, needPositive bool, places int) {
		n, ok1 := val(num)
		dv, ok2 := val(den)
		switch {
		case !ok1:
			d.NullReasons[field] = numName + " is not available"
		case !ok2:
			d.NullReasons[field] = denName + " is not available"
		case dv == 0:
			d.NullReasons[field] = denName + " is zero"
		case needPositive && dv < 0:
			d.NullReasons[field] = denName + " is negative"
		default:
			x := n / dv * scale
			if math.IsInf(x, 0) || math.IsNaN(x) {
				d.NullReasons[field] = "not a finite number"
				return
			}
			x = round(x, places)
			*dst = &x
		}
	}
	growth := func(field string, dst **float64, curName, priorName string) {
		c, ok1 := val(fin[curName])
		p, ok2 := val(fin[priorName])
		switch {
		case !ok1:
			d.NullReasons[field] = curName + " is not available"
		case !ok2:
			d.NullReasons[field] = priorName + " is not available"
		case p == 0:
			d.NullReasons[field] = priorName + " is zero"
		case p < 0:
			d.NullReasons[field] = priorName + " is negative; growth from a loss is not meaningful"
		default:
			x := round((c-p)/p*100, 2)
			if math.IsInf(x, 0) || math.IsNaN(x) {
				d.NullReasons[field] = "not a finite number"
				return
			}
			*dst = &x
		}
	}
	growth("revenueGrowthYoYPercent", &d.RevenueGrowthYoYPercent, "revenue", "revenuePriorYear")
	growth("earningsGrowthYoYPercent", &d.EarningsGrowthYoYPercent, "netIncome", "netIncomePriorYear")
	set("operatingMarginPercent", &d.OperatingMarginPercent, fin["operatingIncome"], fin["revenue"], "operatingIncome", "revenue", 100, true, 2)
	set("netMarginPercent", &d.NetMarginPercent, fin["netIncome"], fin["revenue"], "netIncome", "revenue", 100, true, 2)
	set("returnOnAssetsPercent", &d.ReturnOnAssetsPercent, fin["netIncome"], fin["totalAssets"], "netIncome", "totalAssets", 100, true, 2)
	set("debtToEquity", &d.DebtToEquity, fin["totalDebt"], fin["stockholdersEquity"], "totalDebt", "stockholdersEquity", 1, true, 4)
	set("cashToDebt", &d.CashToDebt, fin["cash"], fin["totalDebt"], "cash", "totalDebt", 1, true, 4)
	if _, ok := d.NullReasons["debtToEquity"]; ok {
		if e, ok := val(fin["stockholdersEquity"]); ok && e < 0 {
			d.NullReasons["debtToEquity"] = "stockholdersEquity is negative (liabilities exceed assets)"
		}
	}
	if t, ok := val(fin["totalDebt"]); ok && t == 0 {
		d.NullReasons["cashToDebt"] = "totalDebt is zero (no debt reported)"
	}
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// score fills the score components, SignalScore and FundamentalSignal
// (formulas in docs/fundamentals.md).
func score(d *Derived, fin map[string]*Metric) {
	c := d.ScoreComponents
	if g := d.RevenueGrowthYoYPercent; g != nil {
		c["revenueGrowth"] = clamp(50+2.5**g, 0, 100)
	}
	if g := d.EarningsGrowthYoYPercent; g != nil {
		c["earningsGrowth"] = clamp(50+*g, 0, 100)
	}
	if m := d.NetMarginPercent; m != nil {
		c["netMargin"] = clamp(40+2**m, 0, 100)
	}
	if r := d.ReturnOnAssetsPercent; r != nil {
		c["returnOnAssets"] = clamp(40+4**r, 0, 100)
	}
	if x := d.DebtToEquity; x != nil {
		c["leverage"] = clamp(100-40**x, 0, 100)
	} else if e, ok := val(fin["stockholdersEquity"]); ok && e < 0 {
		if _, debt := val(fin["totalDebt"]); debt {
			c["leverage"] = 0 // negative equity with debt
		}
	}
	if x := d.CashToDebt; x != nil {
		c["liquidity"] = clamp(100**x, 0, 100)
	} else if t, ok := val(fin["totalDebt"]); ok && t == 0 {
		c["liquidity"] = 100 // no debt
	}
	for k, v := range c {
		c[k] = round(v, 1)
	}
	if len(c) == 0 {
		d.NullReasons["signalScore"] = "no score component can be computed"
		d.FundamentalSignal = SignalInsufficientData
		return
	}
	var sum, w float64
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a fixed summation order: the same bits every time
	for _, k := range keys {
		sum += weights[k] * c[k]
		w += weights[k]
	}
	s := round(sum/w, 1)
	d.SignalScore = &s
	d.FundamentalSignal = signalFor(s, len(c))
}

// signalFor maps a score and its number of components to a signal.
func signalFor(s float64, components int) string {
	switch {
	case components < minComponents:
		return SignalInsufficientData
	case s >= 70:
		return SignalStrong
	case s >= 55:
		return SignalHealthy
	case s >= 40:
		return SignalMixed
	case s >= 25:
		return SignalWeak
	}
	return SignalDistressed
}

// confidence is 100 × completeness × freshness: completeness the share of
// the six score components available; freshness 1 while the fiscal year
// ended at most 456 days (15 months) ago, falling linearly to 0.25 at 1,095
// days (3 years), 0.25 beyond.
func confidence(components, ageDays int, haveBasis bool) float64 {
	if !haveBasis {
		return round(100*float64(components)/float64(len(weights))*0.25, 1)
	}
	fresh := 1.0
	if ageDays > 456 {
		fresh = math.Max(0.25, 1-0.75*float64(ageDays-456)/float64(1095-456))
	}
	return round(100*float64(components)/float64(len(weights))*fresh, 1)
}
