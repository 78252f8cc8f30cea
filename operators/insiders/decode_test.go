package insiders

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "sec/"+name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	adamsXML = "form4_0000320193-22-000061_AAPL_Adams_10b5-1.xml"
	arwXML   = "form4_0001127602-25-004598_ARW_A_F.xml"
	scwoXML  = "form4_SCWO_374Water_2025-04-30.xml"
	f144XML  = "form144_AAPL_Maestri_2023-04.xml"
)

func TestDecodeAdams(t *testing.T) {
	d, err := DecodeOwnership(fixture(t, adamsXML))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: period 2022-05-04; 7 nonDerivative S transactions, 9,136
	// sh @159.94 … 2,292 sh @165.95; F1 the Rule 10b5-1 plan adopted on
	// August 16, 2021; F2–F8 weighted-average price ranges; pre-2023 form:
	// no aff10b5One element.
	if d.DocumentType != "4" || d.SchemaVersion != "X0306" || d.PeriodOfReport != "2022-05-04" || d.Aff10b5One != nil ||
		d.Issuer != (Issuer{"0000320193", "Apple Inc.", "AAPL"}) || len(d.Owners) != 1 || len(d.Transactions) != 7 || len(d.Footnotes) != 8 {
		t.Fatalf("decoded %+v", d)
	}
	o := d.Owners[0]
	if o.CIK != "0001462356" || o.Name != "Adams Katherine L." || !o.IsOfficer || o.IsDirector || o.OfficerTitle != "SVP, GC and Secretary" || o.Role() != "SVP, GC and Secretary" {
		t.Errorf("owner %+v", o)
	}
	first, last := d.Transactions[0], d.Transactions[6]
	if first.Code != "S" || first.AcquiredDisposed != "D" || *first.Shares != 9136 || *first.PricePerShare != 159.94 ||
		*first.SharesOwnedFollowing != 468198 || first.Date != "2022-05-04" || first.DirectIndirect != "D" || first.Table != NonDerivative ||
		!reflect.DeepEqual(first.FootnoteIDs, []string{"F1", "F2"}) || !reflect.DeepEqual(first.PriceFootnoteIDs, []string{"F2"}) {
		t.Errorf("first row %+v", first)
	}
	if *last.Shares != 2292 || *last.PricePerShare != 165.95 || *last.SharesOwnedFollowing != 452334 {
		t.Errorf("last row %+v", last)
	}
	if !strings.HasPrefix(d.Footnotes["F1"], "This transaction was made pursuant to a Rule 10b5-1 trading plan adopted by the reporting person on August 16, 2021.") {
		t.Errorf("F1 = %q", d.Footnotes["F1"])
	}
}

