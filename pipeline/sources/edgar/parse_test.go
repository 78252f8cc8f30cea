package edgar

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "sec/"+name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseForm(t *testing.T) {
	f := func(in, name, base, fam string, amended bool) {
		t.Helper()
		got := ParseForm(in)
		want := Form{Name: name, Base: base, Family: fam, Amendment: amended}
		if got != want {
			t.Errorf("ParseForm(%q) = %+v, want %+v", in, got, want)
		}
	}
	f("4", "4", "4", "4", false)
	f(" 4/a ", "4/A", "4", "4", true)
	f("8-K", "8-K", "8-K", "8-K", false)
	f("SC 13D/A", "SC 13D/A", "SC 13D", "13D", true)
	f("SCHEDULE  13G", "SCHEDULE 13G", "SCHEDULE 13G", "13G", false)
	f("10-K405", "10-K405", "10-K405", "10-K", false)
	f("10-Q/A", "10-Q/A", "10-Q", "10-Q", true)
	f("DEF 14A", "DEF 14A", "DEF 14A", "DEF 14A", false)
	f("S-1/A", "S-1/A", "S-1", "S-1", true)

	m := func(form, filter string, want bool) {
		t.Helper()
		if got := ParseForm(form).Matches(filter); got != want {
			t.Errorf("%q.Matches(%q) = %v, want %v", form, filter, got, want)
		}
	}
	m("SCHEDULE 13D/A", "13D", true)
	m("SC 13D", "SCHEDULE 13D", true)
	m("SC 13G", "13D", false)
	m("4/A", "4", true)
	m("424B2", "4", false)
	m("8-K/A", "8-K", true)
	m("", "", false)
}

func TestItems(t *testing.T) {
	f := func(in string, want []Item) {
		t.Helper()
		got := ParseItemList(in)
		if len(got) != len(want) {
			t.Fatalf("ParseItemList(%q) = %+v, want %+v", in, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("ParseItemList(%q)[%d] = %+v, want %+v", in, i, got[i], want[i])
			}
		}
	}
	f("", nil)
	f("2.02,9.01", []Item{{"2.02", "Results of Operations and Financial Condition"}, {"9.01", "Financial Statements and Exhibits"}})
	f("2.2", []Item{{"2.02", "Results of Operations and Financial Condition"}})
	f("7.01, 9.99", []Item{{"7.01", "Regulation FD Disclosure"}, {"9.99", ""}})

	d := func(desc, want string) {
		t.Helper()
		if got := ItemByDescription(desc).Number; got != want {
			t.Errorf("ItemByDescription(%q) = %q, want %q", desc, got, want)
		}
	}
	d("Results of Operations and Financial Condition", "2.02")
	d("RESULTS OF OPERATIONS AND FINANCIAL CONDITION", "2.02")
	d("Financial Statements and Exhibits", "9.01")
	// EDGAR's header writes a colon where the form has a semicolon.
	d("Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers: Compensatory Arrangements of Certain Officers", "5.02")
	d("Other Events", "8.01")
	d("Something else", "")
	d("", "")
	if !HasEarnings(ParseItemList("8.01,2.02")) || HasEarnings(ParseItemList("8.01")) {
		t.Error("HasEarnings is wrong")
	}
}

