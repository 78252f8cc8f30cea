package treasury

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

const (
	fixParXML2022 = "treasury/daily_treasury_par_yield_curve_2022_feed.xml"
	fixParCSV2024 = "treasury/daily_treasury_par_yield_curve_2024_asPublished.csv"
)

func readFixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// curveString renders a curve as "date tenor=v tenor=v ...".
func curveString(c *schemas.YieldCurve) string {
	var sb strings.Builder
	sb.WriteString(c.Date)
	for _, p := range c.Points {
		sb.WriteString(" " + p.Tenor + "=" + strconv.FormatFloat(p.Percent, 'f', -1, 64))
	}
	return sb.String()
}

func findCurve(t *testing.T, cs []*schemas.YieldCurve, date string) string {
	t.Helper()
	for _, c := range cs {
		if c.Date == date {
			return curveString(c)
		}
	}
	t.Fatalf("no curve of %s", date)
	return ""
}

// TestParseCurveXMLFixture reads the as-published 2022 feed. Figures read
// by hand from the fixture: the first entry (2022-01-03) and the last
// (2022-03-11); the feed has no BC_1_5MONTH or BC_4MONTH yet.
func TestParseCurveXMLFixture(t *testing.T) {
	res, err := ParseCurveXML(readFixture(t, fixParXML2022), schemas.CurveKind_CURVE_KIND_PAR_NOMINAL)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curves) != 48 || len(res.Rejected) != 0 || len(res.Unknown) != 0 {
		t.Fatalf("%d curves, %d rejected, unknown %v", len(res.Curves), len(res.Rejected), res.Unknown)
	}
	f := func(date, want string) {
		t.Helper()
		if got := findCurve(t, res.Curves, date); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	f("2022-01-03", "2022-01-03 1M=0.05 2M=0.06 3M=0.08 6M=0.22 1Y=0.4 2Y=0.78 3Y=1.04 5Y=1.37 7Y=1.55 10Y=1.63 20Y=2.05 30Y=2.01")
	f("2022-03-11", "2022-03-11 1M=0.17 2M=0.28 3M=0.4 6M=0.78 1Y=1.22 2Y=1.75 3Y=1.91 5Y=1.96 7Y=2.01 10Y=2 20Y=2.45 30Y=2.36")
	if res.Curves[0].Date != "2022-01-03" || res.Curves[47].Date != "2022-03-11" {
		t.Fatalf("not in date order: %s .. %s", res.Curves[0].Date, res.Curves[47].Date)
	}
}

// TestParseCurveCSVFixture reads the as-published 2024 CSV (newest first).
// Figures read by hand from its rows 10/10/2024 and 01/02/2024.
func TestParseCurveCSVFixture(t *testing.T) {
	res, err := ParseCurveCSV(readFixture(t, fixParCSV2024), schemas.CurveKind_CURVE_KIND_PAR_NOMINAL)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curves) != 196 || len(res.Rejected) != 0 || len(res.Unknown) != 0 {
		t.Fatalf("%d curves, %d rejected, unknown %v", len(res.Curves), len(res.Rejected), res.Unknown)
	}
	f := func(date, want string) {
		t.Helper()
		if got := findCurve(t, res.Curves, date); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	f("2024-10-10", "2024-10-10 1M=4.98 2M=4.84 3M=4.75 4M=4.65 6M=4.45 1Y=4.22 2Y=3.98 3Y=3.88 5Y=3.91 7Y=3.99 10Y=4.09 20Y=4.44 30Y=4.38")
	if res.Curves[0].Date != "2024-01-02" || res.Curves[195].Date != "2024-10-10" {
		t.Fatalf("not in date order: %s .. %s", res.Curves[0].Date, res.Curves[195].Date)
	}
}