func TestDecodeARWAndSCWO(t *testing.T) {
	d, err := DecodeOwnership(fixture(t, arwXML))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: A 2,193 sh @106.82 (PSU vest), F 1,009 sh @106.82 (tax
	// withholding); aff10b5One=0; SVP, CLO & Secretary.
	if d.Aff10b5One == nil || *d.Aff10b5One || len(d.Transactions) != 2 || d.Issuer.TradingSymbol != "ARW" ||
		d.Owners[0].OfficerTitle != "SVP, CLO & Secretary" {
		t.Fatalf("ARW %+v", d)
	}
	a, f := d.Transactions[0], d.Transactions[1]
	if a.Code != "A" || *a.Shares != 2193 || *a.PricePerShare != 106.82 || a.AcquiredDisposed != "A" ||
		f.Code != "F" || *f.Shares != 1009 || f.AcquiredDisposed != "D" || *f.SharesOwnedFollowing != 20869 {
		t.Errorf("ARW rows %+v %+v", a, f)
	}
	s, err := DecodeOwnership(fixture(t, scwoXML))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: <aff10b5One>false</aff10b5One>; A 757,756 sh @0; the
	// derivative table grants 757,576 options at 0.33.
	if s.Aff10b5One == nil || *s.Aff10b5One || len(s.Transactions) != 2 {
		t.Fatalf("SCWO %+v", s)
	}
	nd, dv := s.Transactions[0], s.Transactions[1]
	if nd.Table != NonDerivative || nd.Code != "A" || *nd.Shares != 757756 || *nd.PricePerShare != 0 ||
		dv.Table != Derivative || *dv.ConversionOrExercisePrice != 0.33 || *dv.UnderlyingShares != 757576 ||
		dv.ExpirationDate != "2035-04-29" || dv.ExerciseDate != "" || dv.UnderlyingTitle != "Common Stock" ||
		!reflect.DeepEqual(dv.FootnoteIDs, []string{"F1"}) {
		t.Errorf("SCWO rows %+v %+v", nd, dv)
	}
}

func TestDecodeForm144(t *testing.T) {
	n, err := DecodeForm144(fixture(t, f144XML))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: Apple Inc., seller Luca Maestri, broker Goldman Sachs;
	// approx sale date 04/13/2023; noOfUnitsSold 69,996;
	// aggregateMarketValue 11,588,537.76; noOfUnitsOutstanding 15,821,946,000.
	if n.IssuerCIK != "0000320193" || n.Seller != "Luca Maestri" || n.Broker != "Goldman Sachs & Co. LLC" ||
		*n.UnitsToSell != 69996 || *n.AggregateMarketValue != 11588537.76 || *n.UnitsOutstanding != 15821946000 ||
		n.ApproxSaleDate != "2023-04-13" || n.NoticeDate != "2023-04-13" || !reflect.DeepEqual(n.PlanAdoptionDates, []string{"2022-11-15"}) ||
		!n.Planned() || !reflect.DeepEqual(n.Relationships, []string{"Director"}) || n.SubmissionType != "144" {
		t.Errorf("144 %+v", n)
	}
	if _, err := DecodeForm144(fixture(t, adamsXML)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a Form 4 read as 144: %v", err)
	}
	if _, err := DecodeOwnership(fixture(t, f144XML)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a 144 read as Form 4: %v", err)
	}
}

// decodeBoth decodes with the scanner and with encoding/xml and fails when
// the scanner accepts what encoding/xml would not, or builds another
// document.
func decodeBoth(t *testing.T, b []byte) {
	t.Helper()
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	fast, ferr := scan(b)
	ref, rerr := parseReference(b)
	if ferr != nil {
		return // refused: parse falls back to encoding/xml
	}
	if rerr != nil {
		t.Fatalf("scanner accepted what encoding/xml refuses (%v): %.300q", rerr, b)
	}
	fd, ferr := ownershipOf(fast)
	rd, rerr := ownershipOf(ref)
	if (ferr == nil) != (rerr == nil) || (ferr == nil && !reflect.DeepEqual(fd, rd)) {
		t.Fatalf("scanner and encoding/xml differ on %.300q:\n%+v %v\n%+v %v", b, fd, ferr, rd, rerr)
	}
	fn, ferr := form144Of(fast)
	rn, rerr := form144Of(ref)
	if (ferr == nil) != (rerr == nil) || (ferr == nil && !reflect.DeepEqual(fn, rn)) {
		t.Fatalf("scanner and encoding/xml differ on the 144 reading of %.300q", b)
	}
}

func TestScannerMatchesEncodingXML(t *testing.T) {
	for _, name := range []string{adamsXML, arwXML, scwoXML, f144XML, "schedule13d_BML_Investment_Partners_AADI_2024-12-31.xml", "schedule13g_Marex_JUSHI_2025-11-19.xml"} {
		b := fixture(t, name)
		if _, err := scan(b); err != nil {
			t.Errorf("scanner refused the real %s", name)
		}
		decodeBoth(t, b)
		crlf := bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		if _, err := scan(crlf); err != nil {
			t.Errorf("scanner refused %s with CRLF line ends", name)
		}
		decodeBoth(t, crlf)
		for i := 0; i < len(b); i += 53 {
			decodeBoth(t, b[:i])
		}
	}
	for _, s := range []string{
		`<ownershipDocument><documentType>4</documentType></ownershipDocument>`,
		`<?xml version="1.1"?><a/>`, `<?xml version="1.0" encoding="ISO-8859-1"?><a>&#233;</a>`, `<!DOCTYPE a><a/>`,
		`<a><b>x &amp; y &lt; &#65;&#x42;</b></a>`, `<a>&nbsp;</a>`, `<a>]]></a>`, `<a><![CDATA[<x>]]></a>`,
		`<a x="1" y='2'/>`, `<a x=1/>`, `<a:b xmlns:a="u"><a:c>1</a:c></a:b>`, `<a><b></c></a>`, `<a/><b/>`,
		"<a>\x01</a>", "<a>\xff</a>", `<a><!-- c -- d --></a>`, `<a><?pi x?></a>`, `<?xml?><a/>`, `text<a/>`, `<a/>text`,
		"<a>x\r\ny\rz</a>", `<a b="&quot;"/>`, `<:a/>`, `<a:/>`, `<a>&#0;</a>`, `<a>&#xD800;</a>`, `<a attr="x<y"/>`,
	} {
		decodeBoth(t, []byte(s))
	}
}

func TestDecodeBadInput(t *testing.T) {
	good := fixture(t, adamsXML)
	for _, bad := range [][]byte{nil, []byte("   "), []byte("not xml"), good[:len(good)/2], []byte(`<html><body>Rate limited</body></html>`),
		[]byte(`<ownershipDocument></ownershipDocument>`), []byte(`<ownershipDocument><documentType>4</documentType></ownershipDocument>`),
		bytes.Replace(good, []byte("<reportingOwner>"), []byte("<reportingOwnerX>"), 1),
	} {
		if _, err := DecodeOwnership(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("DecodeOwnership(%.50q) err = %v, want ErrMalformed", bad, err)
		}
	}
	// A bad number is a problem of the field, not of the document.
	d, err := DecodeOwnership(bytes.Replace(good, []byte("<value>9136</value>"), []byte("<value>9,1x6</value>"), 1))
	if err != nil || d.Transactions[0].Shares != nil || len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "9,1x6") {
		t.Errorf("bad number: %v %+v", err, d.Problems)
	}
	// A DOCTYPE or a Latin-1 document goes to encoding/xml and still reads.
	latin := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" + strings.SplitN(string(good), "\n", 2)[1])
	latin = bytes.Replace(latin, []byte("Adams Katherine L."), []byte("Ad\xe1ms Katherine L."), 1)
	if d, err := DecodeOwnership(latin); err != nil || d.Owners[0].Name != "Adáms Katherine L." {
		t.Errorf("latin-1: %v %+v", err, d)
	}
}

func FuzzDecodeOwnership(f *testing.F) {
	for _, name := range []string{adamsXML, arwXML, scwoXML, f144XML} {
		b := fixture(f, name)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`<a x="1"><b>&amp;&#65;</b><![CDATA[z]]><!-- c --></a>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeBoth(t, b)
		if d, err := DecodeOwnership(b); err == nil {
			if d.DocumentType == "" || d.Issuer.CIK == "" || len(d.Owners) == 0 {
				t.Fatalf("accepted an incomplete document: %+v", d)
			}
		} else if !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
		if _, err := DecodeForm144(b); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
	})
}
