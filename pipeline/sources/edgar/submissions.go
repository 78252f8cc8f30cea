package edgar

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Submissions is a registrant's submissions JSON: entity data and its
// filings, newest first.
type Submissions struct {
	CIK            CIK      `json:"cik"`
	Name           string   `json:"name"`
	EntityType     string   `json:"entityType"` // "operating", "other" (individuals), ...
	SIC            string   `json:"sic"`
	SICDescription string   `json:"sicDescription"`
	Category       string   `json:"category"` // "Large accelerated filer", ...
	Tickers        []string `json:"tickers"`
	Exchanges      []string `json:"exchanges"`
	// FiscalYearEnd is MMDD ("0926"), empty when not reported.
	FiscalYearEnd        string `json:"fiscalYearEnd"`
	StateOfIncorporation string `json:"stateOfIncorporation"`
	// ForeignLocation is true when the business address is outside the
	// US (addresses.business.isForeignLocation).
	ForeignLocation bool `json:"foreignLocation"`
	// InsiderTransactionsForIssuer is true when insiders of this company
	// filed ownership reports (insiderTransactionForIssuerExists).
	InsiderTransactionsForIssuer bool `json:"insiderTransactionsForIssuer"`
	// Filings are filings.recent (at least the last year or the last
	// 1,000 filings), newest first, plus the overflow files' filings when
	// they were read (Client.FilingsSince).
	Filings []Filing `json:"filings"`
	// Files are the overflow files of older filings (filings.files[]).
	Files []SubmissionsFile `json:"files"`
}

// SubmissionsFile is one overflow file of older filings.
type SubmissionsFile struct {
	Name        string `json:"name"`
	FilingCount int    `json:"filingCount"`
	FilingFrom  string `json:"filingFrom"` // YYYY-MM-DD
	FilingTo    string `json:"filingTo"`
}

// Filing is one filing of a submissions JSON.
type Filing struct {
	Accession  Accession `json:"accessionNumber"`
	FilingDate string    `json:"filingDate"` // YYYY-MM-DD
	ReportDate string    `json:"reportDate,omitempty"`
	// Accepted is EDGAR's acceptance time; zero when not given. The
	// submissions JSON writes it as "2022-05-06T18:30:57.000Z" but the
	// digits are US Eastern wall-clock time (the SEC-HEADER of the same
	// filing says 20220506183057), so it is read in Eastern time and the
	// "Z" ignored.
	Accepted time.Time `json:"acceptanceDateTime"`
	Form     Form      `json:"form"`
	// Items are the reported 8-K items ("2.02", "9.01").
	Items           []Item `json:"items,omitempty"`
	Size            int64  `json:"size"`
	IsXBRL          bool   `json:"isXBRL"`
	IsInlineXBRL    bool   `json:"isInlineXBRL"`
	PrimaryDocument string `json:"primaryDocument"`
	// PrimaryDocDescription is EDGAR's description of the primary
	// document ("FORM 4", "10-K").
	PrimaryDocDescription string `json:"primaryDocDescription,omitempty"`
	FileNumber            string `json:"fileNumber,omitempty"`
}

// columns is the columnar filings block of a submissions JSON
// (filings.recent, and the top level of an overflow file).
type columns struct {
	Accession      []string      `json:"accessionNumber"`
	FilingDate     []string      `json:"filingDate"`
	ReportDate     []string      `json:"reportDate"`
	Acceptance     []string      `json:"acceptanceDateTime"`
	Form           []string      `json:"form"`
	FileNumber     []string      `json:"fileNumber"`
	Items          []string      `json:"items"`
	Size           []json.Number `json:"size"`
	IsXBRL         []json.Number `json:"isXBRL"`
	IsInlineXBRL   []json.Number `json:"isInlineXBRL"`
	PrimaryDoc     []string      `json:"primaryDocument"`
	PrimaryDocDesc []string      `json:"primaryDocDescription"`
}

