package insiders

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// handMade returns a hand-made variant of a real Form 4: the replacements
// applied (each must match), and an XML comment saying so after the
// declaration. No real Form 4 with code P (nor a real 4/A) is among the
// captures (SOURCES.md), so those cases are built this way.
func handMade(t *testing.T, b []byte, note string, pairs ...string) []byte {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !bytes.Contains(b, []byte(pairs[i])) {
			t.Fatalf("hand-made variant: %q not found", pairs[i])
		}
		b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), -1)
	}
	i := bytes.Index(b, []byte("?>")) + 2
	out := append([]byte(nil), b[:i]...)
	out = append(out, []byte("<!-- HAND-MADE VARIANT for tests, not a real filing: "+note+" -->")...)
	return append(out, b[i:]...)
}

func filing(t *testing.T, acc, form, date string, xml []byte) Filing {
	t.Helper()
	d, err := DecodeOwnership(xml)
	if err != nil {
		t.Fatal(err)
	}
	return Filing{Listed: Listed{Accession: acc, Form: form, FilingDate: date}, URL: "https://www.sec.gov/Archives/edgar/data/x/" + acc + "-index.html", Doc: d}
}

func params(asOf string, days int) Params {
	t, _ := time.Parse(time.DateOnly, asOf)
	return Params{Symbol: "X", CIK: "0000000001", CompanyName: "X Co", Days: days, AsOf: t.Add(12 * time.Hour)}
}

// The Adams filing: seven sales under a Rule 10b5-1 plan (footnote F1, a
// form filed before aff10b5One existed) → PLANNED_SELLING.
func TestAdamsPlannedSelling(t *testing.T) {
	adams := filing(t, "0000320193-22-000061", "4", "2022-05-06", fixture(t, adamsXML))
	a := Analyze(params("2022-06-01", 365), []Filing{adams}, nil)
	if a.Signal != SignalPlannedSelling {
		t.Fatalf("signal %s: %s", a.Signal, a.SignalReason)
	}
	s := a.Summary
	// Σ shares × price of the seven rows (read from the XML): 1,461,211.84
	// + 854,919.12 + 648,691.58 + 146,493.00 + 254,107.00 + 297,108.00 +
	// 380,357.40 = 4,042,887.94 USD for 25,000 shares.
	if s.OpenMarketSales.Count != 7 || s.OpenMarketSales.Shares != 25000 || !near(s.OpenMarketSales.ValueUSD, 4042887.94) ||
		s.PlannedSales.Count != 7 || s.DiscretionarySales.Count != 0 || *s.PlannedSalesPercent != 100 || s.Measure != "valueUsd" ||
		s.OpenMarketSales.Insiders != 1 || s.OpenMarketPurchases.Count != 0 || !near(s.NetOpenMarketValueUSD, -4042887.94) {
		t.Errorf("summary %+v", s)
	}
	if len(a.Insiders) != 1 {
		t.Fatalf("insiders %+v", a.Insiders)
	}
	in := a.Insiders[0]
	if in.Name != "Adams Katherine L." || in.CIK != "0001462356" || in.Role != "SVP, GC and Secretary" || !in.IsOfficer ||
		in.Sales.Count != 7 || in.PlannedSales.Count != 7 || *in.SharesOwnedAfter != 452334 || in.LatestTransactionDate != "2022-05-04" || in.Filings != 1 {
		t.Errorf("insider %+v", in)
	}
	r := a.Transactions[0]
	if r.Code != "S" || !r.TenB51 || r.TenB51Source != "footnote" || *r.ValueUSD != 1461211.84 || r.Category != CatSale ||
		!strings.Contains(r.PriceNote, "weighted average sale price") || *r.PriceRangeLow != 159.42 || *r.PriceRangeHigh != 160.41 ||
		r.AccessionNumber != "0000320193-22-000061" || r.FilingDate != "2022-05-06" || len(r.Footnotes) != 2 || r.Inconsistent != "" {
		t.Errorf("first row %+v", r)
	}
	if a.DataQuality.FilingsAnalyzed != 1 || a.DataQuality.InconsistentRows != 0 || a.DataQuality.TenB51Conflicts != 0 {
		t.Errorf("data quality %+v", a.DataQuality)
	}
	golden(t, "testdata/adams.golden.json", a)
}

