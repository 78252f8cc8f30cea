package insiders

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AlgorithmVersion names the rules of docs/insiders.md; it changes when a
// rule, threshold or signal value changes.
const AlgorithmVersion = "mi-insiders/1.0.0"

// Limits of spec §4.3 and §8.
const (
	MaxFilings      = 40 // the latest 40 filings within the window are analyzed
	MaxTransactions = 50 // the latest 50 transactions are listed
	MinDays         = 1
	MaxDays         = 365
	DefaultDays     = 90
	// ClusterBuyers is the number of distinct insiders buying in the open
	// market (outside 10b5-1 plans) within the window that makes
	// CLUSTER_BUYING.
	ClusterBuyers = 3
	// PlannedShare is the share of the sales (by the open-market measure)
	// under Rule 10b5-1 plans from which selling is PLANNED_SELLING.
	PlannedShare = 0.5
)

// Signal values (spec §2.11).
const (
	SignalClusterBuying  = "CLUSTER_BUYING"
	SignalNetBuying      = "NET_BUYING"
	SignalPlannedSelling = "PLANNED_SELLING"
	SignalNetSelling     = "NET_SELLING"
	SignalNoActivity     = "NO_OPEN_MARKET_ACTIVITY"
)

// Signals lists the insider signal values.
var Signals = []string{SignalClusterBuying, SignalNetBuying, SignalPlannedSelling, SignalNetSelling, SignalNoActivity}

// Listed is an ownership filing as the issuer's submissions list it.
type Listed struct {
	Accession  string
	Form       string // "4", "4/A", "144", ...
	FilingDate string // YYYY-MM-DD
	Accepted   time.Time
}

// Select returns the filings of the given forms filed within the window of
// days days ending on asOf's date (inclusive), newest first (filing date,
// then acceptance time, then accession), at most limit of them; and how
// many were in the window.
func Select(all []Listed, forms []string, days int, asOf time.Time, limit int) (selected []Listed, inWindow int) {
	start, end := Window(days, asOf)
	want := map[string]bool{}
	for _, f := range forms {
		want[f] = true
	}
	var in []Listed
	for _, f := range all {
		if want[f.Form] && f.FilingDate >= start && f.FilingDate <= end {
			in = append(in, f)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		a, b := in[i], in[j]
		if a.FilingDate != b.FilingDate {
			return a.FilingDate > b.FilingDate
		}
		if !a.Accepted.Equal(b.Accepted) {
			return a.Accepted.After(b.Accepted)
		}
		return a.Accession > b.Accession
	})
	if len(in) > limit {
		return in[:limit], len(in)
	}
	return in, len(in)
}

// Window is the window's first and last filing dates (YYYY-MM-DD, UTC): the
// last days calendar days up to asOf's date.
func Window(days int, asOf time.Time) (start, end string) {
	e := asOf.UTC()
	return e.AddDate(0, 0, -(days - 1)).Format(time.DateOnly), e.Format(time.DateOnly)
}

// Filing is one selected Form 4 / 4/A with its document, or the reason it
// has none.
type Filing struct {
	Listed
	// URL is where the filing can be read (index page or document).
	URL string
	Doc *Ownership
	// Problem says why Doc is nil: "unavailable: ..." (EDGAR could not
	// give it) or "malformed: ..." (it could not be read).
	Problem string
}

// NoticeFiling is one selected Form 144 with its notice.
type NoticeFiling struct {
	Listed
	URL     string
	Notice  *Notice
	Problem string
}

// Params are the answer's request and context.
type Params struct {
	Symbol      string
	CIK         string
	CompanyName string
	Days        int
	AsOf        time.Time
	// SourceURL is the submissions JSON the filings were listed from.
	SourceURL string
	// Listed is the number of Form 4 / 4/A filings in the window before
	// the limit of MaxFilings.
	Listed int
}

