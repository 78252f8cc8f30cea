package ecb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/fred"
	"github.com/marketintel/mi/schemas"
)

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func rateString(o *schemas.OvernightRate) string {
	f := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	return fmt.Sprintf("%s %v p25=%s p75=%s vol=%s", o.Date, o.Percent, f(o.Percentile_25), f(o.Percentile_75), f(o.Volume))
}

// TestParseHandmade reads both formats of the same days: they must give
// the same rates.
func TestParseHandmade(t *testing.T) {
	want := []string{
		"2024-06-03 3.913 p25=- p75=- vol=50910",
		"2024-06-04 3.911 p25=- p75=- vol=55061",
		"2024-06-05 3.913 p25=- p75=- vol=55950",
		"2024-06-06 3.911 p25=3.88 p75=3.95 vol=52206",
	}
	for _, tc := range []struct {
		file  string
		parse func([]byte) (Result, error)
	}{{"handmade_estr_csvdata.csv", ParseCSV}, {"handmade_estr_jsondata.json", ParseJSON}} {
		res, err := tc.parse(readTestdata(t, tc.file))
		if err != nil || len(res.Rejected) != 0 {
			t.Fatalf("%s: %v, rejected %+v", tc.file, err, res.Rejected)
		}
		var got []string
		for _, o := range res.Rates {
			if o.Kind != schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR {
				t.Fatalf("%s: kind %v", tc.file, o.Kind)
			}
			got = append(got, rateString(o))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s:\ngot  %s\nwant %s", tc.file, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
	}
}

// TestSameRatesAsFRED checks the hand-made portal answer against the real
// FRED capture of the same days (rates within FRED's float text).
func TestSameRatesAsFRED(t *testing.T) {
	b, err := os.ReadFile(fixtures.Path(t, "rates/fred_ECBESTRVOLWGTTRMDMNRT_estr_2024-06-03_2024-06-06.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := fred.ParseObservationsJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseCSV(readTestdata(t, "handmade_estr_csvdata.csv"))
	if err != nil || len(res.Rates) != len(s.Observations) {
		t.Fatalf("%v: %d rates, FRED has %d", err, len(res.Rates), len(s.Observations))
	}
	for i, o := range s.Observations {
		if res.Rates[i].Date != o.Date || fmt.Sprintf("%.3f", res.Rates[i].Percent) != fmt.Sprintf("%.3f", o.Value) {
			t.Fatalf("%s: portal %v, FRED %v", o.Date, res.Rates[i].Percent, o.Value)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	f := func(name string, csv bool, in, phrase string, rejected int) {
		t.Helper()
		var res Result
		var err error
		if csv {
			res, err = ParseCSV([]byte(in))
		} else {
			res, err = ParseJSON([]byte(in))
		}
		if rejected < 0 {
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), phrase) {
				t.Fatalf("%s: error %v, want %q", name, err, phrase)
			}
			return
		}
		if err != nil || len(res.Rejected) != rejected {
			t.Fatalf("%s: %v, rejected %+v", name, err, res.Rejected)
		}
		for _, r := range res.Rejected {
			if !strings.HasPrefix(r.Reason, phrase) {
				t.Fatalf("%s: reason %q, want %q", name, r.Reason, phrase)
			}
		}
	}
	const h = "KEY,TIME_PERIOD,OBS_VALUE\n"
	f("empty", true, "", "malformed csv", -1)
	f("no OBS_VALUE", true, "KEY,TIME_PERIOD\n", "malformed csv", -1)
	f("bad value", true, h+"EST.B.EU000A2X2A25.WT,2024-06-03,x\n", "bad value", 1)
	f("bad date", true, h+"EST.B.EU000A2X2A25.WT,03/06/2024,3.9\n", "bad date", 1)
	f("absurd rate", true, h+"EST.B.EU000A2X2A25.WT,2024-06-03,391\n", "bad value", 1)
	f("negative volume", true, h+"EST.B.EU000A2X2A25.TT,2024-06-03,-1\n", "bad value", 1)
	f("short row", true, h+"EST.B.EU000A2X2A25.WT,2024-06-03\n", "malformed csv", 1)
	f("other series skipped", true, h+"EXR.D.USD.EUR.SP00.A,2024-06-03,1.08\nEST.B.EU000A2X2A25.NT,2024-06-03,600\n", "", 0)
	f("volume without a rate", true, h+"EST.B.EU000A2X2A25.TT,2024-06-03,50000\n", "", 0)
	f("json garbage", false, "<xml/>", "malformed json", -1)
	f("json no time", false, `{"dataSets":[{}],"structure":{"dimensions":{"observation":[{"id":"X"}]}}}`, "malformed json", -1)
	js := string(readTestdata(t, "handmade_estr_jsondata.json"))
	f("json bad key", false, strings.Replace(js, `"0:0:4"`, `"0:0"`, 1), "malformed json", 1)
	f("json key out of range", false, strings.Replace(js, `"0:0:4"`, `"0:0:9"`, 1), "malformed json", 1)
	f("json bad observation", false, strings.Replace(js, `"4":[null,1,0,null]`, `"7":[3.9]`, 1), "malformed json", 1)
	f("json string value", false, strings.Replace(js, `"2":[3.913,0,0,null]`, `"2":["x",0,0,null]`, 1), "bad value", 1)
	res, _ := ParseCSV([]byte(h + "EST.B.EU000A2X2A25.TT,2024-06-03,50000\n"))
	if len(res.Rates) != 0 {
		t.Fatalf("a date with a volume and no rate became a rate: %+v", res.Rates)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add(readTestdata(f, "handmade_estr_csvdata.csv"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseCSV(b)
		check(t, res, err)
	})
}

func FuzzParseJSON(f *testing.F) {
	f.Add(readTestdata(f, "handmade_estr_jsondata.json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseJSON(b)
		check(t, res, err)
	})
}

func check(t *testing.T, res Result, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		return
	}
	for _, o := range res.Rates {
		rec := &schemas.RatesRecord{Source: "fuzz", ReadTimeNs: schemas.MinEventTimeNs, Body: &schemas.RatesRecord_Overnight{Overnight: o}}
		if err := schemas.ValidateRates(rec); err != nil {
			t.Fatalf("invalid rate %v: %v", o, err)
		}
	}
	for _, r := range res.Rejected {
		if r.Reason == "" {
			t.Fatal("rejection without a reason")
		}
	}
}