func near(a, b float64) bool { return a-b < 0.005 && b-a < 0.005 }

func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("answer differs from %s (go test -update to accept)", path)
	}
}

// ARW: a PSU vest (A) and the shares withheld for tax (F) are not
// open-market activity.
func TestGrantAndWithholding(t *testing.T) {
	a := Analyze(params("2025-03-01", 90), []Filing{filing(t, "0001127602-25-004598", "4", "2025-02-13", fixture(t, arwXML))}, nil)
	s := a.Summary
	// 2,193 × 106.82 = 234,256.26; 1,009 × 106.82 = 107,781.38.
	if a.Signal != SignalNoActivity || s.Grants.Count != 1 || s.Grants.Shares != 2193 || !near(s.Grants.ValueUSD, 234256.26) ||
		s.TaxWithholding.Count != 1 || !near(s.TaxWithholding.ValueUSD, 107781.38) || s.Transactions != 2 {
		t.Errorf("%s %+v", a.Signal, s)
	}
	if a.Transactions[0].TenB51 || a.Transactions[1].TenB51 {
		t.Error("aff10b5One=0 rows marked planned")
	}
	// SCWO: a grant at price 0 has value 0 and the option grant is a
	// derivative row.
	a = Analyze(params("2025-05-05", 30), []Filing{filing(t, "scwo", "4", "2025-05-02", fixture(t, scwoXML))}, nil)
	if a.Signal != SignalNoActivity || a.Summary.Grants.Count != 2 || a.Summary.Grants.ValueUSD != 0 {
		t.Errorf("SCWO %s %+v", a.Signal, a.Summary)
	}
}

// purchase is a hand-made variant of the ARW form: its grant row turned
// into an open-market purchase (code P) by an owner of the given CIK.
func purchase(t *testing.T, cik, name, acquired string) []byte {
	return handMade(t, fixture(t, arwXML), "code A row of 0001127602-25-004598 changed to P, owner "+cik,
		"<transactionCode>A</transactionCode>", "<transactionCode>P</transactionCode>",
		"<rptOwnerCik>0001870985</rptOwnerCik>", "<rptOwnerCik>"+cik+"</rptOwnerCik>",
		"<rptOwnerName>Jean-Claude Carine Lamercie</rptOwnerName>", "<rptOwnerName>"+name+"</rptOwnerName>",
		// The file's lines end with a bare CR.
		"<transactionAcquiredDisposedCode>\r                    <value>A</value>",
		"<transactionAcquiredDisposedCode>\r                    <value>"+acquired+"</value>")
}

func TestBuyingSignals(t *testing.T) {
	p1 := filing(t, "p1", "4", "2025-02-13", purchase(t, "0000000011", "Buyer One", "A"))
	a := Analyze(params("2025-03-01", 90), []Filing{p1}, nil)
	// One buyer: 2,193 × 106.82 bought, the same F withholding is not a sale.
	if a.Signal != SignalNetBuying || a.Summary.OpenMarketPurchases.Count != 1 || !near(a.Summary.OpenMarketPurchases.ValueUSD, 234256.26) {
		t.Errorf("one buyer: %s %+v", a.Signal, a.Summary)
	}
	p2 := filing(t, "p2", "4", "2025-02-14", purchase(t, "0000000012", "Buyer Two", "A"))
	p3 := filing(t, "p3", "4", "2025-02-15", purchase(t, "0000000013", "Buyer Three", "A"))
	a = Analyze(params("2025-03-01", 90), []Filing{p3, p2, p1}, nil)
	if a.Signal != SignalClusterBuying || a.Summary.OpenMarketPurchases.Insiders != 3 || len(a.Insiders) != 3 {
		t.Errorf("three buyers: %s %+v", a.Signal, a.Summary)
	}
	// Three buyers against larger planned sales: still a cluster.
	adams := filing(t, "0000320193-22-000061", "4", "2025-02-10", fixture(t, adamsXML))
	if a = Analyze(params("2025-03-01", 90), []Filing{p3, p2, p1, adams}, nil); a.Signal != SignalClusterBuying {
		t.Errorf("cluster with sales: %s", a.Signal)
	}
	// Two buyers and the Adams sales: selling, planned.
	if a = Analyze(params("2025-03-01", 90), []Filing{p2, p1, adams}, nil); a.Signal != SignalPlannedSelling {
		t.Errorf("two buyers with larger planned sales: %s", a.Signal)
	}
	// A purchase marked disposed is inconsistent: listed, out of totals.
	bad := filing(t, "pd", "4", "2025-02-13", purchase(t, "0000000011", "Buyer One", "D"))
	a = Analyze(params("2025-03-01", 90), []Filing{bad}, nil)
	if a.DataQuality.InconsistentRows != 1 || a.Summary.OpenMarketPurchases.Count != 0 || a.Signal != SignalNoActivity ||
		a.Transactions[0].Inconsistent != "code P (purchase) is marked disposed" {
		t.Errorf("inconsistent: %s %+v %+v", a.Signal, a.DataQuality, a.Transactions[0])
	}
}

