package fundamentals

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/marketintel/mi/internal/fixtures"
)

func aaplFacts(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "sec/companyfacts_CIK0000320193_AAPL.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeAAPL(t *testing.T) {
	f, err := Decode(aaplFacts(t))
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: Apple Inc., dei + us-gaap, 503 us-gaap concepts, 24,579 facts.
	if f.CIK != 320193 || f.EntityName != "Apple Inc." || f.Skipped != 0 {
		t.Fatalf("cik %d name %q skipped %d (%s)", f.CIK, f.EntityName, f.Skipped, f.SkipReason)
	}
	var usgaap, n int
	for _, c := range f.Concepts {
		if c.Taxonomy == "us-gaap" {
			usgaap++
		}
		for _, facts := range c.Units {
			n += len(facts)
		}
	}
	if usgaap != 503 || n != 24579 {
		t.Errorf("%d us-gaap concepts, %d facts", usgaap, n)
	}
	// The last RevenueFromContractWithCustomerExcludingAssessedTax fact of
	// the 10-K filed 2025-10-31: FY2025 revenue.
	rev := f.Concepts["us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"].Units["USD"]
	want := Fact{Start: 20240929, End: 20250927, Val: 416161000000, Accn: "0000320193-25-000079", FY: 2025, FP: "FY",
		Form: "10-K", Filed: 20251031, Frame: "CY2025"}
	found := false
	for _, x := range rev {
		found = found || x == want
	}
	if !found {
		t.Errorf("no fact %+v", want)
	}
	eps := f.Concepts["us-gaap:EarningsPerShareDiluted"]
	if _, ok := eps.Units["USD/shares"]; !ok {
		t.Errorf("EPS units %v", eps.Units)
	}
}

// decodeBoth runs the scanner and the encoding/json reference and fails
// the test when they disagree.
func decodeBoth(t *testing.T, b []byte) (*Facts, error) {
	t.Helper()
	fast, ferr := decodeFast(b)
	ref, rerr := decodeReference(b)
	if (ferr == nil) != (rerr == nil) {
		t.Fatalf("scanner err %v, reference err %v on %.200q", ferr, rerr, b)
	}
	if ferr != nil {
		if !errors.Is(ferr, ErrMalformed) || !errors.Is(rerr, ErrMalformed) {
			t.Fatalf("errors do not wrap ErrMalformed: %v / %v", ferr, rerr)
		}
		return nil, ferr
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("scanner and reference differ on %.300q:\n%+v\n%+v", b, fast, ref)
	}
	return fast, nil
}

func TestDecodeScannerMatchesReference(t *testing.T) {
	full := aaplFacts(t)
	decodeBoth(t, full)
	cases := []string{
		``, ` `, `null`, `[]`, `{}`, `{"cik":320193}`, `{"cik":320193,"facts":null}`, `{"cik":320193,"facts":{}}`,
		`{"cik":"320193","facts":{}}`, `{"cik":"0000320193","entityName":null,"facts":{}}`, `{"cik":0,"facts":{}}`,
		`{"cik":-1,"facts":{}}`, `{"cik":1.5,"facts":{}}`, `{"cik":{"a":1},"facts":{}}`, `{"cik":1,"facts":{}} x`,
		`{"cik":1,"facts":{"us-gaap":null}}`, `{"cik":1,"facts":{"us-gaap":{"X":null}}}`, `{"cik":1,"facts":{"us-gaap":{"X":{}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":null}}}}`, `{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":null}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[]}}}}}`, `{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[null]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":5,"accn":"a","filed":"2024-02-01"}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"END":"2024-01-31","Val":"5e3","accn":"a","filed":"2024-02-01","fy":null,"fp":null}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":"x","accn":"a","filed":"2024-02-01"}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":true}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":1,"fy":2024.5}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":1,"fy":99999999999}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-13-31","val":1e999,"accn":"a","filed":"2024-02-01"}]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"label":"a\u00e9\ud83d\ude00\ud800b","units":{"USD":[{"end":"2024-01-31","val":-0.5,"accn":"a\"b","filed":"2024-02-01","frame":"CY2024Q1I"}]}}}}}`,
		`{"cik":1,"facts":{"a":{}},"facts":{"b":{}}}`, `{"cik":1,"facts":{"a":{}},"facts":null}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[]},"units":{"EUR":[]}}}}}`,
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31"}],"USD":[]}}}}}`,
		`{"cik":1,"skip":[1,{"a":[true,false,null,"x"]},-2.5e-3],"facts":{}}`, `{"cik":1,"skip":[1,],"facts":{}}`,
		`{"cik":1,"skip":01,"facts":{}}`, `{"cik":1,"skip":"\x","facts":{}}`, "{\"cik\":1,\"skip\":\"a\x01\",\"facts\":{}}",
		`{"cik":1,"facts":{"us-gaap":{"X":{"units":{"USD":[{"end":"2024-01-31","val":1,"accn":"a","filed":"2024-02-01","start":"2024-02-01"}]}}}}}`,
	}
	for _, c := range cases {
		decodeBoth(t, []byte(c))
	}
	// Every cut of a real document (every 97th byte of the first 20k).
	for i := 0; i < 20000; i += 97 {
		decodeBoth(t, full[:i])
	}
}

