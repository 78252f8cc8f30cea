package ratesview

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// ns returns Unix ns of an RFC 3339 time.
func ns(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func at(s string) time.Time { return time.Unix(0, ns(s)).UTC() }

func rec(read string, body any) *schemas.RatesRecord {
	r := &schemas.RatesRecord{Source: "test", Url: "https://example.test/", ReadTimeNs: ns(read), Publisher: "test publisher"}
	switch b := body.(type) {
	case *schemas.YieldCurve:
		r.Body = &schemas.RatesRecord_Curve{Curve: b}
		r.Source, r.Publisher = "treasury:"+schemas.CurveKindName(b.Kind), "U.S. Department of the Treasury"
	case *schemas.OvernightRate:
		r.Body = &schemas.RatesRecord_Overnight{Overnight: b}
		r.Source = "overnight:" + schemas.OvernightRateName(b.Kind)
	case *schemas.LendingRate:
		r.Body = &schemas.RatesRecord_Lending{Lending: b}
		r.Source = "aave-v3:" + b.Chain
	case *schemas.FundSupply:
		r.Body = &schemas.RatesRecord_FundSupply{FundSupply: b}
		r.Source = "tokenfunds:" + b.Chain
	case *schemas.TreasuryAuction:
		r.Body = &schemas.RatesRecord_Auction{Auction: b}
		r.Source = "treasurydirect"
	case *schemas.RatesFault:
		r.Body = &schemas.RatesRecord_Fault{Fault: b}
		r.Source = b.Scope
	default:
		panic("unknown body")
	}
	return r
}

// curve builds a curve from "tenor=value" pairs.
func curve(kind schemas.CurveKind, date string, pairs ...string) *schemas.YieldCurve {
	c := &schemas.YieldCurve{Kind: kind, Date: date}
	for _, t := range schemas.Tenors {
		for _, p := range pairs {
			k, v, _ := strings.Cut(p, "=")
			if k == t.Name {
				var f float64
				if err := json.Unmarshal([]byte(v), &f); err != nil {
					panic(err)
				}
				c.Points = append(c.Points, &schemas.CurvePoint{Tenor: k, Percent: f})
			}
		}
	}
	return c
}

func nominal(date string, pairs ...string) *schemas.YieldCurve {
	return curve(schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, date, pairs...)
}

func realCurve(date string, pairs ...string) *schemas.YieldCurve {
	return curve(schemas.CurveKind_CURVE_KIND_PAR_REAL, date, pairs...)
}

func f64(v float64) *float64 { return &v }

func mustApply(t testing.TB, v *View, rs ...*schemas.RatesRecord) {
	t.Helper()
	for _, r := range rs {
		if err := v.Apply(r); err != nil {
			t.Fatalf("apply %v: %v", r, err)
		}
	}
}

func toJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if strings.TrimRight(string(want), "\n") != got {
		t.Fatalf("%s differs from the answer (run with -update to accept):\n%s", p, got)
	}
}