func TestSellingSignalsAndTenB51(t *testing.T) {
	// A hand-made variant: the ARW form's withholding row turned into a
	// sale (code S), with the 2023 checkbox set or not.
	sale := func(box, footnote string) []byte {
		return handMade(t, fixture(t, arwXML), "F row changed to S, aff10b5One "+box,
			"<transactionCode>F</transactionCode>", "<transactionCode>S</transactionCode>",
			"<aff10b5One>0</aff10b5One>", "<aff10b5One>"+box+"</aff10b5One>",
			"Represents shares withheld to satisfy tax withholding obligations upon the vesting of the above-described PSUs.", footnote)
	}
	a := Analyze(params("2025-03-01", 90), []Filing{filing(t, "s1", "4", "2025-02-13", sale("1", "Sold."))}, nil)
	if a.Signal != SignalPlannedSelling || a.Transactions[1].TenB51Source != "aff10b5One" {
		t.Errorf("checkbox: %s %+v", a.Signal, a.Transactions)
	}
	a = Analyze(params("2025-03-01", 90), []Filing{filing(t, "s2", "4", "2025-02-13", sale("0", "Sold."))}, nil)
	if a.Signal != SignalNetSelling || a.Summary.DiscretionarySales.Count != 1 {
		t.Errorf("discretionary: %s %+v", a.Signal, a.Summary)
	}
	// The box unchecked but the footnote says 10b5-1: planned, counted as
	// a conflict.
	a = Analyze(params("2025-03-01", 90), []Filing{filing(t, "s3", "4", "2025-02-13", sale("0", "Sold pursuant to a Rule 10b5-1 trading plan adopted on May 1, 2024."))}, nil)
	if a.Signal != SignalPlannedSelling || a.DataQuality.TenB51Conflicts != 1 {
		t.Errorf("conflict: %s %+v", a.Signal, a.DataQuality)
	}
	// A footnote that denies the plan.
	a = Analyze(params("2025-03-01", 90), []Filing{filing(t, "s4", "4", "2025-02-13", sale("0", "This sale was not made pursuant to a Rule 10b5-1 trading plan."))}, nil)
	if a.Signal != SignalNetSelling {
		t.Errorf("denied plan: %s", a.Signal)
	}
}

func TestTenB51Text(t *testing.T) {
	f := func(s string, want bool) {
		t.Helper()
		if got := TenB51Text(s); got != want {
			t.Errorf("TenB51Text(%q) = %v", s, got)
		}
	}
	f("This transaction was made pursuant to a Rule 10b5-1 trading plan adopted by the reporting person on August 16, 2021.", true)
	f("Shares sold pursuant to a 10b5-1 plan.", true)
	f("effected under a Rule 10b51 plan", true)
	f("sold under a plan intended to comply with Rule 10b5-1(c)", true)
	f("This sale was not made pursuant to a Rule 10b5-1 trading plan.", false)
	f("Sales other than pursuant to a Rule 10b5-1 plan.", false)
	f("The reporting person's 10b5-1 plan was terminated on March 1.", false)
	f("Represents shares withheld to satisfy tax withholding obligations.", false)
	f("", false)
}