func TestDecodeSkipsBadFacts(t *testing.T) {
	f, err := Decode([]byte(`{"cik":1,"entityName":" X ","facts":{"us-gaap":{"A":{"units":{"USD":[
		{"end":"2024-01-31","val":1,"accn":"a","filed":"2024-02-01"},
		{"end":"2024-02-30","val":1,"accn":"a","filed":"2024-02-01"},
		{"end":"2024-01-31","val":"1e999","accn":"a","filed":"2024-02-01"},
		{"end":"2024-01-31","val":1,"filed":"2024-02-01"}]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.EntityName != "X" || f.Skipped != 3 || !strings.Contains(f.SkipReason, `end "2024-02-30"`) || len(f.Concepts["us-gaap:A"].Units["USD"]) != 1 {
		t.Errorf("%+v", f)
	}
}

func TestDate(t *testing.T) {
	f := func(s string, want Date, ok bool) {
		t.Helper()
		got, gotOK := ParseDate(s)
		if got != want || gotOK != ok {
			t.Errorf("ParseDate(%q) = %v, %v", s, got, gotOK)
		}
		if ok && got.String() != s {
			t.Errorf("String() = %q", got.String())
		}
	}
	f("2025-09-27", 20250927, true)
	f("2024-02-29", 20240229, true)
	f("2023-02-29", 0, false)
	f("2100-02-29", 0, false)
	f("2000-02-29", 20000229, true)
	f("2025-9-27", 0, false)
	f("", 0, false)
	f("2025-09-31", 0, false)
	d := func(a, b Date, want int) {
		t.Helper()
		if got := a.DaysTo(b); got != want {
			t.Errorf("%v→%v = %d days, want %d", a, b, got, want)
		}
	}
	d(20240929, 20250927, 363)
	d(20231001, 20240928, 363)
	d(19700101, 19700101, 0)
	d(20240101, 20250101, 366)
	d(20250927, 20240929, -363)
	if Date(19700101).Days() != 0 || Date(20000301).Days() != 11017 {
		t.Error("Days")
	}
}

func FuzzDecode(f *testing.F) {
	full := aaplFacts(f)
	f.Add(full[:4096])
	f.Add([]byte(`{"cik":1,"facts":{"us-gaap":{"X":{"label":"l","units":{"USD":[{"start":"2024-01-01","end":"2024-01-31","val":5,"accn":"a","fy":2024,"fp":"Q1","form":"10-Q","filed":"2024-02-01","frame":"CY2024Q1"}]}}}}}`))
	f.Add([]byte(`{"cik":"1","facts":{"dei":{"X":{"units":{"shares":[{"end":"2024-01-31","val":"5","accn":"a","filed":"2024-02-01"},null]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ascii := true
		for _, c := range b {
			ascii = ascii && c < utf8.RuneSelf
		}
		if !ascii || bytes.Contains(b, []byte(`\u`)) {
			// Non-ASCII field names fold by Unicode rules in
			// encoding/json; only check the scanner does not panic and
			// fails cleanly.
			if _, err := decodeFast(b); err != nil && !errors.Is(err, ErrMalformed) {
				t.Fatal(err)
			}
			return
		}
		decodeBoth(t, b)
	})
}
