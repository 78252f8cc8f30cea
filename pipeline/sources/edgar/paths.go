package edgar

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// CIK is an SEC Central Index Key: a number of at most 10 digits, written
// zero-padded to 10 digits in data.sec.gov file names ("CIK0000320193") and
// without padding in Archives paths ("/Archives/edgar/data/320193/...").
type CIK uint64

// maxCIK is the largest CIK that fits in 10 digits.
const maxCIK = 9_999_999_999

// ParseCIK reads a CIK written as digits, optionally zero-padded and
// optionally prefixed "CIK" ("320193", "0000320193", "CIK0000320193").
func ParseCIK(s string) (CIK, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "CIK"), "cik")
	if t == "" || len(t) > 10 {
		return 0, fmt.Errorf("cannot parse CIK %q: want 1 to 10 digits: %w", s, ErrMalformed)
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("cannot parse CIK %q: want 1 to 10 digits, not zero: %w", s, ErrMalformed)
	}
	return CIK(n), nil
}

// String is the CIK without padding, as in Archives paths.
func (c CIK) String() string { return strconv.FormatUint(uint64(c), 10) }

// Padded is the CIK zero-padded to 10 digits, as in the submissions and
// companyfacts file names and in the spec's cik field.
func (c CIK) Padded() string { return fmt.Sprintf("%010d", uint64(c)) }

// Accession is an accession number in its dashed form, 10-2-6 digits
// ("0000320193-22-000061"): the filer-agent CIK, the year and a sequence.
type Accession string

// ParseAccession reads an accession number with or without dashes.
func ParseAccession(s string) (Accession, error) {
	t := strings.TrimSpace(s)
	digits := strings.ReplaceAll(t, "-", "")
	if len(digits) != 18 || (len(t) != 18 && len(t) != 20) {
		return "", fmt.Errorf("cannot parse accession number %q: want 18 digits as 10-2-6: %w", s, ErrMalformed)
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", fmt.Errorf("cannot parse accession number %q: want 18 digits as 10-2-6: %w", s, ErrMalformed)
		}
	}
	if len(t) == 20 && (t[10] != '-' || t[13] != '-') {
		return "", fmt.Errorf("cannot parse accession number %q: want 18 digits as 10-2-6: %w", s, ErrMalformed)
	}
	return Accession(digits[:10] + "-" + digits[10:12] + "-" + digits[12:]), nil
}

// NoDashes is the 18-digit form used as the folder name in Archives paths.
func (a Accession) NoDashes() string { return strings.ReplaceAll(string(a), "-", "") }

// Endpoints are the two hosts of EDGAR. Tests and the demo point them at a
// local server that serves the same paths.
type Endpoints struct {
	// WWW is the base of www.sec.gov paths: /files/company_tickers.json,
	// /Archives/edgar/data/..., /cgi-bin/browse-edgar. Default
	// https://www.sec.gov.
	WWW string `json:"www"`
	// Data is the base of data.sec.gov paths: /submissions/...,
	// /api/xbrl/companyfacts/.... Default https://data.sec.gov.
	Data string `json:"data"`
}

// DefaultEndpoints are the public EDGAR hosts.
var DefaultEndpoints = Endpoints{WWW: "https://www.sec.gov", Data: "https://data.sec.gov"}

func (e Endpoints) www() string  { return strings.TrimRight(e.WWW, "/") }
func (e Endpoints) data() string { return strings.TrimRight(e.Data, "/") }

// TickersURL is the ticker → CIK map, {"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}.
func (e Endpoints) TickersURL() string { return e.www() + "/files/company_tickers.json" }

// TickersExchangeURL is the ticker → CIK map with exchanges,
// {"fields":["cik","name","ticker","exchange"],"data":[[...],...]}.
func (e Endpoints) TickersExchangeURL() string {
	return e.www() + "/files/company_tickers_exchange.json"
}