// A 4/A replaces the original of the same owner filed on its
// dateOfOriginalSubmission (hand-made: no real 4/A is among the captures).
func TestAmendments(t *testing.T) {
	orig := filing(t, "0000320193-22-000061", "4", "2022-05-06", fixture(t, adamsXML))
	amended := handMade(t, fixture(t, adamsXML), "4/A of 0000320193-22-000061 correcting the first row to 9,000 shares",
		"<documentType>4</documentType>", "<documentType>4/A</documentType>\n    <dateOfOriginalSubmission>2022-05-06</dateOfOriginalSubmission>",
		"<value>9136</value>", "<value>9000</value>")
	am := filing(t, "0000320193-22-000070", "4/A", "2022-05-10", amended)
	a := Analyze(params("2022-06-01", 90), []Filing{am, orig}, nil)
	dq := a.DataQuality
	if dq.Amendments != 1 || dq.AmendmentsMatched != 1 || a.Summary.OpenMarketSales.Count != 7 || a.Summary.OpenMarketSales.Shares != 24864 {
		t.Errorf("matched amendment: %+v %+v", dq, a.Summary.OpenMarketSales)
	}
	superseded := 0
	for _, r := range a.Transactions {
		if r.Superseded {
			superseded++
			if r.AccessionNumber != "0000320193-22-000061" {
				t.Errorf("superseded row of %s", r.AccessionNumber)
			}
		}
	}
	if superseded != 7 {
		t.Errorf("%d superseded rows, want 7", superseded)
	}
	a = Analyze(params("2022-06-01", 90), []Filing{am}, nil)
	if a.DataQuality.AmendmentsUnmatched != 1 || a.Summary.OpenMarketSales.Count != 7 {
		t.Errorf("unmatched amendment: %+v", a.DataQuality)
	}
}

func TestUnavailableAndNotices(t *testing.T) {
	n, err := DecodeForm144(fixture(t, f144XML))
	if err != nil {
		t.Fatal(err)
	}
	a := Analyze(params("2023-04-20", 30),
		[]Filing{{Listed: Listed{Accession: "a1", Form: "4", FilingDate: "2023-04-15"}, Problem: "unavailable: not found on EDGAR"},
			{Listed: Listed{Accession: "a2", Form: "4", FilingDate: "2023-04-14"}, Problem: "malformed: no reportingOwner"}},
		[]NoticeFiling{{Listed: Listed{Accession: "n1", Form: "144", FilingDate: "2023-04-13"}, Notice: n}})
	if a.Signal != SignalNoActivity || a.DataQuality.FilingsUnavailable != 1 || a.DataQuality.FilingsMalformed != 1 || len(a.DataQuality.Problems) != 2 {
		t.Errorf("%s %+v", a.Signal, a.DataQuality)
	}
	if len(a.ProposedSales) != 1 || !a.ProposedSales[0].TenB51 || *a.ProposedSales[0].Units != 69996 || a.ProposedSales[0].Seller != "Luca Maestri" {
		t.Errorf("proposed sales %+v", a.ProposedSales)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Fatal(err)
	}
}

func TestSelect(t *testing.T) {
	var all []Listed
	for d := 1; d <= 31; d++ {
		day := time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		all = append(all, Listed{Accession: "a" + day, Form: "4", FilingDate: day}, Listed{Accession: "b" + day, Form: "4/A", FilingDate: day},
			Listed{Accession: "c" + day, Form: "8-K", FilingDate: day})
	}
	asOf := time.Date(2025, 1, 31, 23, 0, 0, 0, time.UTC)
	sel, in := Select(all, []string{"4", "4/A"}, 10, asOf, MaxFilings)
	// 10 days: 2025-01-22 .. 2025-01-31, two forms a day.
	if in != 20 || len(sel) != 20 || sel[0].FilingDate != "2025-01-31" || sel[19].FilingDate != "2025-01-22" {
		t.Errorf("10 days: %d in window, %d selected, %v .. %v", in, len(sel), sel[0], sel[len(sel)-1])
	}
	sel, in = Select(all, []string{"4", "4/A"}, 365, asOf, MaxFilings)
	if in != 62 || len(sel) != 40 || sel[39].FilingDate != "2025-01-12" {
		t.Errorf("365 days: %d in window, %d selected, last %v", in, len(sel), sel[len(sel)-1])
	}
	if s, e := Window(1, asOf); s != "2025-01-31" || e != "2025-01-31" {
		t.Errorf("Window(1) = %s %s", s, e)
	}
}