// Analysis is the insiders answer (spec §4.3: "insider analysis with
// signal"; its fields are ours, documented in docs/insiders.md).
type Analysis struct {
	Symbol           string         `json:"symbol"`
	CIK              string         `json:"cik"`
	CompanyName      string         `json:"companyName"`
	AsOf             time.Time      `json:"asOf"`
	Days             int            `json:"days"`
	WindowStart      string         `json:"windowStart"`
	WindowEnd        string         `json:"windowEnd"`
	Signal           string         `json:"signal"`
	SignalReason     string         `json:"signalReason"`
	Summary          Summary        `json:"summary"`
	Insiders         []InsiderTotal `json:"insiders"`
	Transactions     []Row          `json:"transactions"`
	ProposedSales    []ProposedSale `json:"proposedSales"`
	DataQuality      DataQuality    `json:"dataQuality"`
	Methodology      []string       `json:"methodology"`
	Source           string         `json:"source"`
	SourceURL        string         `json:"sourceUrl"`
	AlgorithmVersion string         `json:"algorithmVersion"`
	// AllRows are every row of the analyzed filings, in the order of
	// Transactions (for the Parquet snapshot; not in the JSON answer).
	AllRows []Row `json:"-"`
}

// Flow totals a kind of transaction.
type Flow struct {
	Count  int     `json:"count"`
	Shares float64 `json:"shares"`
	// ValueUSD sums shares × price of the rows that have a price.
	ValueUSD float64 `json:"valueUsd"`
	// Insiders counts distinct insiders (summary only).
	Insiders int `json:"insiders,omitempty"`
	// RowsWithoutPrice are rows counted in Shares but not in ValueUSD.
	RowsWithoutPrice int `json:"rowsWithoutPrice,omitempty"`
}

// Summary totals the window's transactions.
type Summary struct {
	FilingsAnalyzed int `json:"filingsAnalyzed"`
	Transactions    int `json:"transactions"`
	// OpenMarketPurchases are non-derivative code P rows; OpenMarketSales
	// code S rows, of which PlannedSales are under Rule 10b5-1 plans and
	// DiscretionarySales are not.
	OpenMarketPurchases Flow `json:"openMarketPurchases"`
	OpenMarketSales     Flow `json:"openMarketSales"`
	PlannedSales        Flow `json:"plannedSales"`
	DiscretionarySales  Flow `json:"discretionarySales"`
	Grants              Flow `json:"grants"`
	OptionExercises     Flow `json:"optionExercises"`
	TaxWithholding      Flow `json:"taxWithholding"`
	Gifts               Flow `json:"gifts"`
	Other               Flow `json:"other"`
	// NetOpenMarketShares and NetOpenMarketValueUSD are purchases minus
	// sales.
	NetOpenMarketShares   float64 `json:"netOpenMarketShares"`
	NetOpenMarketValueUSD float64 `json:"netOpenMarketValueUsd"`
	// PlannedSalesPercent is the share of sales under 10b5-1 plans, by
	// the measure of Measure; null without sales.
	PlannedSalesPercent *float64 `json:"plannedSalesPercent"`
	// Measure is "valueUsd", or "shares" when a P or S row lacks a price.
	Measure string `json:"measure"`
}

// InsiderTotal totals one insider's transactions in the window.
type InsiderTotal struct {
	Name                  string  `json:"name"`
	CIK                   string  `json:"cik"`
	Role                  string  `json:"role"`
	IsDirector            bool    `json:"isDirector"`
	IsOfficer             bool    `json:"isOfficer"`
	OfficerTitle          string  `json:"officerTitle,omitempty"`
	IsTenPercentOwner     bool    `json:"isTenPercentOwner"`
	Filings               int     `json:"filings"`
	Purchases             Flow    `json:"purchases"`
	Sales                 Flow    `json:"sales"`
	PlannedSales          Flow    `json:"plannedSales"`
	Grants                Flow    `json:"grants"`
	OptionExercises       Flow    `json:"optionExercises"`
	TaxWithholding        Flow    `json:"taxWithholding"`
	Gifts                 Flow    `json:"gifts"`
	NetOpenMarketShares   float64 `json:"netOpenMarketShares"`
	NetOpenMarketValueUSD float64 `json:"netOpenMarketValueUsd"`
	LatestTransactionDate string  `json:"latestTransactionDate"`
	// SharesOwnedAfter is the holding after their latest non-derivative
	// transaction in the window.
	SharesOwnedAfter *float64 `json:"sharesOwnedAfter"`
}

