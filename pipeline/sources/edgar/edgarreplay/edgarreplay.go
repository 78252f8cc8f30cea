// Package edgarreplay lists the real EDGAR captures of the shared
// fixtures (../shared/fixtures/sec, see SOURCES.md) as internal/pubreplay
// routes at EDGAR's own paths, so that the EDGAR client, pointed at a
// pubreplay server, reads them exactly as it reads www.sec.gov and
// data.sec.gov. The end-to-end tests and the offline demo use it.
package edgarreplay

import (
	"net/url"
	"path/filepath"

	"github.com/marketintel/mi/internal/pubreplay"
)

// Capture is one fixture file served at one EDGAR path.
type Capture struct {
	Path  string
	Query url.Values // for the current-filings feed
	File  string     // under <fixtures>/sec/
}

func feed(typ, start string) url.Values {
	return url.Values{"action": {"getcurrent"}, "type": {typ}, "start": {start}}
}

// Captures are the served files. A filing is served under the CIK of each
// of its parties, as EDGAR does (the Adams Form 4 under the reporting
// owner 1462356 and the issuer 320193).
var Captures = []Capture{
	{Path: "/files/company_tickers.json", File: "company_tickers.json"},
	{Path: "/files/company_tickers_exchange.json", File: "company_tickers_exchange_2023-05-26.json"},
	{Path: "/submissions/CIK0000320193.json", File: "submissions_CIK0000320193_AAPL.json"},
	{Path: "/submissions/CIK0000789019.json", File: "submissions_CIK0000789019_MSFT.json"},
	{Path: "/submissions/CIK0001318605.json", File: "submissions_CIK0001318605_TSLA.json"},
	{Path: "/submissions/CIK0001462356.json", File: "submissions_CIK0001462356_insider_AdamsKatherine.json"},
	{Path: "/api/xbrl/companyfacts/CIK0000320193.json", File: "companyfacts_CIK0000320193_AAPL.json"},
	{Path: "/Archives/edgar/data/1462356/000032019322000061/0000320193-22-000061.txt", File: "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt"},
	{Path: "/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt", File: "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt"},
	{Path: "/Archives/edgar/data/796343/000079634323000044/0000796343-23-000044.txt", File: "8k_0000796343-23-000044_ADBE_item2.02.txt"},
	{Path: "/Archives/edgar/data/796343/0000796343-23-000044-index.html", File: "8k_0000796343-23-000044_ADBE-index.html"},
	{Path: "/Archives/edgar/data/796343/000079634323000044/adbe-20230315.htm", File: "8k_0000796343-23-000044_ADBE_adbe-20230315.htm"},
	{Path: "/Archives/edgar/data/320193/0000912057-00-023442-index.html", File: "10q_0000912057-00-023442_AAPL_2000-05-11-index.html"},
	{Path: "/cgi-bin/browse-edgar", Query: feed("", "0"), File: "edgar_getcurrent_all_forms_atom.xml"},
	{Path: "/cgi-bin/browse-edgar", Query: feed("", "700"), File: "edgar_getcurrent_all_forms_atom_8k_heavy.xml"},
	{Path: "/cgi-bin/browse-edgar", Query: feed("4", "0"), File: "edgar_getcurrent_form4_atom.xml"},
}

// Routes returns the captures as pubreplay routes, reading the files from
// fixturesDir (the shared fixtures directory, holding sec/).
func Routes(fixturesDir string) []pubreplay.Route {
	out := make([]pubreplay.Route, 0, len(Captures))
	for _, c := range Captures {
		out = append(out, pubreplay.Route{Path: c.Path, Query: c.Query, File: filepath.Join(fixturesDir, "sec", c.File)})
	}
	return out
}
