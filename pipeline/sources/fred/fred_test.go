package fred

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators/rates"
)

func readFixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func value(t *testing.T, s Series, date string) float64 {
	t.Helper()
	for _, o := range s.Observations {
		if o.Date == date {
			return o.Value
		}
	}
	t.Fatalf("%s: no value on %s", s.ID, date)
	return 0
}

// TestParseCSVFixtures reads the fredgraph CSVs; counts and last values
// as SOURCES.md lists them (16,332 rows of which 696 "." for DGS10).
func TestParseCSVFixtures(t *testing.T) {
	f := func(rel, id string, n, missing int, date string, want float64) {
		t.Helper()
		s, err := ParseCSV(readFixture(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != id || len(s.Observations) != n || s.Missing != missing || len(s.Rejected) != 0 {
			t.Fatalf("%s: id %s, %d values, %d missing, rejected %v", rel, s.ID, len(s.Observations), s.Missing, s.Rejected)
		}
		if got := value(t, s, date); got != want {
			t.Fatalf("%s on %s = %v, want %v", id, date, got, want)
		}
		if s.Observations[len(s.Observations)-1].Date != date {
			t.Fatalf("%s: last date %s", id, s.Observations[len(s.Observations)-1].Date)
		}
	}
	f("rates/fred_DGS10_1962-01-02_2024-08-07.csv", "DGS10", 16332-696, 696, "2024-08-07", 3.96)
	dfii := "rates/fred_DFII10_real_yield_2003-01-02_2024-07-30.csv"
	f(dfii, "DFII10", 5629-countDots(t, dfii), countDots(t, dfii), "2024-07-30", 1.9)
	t10 := "rates/fred_T10YIE_breakeven_2010-01-04_2020-06-30.csv"
	f(t10, "T10YIE", 2737-countDots(t, t10), countDots(t, t10), "2020-06-30", 1.34)
}

// countDots counts the rows FRED marks missing in a fixture, by a second,
// plain reading of the file.
func countDots(t *testing.T, rel string) int {
	n := 0
	for _, line := range strings.Split(string(readFixture(t, rel)), "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), ",.") {
			n++
		}
	}
	return n
}

// TestParseObservationsJSONFixtures reads the recorded €STR observations;
// values as in the files (FRED's float text 3.9130000000000003 included).
func TestParseObservationsJSONFixtures(t *testing.T) {
	s, err := ParseObservationsJSON(readFixture(t, "rates/fred_ECBESTRVOLWGTTRMDMNRT_estr_2024-06-03_2024-06-06.json"))
	if err != nil || len(s.Observations) != 4 || s.Missing != 0 {
		t.Fatalf("%v %+v", err, s)
	}
	if value(t, s, "2024-06-03") != 3.9130000000000003 || value(t, s, "2024-06-06") != 3.911 {
		t.Fatalf("%+v", s.Observations)
	}
	v, err := ParseObservationsJSON(readFixture(t, "rates/fred_ECBESTRTOTVOL_estr_total_volume_2024-06-03_2024-06-06.json"))
	if err != nil || value(t, v, "2024-06-03") != 50910 || value(t, v, "2024-06-06") != 52206 {
		t.Fatalf("%v %+v", err, v)
	}
}

func TestParseMalformed(t *testing.T) {
	f := func(name string, csv bool, in, phrase string, rejected int) {
		t.Helper()
		var s Series
		var err error
		if csv {
			s, err = ParseCSV([]byte(in))
		} else {
			s, err = ParseObservationsJSON([]byte(in))
		}
		if rejected < 0 {
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), phrase) {
				t.Fatalf("%s: error %v, want %q", name, err, phrase)
			}
			return
		}
		if err != nil || len(s.Rejected) != rejected {
			t.Fatalf("%s: %v, rejected %v", name, err, s.Rejected)
		}
		for _, r := range s.Rejected {
			if !strings.HasPrefix(r.Reason, phrase) {
				t.Fatalf("%s: reason %q, want %q", name, r.Reason, phrase)
			}
		}
	}
	f("empty csv", true, "", "malformed csv", -1)
	f("three columns", true, "DATE,A,B\n", "malformed csv", -1)
	f("html", true, "<html>\n", "malformed csv", -1)
	f("bad value", true, "DATE,DGS10\n2024-01-02,x\n2024-01-03,4.1\n", "bad value", 1)
	f("bad date", true, "observation_date,DGS10\n01/02/2024,4\n", "bad date", 1)
	f("short row", true, "DATE,DGS10\n2024-01-02\n", "malformed csv", 1)
	f("missing kept out", true, "DATE,DGS10\n2024-01-01,.\n2024-01-02,\n2024-01-03,4.1\n", "", 0)
	f("json not object", false, "[1]", "malformed json", -1)
	f("json no observations", false, `{"error_code":400}`, "malformed json", -1)
	f("json bad value", false, `{"observations":[{"date":"2024-06-03","value":"n/a"}]}`, "bad value", 1)
	f("json number value", false, `{"observations":[{"date":"2024-06-03","value":3.9}]}`, "malformed json", 1)
	s, _ := ParseCSV([]byte("DATE,X\n2024-01-03,2\n2024-01-01,.\n2024-01-02,1\n2024-01-03,3\n"))
	if len(s.Observations) != 2 || s.Observations[0].Date != "2024-01-02" || s.Observations[1].Value != 3 || s.Missing != 1 {
		t.Fatalf("order and doubles: %+v", s)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add(readFixture(f, "rates/fred_DFII10_real_yield_2003-01-02_2024-07-30.csv")[:600])
	f.Add([]byte("observation_date,DGS10\n2024-01-01,.\n2024-01-02,4.1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseCSV(b)
		check(t, s, err)
	})
}