// Row is one transaction as listed in the answer.
type Row struct {
	Date             string   `json:"date"`
	Insider          string   `json:"insider"`
	InsiderCIK       string   `json:"insiderCik"`
	Role             string   `json:"role"`
	JointFilers      []string `json:"jointFilers,omitempty"`
	Code             string   `json:"code"`
	CodeDescription  string   `json:"codeDescription"`
	Category         string   `json:"category"`
	Table            string   `json:"table"`
	Security         string   `json:"security"`
	AcquiredDisposed string   `json:"acquiredDisposed"`
	Shares           *float64 `json:"shares"`
	PricePerShare    *float64 `json:"pricePerShare"`
	// ValueUSD = shares × pricePerShare; null without both.
	ValueUSD         *float64 `json:"valueUsd"`
	SharesOwnedAfter *float64 `json:"sharesOwnedAfter"`
	DirectIndirect   string   `json:"directIndirect"`
	// TenB51 is true for a row under a Rule 10b5-1 plan; TenB51Source says
	// how that is known: "aff10b5One", "footnote" or "remarks".
	TenB51       bool   `json:"tenB51"`
	TenB51Source string `json:"tenB51Source,omitempty"`
	// PriceNote is the footnote of a weighted-average price, with the
	// range it gives.
	PriceNote      string   `json:"priceNote,omitempty"`
	PriceRangeLow  *float64 `json:"priceRangeLow,omitempty"`
	PriceRangeHigh *float64 `json:"priceRangeHigh,omitempty"`
	Footnotes      []string `json:"footnotes,omitempty"`
	// Inconsistent says why the row is left out of the totals.
	Inconsistent    string `json:"inconsistent,omitempty"`
	AccessionNumber string `json:"accessionNumber"`
	Form            string `json:"form"`
	FilingDate      string `json:"filingDate"`
	FilingURL       string `json:"filingUrl"`
	// Superseded is true for a row of a filing replaced by its amendment.
	Superseded bool `json:"superseded,omitempty"`
}

// ProposedSale is a Form 144 notice in the window.
type ProposedSale struct {
	Seller               string   `json:"seller"`
	Relationships        []string `json:"relationships,omitempty"`
	Security             string   `json:"security"`
	Units                *float64 `json:"units"`
	AggregateMarketValue *float64 `json:"aggregateMarketValueUsd"`
	ApproxSaleDate       string   `json:"approxSaleDate"`
	Broker               string   `json:"broker,omitempty"`
	TenB51               bool     `json:"tenB51"`
	PlanAdoptionDates    []string `json:"planAdoptionDates,omitempty"`
	AccessionNumber      string   `json:"accessionNumber"`
	FilingDate           string   `json:"filingDate"`
	FilingURL            string   `json:"filingUrl"`
}

// DataQuality counts what could not be used, and why.
type DataQuality struct {
	// FilingsInWindow are the Form 4 / 4/A filings of the window;
	// FilingsConsidered the latest MaxFilings of them; FilingsAnalyzed
	// those read.
	FilingsInWindow    int `json:"filingsInWindow"`
	FilingsConsidered  int `json:"filingsConsidered"`
	FilingsAnalyzed    int `json:"filingsAnalyzed"`
	FilingsUnavailable int `json:"filingsUnavailable"`
	FilingsMalformed   int `json:"filingsMalformed"`
	// Amendments are 4/A filings; matched ones replaced their original
	// (whose rows are marked superseded), unmatched ones stand alone.
	Amendments          int `json:"amendments"`
	AmendmentsMatched   int `json:"amendmentsMatched"`
	AmendmentsUnmatched int `json:"amendmentsUnmatched"`
	// InconsistentRows have a code and an acquired/disposed flag that
	// contradict each other (a P marked disposed); left out of totals.
	InconsistentRows int `json:"inconsistentRows"`
	// RowsWithoutPrice are P and S rows without a price per share.
	RowsWithoutPrice int `json:"rowsWithoutPrice"`
	// TenB51Conflicts are rows whose footnote says Rule 10b5-1 while the
	// filing's aff10b5One box is unchecked (counted as planned).
	TenB51Conflicts int `json:"tenB51Conflicts"`
	UnknownCodes    int `json:"unknownCodes"`
	// Problems lists unreadable filings and fields.
	Problems []string `json:"problems"`
}

