package newsclass

import (
	"fmt"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// EarningsItem is the 8-K item that reports results: "Results of
// Operations and Financial Condition".
const EarningsItem = "2.02"

// itemRule is what a reported 8-K item means for a filing: its
// materiality and, for bad news, a sentiment weight and keyword. The items
// themselves (numbers and titles) are EDGAR's; the source copies their
// titles onto the record.
type itemRule struct {
	materiality int
	weight      int
	keyword     string
}

// itemRules are the 8-K items' materiality (docs/news.md); an item not
// listed counts 1.
var itemRules = map[string]itemRule{
	"1.01": {3, 0, ""},                                      // Entry into a Material Definitive Agreement
	"1.02": {3, 0, ""},                                      // Termination of a Material Definitive Agreement
	"1.03": {5, -3, "bankruptcy"},                           // Bankruptcy or Receivership
	"1.04": {2, 0, ""},                                      // Mine Safety
	"1.05": {5, -2, "cybersecurity incident"},               // Material Cybersecurity Incidents
	"2.01": {4, 0, ""},                                      // Completion of Acquisition or Disposition of Assets
	"2.02": {4, 0, ""},                                      // Results of Operations and Financial Condition
	"2.03": {3, 0, ""},                                      // Creation of a Direct Financial Obligation
	"2.04": {4, -2, "accelerated obligation"},               // Triggering Events That Accelerate an Obligation
	"2.05": {3, -1, "exit costs"},                           // Costs Associated with Exit or Disposal Activities
	"2.06": {4, -2, "impairment"},                           // Material Impairments
	"3.01": {5, -3, "delisting notice"},                     // Notice of Delisting or Failure to Satisfy a Listing Rule
	"3.02": {2, 0, ""},                                      // Unregistered Sales of Equity Securities
	"3.03": {3, 0, ""},                                      // Material Modification to Rights of Security Holders
	"4.01": {3, 0, ""},                                      // Changes in Registrant's Certifying Accountant
	"4.02": {5, -3, "non-reliance on financial statements"}, // Non-Reliance on Previously Issued Financial Statements
	"5.01": {5, 0, ""},                                      // Changes in Control of Registrant
	"5.02": {3, 0, ""},                                      // Departure or Election of Directors or Officers
	"5.06": {3, 0, ""},                                      // Change in Shell Company Status
	"5.07": {2, 0, ""},                                      // Submission of Matters to a Vote of Security Holders
	"6.04": {2, 0, ""},                                      // Failure to Make a Required Distribution
	"7.01": {2, 0, ""},                                      // Regulation FD Disclosure
	"8.01": {2, 0, ""},                                      // Other Events
}

// formInfo is what the classifier knows of a form family.
type formInfo struct {
	title       string
	materiality int
}

// forms are the form families of the sec_filing event (spec §6), what a
// summary calls them and their base materiality; other forms get 1.
var forms = map[string]formInfo{
	"8-K":     {"current report", 2},
	"10-K":    {"annual report", 3},
	"10-Q":    {"quarterly report", 3},
	"4":       {"statement of changes in beneficial ownership (insider transaction)", 2},
	"144":     {"notice of proposed sale of restricted securities", 1},
	"13D":     {"beneficial ownership report, active investor", 3},
	"13G":     {"beneficial ownership report, passive investor", 2},
	"S-1":     {"registration statement", 3},
	"DEF 14A": {"definitive proxy statement", 2},
}

// AlertForms are the form families a sec_filing event is raised for, each
// with its /A amendments (spec §6).
var AlertForms = []string{"4", "8-K", "144", "13D", "13G", "10-Q", "10-K", "S-1", "DEF 14A"}

func (c *Classifier) classifyFiling(n *schemas.NewsItem) *schemas.NewsClassification {
	f := n.Filing
	cl := &schemas.NewsClassification{Version: Version, Category: CategoryFilings, AlertCategory: CategoryFilings}
	is, known := c.issuer(f)
	if known {
		cl.Symbols = []string{is.Ticker}
	}
	base := f.FormFamily
	info, listed := forms[base]
	m, reason := 1, fmt.Sprintf("form %s: 1", f.Form)
	if listed {
		m, reason = info.materiality, fmt.Sprintf("form %s: %d", base, info.materiality)
	}
	reasons := []string{reason}
	score := 0
	var parts []string
	if base == "8-K" {
		for i, num := range f.Items {
			label := "Item " + num
			if i < len(f.ItemDescriptions) && f.ItemDescriptions[i] != "" {
				label += " " + f.ItemDescriptions[i]
			}
			if num == EarningsItem {
				cl.Earnings = true
				label += " (earnings)"
			}
			parts = append(parts, label)
			r, ok := itemRules[num]
			if !ok {
				continue
			}
			if r.materiality > m {
				m, reasons[0] = r.materiality, fmt.Sprintf("8-K item %s: %d", num, r.materiality)
			}
			if r.weight != 0 {
				score += r.weight
				cl.Keywords = append(cl.Keywords, r.keyword)
			}
		}
	}
	if f.Amendment {
		m--
		reasons = append(reasons, "amendment: -1")
	}
	switch {
	case known && is.Rank < LargeIssuerRank:
		m++
		reasons = append(reasons, fmt.Sprintf("issuer rank %d in SEC's company list (top %d): +1", is.Rank+1, LargeIssuerRank))
	case !known:
		m--
		reasons = append(reasons, "filer without a listed ticker: -1")
	}
	cl.Materiality = int32(min(max(m, 1), 5))
	cl.MaterialityReasons = reasons
	cl.SentimentScore = int32(score)
	cl.Sentiment = label(score)

	summary := "Form " + f.Form
	if listed {
		summary += " (" + info.title + ")"
	}
	if len(parts) > 0 {
		summary += ": " + strings.Join(parts, "; ")
	}
	if f.FiledDate != "" {
		summary += "; filed " + f.FiledDate
	}
	cl.Summary = summary
	return cl
}

// issuer returns the filer as a listed issuer: by its ticker, else by its
// CIK.
func (c *Classifier) issuer(f *schemas.NewsFiling) (*Issuer, bool) {
	if f.Ticker != "" {
		if is, ok := c.dict.IssuerByTicker(f.Ticker); ok {
			return is, true
		}
		return &Issuer{Ticker: strings.ToUpper(f.Ticker), CIK: f.Cik, Name: f.Company, Rank: NameIssuerRank}, true
	}
	if f.Cik != "" {
		return c.dict.IssuerByCIK(f.Cik)
	}
	return nil, false
}