func FuzzParseObservationsJSON(f *testing.F) {
	f.Add(readFixture(f, "rates/fred_ECBESTRVOLWGTTRMDMNRT_estr_2024-06-03_2024-06-06.json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseObservationsJSON(b)
		check(t, s, err)
	})
}

func check(t *testing.T, s Series, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		return
	}
	for i, o := range s.Observations {
		if len(o.Date) != 10 || o.Value != o.Value || (i > 0 && s.Observations[i-1].Date >= o.Date) {
			t.Fatalf("bad observation %+v", o)
		}
	}
	for _, r := range s.Rejected {
		if r.Reason == "" {
			t.Fatal("rejection without a reason")
		}
	}
}

// TestBreakevenMatchesT10YIE checks the breakeven formula of the curve
// route (operators/rates.BreakevenPercent: nominal 10-year minus real
// 10-year) against FRED's own 10-year breakeven, T10YIE: on every one of
// the 2,626 days of 2010-2020 with all three series, DGS10 − DFII10 is
// T10YIE to the published two decimals.
func TestBreakevenMatchesT10YIE(t *testing.T) {
	read := func(rel string) map[string]float64 {
		s, err := ParseCSV(readFixture(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, o := range s.Observations {
			m[o.Date] = o.Value
		}
		return m
	}
	nominal := read("rates/fred_DGS10_1962-01-02_2024-08-07.csv")
	real := read("rates/fred_DFII10_real_yield_2003-01-02_2024-07-30.csv")
	be := read("rates/fred_T10YIE_breakeven_2010-01-04_2020-06-30.csv")
	n := 0
	for d, want := range be {
		nv, ok1 := nominal[d]
		rv, ok2 := real[d]
		if !ok1 || !ok2 {
			continue
		}
		n++
		if got := rates.BreakevenPercent(nv, rv); math.Round(got*100)/100 != want {
			t.Fatalf("%s: %v − %v = %v, T10YIE %v", d, nv, rv, got, want)
		}
	}
	if n != 2626 {
		t.Fatalf("compared %d days", n)
	}
}
