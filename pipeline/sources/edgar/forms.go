package edgar

import (
	"strings"
)

// Form is a form type as EDGAR names it, normalized.
type Form struct {
	// Name is the form type in upper case with single spaces, as filed:
	// "4", "4/A", "8-K", "SC 13D/A", "SCHEDULE 13G".
	Name string `json:"name"`
	// Base is Name without the amendment suffix "/A".
	Base string `json:"base"`
	// Amendment is true for "/A" forms.
	Amendment bool `json:"amendment"`
	// Family is the form's canonical family, the value filters compare:
	// "SC 13D" and "SCHEDULE 13D" (EDGAR's name since December 2024) are
	// "13D", "SC 13G" and "SCHEDULE 13G" are "13G", "10-K405" and "10-KT"
	// are "10-K", "10-QT" is "10-Q"; every other form is its Base.
	Family string `json:"family"`
}

// ParseForm normalizes a form type: trims, upper-cases, collapses spaces
// and splits off the "/A" amendment suffix.
func ParseForm(s string) Form {
	name := strings.ToUpper(strings.Join(strings.Fields(s), " "))
	base, amended := strings.CutSuffix(name, "/A")
	base = strings.TrimSpace(base)
	return Form{Name: name, Base: base, Amendment: amended, Family: family(base)}
}

func family(base string) string {
	switch base {
	case "SC 13D", "SCHEDULE 13D":
		return "13D"
	case "SC 13G", "SCHEDULE 13G":
		return "13G"
	case "10-K405", "10-KT", "10-K":
		return "10-K"
	case "10-QT", "10-Q":
		return "10-Q"
	}
	return base
}

// Matches reports whether the form belongs to the family of filter, a form
// name as a user writes it ("4", "8-K", "13D", "SC 13G", "10-K/A").
// Amendments match their base form's family.
func (f Form) Matches(filter string) bool {
	return f.Family != "" && ParseForm(filter).Family == f.Family
}

// Item is one reported item of a Form 8-K.
type Item struct {
	// Number is the item number, "2.02"; empty when only a description
	// that matches no known item was given.
	Number string `json:"number,omitempty"`
	// Description is the item's title as given or, when only the number
	// was given, the title of the numbered item.
	Description string `json:"description"`
}

// EarningsItem is the 8-K item that announces results of operations:
// "Results of Operations and Financial Condition".
const EarningsItem = "2.02"

// HasEarnings reports whether items include item 2.02.
func HasEarnings(items []Item) bool {
	for _, it := range items {
		if it.Number == EarningsItem {
			return true
		}
	}
	return false
}