func (c *columns) filings(format string) ([]Filing, error) {
	n := len(c.Accession)
	need := map[string]int{"filingDate": len(c.FilingDate), "form": len(c.Form)}
	for name, l := range need {
		if l != n {
			return nil, malformed(format, fmt.Sprintf("column %s has %d values, accessionNumber %d", name, l, n), nil)
		}
	}
	// Optional columns must be absent or full length.
	opt := map[string]int{"reportDate": len(c.ReportDate), "acceptanceDateTime": len(c.Acceptance),
		"fileNumber": len(c.FileNumber), "items": len(c.Items), "size": len(c.Size), "isXBRL": len(c.IsXBRL),
		"isInlineXBRL": len(c.IsInlineXBRL), "primaryDocument": len(c.PrimaryDoc), "primaryDocDescription": len(c.PrimaryDocDesc)}
	for name, l := range opt {
		if l != 0 && l != n {
			return nil, malformed(format, fmt.Sprintf("column %s has %d values, accessionNumber %d", name, l, n), nil)
		}
	}
	at := func(col []string, i int) string {
		if i < len(col) {
			return col[i]
		}
		return ""
	}
	num := func(col []json.Number, i int) int64 {
		if i < len(col) {
			v, _ := col[i].Int64()
			return v
		}
		return 0
	}
	out := make([]Filing, n)
	for i := 0; i < n; i++ {
		acc, err := ParseAccession(c.Accession[i])
		if err != nil {
			return nil, malformed(format, fmt.Sprintf("filing %d", i), err)
		}
		if _, err := time.Parse(time.DateOnly, c.FilingDate[i]); err != nil {
			return nil, malformed(format, fmt.Sprintf("filing %s: filingDate %q", acc, c.FilingDate[i]), nil)
		}
		f := Filing{
			Accession:             acc,
			FilingDate:            c.FilingDate[i],
			ReportDate:            at(c.ReportDate, i),
			Form:                  ParseForm(c.Form[i]),
			Items:                 ParseItemList(at(c.Items, i)),
			Size:                  num(c.Size, i),
			IsXBRL:                num(c.IsXBRL, i) == 1,
			IsInlineXBRL:          num(c.IsInlineXBRL, i) == 1,
			PrimaryDocument:       at(c.PrimaryDoc, i),
			PrimaryDocDescription: at(c.PrimaryDocDesc, i),
			FileNumber:            at(c.FileNumber, i),
		}
		if s := at(c.Acceptance, i); s != "" {
			t, err := parseEastern("2006-01-02T15:04:05", strings.TrimSuffix(s, "Z"))
			if err != nil {
				return nil, malformed(format, fmt.Sprintf("filing %s: acceptanceDateTime %q", acc, s), nil)
			}
			f.Accepted = t.UTC()
		}
		out[i] = f
	}
	return out, nil
}

// ParseSubmissions reads a submissions JSON
// (https://data.sec.gov/submissions/CIK##########.json).
func ParseSubmissions(b []byte) (*Submissions, error) {
	const format = "submissions json"
	var raw struct {
		CIK            string    `json:"cik"`
		Name           string    `json:"name"`
		EntityType     string    `json:"entityType"`
		SIC            string    `json:"sic"`
		SICDescription string    `json:"sicDescription"`
		Category       string    `json:"category"`
		Tickers        []string  `json:"tickers"`
		Exchanges      []*string `json:"exchanges"`
		FiscalYearEnd  *string   `json:"fiscalYearEnd"`
		StateOfInc     string    `json:"stateOfIncorporation"`
		InsiderIssuer  *int      `json:"insiderTransactionForIssuerExists"`
		Addresses      struct {
			Business struct {
				IsForeign *int `json:"isForeignLocation"`
			} `json:"business"`
		} `json:"addresses"`
		Filings *struct {
			Recent *columns          `json:"recent"`
			Files  []SubmissionsFile `json:"files"`
		} `json:"filings"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, malformed(format, "not a submissions object", err)
	}
	cik, err := ParseCIK(raw.CIK)
	if err != nil {
		return nil, malformed(format, "cik", err)
	}
	if raw.Filings == nil || raw.Filings.Recent == nil {
		return nil, malformed(format, "no filings.recent", nil)
	}
	filings, err := raw.Filings.Recent.filings(format)
	if err != nil {
		return nil, err
	}
	s := &Submissions{
		CIK: cik, Name: strings.TrimSpace(raw.Name), EntityType: raw.EntityType, SIC: raw.SIC,
		SICDescription: raw.SICDescription, Category: raw.Category, Tickers: raw.Tickers,
		StateOfIncorporation: raw.StateOfInc, Filings: filings, Files: raw.Filings.Files,
		InsiderTransactionsForIssuer: raw.InsiderIssuer != nil && *raw.InsiderIssuer == 1,
		ForeignLocation:              raw.Addresses.Business.IsForeign != nil && *raw.Addresses.Business.IsForeign == 1,
	}
	for _, e := range raw.Exchanges {
		if e != nil {
			s.Exchanges = append(s.Exchanges, *e)
		}
	}
	if raw.FiscalYearEnd != nil {
		s.FiscalYearEnd = *raw.FiscalYearEnd
	}
	return s, nil
}

// ParseSubmissionsFile reads an overflow file named in filings.files[]: the
// same columns as filings.recent, at the top level.
func ParseSubmissionsFile(b []byte) ([]Filing, error) {
	const format = "submissions overflow json"
	var c columns
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, malformed(format, "not a columnar filings object", err)
	}
	if len(c.Accession) == 0 {
		return nil, malformed(format, "no accessionNumber column", nil)
	}
	return c.filings(format)
}

// Latest returns the newest filing whose form matches one of the
// families (Form.Matches), e.g. Latest("10-K", "10-Q"); ok is false when
// there is none. Filings are assumed newest first, as EDGAR lists them.
func (s *Submissions) Latest(families ...string) (Filing, bool) {
	for _, f := range s.Filings {
		for _, fam := range families {
			if f.Form.Matches(fam) {
				return f, true
			}
		}
	}
	return Filing{}, false
}
