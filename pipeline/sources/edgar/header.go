package edgar

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Header is the SEC-HEADER of a complete submission text file
// (<accession>.txt) or of its .hdr.sgml.
type Header struct {
	Accession Accession `json:"accessionNumber"`
	// Form is the CONFORMED SUBMISSION TYPE.
	Form           Form   `json:"form"`
	DocumentCount  int    `json:"documentCount"`
	PeriodOfReport string `json:"periodOfReport,omitempty"` // YYYY-MM-DD
	FiledAsOf      string `json:"filedAsOf"`                // YYYY-MM-DD
	DateOfChange   string `json:"dateOfChange,omitempty"`   // YYYY-MM-DD
	// Accepted is the ACCEPTANCE-DATETIME, read as US Eastern time.
	Accepted time.Time `json:"accepted"`
	// Items are the ITEM INFORMATION lines of an 8-K, matched to their
	// item numbers (ItemByDescription).
	Items []Item `json:"items,omitempty"`
	// Parties are the filer, issuer, reporting owners, subject company
	// and "filed by" blocks, in file order.
	Parties []Party `json:"parties"`
}

// Party roles in a SEC-HEADER.
const (
	RoleFiler          = "FILER"
	RoleIssuer         = "ISSUER"
	RoleReportingOwner = "REPORTING-OWNER"
	RoleSubjectCompany = "SUBJECT COMPANY"
	RoleFiledBy        = "FILED BY"
)

// Party is one company or person block of a SEC-HEADER.
type Party struct {
	// Role is the block's title: FILER, ISSUER, REPORTING-OWNER, SUBJECT
	// COMPANY, FILED BY (or another title EDGAR uses).
	Role string `json:"role"`
	Name string `json:"name"`
	CIK  CIK    `json:"cik"`
	// SIC is the four-digit industry code, SICDescription its title.
	SIC                  string `json:"sic,omitempty"`
	SICDescription       string `json:"sicDescription,omitempty"`
	StateOfIncorporation string `json:"stateOfIncorporation,omitempty"`
	FiscalYearEnd        string `json:"fiscalYearEnd,omitempty"` // MMDD
	FormType             string `json:"formType,omitempty"`
	FileNumber           string `json:"fileNumber,omitempty"`
}

// PartiesByRole returns the parties with the given role.
func (h *Header) PartiesByRole(role string) []Party {
	var out []Party
	for _, p := range h.Parties {
		if p.Role == role {
			out = append(out, p)
		}
	}
	return out
}

const headerFormat = "sec header"

// maxHeaderBytes bounds how much of a submission is read looking for the
// end of its header; real headers are a few kilobytes, those of filings
// with hundreds of parties (13F, 424B) some hundred.
const maxHeaderBytes = 4 << 20

// ReadHeader reads a submission text file from r up to the end of its
// SEC-HEADER, and no further, and parses it.
func ReadHeader(r io.Reader) (*Header, error) {
	b, err := readHeaderBytes(r)
	if err != nil {
		return nil, err
	}
	return ParseHeader(b)
}

// readHeaderBytes returns the bytes of r up to and including the line
// holding </SEC-HEADER>, or all of r if it ends first.
func readHeaderBytes(r io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf bytes.Buffer
	for buf.Len() < maxHeaderBytes {
		line, err := br.ReadSlice('\n')
		buf.Write(line)
		if bytes.Contains(line, []byte("</SEC-HEADER>")) {
			return buf.Bytes(), nil
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("cannot read the submission header: %w", err)
		}
	}
	return nil, malformed(headerFormat, fmt.Sprintf("no </SEC-HEADER> within %d bytes", maxHeaderBytes), nil)
}

