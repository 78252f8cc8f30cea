package newsclass

import (
	"fmt"
	"slices"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// EarningsItem is the 8-K item that reports results: "Results of
// Operations and Financial Condition".
const EarningsItem = "2.02"

// Item8K is one item of Form 8-K (SEC Form 8-K General Instructions B).
type Item8K struct {
	Number string
	Title  string
	// Materiality of a filing reporting this item, 1..5.
	Materiality int
	// Sentiment weight and keyword of the item; 0 and "" for most.
	Weight  int
	Keyword string
}

// Items8K are the items of Form 8-K with the materiality each gives a
// filing (docs/news.md).
var Items8K = []Item8K{
	{"1.01", "Entry into a Material Definitive Agreement", 3, 0, ""},
	{"1.02", "Termination of a Material Definitive Agreement", 3, 0, ""},
	{"1.03", "Bankruptcy or Receivership", 5, -3, "bankruptcy"},
	{"1.04", "Mine Safety - Reporting of Shutdowns and Patterns of Violations", 2, 0, ""},
	{"1.05", "Material Cybersecurity Incidents", 5, -2, "cybersecurity incident"},
	{"2.01", "Completion of Acquisition or Disposition of Assets", 4, 0, ""},
	{"2.02", "Results of Operations and Financial Condition", 4, 0, ""},
	{"2.03", "Creation of a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement of a Registrant", 3, 0, ""},
	{"2.04", "Triggering Events That Accelerate or Increase a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement", 4, -2, "accelerated obligation"},
	{"2.05", "Costs Associated with Exit or Disposal Activities", 3, -1, "exit costs"},
	{"2.06", "Material Impairments", 4, -2, "impairment"},
	{"3.01", "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard; Transfer of Listing", 5, -3, "delisting notice"},
	{"3.02", "Unregistered Sales of Equity Securities", 2, 0, ""},
	{"3.03", "Material Modification to Rights of Security Holders", 3, 0, ""},
	{"4.01", "Changes in Registrant's Certifying Accountant", 3, 0, ""},
	{"4.02", "Non-Reliance on Previously Issued Financial Statements or a Related Audit Report or Completed Interim Review", 5, -3, "non-reliance on financial statements"},
	{"5.01", "Changes in Control of Registrant", 5, 0, ""},
	{"5.02", "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers; Compensatory Arrangements of Certain Officers", 3, 0, ""},
	{"5.03", "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year", 1, 0, ""},
	{"5.04", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans", 1, 0, ""},
	{"5.05", "Amendment to Registrant's Code of Ethics, or Waiver of a Provision of the Code of Ethics", 1, 0, ""},
	{"5.06", "Change in Shell Company Status", 3, 0, ""},
	{"5.07", "Submission of Matters to a Vote of Security Holders", 2, 0, ""},
	{"5.08", "Shareholder Director Nominations", 1, 0, ""},
	{"6.01", "ABS Informational and Computational Material", 1, 0, ""},
	{"6.02", "Change of Servicer or Trustee", 1, 0, ""},
	{"6.03", "Change in Credit Enhancement or Other External Support", 1, 0, ""},
	{"6.04", "Failure to Make a Required Distribution", 2, 0, ""},
	{"6.05", "Securities Act Updating Disclosure", 1, 0, ""},
	{"7.01", "Regulation FD Disclosure", 2, 0, ""},
	{"8.01", "Other Events", 2, 0, ""},
	{"9.01", "Financial Statements and Exhibits", 1, 0, ""},
}

// Item8KByNumber returns the 8-K item with a number ("2.02").
func Item8KByNumber(n string) (Item8K, bool) {
	i := slices.IndexFunc(Items8K, func(it Item8K) bool { return it.Number == n })
	if i < 0 {
		return Item8K{}, false
	}
	return Items8K[i], true
}

// formInfo is what the classifier knows of a form other than 8-K.
type formInfo struct {
	title       string
	materiality int
}

// forms are the forms of the sec_filing event (spec §6) and their base
// materiality; other forms get 1.
var forms = map[string]formInfo{
	"8-K":     {"current report", 2},
	"10-K":    {"annual report", 3},
	"10-Q":    {"quarterly report", 3},
	"4":       {"statement of changes in beneficial ownership (insider transaction)", 2},
	"144":     {"notice of proposed sale of restricted securities", 1},
	"13D":     {"beneficial ownership report, active investor (Schedule 13D)", 3},
	"13G":     {"beneficial ownership report, passive investor (Schedule 13G)", 2},
	"S-1":     {"registration statement (IPO or offering)", 3},
	"DEF 14A": {"definitive proxy statement", 2},
}

// AlertForms are the forms a sec_filing event is raised for, each with its
// /A amendments.
var AlertForms = []string{"4", "8-K", "144", "13D", "13G", "10-Q", "10-K", "S-1", "DEF 14A"}

// BaseForm returns the form without its amendment suffix and with Schedule
// 13D/13G spelled as the alert filter spells them, and whether the form is
// an amendment: "8-K/A" → "8-K", true; "SC 13D/A" → "13D", true.
func BaseForm(form string) (base string, amendment bool) {
	f := strings.ToUpper(strings.TrimSpace(form))
	if b, ok := strings.CutSuffix(f, "/A"); ok {
		f, amendment = b, true
	}
	for _, p := range []string{"SCHEDULE ", "SC "} {
		if b, ok := strings.CutPrefix(f, p); ok && (b == "13D" || b == "13G") {
			f = b
		}
	}
	return f, amendment
}

func (c *Classifier) classifyFiling(n *schemas.NewsItem) *schemas.NewsClassification {
	f := n.Filing
	cl := &schemas.NewsClassification{Version: Version, Category: CategoryFilings, AlertCategory: CategoryFilings}
	is, known := c.issuer(f)
	if known {
		cl.Symbols = []string{is.Ticker}
	}
	base, amendment := BaseForm(f.Form)
	info, listed := forms[base]
	m, reason := 1, fmt.Sprintf("form %s: 1", f.Form)
	if listed {
		m, reason = info.materiality, fmt.Sprintf("form %s: %d", base, info.materiality)
	}
	reasons := []string{reason}
	score := 0
	var parts []string
	if base == "8-K" {
		for _, num := range f.Items {
			it, ok := Item8KByNumber(num)
			if !ok {
				parts = append(parts, "Item "+num)
				continue
			}
			label := "Item " + it.Number + " " + it.Title
			if it.Number == EarningsItem {
				cl.Earnings = true
				label += " (earnings)"
			}
			parts = append(parts, label)
			if it.Materiality > m {
				m, reasons[0] = it.Materiality, fmt.Sprintf("8-K item %s %s: %d", it.Number, it.Title, it.Materiality)
			}
			if it.Weight != 0 {
				score += it.Weight
				cl.Keywords = append(cl.Keywords, it.Keyword)
			}
		}
	}
	if amendment {
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