// Source is the value of Analysis.Source.
const Source = "sec_edgar_form4"

type insiderKey = string

// Analyze builds the answer from the selected filings (newest first, as
// Select returns them) and the window's Form 144 notices.
func Analyze(p Params, filings []Filing, notices []NoticeFiling) *Analysis {
	start, end := Window(p.Days, p.AsOf)
	a := &Analysis{Symbol: p.Symbol, CIK: p.CIK, CompanyName: p.CompanyName, AsOf: p.AsOf.UTC(), Days: p.Days,
		WindowStart: start, WindowEnd: end, Source: Source, SourceURL: p.SourceURL, AlgorithmVersion: AlgorithmVersion,
		Insiders: []InsiderTotal{}, Transactions: []Row{}, ProposedSales: []ProposedSale{}}
	dq := &a.DataQuality
	dq.Problems = []string{}
	dq.FilingsInWindow, dq.FilingsConsidered = max(p.Listed, len(filings)), len(filings)

	// Amendments replace their originals: same first reporting owner,
	// original filed on the amendment's dateOfOriginalSubmission.
	superseded := map[string]bool{}
	for _, f := range filings {
		if f.Doc == nil || !strings.HasSuffix(f.Form, "/A") {
			continue
		}
		dq.Amendments++
		matched := false
		for _, o := range filings {
			if o.Doc != nil && o.Accession != f.Accession && !strings.HasSuffix(o.Form, "/A") &&
				o.FilingDate == f.Doc.DateOfOriginalSubmission && o.Doc.Owners[0].CIK == f.Doc.Owners[0].CIK &&
				o.Doc.Issuer.CIK == f.Doc.Issuer.CIK && !superseded[o.Accession] {
				superseded[o.Accession] = true
				matched = true
				break
			}
		}
		if matched {
			dq.AmendmentsMatched++
		} else {
			dq.AmendmentsUnmatched++
		}
	}

	totals := map[insiderKey]*InsiderTotal{}
	var order []insiderKey
	filingsOf := map[insiderKey]map[string]bool{}
	var rows []Row
	for _, f := range filings {
		if f.Doc == nil {
			if strings.HasPrefix(f.Problem, "malformed") {
				dq.FilingsMalformed++
			} else {
				dq.FilingsUnavailable++
			}
			dq.Problems = append(dq.Problems, f.Accession+": "+f.Problem)
			continue
		}
		dq.FilingsAnalyzed++
		d := f.Doc
		for _, pr := range d.Problems {
			dq.Problems = append(dq.Problems, f.Accession+": "+pr)
		}
		owner := d.Owners[0]
		key := owner.CIK
		if key == "" {
			key = "name:" + owner.Name
		}
		if totals[key] == nil {
			totals[key] = &InsiderTotal{Name: owner.Name, CIK: owner.CIK, Role: owner.Role(), IsDirector: owner.IsDirector,
				IsOfficer: owner.IsOfficer, OfficerTitle: owner.OfficerTitle, IsTenPercentOwner: owner.IsTenPercentOwner}
			filingsOf[key] = map[string]bool{}
			order = append(order, key)
		}
		filingsOf[key][f.Accession] = true
		var joint []string
		for _, o := range d.Owners[1:] {
			joint = append(joint, o.Name)
		}
		notes := classify(d)
		for _, x := range d.Transactions {
			r := rowOf(f, d, x, owner, joint, notes, dq)
			r.Superseded = superseded[f.Accession]
			rows = append(rows, r)
		}
	}

	// Totals, from rows that are neither superseded nor inconsistent.
	s := &a.Summary
	s.FilingsAnalyzed = dq.FilingsAnalyzed
	buyers, sellers := map[insiderKey]bool{}, map[insiderKey]bool{}
	unplannedBuyers := map[insiderKey]bool{}
	insidersOf := map[*Flow]map[insiderKey]bool{}
	add := func(fl *Flow, r *Row, key insiderKey) {
		fl.Count++
		if r.Shares != nil {
			fl.Shares += *r.Shares
		}
		if r.ValueUSD != nil {
			fl.ValueUSD += *r.ValueUSD
		} else if r.Category == CatPurchase || r.Category == CatSale {
			fl.RowsWithoutPrice++
		}
		if insidersOf[fl] == nil {
			insidersOf[fl] = map[insiderKey]bool{}
		}
		insidersOf[fl][key] = true
	}
	priced := true
	latestDate, latestFiled := map[insiderKey]string{}, map[insiderKey]string{}
	for i := range rows {
		r := &rows[i]
		if r.Superseded || r.Inconsistent != "" {
			continue
		}
		key := r.InsiderCIK
		if key == "" {
			key = "name:" + r.Insider
		}
		t := totals[key]
		s.Transactions++
		openMarket := r.Table == NonDerivative
		switch {
		case openMarket && r.Code == "P":
			add(&s.OpenMarketPurchases, r, key)
			add(&t.Purchases, r, key)
			buyers[key] = true
			if !r.TenB51 {
				unplannedBuyers[key] = true
			}
			priced = priced && r.ValueUSD != nil
		case openMarket && r.Code == "S":
			add(&s.OpenMarketSales, r, key)
			add(&t.Sales, r, key)
			sellers[key] = true
			if r.TenB51 {
				add(&s.PlannedSales, r, key)
				add(&t.PlannedSales, r, key)
			} else {
				add(&s.DiscretionarySales, r, key)
			}
			priced = priced && r.ValueUSD != nil
		case r.Category == CatGrant:
			add(&s.Grants, r, key)
			add(&t.Grants, r, key)
		case r.Category == CatExercise:
			add(&s.OptionExercises, r, key)
			add(&t.OptionExercises, r, key)
		case r.Category == CatTaxWithholding:
			add(&s.TaxWithholding, r, key)
			add(&t.TaxWithholding, r, key)
		case r.Category == CatGift:
			add(&s.Gifts, r, key)
			add(&t.Gifts, r, key)
		default:
			add(&s.Other, r, key)
		}
		// The holding after the insider's latest transaction: the last
		// row of the latest date, the newest filing winning ties.
		if r.Table == NonDerivative && r.SharesOwnedAfter != nil &&
			(r.Date > latestDate[key] || (r.Date == latestDate[key] && r.FilingDate >= latestFiled[key])) {
			latestDate[key], latestFiled[key] = r.Date, r.FilingDate
			t.SharesOwnedAfter = r.SharesOwnedAfter
		}
		if r.Date > t.LatestTransactionDate {
			t.LatestTransactionDate = r.Date
		}
	}
	for fl, set := range insidersOf {
		if fl == &s.OpenMarketPurchases || fl == &s.OpenMarketSales || fl == &s.PlannedSales || fl == &s.DiscretionarySales ||
			fl == &s.Grants || fl == &s.OptionExercises || fl == &s.TaxWithholding || fl == &s.Gifts || fl == &s.Other {
			fl.Insiders = len(set)
		}
	}
	for _, fl := range []*Flow{&s.OpenMarketPurchases, &s.OpenMarketSales, &s.PlannedSales, &s.DiscretionarySales, &s.Grants,
		&s.OptionExercises, &s.TaxWithholding, &s.Gifts, &s.Other} {
		fl.tidy()
	}
	s.NetOpenMarketShares = s.OpenMarketPurchases.Shares - s.OpenMarketSales.Shares
	s.NetOpenMarketValueUSD = math.Round((s.OpenMarketPurchases.ValueUSD-s.OpenMarketSales.ValueUSD)*100) / 100
	s.NetOpenMarketShares = math.Round(s.NetOpenMarketShares*1e6) / 1e6
	s.Measure = "valueUsd"
	buy, sell, planned := s.OpenMarketPurchases.ValueUSD, s.OpenMarketSales.ValueUSD, s.PlannedSales.ValueUSD
	if !priced {
		s.Measure = "shares"
		buy, sell, planned = s.OpenMarketPurchases.Shares, s.OpenMarketSales.Shares, s.PlannedSales.Shares
	}
	if sell > 0 {
		pct := math.Round(planned/sell*10000) / 100
		s.PlannedSalesPercent = &pct
	}
	for _, k := range order {
		t := totals[k]
		t.Filings = len(filingsOf[k])
		for _, fl := range []*Flow{&t.Purchases, &t.Sales, &t.PlannedSales, &t.Grants, &t.OptionExercises, &t.TaxWithholding, &t.Gifts} {
			fl.tidy()
		}
		t.NetOpenMarketShares = t.Purchases.Shares - t.Sales.Shares
		t.NetOpenMarketValueUSD = math.Round((t.Purchases.ValueUSD-t.Sales.ValueUSD)*100) / 100
		t.NetOpenMarketShares = math.Round(t.NetOpenMarketShares*1e6) / 1e6
		for _, fl := range []*Flow{&t.Purchases, &t.Sales, &t.PlannedSales, &t.Grants, &t.OptionExercises, &t.TaxWithholding, &t.Gifts} {
			fl.Insiders = 0
		}
		a.Insiders = append(a.Insiders, *t)
	}
	sort.SliceStable(a.Insiders, func(i, j int) bool {
		x, y := a.Insiders[i], a.Insiders[j]
		ax := math.Abs(x.NetOpenMarketValueUSD) + x.Purchases.ValueUSD + x.Sales.ValueUSD
		ay := math.Abs(y.NetOpenMarketValueUSD) + y.Purchases.ValueUSD + y.Sales.ValueUSD
		if ax != ay {
			return ax > ay
		}
		return x.Name < y.Name
	})

	// The signal.
	n := len(unplannedBuyers)
	switch {
	case n >= ClusterBuyers:
		a.Signal = SignalClusterBuying
		a.SignalReason = fmt.Sprintf("%d distinct insiders bought in the open market outside 10b5-1 plans (%d purchases, %s).",
			n, s.OpenMarketPurchases.Count, measureText(s.Measure, s.OpenMarketPurchases))
	case s.OpenMarketPurchases.Count == 0 && s.OpenMarketSales.Count == 0:
		a.Signal = SignalNoActivity
		a.SignalReason = fmt.Sprintf("No open-market purchase or sale (codes P, S) in %d analyzed filings; %d other transactions (grants, exercises, tax withholding, gifts).",
			dq.FilingsAnalyzed, s.Transactions)
	case buy > sell:
		a.Signal = SignalNetBuying
		a.SignalReason = fmt.Sprintf("Open-market purchases (%d by %s, %s) exceed sales (%d, %s).",
			s.OpenMarketPurchases.Count, people(len(buyers)), measureText(s.Measure, s.OpenMarketPurchases), s.OpenMarketSales.Count, measureText(s.Measure, s.OpenMarketSales))
	case sell > 0 && planned/sell >= PlannedShare:
		a.Signal = SignalPlannedSelling
		a.SignalReason = fmt.Sprintf("Open-market sales (%d by %s, %s) exceed purchases (%d); %.0f%% of them under Rule 10b5-1 trading plans.",
			s.OpenMarketSales.Count, people(len(sellers)), measureText(s.Measure, s.OpenMarketSales), s.OpenMarketPurchases.Count, planned/sell*100)
	default:
		a.Signal = SignalNetSelling
		pct := 0.0
		if sell > 0 {
			pct = planned / sell * 100
		}
		a.SignalReason = fmt.Sprintf("Open-market sales (%d by %s, %s) exceed purchases (%d); %.0f%% under Rule 10b5-1 plans.",
			s.OpenMarketSales.Count, people(len(sellers)), measureText(s.Measure, s.OpenMarketSales), s.OpenMarketPurchases.Count, pct)
	}

	// The latest 50 transactions: newest transaction date first, then the
	// newest filing, then document order.
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Date != rows[j].Date {
			return rows[i].Date > rows[j].Date
		}
		return rows[i].FilingDate > rows[j].FilingDate
	})
	a.AllRows = rows
	a.Transactions = append(a.Transactions, rows[:min(len(rows), MaxTransactions)]...)

	for _, nf := range notices {
		if nf.Notice == nil {
			dq.Problems = append(dq.Problems, nf.Accession+" (Form 144): "+nf.Problem)
			continue
		}
		n := nf.Notice
		a.ProposedSales = append(a.ProposedSales, ProposedSale{Seller: n.Seller, Relationships: n.Relationships, Security: n.SecurityClass,
			Units: n.UnitsToSell, AggregateMarketValue: n.AggregateMarketValue, ApproxSaleDate: n.ApproxSaleDate, Broker: n.Broker,
			TenB51: n.Planned(), PlanAdoptionDates: n.PlanAdoptionDates, AccessionNumber: nf.Accession, FilingDate: nf.FilingDate, FilingURL: nf.URL})
		for _, pr := range n.Problems {
			dq.Problems = append(dq.Problems, nf.Accession+" (Form 144): "+pr)
		}
	}
	a.Methodology = methodology(a)
	return a
}

