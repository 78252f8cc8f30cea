package edgar

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mmcdole/gofeed/atom"
)

// CurrentFeed is a page of EDGAR's "latest filings" Atom feed
// (browse-edgar?action=getcurrent&output=atom).
type CurrentFeed struct {
	// Updated is the feed's generation time.
	Updated time.Time `json:"updated"`
	// Entries are the feed's entries, newest first. A filing with several
	// parties (a Form 4's issuer and reporting owner) has one entry per
	// party; Filings groups them.
	Entries []CurrentEntry `json:"entries"`
}

// CurrentEntry is one entry of the current-filings feed: one party of one
// filing.
type CurrentEntry struct {
	Form Form `json:"form"`
	// Company is the party's conformed name.
	Company string `json:"company"`
	CIK     CIK    `json:"cik"`
	// Role is the party's role as the feed gives it: "Issuer",
	// "Reporting", "Filer", "Subject", "Filed by".
	Role       string    `json:"role"`
	Accession  Accession `json:"accessionNumber"`
	FilingDate string    `json:"filingDate"` // YYYY-MM-DD
	// Accepted is the entry's <updated>, EDGAR's acceptance time.
	Accepted time.Time `json:"accepted"`
	// IndexURL is the filing index page the entry links to.
	IndexURL string `json:"indexUrl"`
	// Items are the 8-K items the summary lists.
	Items []Item `json:"items,omitempty"`
	// Size is the filing size as the feed prints it ("10 KB").
	Size string `json:"size,omitempty"`
}

// CurrentFiling is one filing of the feed with all its parties.
type CurrentFiling struct {
	Accession  Accession `json:"accessionNumber"`
	Form       Form      `json:"form"`
	FilingDate string    `json:"filingDate"`
	Accepted   time.Time `json:"accepted"`
	IndexURL   string    `json:"indexUrl"`
	Items      []Item    `json:"items,omitempty"`
	// Parties are the filing's entries as parties (Role as in the feed:
	// "Issuer", "Reporting", "Filer", "Subject", "Filed by").
	Parties []Party `json:"parties"`
}

// Party returns the first party with the given feed role.
func (f CurrentFiling) Party(role string) (Party, bool) {
	for _, p := range f.Parties {
		if p.Role == role {
			return p, true
		}
	}
	return Party{}, false
}

// Filings groups the entries by accession number, in order of first
// appearance (newest first).
func (f *CurrentFeed) Filings() []CurrentFiling {
	var out []CurrentFiling
	at := map[Accession]int{}
	for _, e := range f.Entries {
		i, ok := at[e.Accession]
		if !ok {
			i = len(out)
			at[e.Accession] = i
			out = append(out, CurrentFiling{Accession: e.Accession, Form: e.Form, FilingDate: e.FilingDate,
				Accepted: e.Accepted, IndexURL: e.IndexURL, Items: e.Items})
		}
		out[i].Parties = append(out[i].Parties, Party{Role: e.Role, Name: e.Company, CIK: e.CIK})
	}
	return out
}

const feedFormat = "current feed atom"

// ParseCurrentFeed parses a page of the current-filings Atom feed.
func ParseCurrentFeed(b []byte) (*CurrentFeed, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, malformed(feedFormat, "empty document", nil)
	}
	raw, err := (&atom.Parser{}).Parse(bytes.NewReader(b))
	if err != nil {
		return nil, malformed(feedFormat, "not an Atom feed", err)
	}
	f := &CurrentFeed{}
	if raw.UpdatedParsed != nil {
		f.Updated = *raw.UpdatedParsed
	}
	for i, e := range raw.Entries {
		ce, err := currentEntry(e)
		if err != nil {
			return nil, malformed(feedFormat, fmt.Sprintf("entry %d (%q)", i, e.Title), err)
		}
		f.Entries = append(f.Entries, ce)
	}
	return f, nil
}

func currentEntry(e *atom.Entry) (CurrentEntry, error) {
	var ce CurrentEntry
	// "4 - Hinge Health, Inc. (0001673743) (Issuer)"
	form, rest, ok := strings.Cut(e.Title, " - ")
	if !ok {
		return ce, fmt.Errorf("title is not \"<form> - <name> (<cik>) (<role>)\"")
	}
	ce.Form = ParseForm(form)
	for _, c := range e.Categories {
		if c.Label == "form type" && c.Term != "" {
			ce.Form = ParseForm(c.Term)
		}
	}
	rest = strings.TrimSpace(rest)
	role, rest, ok := cutParen(rest)
	if !ok {
		return ce, fmt.Errorf("title has no (role)")
	}
	cikText, rest, ok := cutParen(rest)
	if !ok {
		return ce, fmt.Errorf("title has no (cik)")
	}
	cik, err := ParseCIK(cikText)
	if err != nil {
		return ce, err
	}
	ce.Role, ce.CIK, ce.Company = role, cik, strings.TrimSpace(rest)
	for _, l := range e.Links {
		if l.Rel == "alternate" || l.Rel == "" {
			ce.IndexURL = l.Href
			break
		}
	}
	if e.UpdatedParsed != nil {
		ce.Accepted = *e.UpdatedParsed
	}
	// The summary: "<b>Filed:</b> 2025-12-12 <b>AccNo:</b> 0002063236-25-000004
	// <b>Size:</b> 10 KB <br>Item 2.02: Results of ...<br>Item 9.01: ...".
	parts := strings.Split(strings.ReplaceAll(e.Summary, "<br/>", "<br>"), "<br>")
	head := stripTags(parts[0])
	if v, ok := field(head, "Filed:"); ok {
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return ce, fmt.Errorf("Filed %q", v)
		}
		ce.FilingDate = v
	}
	if v, ok := field(head, "AccNo:"); ok {
		if ce.Accession, err = ParseAccession(v); err != nil {
			return ce, err
		}
	}
	if _, after, ok := strings.Cut(head, "Size:"); ok {
		ce.Size = strings.TrimSpace(after)
	}
	if ce.Accession == "" {
		_, v, ok := strings.Cut(e.ID, "accession-number=")
		if !ok {
			return ce, fmt.Errorf("no accession number")
		}
		if ce.Accession, err = ParseAccession(v); err != nil {
			return ce, err
		}
	}
	for _, p := range parts[1:] {
		if it, ok := ParseItemLine(stripTags(p)); ok {
			ce.Items = append(ce.Items, it)
		}
	}
	return ce, nil
}

// cutParen splits "Name (X)" into "X" and "Name".
func cutParen(s string) (inner, before string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ")") {
		return "", s, false
	}
	i := strings.LastIndexByte(s, '(')
	if i < 0 {
		return "", s, false
	}
	return s[i+1 : len(s)-1], s[:i], true
}

// field returns the first word after label in s.
func field(s, label string) (string, bool) {
	_, after, ok := strings.Cut(s, label)
	if !ok {
		return "", false
	}
	f := strings.Fields(after)
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