// items8K are the Form 8-K items (General Instructions B and the item list
// of Form 8-K, as amended through 2023).
var items8K = []Item{
	{"1.01", "Entry into a Material Definitive Agreement"},
	{"1.02", "Termination of a Material Definitive Agreement"},
	{"1.03", "Bankruptcy or Receivership"},
	{"1.04", "Mine Safety - Reporting of Shutdowns and Patterns of Violations"},
	{"1.05", "Material Cybersecurity Incidents"},
	{"2.01", "Completion of Acquisition or Disposition of Assets"},
	{"2.02", "Results of Operations and Financial Condition"},
	{"2.03", "Creation of a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement of a Registrant"},
	{"2.04", "Triggering Events That Accelerate or Increase a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement"},
	{"2.05", "Costs Associated with Exit or Disposal Activities"},
	{"2.06", "Material Impairments"},
	{"3.01", "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard; Transfer of Listing"},
	{"3.02", "Unregistered Sales of Equity Securities"},
	{"3.03", "Material Modification to Rights of Security Holders"},
	{"4.01", "Changes in Registrant's Certifying Accountant"},
	{"4.02", "Non-Reliance on Previously Issued Financial Statements or a Related Audit Report or Completed Interim Review"},
	{"5.01", "Changes in Control of Registrant"},
	{"5.02", "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers; Compensatory Arrangements of Certain Officers"},
	{"5.03", "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year"},
	{"5.04", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans"},
	{"5.05", "Amendments to the Registrant's Code of Ethics, or Waiver of a Provision of the Code of Ethics"},
	{"5.06", "Change in Shell Company Status"},
	{"5.07", "Submission of Matters to a Vote of Security Holders"},
	{"5.08", "Shareholder Director Nominations"},
	{"6.01", "ABS Informational and Computational Material"},
	{"6.02", "Change of Servicer or Trustee"},
	{"6.03", "Change in Credit Enhancement or Other External Support"},
	{"6.04", "Failure to Make a Required Distribution"},
	{"6.05", "Securities Act Updating Disclosure"},
	{"6.06", "Static Pool"},
	{"6.10", "Alternative Filings of Asset-Backed Issuers"},
	{"7.01", "Regulation FD Disclosure"},
	{"8.01", "Other Events"},
	{"9.01", "Financial Statements and Exhibits"},
}

// ItemByNumber returns the 8-K item with the given number ("2.02", also
// "2.2" or "Item 2.02").
func ItemByNumber(n string) (Item, bool) {
	n = normalizeItemNumber(n)
	for _, it := range items8K {
		if it.Number == n {
			return it, true
		}
	}
	return Item{}, false
}

// ItemByDescription finds the 8-K item whose title matches desc, as the
// SEC-HEADER's "ITEM INFORMATION:" lines give it (case, punctuation and
// spacing ignored; a title cut short still matches when at least 16
// letters long). An unknown description yields an Item with no Number.
func ItemByDescription(desc string) Item {
	d := letters(desc)
	if d != "" {
		for _, it := range items8K {
			t := letters(it.Description)
			if d == t || (len(d) >= 16 && (strings.HasPrefix(t, d) || strings.HasPrefix(d, t))) {
				return Item{Number: it.Number, Description: strings.TrimSpace(desc)}
			}
		}
	}
	return Item{Description: strings.TrimSpace(desc)}
}

// ParseItemList reads the comma-separated item numbers of the submissions
// JSON's items column ("2.02,9.01"). Unknown numbers are kept with an
// empty description.
func ParseItemList(s string) []Item {
	var out []Item
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if it, ok := ItemByNumber(p); ok {
			out = append(out, it)
		} else {
			out = append(out, Item{Number: normalizeItemNumber(p)})
		}
	}
	return out
}

// ParseItemLine reads one "Item 2.02: Results of Operations and Financial
// Condition" line, as the filing index page and the current-filings feed
// print them. ok is false when the line is not an item line.
func ParseItemLine(line string) (Item, bool) {
	s := strings.TrimSpace(line)
	rest, found := strings.CutPrefix(s, "Item ")
	if !found {
		return Item{}, false
	}
	num, desc, _ := strings.Cut(rest, ":")
	num = normalizeItemNumber(num)
	if num == "" {
		return Item{}, false
	}
	desc = strings.TrimSpace(desc)
	if desc == "" {
		if it, ok := ItemByNumber(num); ok {
			desc = it.Description
		}
	}
	return Item{Number: num, Description: desc}, true
}

// normalizeItemNumber turns "2.2", "2.02", " Item 2.02 " into "2.02";
// anything that is not <digit>.<digits> comes back trimmed.
func normalizeItemNumber(n string) string {
	n = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(n), "Item"))
	major, minor, ok := strings.Cut(n, ".")
	if !ok || len(major) != 1 || major[0] < '0' || major[0] > '9' || minor == "" || len(minor) > 2 {
		return n
	}
	for i := 0; i < len(minor); i++ {
		if minor[i] < '0' || minor[i] > '9' {
			return n
		}
	}
	if len(minor) == 1 {
		minor = "0" + minor
	}
	return major + "." + minor
}

// letters keeps the lower-cased letters and digits of s.
func letters(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}