func people(n int) string {
	if n == 1 {
		return "1 insider"
	}
	return strconv.Itoa(n) + " insiders"
}

// tidy rounds a flow's sums (cents, micro-shares) so float addition
// leaves no 0.30000000000000004 in the answer.
func (f *Flow) tidy() {
	f.ValueUSD = math.Round(f.ValueUSD*100) / 100
	f.Shares = math.Round(f.Shares*1e6) / 1e6
}

func measureText(measure string, f Flow) string {
	if measure == "shares" {
		return fmt.Sprintf("%s shares", strconv.FormatFloat(f.Shares, 'f', -1, 64))
	}
	return usd(f.ValueUSD)
}

func usd(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmt.Sprintf("$%.2fB", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("$%.2fM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("$%.1fK", v/1e3)
	}
	return fmt.Sprintf("$%.2f", v)
}

// rowOf builds one row: its code, value, 10b5-1 flag, price note and
// consistency.
func rowOf(f Filing, d *Ownership, x Transaction, owner Owner, joint []string, notes footnoteClass, dq *DataQuality) Row {
	c := CodeOf(x.Code)
	if _, known := codeByLetter[x.Code]; !known {
		dq.UnknownCodes++
	}
	r := Row{Date: x.Date, Insider: owner.Name, InsiderCIK: owner.CIK, Role: owner.Role(), JointFilers: joint,
		Code: x.Code, CodeDescription: c.Description, Category: c.Category, Table: x.Table, Security: x.SecurityTitle,
		AcquiredDisposed: x.AcquiredDisposed, Shares: x.Shares, PricePerShare: x.PricePerShare,
		SharesOwnedAfter: x.SharesOwnedFollowing, DirectIndirect: x.DirectIndirect,
		AccessionNumber: f.Accession, Form: f.Form, FilingDate: f.FilingDate, FilingURL: f.URL}
	if x.Shares != nil && x.PricePerShare != nil && *x.PricePerShare > 0 {
		v := math.Round(*x.Shares**x.PricePerShare*100) / 100
		r.ValueUSD = &v
	} else if x.Table == NonDerivative && (x.Code == "P" || x.Code == "S") {
		dq.RowsWithoutPrice++
	}
	for _, id := range x.FootnoteIDs {
		if t, ok := d.Footnotes[id]; ok {
			r.Footnotes = append(r.Footnotes, id+": "+t)
		}
	}
	// Rule 10b5-1: the 2023 checkbox, else the row's footnotes, else the
	// remarks.
	footnotePlan := false
	for _, id := range x.FootnoteIDs {
		footnotePlan = footnotePlan || notes.plan[id]
	}
	switch {
	case d.Aff10b5One != nil && *d.Aff10b5One && (x.Code == "S" || x.Code == "P"):
		r.TenB51, r.TenB51Source = true, "aff10b5One"
	case footnotePlan:
		r.TenB51, r.TenB51Source = true, "footnote"
		if d.Aff10b5One != nil && !*d.Aff10b5One {
			dq.TenB51Conflicts++
		}
	case notes.remarksPlan && (x.Code == "S" || x.Code == "P"):
		r.TenB51, r.TenB51Source = true, "remarks"
	}
	for _, id := range x.PriceFootnoteIDs {
		if w, ok := notes.weighted[id]; ok {
			r.PriceNote, r.PriceRangeLow, r.PriceRangeHigh = d.Footnotes[id], w.lo, w.hi
			break
		}
	}
	// Codes whose direction is fixed: P and A acquire, S and F dispose.
	want := map[string]string{"P": "A", "A": "A", "S": "D", "F": "D"}[x.Code]
	if want != "" && x.AcquiredDisposed != "" && x.AcquiredDisposed != want && x.Table == NonDerivative {
		r.Inconsistent = fmt.Sprintf("code %s (%s) is marked %s", x.Code, strings.ToLower(c.Category), map[string]string{"A": "acquired", "D": "disposed"}[x.AcquiredDisposed])
		dq.InconsistentRows++
		dq.Problems = append(dq.Problems, fmt.Sprintf("%s: %s row of %s: %s; left out of the totals", f.Accession, x.Code, x.Date, r.Inconsistent))
	}
	return r
}

func methodology(a *Analysis) []string {
	return []string{
		fmt.Sprintf("Filings: the latest %d Form 4 and 4/A filings of the issuer filed from %s to %s (of %d in the window), read from EDGAR; every transaction they report is counted, whatever its transaction date.",
			MaxFilings, a.WindowStart, a.WindowEnd, a.DataQuality.FilingsInWindow),
		"Open market: non-derivative code P (purchase) and S (sale) rows. Grants (A), exercises and conversions (M, X, O, C), tax withholding (F), gifts (G) and other codes are totalled apart and never count as buying or selling. Value = shares × price per share; a weighted-average price is kept with its footnote and range.",
		"Rule 10b5-1: a row is planned when the filing checks aff10b5One (forms since 2023-04-01), or a footnote of the row (or the remarks) says the transaction was made under a Rule 10b5-1 plan and does not deny it.",
		fmt.Sprintf("Signal: CLUSTER_BUYING when at least %d distinct insiders bought in the open market outside 10b5-1 plans; otherwise NO_OPEN_MARKET_ACTIVITY without P or S rows; NET_BUYING when purchases exceed sales; PLANNED_SELLING when sales are at least purchases and at least %.0f%% of them are planned; NET_SELLING otherwise. Purchases and sales are compared in USD, or in shares when a P or S row has no price.",
			ClusterBuyers, PlannedShare*100),
		"Joint filings are attributed to their first reporting owner (the others are listed as jointFilers). A 4/A replaces the Form 4 of the same first reporting owner filed on its dateOfOriginalSubmission (the original's rows are listed as superseded); an amendment without its original in the window stands alone.",
		"Inconsistent rows (code P or A marked disposed, S or F marked acquired) are listed but left out of every total and of the signal, and counted in dataQuality.",
		"Form 144 notices of the window are listed as proposedSales; they are intentions, not transactions, and do not enter the signal. Rules: docs/insiders.md, " + AlgorithmVersion + ". Not investment advice.",
	}
}

// footnoteClass is what a filing's footnotes and remarks say, read once
// per filing: which footnotes state a 10b5-1 plan, which give a weighted-
// average price (and its range).
type footnoteClass struct {
	plan        map[string]bool
	weighted    map[string]priceRangeOf
	remarksPlan bool
}

type priceRangeOf struct{ lo, hi *float64 }

func classify(d *Ownership) footnoteClass {
	c := footnoteClass{plan: map[string]bool{}, weighted: map[string]priceRangeOf{}, remarksPlan: TenB51Text(d.Remarks)}
	for id, t := range d.Footnotes {
		c.plan[id] = TenB51Text(t)
		if weighted.MatchString(t) {
			var pr priceRangeOf
			if m := priceRange.FindStringSubmatch(t); m != nil {
				lo, err1 := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
				hi, err2 := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
				if err1 == nil && err2 == nil {
					pr = priceRangeOf{&lo, &hi}
				}
			}
			c.weighted[id] = pr
		}
	}
	return c
}