func TestParseCIKAndAccession(t *testing.T) {
	for in, want := range map[string]CIK{"320193": 320193, "0000320193": 320193, "CIK0000320193": 320193, " 1462356 ": 1462356} {
		got, err := ParseCIK(in)
		if err != nil || got != want {
			t.Errorf("ParseCIK(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "abc", "12345678901", "-1", "CIK"} {
		if _, err := ParseCIK(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseCIK(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
	if c := CIK(320193); c.Padded() != "0000320193" || c.String() != "320193" {
		t.Errorf("CIK formats: %s %s", c.Padded(), c)
	}
	for _, in := range []string{"0000320193-22-000061", "000032019322000061"} {
		a, err := ParseAccession(in)
		if err != nil || a != "0000320193-22-000061" || a.NoDashes() != "000032019322000061" {
			t.Errorf("ParseAccession(%q) = %q, %v", in, a, err)
		}
	}
	for _, bad := range []string{"", "0000320193-22-00006", "00003201932-2-000061", "0000320193-22-00006x", "0000320193_22_000061"} {
		if _, err := ParseAccession(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseAccession(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
	e := DefaultEndpoints
	if got := e.SubmissionsURL(320193); got != "https://data.sec.gov/submissions/CIK0000320193.json" {
		t.Error(got)
	}
	if got := e.CompanyFactsURL(320193); got != "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json" {
		t.Error(got)
	}
	// The fixtures' recorded URLs (SOURCES.md).
	if got := e.FullTextURL(1462356, "0000320193-22-000061"); got != "https://www.sec.gov/Archives/edgar/data/1462356/000032019322000061/0000320193-22-000061.txt" {
		t.Error(got)
	}
	if got := e.IndexURL(796343, "0000796343-23-000044"); got != "https://www.sec.gov/Archives/edgar/data/796343/0000796343-23-000044-index.html" {
		t.Error(got)
	}
	if got := e.DocumentURL(796343, "0000796343-23-000044", "adbe-20230315.htm"); got != "https://www.sec.gov/Archives/edgar/data/796343/000079634323000044/adbe-20230315.htm" {
		t.Error(got)
	}
	if got := e.CurrentFeedURL(CurrentQuery{Form: "4"}); got != "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&count=100&start=0&type=4&owner=include&output=atom" {
		t.Error(got)
	}
	if got := e.CurrentFeedURL(CurrentQuery{Start: 700}); got != "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&count=100&start=700&type=&owner=include&output=atom" {
		t.Error(got)
	}
	if got := RawOwnershipDocument("xslF345X03/wf-form4_165187623819106.xml"); got != "wf-form4_165187623819106.xml" {
		t.Error(got)
	}
	if got := RawOwnershipDocument("aapl-20250927.htm"); got != "aapl-20250927.htm" {
		t.Error(got)
	}
}

func TestParseTickers(t *testing.T) {
	tk, err := ParseTickers(readFixture(t, "company_tickers.json"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: 9,610 entries; AAPL→320193, MSFT→789019, NVDA→1045810, TSLA→1318605.
	if tk.Len() != 9610 {
		t.Errorf("Len = %d, want 9610", tk.Len())
	}
	f := func(ticker string, cik CIK, name string) {
		t.Helper()
		c, ok := tk.Lookup(ticker)
		if !ok || c.CIK != cik || c.Name != name {
			t.Errorf("Lookup(%q) = %+v, %v; want CIK %d %q", ticker, c, ok, cik, name)
		}
	}
	f("AAPL", 320193, "Apple Inc.")
	f("aapl", 320193, "Apple Inc.")
	f("MSFT", 789019, "MICROSOFT CORP")
	f("NVDA", 1045810, "NVIDIA CORP")
	f("TSLA", 1318605, "Tesla, Inc.")
	f("BRK.B", 1067983, "BERKSHIRE HATHAWAY INC") // listed as BRK-B
	for _, no := range []string{"BTCUSD", "DOGE", "", "A A", "TOOLONGTICKERX"} {
		if c, ok := tk.Lookup(no); ok {
			t.Errorf("Lookup(%q) = %+v, want none", no, c)
		}
	}
	if got := tk.TickersOf(1652044); len(got) < 2 || got[0] != "GOOGL" {
		t.Errorf("TickersOf(Alphabet) = %v, want GOOGL first", got)
	}
	// Companies keeps the file's order: "0" MSFT, "1" AAPL, "2" NVDA, and
	// ADBE at "41" (read from the fixture).
	cs := tk.Companies()
	if len(cs) != tk.Len() || cs[0].Ticker != "MSFT" || cs[1].Ticker != "AAPL" || cs[2].Ticker != "NVDA" || cs[41].Ticker != "ADBE" {
		t.Errorf("Companies() = %d entries starting %+v", len(cs), cs[:3])
	}

	x, err := ParseTickersExchange(readFixture(t, "company_tickers_exchange_2023-05-26.json"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: 9,441 rows; [320193,"Apple Inc.","AAPL","Nasdaq"]; MSTR → 1050446.
	if x.Len() != 9441 {
		t.Errorf("exchange Len = %d, want 9441", x.Len())
	}
	if c, _ := x.Lookup("AAPL"); c.CIK != 320193 || c.Exchange != "Nasdaq" {
		t.Errorf("exchange AAPL = %+v", c)
	}
	if c, _ := x.Lookup("MSTR"); c.CIK != 1050446 {
		t.Errorf("exchange MSTR = %+v", c)
	}
	m := tk.Merge(x)
	if c, _ := m.Lookup("AAPL"); c.CIK != 320193 || c.Exchange != "Nasdaq" || c.Name != "Apple Inc." {
		t.Errorf("merged AAPL = %+v", c)
	}
	if m.Len() < tk.Len() {
		t.Errorf("merged has %d tickers, fewer than %d", m.Len(), tk.Len())
	}

	for _, bad := range []string{``, `[]`, `{}`, `{"0":{"cik_str":"x","ticker":"A","title":"T"}}`, `{"0":{"cik_str":1,"ticker":"A"`} {
		if _, err := ParseTickers([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseTickers(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
	for _, bad := range []string{``, `{"fields":["cik","name"],"data":[[1,"A"]]}`, `{"fields":["cik","name","ticker"],"data":[[1,"A"]]}`, `{"fields":["cik","name","ticker"],"data":[]}`} {
		if _, err := ParseTickersExchange([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseTickersExchange(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestNormalizeTicker(t *testing.T) {
	f := func(in, want string, ok bool) {
		t.Helper()
		got, gotOK := NormalizeTicker(in)
		if got != want || gotOK != ok {
			t.Errorf("NormalizeTicker(%q) = %q, %v; want %q, %v", in, got, gotOK, want, ok)
		}
	}
	f("aapl", "AAPL", true)
	f(" brk.b ", "BRK-B", true)
	f("BF/B", "BF-B", true)
	f("", "", false)
	f("-A", "", false)
	f("A$", "", false)
	f("ÄPL", "", false)
	f("ABCDEFGHIJKLM", "", false)
}

func TestParseSubmissions(t *testing.T) {
	s, err := ParseSubmissions(readFixture(t, "submissions_CIK0000320193_AAPL.json"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: 1,005 recent filings; files[] → CIK0000320193-submissions-001.json; tickers ["AAPL"].
	if s.CIK != 320193 || s.Name != "Apple Inc." || len(s.Filings) != 1005 || len(s.Tickers) != 1 || s.Tickers[0] != "AAPL" {
		t.Fatalf("AAPL: cik %d name %q filings %d tickers %v", s.CIK, s.Name, len(s.Filings), s.Tickers)
	}
	if len(s.Files) != 1 || s.Files[0].Name != "CIK0000320193-submissions-001.json" || s.Files[0].FilingCount != 1206 {
		t.Errorf("files = %+v", s.Files)
	}
	if s.FiscalYearEnd != "0926" || s.EntityType != "operating" || !s.InsiderTransactionsForIssuer || s.ForeignLocation {
		t.Errorf("entity: %+v", s)
	}
	var adams Filing
	for _, f := range s.Filings {
		if f.Accession == "0000320193-22-000061" {
			adams = f
		}
	}
	// The filing of form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt: its
	// SEC-HEADER says ACCEPTANCE-DATETIME 20220506183057 (Eastern); the
	// JSON writes 2022-05-06T18:30:57.000Z, the same wall clock.
	want := time.Date(2022, 5, 6, 18, 30, 57, 0, Eastern)
	if !adams.Accepted.Equal(want) || adams.Form.Name != "4" || adams.FilingDate != "2022-05-06" ||
		adams.ReportDate != "2022-05-04" || adams.PrimaryDocument != "xslF345X03/wf-form4_165187623819106.xml" {
		t.Errorf("Adams filing = %+v", adams)
	}
	latest, ok := s.Latest("10-K")
	if !ok || latest.Form.Name != "10-K" || latest.Accession != "0000320193-25-000079" || latest.FilingDate != "2025-10-31" {
		t.Errorf("latest 10-K = %+v", latest)
	}
	if !latest.IsXBRL || !latest.IsInlineXBRL {
		t.Errorf("latest 10-K XBRL flags = %v %v", latest.IsXBRL, latest.IsInlineXBRL)
	}

	ms, err := ParseSubmissions(readFixture(t, "submissions_CIK0000789019_MSFT.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Filings) != 1002 || len(ms.Files) != 2 || ms.Files[1].FilingFrom != "1994-02-14" {
		t.Errorf("MSFT: %d filings, files %+v", len(ms.Filings), ms.Files)
	}
	ts, err := ParseSubmissions(readFixture(t, "submissions_CIK0001318605_TSLA.json"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: first forms 4, 144, 10-K, 8-K.
	for i, want := range []string{"4", "144", "10-K", "8-K"} {
		if ts.Filings[i].Form.Name != want {
			t.Errorf("TSLA filing %d form %q, want %q", i, ts.Filings[i].Form.Name, want)
		}
	}
	var items int
	for _, f := range ts.Filings {
		if f.Form.Name == "8-K" && len(f.Items) > 0 {
			items++
		}
	}
	if items == 0 {
		t.Error("no TSLA 8-K has items")
	}
	ad, err := ParseSubmissions(readFixture(t, "submissions_CIK0001462356_insider_AdamsKatherine.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ad.EntityType != "other" || ad.FiscalYearEnd != "" || len(ad.Tickers) != 0 || ad.Name != "Adams Katherine L." {
		t.Errorf("insider submissions: %+v", ad)
	}

	for _, bad := range []string{``, `null`, `{}`, `{"cik":"320193"}`, `{"cik":"320193","filings":{"recent":{"accessionNumber":["0000320193-22-000061"],"filingDate":[],"form":["4"]}}}`,
		`{"cik":"320193","filings":{"recent":{"accessionNumber":["bad"],"filingDate":["2022-05-06"],"form":["4"]}}}`,
		`{"cik":"320193","filings":{"recent":{"accessionNumber":["0000320193-22-000061"],"filingDate":["2022-05-06"],"form":["4"],"acceptanceDateTime":["yesterday"]}}}`,
		`{"cik":"x","filings":{"recent":{}}}`} {
		if _, err := ParseSubmissions([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseSubmissions(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
	// A truncated file is malformed, never a partial answer.
	b := readFixture(t, "submissions_CIK0000320193_AAPL.json")
	if _, err := ParseSubmissions(b[:len(b)/2]); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated submissions err = %v", err)
	}
}

func TestParseCurrentFeed(t *testing.T) {
	f4, err := ParseCurrentFeed(readFixture(t, "edgar_getcurrent_form4_atom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	// 100 entries, all Form 4, 46 distinct accession numbers (Issuer /
	// Reporting pairs and larger groups).
	if len(f4.Entries) != 100 || len(f4.Filings()) != 46 {
		t.Fatalf("form 4 feed: %d entries, %d filings", len(f4.Entries), len(f4.Filings()))
	}
	e := f4.Entries[1]
	// <title>4 - Hinge Health, Inc. (0001673743) (Issuer)</title>, AccNo
	// 0002063236-25-000004, updated 2025-12-12T18:02:43-05:00.
	if e.Form.Name != "4" || e.Company != "Hinge Health, Inc." || e.CIK != 1673743 || e.Role != "Issuer" ||
		e.Accession != "0002063236-25-000004" || e.FilingDate != "2025-12-12" || e.Size != "10 KB" ||
		!e.Accepted.Equal(time.Date(2025, 12, 12, 18, 2, 43, 0, Eastern)) ||
		e.IndexURL != "https://www.sec.gov/Archives/edgar/data/1673743/000206323625000004/0002063236-25-000004-index.htm" {
		t.Errorf("entry 1 = %+v", e)
	}
	first := f4.Filings()[0]
	if iss, ok := first.Party("Issuer"); !ok || iss.CIK != 1673743 {
		t.Errorf("first filing issuer = %+v", first.Parties)
	}
	if rep, ok := first.Party("Reporting"); !ok || rep.Name != "Perez Daniel Antonio" || rep.CIK != 2063236 {
		t.Errorf("first filing reporting owner = %+v", first.Parties)
	}
	for _, x := range f4.Entries {
		if !x.Form.Matches("4") {
			t.Errorf("form 4 feed has %q", x.Form.Name)
		}
	}

	heavy, err := ParseCurrentFeed(readFixture(t, "edgar_getcurrent_all_forms_atom_8k_heavy.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var eightK, earnings int
	for _, x := range heavy.Entries {
		if x.Form.Name == "8-K" {
			eightK++
			if HasEarnings(x.Items) {
				earnings++
			}
		}
	}
	// SOURCES.md: 63 of 100 are 8-K; 31 summaries list Item 2.02.
	if len(heavy.Entries) != 100 || eightK != 63 || earnings != 31 {
		t.Errorf("8-K heavy feed: %d entries, %d 8-K, %d with 2.02", len(heavy.Entries), eightK, earnings)
	}
	var avalo CurrentEntry
	for _, x := range heavy.Entries {
		if x.CIK == 1534120 {
			avalo = x
		}
	}
	if len(avalo.Items) != 2 || avalo.Items[0] != (Item{"2.02", "Results of Operations and Financial Condition"}) || avalo.Items[1].Number != "8.01" {
		t.Errorf("Avalo items = %+v", avalo.Items)
	}
	all, err := ParseCurrentFeed(readFixture(t, "edgar_getcurrent_all_forms_atom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]int{}
	for _, x := range all.Entries {
		forms[x.Form.Family]++
	}
	if forms["4"] != 36 || forms["424B2"] != 20 || forms["13D"] != 2 || forms["D"] != 11 {
		t.Errorf("all-forms feed families = %v", forms)
	}

	b := readFixture(t, "edgar_getcurrent_form4_atom.xml")
	for _, bad := range [][]byte{nil, []byte("   "), []byte("<html>rate limited</html>"), b[:len(b)/3],
		bytes.Replace(b, []byte("(0002063236) (Reporting)"), []byte("(Reporting)"), 1),
		bytes.Replace(b, []byte("AccNo:&lt;/b&gt; 0002063236-25-000004"), []byte("AccNo:&lt;/b&gt; 12"), 1)} {
		if _, err := ParseCurrentFeed(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseCurrentFeed(%.40q) err = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestParseHeader(t *testing.T) {
	h, err := ParseHeader(readFixture(t, "8k_0000796343-23-000044_ADBE_item2.02.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: ITEM INFORMATION Results of Operations and Financial
	// Condition (2.02) and Financial Statements and Exhibits (9.01);
	// period/filed 2023-03-15, ACCEPTANCE-DATETIME 20230315160636.
	if h.Accession != "0000796343-23-000044" || h.Form.Name != "8-K" || h.DocumentCount != 15 ||
		h.PeriodOfReport != "2023-03-15" || h.FiledAsOf != "2023-03-15" ||
		!h.Accepted.Equal(time.Date(2023, 3, 15, 16, 6, 36, 0, Eastern)) {
		t.Errorf("ADBE header = %+v", h)
	}
	if len(h.Items) != 2 || h.Items[0].Number != "2.02" || h.Items[1].Number != "9.01" || !HasEarnings(h.Items) {
		t.Errorf("ADBE items = %+v", h.Items)
	}
	filers := h.PartiesByRole(RoleFiler)
	if len(filers) != 1 || filers[0] != (Party{Role: RoleFiler, Name: "ADOBE INC.", CIK: 796343, SIC: "7372",
		SICDescription: "SERVICES-PREPACKAGED SOFTWARE", StateOfIncorporation: "DE", FiscalYearEnd: "1202", FormType: "8-K", FileNumber: "000-15175"}) {
		t.Errorf("ADBE filer = %+v", filers)
	}

	a, err := ReadHeader(bytes.NewReader(readFixture(t, "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if a.Form.Name != "4" || a.PeriodOfReport != "2022-05-04" || len(a.Parties) != 2 {
		t.Fatalf("Adams header = %+v", a)
	}
	if o := a.PartiesByRole(RoleReportingOwner); len(o) != 1 || o[0].Name != "Adams Katherine L." || o[0].CIK != 1462356 {
		t.Errorf("reporting owner = %+v", o)
	}
	// The former names of the issuer must not replace its name.
	if i := a.PartiesByRole(RoleIssuer); len(i) != 1 || i[0].Name != "Apple Inc." || i[0].CIK != 320193 || i[0].SIC != "3571" {
		t.Errorf("issuer = %+v", i)
	}

	full := readFixture(t, "8k_0000796343-23-000044_ADBE_item2.02.txt")
	end := bytes.Index(full, []byte("</SEC-HEADER>"))
	got, err := readHeaderBytes(bytes.NewReader(full))
	if err != nil || len(got) > end+len("</SEC-HEADER>\n") {
		t.Errorf("readHeaderBytes read %d bytes (header ends at %d), err %v", len(got), end, err)
	}
	for _, bad := range [][]byte{nil, []byte("hello"), full[:end], full[:200],
		bytes.Replace(full[:end+20], []byte("ACCESSION NUMBER:"), []byte("ACCESSION NUMBR:"), 1),
		bytes.Replace(full[:end+20], []byte("20230315160636"), []byte("2023031516"), 1),
		bytes.Replace(full[:end+20], []byte("0000796343\n"), []byte("00007963X3\n"), 1)} {
		if _, err := ParseHeader(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseHeader(%.60q) err = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestParseIndex(t *testing.T) {
	ix, err := ParseIndex(readFixture(t, "8k_0000796343-23-000044_ADBE-index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Accession != "0000796343-23-000044" || ix.Form.Name != "8-K" || ix.FormDescription != "Current report" ||
		ix.FilingDate != "2023-03-15" || ix.PeriodOfReport != "2023-03-15" || ix.DocumentCount != 15 ||
		!ix.Accepted.Equal(time.Date(2023, 3, 15, 16, 6, 36, 0, Eastern)) {
		t.Errorf("ADBE index = %+v", ix)
	}
	if len(ix.Items) != 2 || ix.Items[0] != (Item{"2.02", "Results of Operations and Financial Condition"}) || ix.Items[1].Number != "9.01" {
		t.Errorf("ADBE index items = %+v", ix.Items)
	}
	p, ok := ix.Primary()
	if !ok || p.Name != "adbe-20230315.htm" || p.Path != "/Archives/edgar/data/796343/000079634323000044/adbe-20230315.htm" || p.Size != 40091 || p.Type != "8-K" {
		t.Errorf("primary = %+v", p)
	}
	var full, ex99 IndexDocument
	for _, d := range ix.Documents {
		switch {
		case d.Description == "Complete submission text file":
			full = d
		case d.Type == "EX-99.1":
			ex99 = d
		}
	}
	if full.Size != 482164 || full.Name != "0000796343-23-000044.txt" || ex99.Name != "adbeex991q123.htm" || ex99.Size != 232940 {
		t.Errorf("documents: full %+v ex99 %+v", full, ex99)
	}
	if len(ix.Documents) != 9 {
		t.Errorf("%d documents, want 4 format files + 5 data files", len(ix.Documents))
	}
	if len(ix.Parties) != 1 || ix.Parties[0] != (Party{Role: "Filer", Name: "ADOBE INC.", CIK: 796343}) {
		t.Errorf("parties = %+v", ix.Parties)
	}

	q, err := ParseIndex(readFixture(t, "10q_0000912057-00-023442_AAPL_2000-05-11-index.html"))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: Form 10-Q, APPLE COMPUTER INC, filed 2000-05-11, period 2000-04-01, 5 documents.
	if q.Form.Name != "10-Q" || q.FilingDate != "2000-05-11" || q.PeriodOfReport != "2000-04-01" || q.DocumentCount != 5 ||
		len(q.Documents) != 6 || len(q.Items) != 0 || q.Parties[0].Name != "APPLE COMPUTER INC" || q.Parties[0].CIK != 320193 {
		t.Errorf("10-Q index = %+v", q)
	}
	if _, ok := q.Primary(); ok {
		t.Error("the 2000 10-Q's documents have no file names; Primary should say so")
	}
	if q.Documents[0].Type != "10-Q" || q.Documents[0].Size != 84846 || q.Documents[4].Type != "EX-27" {
		t.Errorf("10-Q documents = %+v", q.Documents)
	}

	b := readFixture(t, "8k_0000796343-23-000044_ADBE-index.html")
	for _, bad := range [][]byte{nil, []byte("<html><body>Request Rate Threshold Exceeded</body></html>"),
		bytes.Replace(b, []byte("0000796343-23-000044\n"), []byte("x\n"), 1),
		bytes.Replace(b, []byte(`<div class="info">2023-03-15 16:06:36</div>`), []byte(`<div class="info">soon</div>`), 1)} {
		if _, err := ParseIndex(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseIndex(%.60q) err = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestParseDocuments(t *testing.T) {
	docs, truncated := ParseDocuments(readFixture(t, "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt"))
	if truncated || len(docs) != 1 {
		t.Fatalf("%d documents, truncated %v", len(docs), truncated)
	}
	d := docs[0]
	if d.Type != "4" || d.Sequence != 1 || d.Filename != "wf-form4_165187623819106.xml" || d.Description != "FORM 4" {
		t.Errorf("document = %+v", d)
	}
	x, ok := d.XML()
	// SOURCES.md: the .xml fixture is the <XML> block of the .txt, verbatim.
	if want := bytes.TrimSpace(readFixture(t, "form4_0000320193-22-000061_AAPL_Adams_10b5-1.xml")); !ok || !bytes.Equal(x, want) {
		t.Errorf("XML block differs from the .xml fixture (ok %v, %d vs %d bytes)", ok, len(x), len(want))
	}
	full := readFixture(t, "8k_0000796343-23-000044_ADBE_item2.02.txt")
	docs, truncated = ParseDocuments(full)
	if truncated || len(docs) == 0 || docs[0].Type != "8-K" || docs[0].Filename != "adbe-20230315.htm" {
		t.Errorf("ADBE documents: %d, truncated %v, first %+v", len(docs), truncated, docs[0])
	}
	var ex99 bool
	for _, d := range docs {
		ex99 = ex99 || d.Type == "EX-99.1"
	}
	if !ex99 {
		t.Error("no EX-99.1 in the ADBE submission")
	}
	cut, truncated := ParseDocuments(full[:len(full)/2])
	if !truncated || len(cut) >= len(docs) {
		t.Errorf("half a file: %d documents, truncated %v", len(cut), truncated)
	}
}