// SubmissionsURL is a company's submissions JSON (entity data and its
// recent filings).
func (e Endpoints) SubmissionsURL(cik CIK) string {
	return e.data() + "/submissions/CIK" + cik.Padded() + ".json"
}

// SubmissionsFileURL is an overflow file named in a submissions JSON's
// filings.files[] ("CIK0000320193-submissions-001.json").
func (e Endpoints) SubmissionsFileURL(name string) string {
	return e.data() + "/submissions/" + url.PathEscape(name)
}

// CompanyFactsURL is a company's XBRL facts (every concept of every
// filing).
func (e Endpoints) CompanyFactsURL(cik CIK) string {
	return e.data() + "/api/xbrl/companyfacts/CIK" + cik.Padded() + ".json"
}

// FolderURL is the folder of a filing: /Archives/edgar/data/<cik>/<accession
// without dashes>/. A filing is reachable under the CIK of every party to
// it (issuer, reporting owners, filer agent).
func (e Endpoints) FolderURL(cik CIK, acc Accession) string {
	return e.www() + "/Archives/edgar/data/" + cik.String() + "/" + acc.NoDashes() + "/"
}

// DocumentURL is one document of a filing, by file name.
func (e Endpoints) DocumentURL(cik CIK, acc Accession, name string) string {
	return e.FolderURL(cik, acc) + url.PathEscape(name)
}

// FullTextURL is the complete submission text file (SEC-HEADER and every
// document): /Archives/edgar/data/<cik>/<acc no dashes>/<acc>.txt.
func (e Endpoints) FullTextURL(cik CIK, acc Accession) string {
	return e.FolderURL(cik, acc) + string(acc) + ".txt"
}

// IndexURL is the filing index page (HTML):
// /Archives/edgar/data/<cik>/<acc>-index.html. EDGAR serves the same page
// at <folder>/<acc>-index.htm, the form the current-filings feed links to.
func (e Endpoints) IndexURL(cik CIK, acc Accession) string {
	return e.www() + "/Archives/edgar/data/" + cik.String() + "/" + string(acc) + "-index.html"
}

// CurrentQuery selects a page of the current-filings feed.
type CurrentQuery struct {
	// Form filters by form type as EDGAR does ("4", "8-K", "SC 13D"; EDGAR
	// matches by prefix); empty means every form.
	Form string
	// Start is the offset of the first entry (0, 100, ...).
	Start int
	// Count is the page size, 1 to 100 (EDGAR's choices are 10, 20, 40, 80
	// and 100); 0 means 100.
	Count int
	// ExcludeOwners drops the ownership forms (3, 4, 5) as owner=exclude.
	ExcludeOwners bool
}

// CurrentFeedURL is a page of the "latest filings" Atom feed:
// /cgi-bin/browse-edgar?action=getcurrent&count=N&start=S&type=F&owner=include&output=atom.
func (e Endpoints) CurrentFeedURL(q CurrentQuery) string {
	count := q.Count
	if count <= 0 || count > 100 {
		count = 100
	}
	owner := "include"
	if q.ExcludeOwners {
		owner = "exclude"
	}
	return e.www() + "/cgi-bin/browse-edgar?action=getcurrent&count=" + strconv.Itoa(count) +
		"&start=" + strconv.Itoa(max(q.Start, 0)) + "&type=" + url.QueryEscape(q.Form) +
		"&owner=" + owner + "&output=atom"
}

// RawOwnershipDocument turns the primaryDocument of an ownership filing as
// listed in the submissions JSON ("xslF345X03/wf-form4_1651.xml", the
// rendered HTML view) into the name of the raw XML in the filing folder
// ("wf-form4_1651.xml"). Other names come back unchanged.
func RawOwnershipDocument(primary string) string {
	if i := strings.IndexByte(primary, '/'); i > 0 && strings.HasPrefix(primary, "xsl") {
		return primary[i+1:]
	}
	return primary
}