// ParseHeader parses the SEC-HEADER of a submission text file; b may be
// the whole file or only its beginning through </SEC-HEADER>.
func ParseHeader(b []byte) (*Header, error) {
	start := bytes.Index(b, []byte("<SEC-HEADER>"))
	if start < 0 {
		return nil, malformed(headerFormat, "no <SEC-HEADER>", nil)
	}
	end := bytes.Index(b[start:], []byte("</SEC-HEADER>"))
	if end < 0 {
		return nil, malformed(headerFormat, "truncated: no </SEC-HEADER>", nil)
	}
	body := b[start : start+end]
	// <ACCEPTANCE-DATETIME> may sit before or inside the header block.
	h := &Header{}
	if i := bytes.Index(b[:start+end], []byte("<ACCEPTANCE-DATETIME>")); i >= 0 {
		rest := b[i+len("<ACCEPTANCE-DATETIME>"):]
		v := string(bytes.TrimSpace(firstLine(rest)))
		t, err := parseEastern("20060102150405", v)
		if err != nil {
			return nil, malformed(headerFormat, fmt.Sprintf("ACCEPTANCE-DATETIME %q", v), nil)
		}
		h.Accepted = t
	}
	var party *Party
	inFormer := false
	for _, raw := range bytes.Split(body, []byte("\n")) {
		line := strings.TrimRight(string(raw), "\r")
		if strings.HasPrefix(line, "<") {
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		key, val, ok := strings.Cut(trimmed, ":")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		topLevel := line[0] != '\t' && line[0] != ' '
		if topLevel && val == "" {
			// A party block begins: FILER:, ISSUER:, REPORTING-OWNER:, ...
			h.Parties = append(h.Parties, Party{Role: key})
			party = &h.Parties[len(h.Parties)-1]
			inFormer = false
			continue
		}
		if topLevel {
			party = nil
			if err := h.set(key, val); err != nil {
				return nil, err
			}
			continue
		}
		if party == nil {
			continue
		}
		if val == "" {
			// A sub-block: COMPANY DATA:, FILING VALUES:, FORMER COMPANY:, ...
			inFormer = key == "FORMER COMPANY" || key == "FORMER NAME"
			continue
		}
		if inFormer {
			continue
		}
		switch key {
		case "COMPANY CONFORMED NAME":
			party.Name = val
		case "CENTRAL INDEX KEY":
			cik, err := ParseCIK(val)
			if err != nil {
				return nil, malformed(headerFormat, party.Role+" CENTRAL INDEX KEY", err)
			}
			party.CIK = cik
		case "STANDARD INDUSTRIAL CLASSIFICATION":
			party.SICDescription, party.SIC = splitSIC(val)
		case "STATE OF INCORPORATION":
			party.StateOfIncorporation = val
		case "FISCAL YEAR END":
			party.FiscalYearEnd = val
		case "FORM TYPE":
			party.FormType = val
		case "SEC FILE NUMBER":
			party.FileNumber = val
		}
	}
	if h.Accession == "" {
		return nil, malformed(headerFormat, "no ACCESSION NUMBER", nil)
	}
	if h.Form.Name == "" {
		return nil, malformed(headerFormat, "no CONFORMED SUBMISSION TYPE", nil)
	}
	return h, nil
}

func (h *Header) set(key, val string) error {
	date := func() (string, error) {
		t, err := time.Parse("20060102", val)
		if err != nil {
			return "", malformed(headerFormat, fmt.Sprintf("%s %q", key, val), nil)
		}
		return t.Format(time.DateOnly), nil
	}
	var err error
	switch key {
	case "ACCESSION NUMBER":
		h.Accession, err = ParseAccession(val)
		if err != nil {
			return malformed(headerFormat, "ACCESSION NUMBER", err)
		}
	case "CONFORMED SUBMISSION TYPE":
		h.Form = ParseForm(val)
	case "PUBLIC DOCUMENT COUNT":
		h.DocumentCount, err = strconv.Atoi(val)
		if err != nil {
			return malformed(headerFormat, fmt.Sprintf("PUBLIC DOCUMENT COUNT %q", val), nil)
		}
	case "CONFORMED PERIOD OF REPORT":
		h.PeriodOfReport, err = date()
	case "FILED AS OF DATE":
		h.FiledAsOf, err = date()
	case "DATE AS OF CHANGE":
		h.DateOfChange, err = date()
	case "ITEM INFORMATION":
		h.Items = append(h.Items, ItemByDescription(val))
	}
	return err
}

// splitSIC splits "SERVICES-PREPACKAGED SOFTWARE [7372]" into its title
// and code.
func splitSIC(v string) (desc, code string) {
	i := strings.LastIndexByte(v, '[')
	if i < 0 || !strings.HasSuffix(v, "]") {
		return v, ""
	}
	return strings.TrimSpace(v[:i]), v[i+1 : len(v)-1]
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}