func TestParseCurveHandmade(t *testing.T) {
	real := schemas.CurveKind_CURVE_KIND_PAR_REAL
	nominal := schemas.CurveKind_CURVE_KIND_PAR_NOMINAL
	f := func(file string, csv bool, kind schemas.CurveKind, want []string, rejected int, unknown string) {
		t.Helper()
		var res CurveResult
		var err error
		if csv {
			res, err = ParseCurveCSV(readTestdata(t, file), kind)
		} else {
			res, err = ParseCurveXML(readTestdata(t, file), kind)
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range res.Curves {
			got = append(got, curveString(c))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s:\ngot  %s\nwant %s", file, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
		if len(res.Rejected) != rejected {
			t.Fatalf("%s: %d rejected, want %d: %+v", file, len(res.Rejected), rejected, res.Rejected)
		}
		for _, r := range res.Rejected {
			if !strings.HasPrefix(r.Reason, "bad rate") || len(r.Raw) == 0 {
				t.Fatalf("%s: rejection %q of %q", file, r.Reason, r.Raw)
			}
		}
		if strings.Join(res.Unknown, ",") != unknown {
			t.Fatalf("%s: unknown %v, want %s", file, res.Unknown, unknown)
		}
	}
	f("handmade_real_yield_curve_feed.xml", false, real, []string{
		"2026-01-02 5Y=1.41 7Y=1.62 10Y=1.88 20Y=2.3 30Y=2.52",
		"2026-01-05 5Y=1.39 7Y=1.6 10Y=1.85 30Y=2.5",
		"2026-01-06 5Y=-0.12 10Y=1.86 30Y=2.51",
		"2026-01-07 10Y=1.9",
	}, 0, "TC_15YEAR")
	f("handmade_real_yield_curve.csv", true, real, []string{
		"2026-01-02 5Y=1.41 7Y=1.62 10Y=1.88 20Y=2.3 30Y=2.52",
		"2026-01-05 5Y=1.39 7Y=1.6 10Y=1.85 30Y=2.5",
		"2026-01-06 5Y=-0.12 10Y=1.86 30Y=2.51",
	}, 0, "")
	f("handmade_par_yield_curve_feed_2025.xml", false, nominal, []string{
		"2025-03-03 1M=4.36 1.5M=4.35 2M=4.34 3M=4.33 4M=4.31 6M=4.26 1Y=4.09 2Y=3.94 3Y=3.92 5Y=3.97 7Y=4.07 10Y=4.16 20Y=4.47 30Y=4.42",
		"2025-03-04 1M=4.37 2M=4.35 3M=4.34 10Y=4.22 30Y=4.5",
	}, 1, "")
	// A nominal feed read as the real curve has only unknown fields.
	f("handmade_par_yield_curve_feed_2025.xml", false, real, nil, 3, "BC_10YEAR,BC_1MONTH,BC_1YEAR,BC_1_5MONTH,BC_20YEAR,BC_2MONTH,BC_2YEAR,BC_30YEAR,BC_3MONTH,BC_3YEAR,BC_4MONTH,BC_5YEAR,BC_6MONTH,BC_7YEAR")
}

func TestParseCurveMalformed(t *testing.T) {
	nominal := schemas.CurveKind_CURVE_KIND_PAR_NOMINAL
	xmlFix := readFixture(t, fixParXML2022)
	csvFix := readFixture(t, fixParCSV2024)
	f := func(name string, csv bool, in []byte, phrase string) {
		t.Helper()
		var err error
		if csv {
			_, err = ParseCurveCSV(in, nominal)
		} else {
			_, err = ParseCurveXML(in, nominal)
		}
		if err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), phrase) {
			t.Fatalf("%s: error %v, want %q wrapping ErrMalformed", name, err, phrase)
		}
	}
	f("empty xml", false, nil, "malformed xml")
	f("json", false, []byte(`{"a":1}`), "malformed xml")
	f("truncated feed", false, xmlFix[:len(xmlFix)/2], "malformed xml")
	f("html", false, []byte("<html><body>Service Unavailable</body></html>"), "malformed xml: no Atom feed")
	f("empty csv", true, nil, "malformed csv")
	f("csv without Date", true, []byte("a,b\n1,2\n"), "malformed csv")
	f("csv bare quote", true, []byte("Date,\"1 Mo\"\n10/10/2024,\"4.9\n"), "malformed csv")
	// A truncated CSV loses rows, not the document: the cut row is rejected.
	res, err := ParseCurveCSV(csvFix[:len(csvFix)-20], nominal)
	if err != nil || len(res.Curves) != 195 || len(res.Rejected) != 1 {
		t.Fatalf("truncated csv: %v, %d curves, %+v", err, len(res.Curves), res.Rejected)
	}
	res, err = ParseCurveCSV([]byte("Date,\"1 Mo\",\"2 Mo\"\n13/40/2024,1,2\n10/10/2024,x,2\n10/11/2024,1\n10/14/2024,,\n"), nominal)
	if err != nil || len(res.Curves) != 0 || len(res.Rejected) != 4 {
		t.Fatalf("bad rows: %v, %d curves, %+v", err, len(res.Curves), res.Rejected)
	}
	for i, phrase := range []string{"bad date", "bad rate", "malformed csv", "bad rate"} {
		if !strings.HasPrefix(res.Rejected[i].Reason, phrase) {
			t.Fatalf("row %d: %q, want %q", i, res.Rejected[i].Reason, phrase)
		}
	}
}

func FuzzParseCurveXML(f *testing.F) {
	xmlFix := readFixture(f, fixParXML2022)
	f.Add(xmlFix[:4000])
	f.Add(readTestdata(f, "handmade_real_yield_curve_feed.xml"))
	f.Add(readTestdata(f, "handmade_par_yield_curve_feed_2025.xml"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, kind := range []schemas.CurveKind{schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, schemas.CurveKind_CURVE_KIND_PAR_REAL} {
			res, err := ParseCurveXML(b, kind)
			checkCurveResult(t, res, err, kind)
		}
	})
}

func FuzzParseCurveCSV(f *testing.F) {
	csvFix := readFixture(f, fixParCSV2024)
	f.Add(csvFix[:2000])
	f.Add(readTestdata(f, "handmade_real_yield_curve.csv"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, kind := range []schemas.CurveKind{schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, schemas.CurveKind_CURVE_KIND_PAR_REAL} {
			res, err := ParseCurveCSV(b, kind)
			checkCurveResult(t, res, err, kind)
		}
	})
}

// checkCurveResult asserts what every parse must give: an ErrMalformed
// error, or curves that pass schemas.ValidateRates and rejections with a
// reason.
func checkCurveResult(t *testing.T, res CurveResult, err error, kind schemas.CurveKind) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		return
	}
	for _, c := range res.Curves {
		rec := &schemas.RatesRecord{Source: "fuzz", ReadTimeNs: schemas.MinEventTimeNs, Body: &schemas.RatesRecord_Curve{Curve: c}}
		if err := schemas.ValidateRates(rec); err != nil || c.Kind != kind {
			t.Fatalf("invalid curve %v: %v", c, err)
		}
	}
	for _, r := range res.Rejected {
		if r.Reason == "" {
			t.Fatal("rejection without a reason")
		}
	}
}
