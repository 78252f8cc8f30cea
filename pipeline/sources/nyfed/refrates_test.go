package nyfed

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

const (
	fixSOFR = "rates/nyfed_sofr_search_2024-06-01_2024-06-06.json"
	fixEFFR = "rates/nyfed_effr_search_2023-01-01_2023-06-06.json"
)

func readFixture(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, rel))
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
	return fmt.Sprintf("%s %s %v p1=%s p25=%s p75=%s p99=%s vol=%s target=%s..%s rev=%q",
		schemas.OvernightRateName(o.Kind), o.Date, o.Percent, f(o.Percentile_1), f(o.Percentile_25), f(o.Percentile_75),
		f(o.Percentile_99), f(o.Volume), f(o.TargetFrom), f(o.TargetTo), o.RevisionIndicator)
}

// TestParseRefRatesFixtures reads the recorded SOFR and EFFR searches;
// figures read by hand from the files (first entry of each).
func TestParseRefRatesFixtures(t *testing.T) {
	f := func(rel string, n int, date, want string) {
		t.Helper()
		res, err := ParseRefRates(readFixture(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rates) != n || len(res.Rejected) != 0 || len(res.Unknown) != 0 {
			t.Fatalf("%s: %d rates, rejected %+v, unknown %v", rel, len(res.Rates), res.Rejected, res.Unknown)
		}
		for i := 1; i < len(res.Rates); i++ {
			if res.Rates[i-1].Date >= res.Rates[i].Date {
				t.Fatalf("%s: not in date order at %s", rel, res.Rates[i].Date)
			}
		}
		for _, o := range res.Rates {
			if o.Date == date {
				if got := rateString(o); got != want {
					t.Fatalf("\ngot  %s\nwant %s", got, want)
				}
				return
			}
		}
		t.Fatalf("%s: no rate of %s", rel, date)
	}
	f(fixSOFR, 4, "2024-06-06", `sofr 2024-06-06 5.33 p1=5.29 p25=5.32 p75=5.4 p99=5.44 vol=2008 target=-..- rev=""`)
	f(fixSOFR, 4, "2024-06-03", `sofr 2024-06-03 5.35 p1=5.29 p25=5.32 p75=5.4 p99=5.44 vol=1912 target=-..- rev=""`)
	f(fixEFFR, 108, "2023-06-06", `effr 2023-06-06 5.08 p1=5.05 p25=5.06 p75=5.08 p99=5.3 vol=144 target=5..5.25 rev=""`)
}

func TestParseRefRatesMalformed(t *testing.T) {
	f := func(name, in, phrase string, rejected int, unknown string) {
		t.Helper()
		res, err := ParseRefRates([]byte(in))
		if rejected < 0 {
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), phrase) {
				t.Fatalf("%s: error %v, want %q", name, err, phrase)
			}
			return
		}
		if err != nil || len(res.Rejected) != rejected || strings.Join(res.Unknown, ",") != unknown {
			t.Fatalf("%s: %v, rejected %+v, unknown %v", name, err, res.Rejected, res.Unknown)
		}
		for _, r := range res.Rejected {
			if !strings.HasPrefix(r.Reason, phrase) {
				t.Fatalf("%s: reason %q, want %q", name, r.Reason, phrase)
			}
		}
	}
	sofr := readFixture(t, fixSOFR)
	f("empty", "", "malformed json", -1, "")
	f("truncated", string(sofr[:len(sofr)/2]), "malformed json", -1, "")
	f("html", "<html>Access denied</html>", "malformed json", -1, "")
	f("no refRates", `{"error":"x"}`, "malformed json", -1, "")
	f("bad date", `{"refRates":[{"effectiveDate":"06/06/2024","type":"SOFR","percentRate":5.33}]}`, "bad date", 1, "")
	f("no rate", `{"refRates":[{"effectiveDate":"2024-06-06","type":"SOFR"}]}`, "bad rate", 1, "")
	f("absurd rate", `{"refRates":[{"effectiveDate":"2024-06-06","type":"SOFR","percentRate":533}]}`, "bad rate", 1, "")
	f("string rate", `{"refRates":[{"effectiveDate":"2024-06-06","type":"SOFR","percentRate":"5.33"}]}`, "", 0, "")
	f("bad element", `{"refRates":[[1]]}`, "malformed json", 1, "")
	f("other rates", `{"refRates":[{"effectiveDate":"2024-06-06","type":"TGCR","percentRate":5.31},{"effectiveDate":"2024-06-06","type":"BGCR","percentRate":5.31}]}`, "", 0, "BGCR,TGCR")
	// A revised rate carries the publisher's flag.
	res, err := ParseRefRates([]byte(`{"refRates":[{"effectiveDate":"2024-06-06","type":"SOFR","percentRate":5.34,"revisionIndicator":"Y"}]}`))
	if err != nil || res.Rates[0].RevisionIndicator != "Y" || res.Rates[0].Percent != 5.34 {
		t.Fatalf("revision: %v %+v", err, res.Rates)
	}
}

func TestNotice(t *testing.T) {
	n := Notice("Example Markets")
	for _, want := range []string{
		"subject to the Terms of Use posted at newyorkfed.org",
		"The New York Fed is not responsible for publication of the SOFR and EFFR data by Example Markets, does not sanction or endorse any particular republication, and has no liability for your use.",
		"DTCC Solutions LLC",
	} {
		if !strings.Contains(n, want) {
			t.Fatalf("notice lacks %q:\n%s", want, n)
		}
	}
	if strings.ContainsAny(n, "[]*") {
		t.Fatalf("notice keeps a template mark: %s", n)
	}
}

func FuzzParseRefRates(f *testing.F) {
	f.Add(readFixture(f, fixSOFR))
	f.Add(readFixture(f, fixEFFR)[:1500])
	f.Add([]byte(`{"refRates":[{"effectiveDate":"2024-06-06","type":"SOFR","percentRate":"5.33","revisionIndicator":"Y"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseRefRates(b)
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
	})
}
