package edgar

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// Index is a filing index page (<accession>-index.html).
type Index struct {
	Accession Accession `json:"accessionNumber"`
	Form      Form      `json:"form"`
	// FormDescription is EDGAR's title of the form ("Current report").
	FormDescription string `json:"formDescription,omitempty"`
	FilingDate      string `json:"filingDate"` // YYYY-MM-DD
	// Accepted is the acceptance time, read as US Eastern time.
	Accepted       time.Time `json:"accepted"`
	PeriodOfReport string    `json:"periodOfReport,omitempty"`
	DocumentCount  int       `json:"documentCount"`
	// Items are the 8-K items listed on the page.
	Items     []Item          `json:"items,omitempty"`
	Documents []IndexDocument `json:"documents"`
	// Parties are the companies and persons of the filing with their role
	// as the page gives it ("Filer", "Issuer", "Reporting", "Subject",
	// "Filed by").
	Parties []Party `json:"parties"`
}

// IndexDocument is one row of an index page's document tables.
type IndexDocument struct {
	Sequence    int    `json:"sequence,omitempty"` // 0 for the complete submission file
	Description string `json:"description,omitempty"`
	// Name is the file name; empty for old filings whose documents are
	// only in the complete submission text file.
	Name string `json:"name,omitempty"`
	// Path is the document's path on www.sec.gov (the inline XBRL viewer
	// prefix /ix?doc= removed).
	Path string `json:"path,omitempty"`
	Type string `json:"type,omitempty"`
	Size int64  `json:"size"`
	// Table is "Document Format Files" or "Data Files".
	Table string `json:"table"`
}

// Primary returns the first document of the "Document Format Files"
// table with a file name, which is the form itself.
func (ix *Index) Primary() (IndexDocument, bool) {
	for _, d := range ix.Documents {
		if d.Sequence == 1 && d.Name != "" {
			return d, true
		}
	}
	return IndexDocument{}, false
}

const indexFormat = "filing index html"

// ParseIndex parses an EDGAR filing index page.
func ParseIndex(b []byte) (*Index, error) {
	root, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, malformed(indexFormat, "not HTML", err)
	}
	ix := &Index{}
	var heads []string
	var infos []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch {
		case n.Data == "div" && attr(n, "id") == "formName":
			t := text(n)
			name, desc, _ := strings.Cut(t, " - ")
			ix.Form = ParseForm(strings.TrimPrefix(strings.TrimSpace(name), "Form "))
			ix.FormDescription = strings.TrimSuffix(strings.TrimSpace(desc), ":")
			return false
		case n.Data == "div" && attr(n, "id") == "secNum":
			f := strings.Fields(text(n))
			if len(f) > 0 {
				if acc, err := ParseAccession(f[len(f)-1]); err == nil {
					ix.Accession = acc
				}
			}
			return false
		case n.Data == "div" && hasClass(n, "infoHead"):
			heads = append(heads, strings.TrimSpace(text(n)))
			return false
		case n.Data == "div" && hasClass(n, "info"):
			infos = append(infos, n)
			return false
		case n.Data == "table" && hasClass(n, "tableFile"):
			ix.Documents = append(ix.Documents, tableRows(n, attr(n, "summary"))...)
			return false
		case n.Data == "span" && hasClass(n, "companyName"):
			if p, ok := companyName(n); ok {
				ix.Parties = append(ix.Parties, p)
			}
			return false
		}
		return true
	})
	if ix.Accession == "" {
		return nil, malformed(indexFormat, "no accession number (#secNum)", nil)
	}
	if ix.Form.Name == "" {
		return nil, malformed(indexFormat, "no form (#formName)", nil)
	}
	if len(heads) != len(infos) {
		return nil, malformed(indexFormat, fmt.Sprintf("%d infoHead for %d info", len(heads), len(infos)), nil)
	}
	for i, h := range heads {
		v := strings.TrimSpace(text(infos[i]))
		switch h {
		case "Filing Date":
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return nil, malformed(indexFormat, fmt.Sprintf("Filing Date %q", v), nil)
			}
			ix.FilingDate = v
		case "Accepted":
			t, err := parseEastern(time.DateTime, v)
			if err != nil {
				return nil, malformed(indexFormat, fmt.Sprintf("Accepted %q", v), nil)
			}
			ix.Accepted = t
		case "Period of Report":
			ix.PeriodOfReport = v
		case "Documents":
			ix.DocumentCount, _ = strconv.Atoi(v)
		case "Items":
			for _, line := range lines(infos[i]) {
				if it, ok := ParseItemLine(line); ok {
					ix.Items = append(ix.Items, it)
				}
			}
		}
	}
	return ix, nil
}

func tableRows(table *html.Node, summary string) []IndexDocument {
	var out []IndexDocument
	walk(table, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.Data != "tr" {
			return true
		}
		var cells []*html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "td" {
				cells = append(cells, c)
			}
		}
		if len(cells) < 5 {
			return false // the header row has th cells
		}
		d := IndexDocument{Table: summary}
		d.Sequence, _ = strconv.Atoi(strings.TrimSpace(text(cells[0])))
		d.Description = strings.TrimSpace(text(cells[1]))
		walk(cells[2], func(a *html.Node) bool {
			if a.Type == html.ElementNode && a.Data == "a" && d.Path == "" {
				d.Path = strings.TrimPrefix(attr(a, "href"), "/ix?doc=")
				d.Name = strings.TrimSpace(text(a))
				return false
			}
			return true
		})
		d.Type = strings.TrimSpace(text(cells[3]))
		d.Size, _ = strconv.ParseInt(strings.TrimSpace(text(cells[4])), 10, 64)
		out = append(out, d)
		return false
	})
	return out
}

// companyName reads "ADOBE INC. (Filer) CIK: 0000796343 (see all company
// filings)".
func companyName(n *html.Node) (Party, bool) {
	var p Party
	var first strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			first.WriteString(c.Data)
			continue
		}
		break
	}
	name := strings.TrimSpace(first.String())
	if i := strings.LastIndexByte(name, '('); i >= 0 && strings.HasSuffix(name, ")") {
		p.Role = name[i+1 : len(name)-1]
		name = strings.TrimSpace(name[:i])
	}
	p.Name = name
	walk(n, func(a *html.Node) bool {
		if a.Type == html.ElementNode && a.Data == "a" && p.CIK == 0 {
			f := strings.Fields(text(a))
			if len(f) > 0 {
				if cik, err := ParseCIK(f[0]); err == nil {
					p.CIK = cik
				}
			}
			return false
		}
		return true
	})
	return p, p.Name != "" && p.CIK != 0
}

// walk visits n and its descendants depth first; f returns false to skip
// a node's children.
func walk(n *html.Node, f func(*html.Node) bool) {
	if !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// text is the concatenated text of n's subtree, with runs of white space
// collapsed to one space.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
		return true
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// lines splits n's text at <br> elements.
func lines(n *html.Node) []string {
	var out []string
	var cur strings.Builder
	walk(n, func(c *html.Node) bool {
		switch {
		case c.Type == html.TextNode:
			cur.WriteString(c.Data)
		case c.Type == html.ElementNode && c.Data == "br":
			out = append(out, strings.Join(strings.Fields(cur.String()), " "))
			cur.Reset()
		}
		return true
	})
	if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
		out = append(out, s)
	}
	return out
}
