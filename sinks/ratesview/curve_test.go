package ratesview

import (
	"errors"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

// Curves of the as-published 2024 CSV (fixture
// treasury/daily_treasury_par_yield_curve_2024_asPublished.csv), typed from
// its rows 10/10/2024, 10/09/2024, 07/30/2024 and 07/29/2024, and the real
// 10-year yields of FRED's DFII10 (fixture rates/fred_DFII10_*.csv) of
// 2024-07-29 and 07-30.
var (
	par20241010  = nominal("2024-10-10", "1M=4.98", "2M=4.84", "3M=4.75", "4M=4.65", "6M=4.45", "1Y=4.22", "2Y=3.98", "3Y=3.88", "5Y=3.91", "7Y=3.99", "10Y=4.09", "20Y=4.44", "30Y=4.38")
	par20241009  = nominal("2024-10-09", "1M=4.93", "2M=4.84", "3M=4.75", "4M=4.65", "6M=4.46", "1Y=4.24", "2Y=3.99", "3Y=3.89", "5Y=3.91", "7Y=3.97", "10Y=4.06", "20Y=4.41", "30Y=4.34")
	par20240730  = nominal("2024-07-30", "1M=5.50", "2M=5.50", "3M=5.40", "4M=5.35", "6M=5.16", "1Y=4.78", "2Y=4.35", "3Y=4.16", "5Y=4.03", "7Y=4.06", "10Y=4.15", "20Y=4.50", "30Y=4.40")
	real20240730 = realCurve("2024-07-30", "10Y=1.9")
	real20240729 = realCurve("2024-07-29", "10Y=1.92")
)

func testView() *View {
	return New(Config{Notice: "NOTICE", NoticeURL: "https://www.newyorkfed.org/privacy/termsofuse"})
}

func TestCurveChangesSlopesBreakeven(t *testing.T) {
	v := testView()
	mustApply(t, v,
		rec("2024-10-10T22:00:00Z", par20241010),
		rec("2024-10-09T22:00:00Z", par20241009),
		rec("2024-07-30T22:00:00Z", par20240730),
		rec("2024-07-30T22:30:00Z", real20240730),
		rec("2024-07-29T22:30:00Z", real20240729),
	)
	a, err := v.Curve(at("2024-10-11T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	n := a.Nominal
	if n.Date != "2024-10-10" || *n.PreviousDate != "2024-10-09" || n.PreviousBusinessDay != "2024-10-09" || n.AgeDays != 1 || n.PreviousNote != "" {
		t.Fatalf("nominal header %+v", n)
	}
	if len(n.Points) != 14 {
		t.Fatalf("%d points", len(n.Points))
	}
	point := func(tenor string) CurvePoint { return n.point(tenor) }
	f := func(tenor string, yield, prev, change *float64) {
		t.Helper()
		p := point(tenor)
		eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		if !eq(p.Yield, yield) || !eq(p.Previous, prev) || !eq(p.ChangeBp, change) {
			t.Fatalf("%s: %v %v %v", tenor, p.Yield, p.Previous, p.ChangeBp)
		}
	}
	f("1M", f64(4.98), f64(4.93), f64(5))
	f("1.5M", nil, nil, nil) // not published in 2024: null, never zero
	f("10Y", f64(4.09), f64(4.06), f64(3))
	f("2Y", f64(3.98), f64(3.99), f64(-1))
	f("30Y", f64(4.38), f64(4.34), f64(4))
	slopes := map[string]SlopeFigure{}
	for _, s := range a.Slopes {
		slopes[s.Name] = s
	}
	sl := func(name string, bp float64, inverted bool, prev, change float64) {
		t.Helper()
		s := slopes[name]
		if s.Bp == nil || *s.Bp != bp || *s.Inverted != inverted || *s.PreviousBp != prev || *s.ChangeBp != change {
			t.Fatalf("%s: %+v", name, s)
		}
	}
	sl("2s10s", 11, false, 7, 4)
	sl("3m10y", -66, true, -69, 3)
	sl("5s30s", 47, false, 43, 4)
	sl("3m2y", -77, true, -76, -1)
	if a.Real == nil || a.Real.Date != "2024-07-30" || len(a.Real.Points) != 5 || *a.Real.point("10Y").ChangeBp != -2 || a.Real.point("5Y").Yield != nil {
		t.Fatalf("real %+v", a.Real)
	}
	b := a.Breakeven10Y
	if b == nil || b.Date != "2024-07-30" || b.Percent != 2.25 || b.NominalYield != 4.15 || b.RealYield != 1.9 || b.AgeDays != 73 {
		t.Fatalf("breakeven %+v", b)
	}
	if a.Notice != "NOTICE" || a.Calendar == "" || a.Overnight.SOFR != nil {
		t.Fatalf("%+v", a)
	}
}

func TestCurvePreviousBusinessDay(t *testing.T) {
	f := func(date, prevHeld, wantPrevBD, wantPrev, note string) {
		t.Helper()
		v := testView()
		mustApply(t, v, rec("2024-10-20T00:00:00Z", nominal(date, "3M=4.6", "10Y=4.1")))
		if prevHeld != "" {
			mustApply(t, v, rec("2024-10-20T00:00:00Z", nominal(prevHeld, "3M=4.5", "10Y=4.0")))
		}
		a, err := v.Curve(at("2024-10-20T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		n := a.Nominal
		got := ""
		if n.PreviousDate != nil {
			got = *n.PreviousDate
		}
		if n.PreviousBusinessDay != wantPrevBD || got != wantPrev || !strings.Contains(n.PreviousNote, note) {
			t.Fatalf("%s: previous business day %s, compared with %q, note %q", date, n.PreviousBusinessDay, got, n.PreviousNote)
		}
	}
	// Over Columbus Day and the weekend.
	f("2024-10-15", "2024-10-11", "2024-10-11", "2024-10-11", "")
	// A Monday after a weekend.
	f("2024-10-07", "2024-10-04", "2024-10-04", "2024-10-04", "")
	// The previous business day is missing: the latest earlier curve,
	// said so.
	f("2024-10-15", "2024-10-10", "2024-10-11", "2024-10-10", "no curve is held for the previous business day 2024-10-11")
	// Nothing before.
	f("2024-10-15", "", "2024-10-11", "", "or before")
	// Over Good Friday 2024.
	f("2024-04-01", "2024-03-28", "2024-03-28", "2024-03-28", "")
}

// TestCurveRevision: Treasury revises a day already read; the answer shows
// the revised values and counts the revision, whatever the order the two
// reads are applied in.
func TestCurveRevision(t *testing.T) {
	first := rec("2024-10-10T22:00:00Z", par20241010)
	revised := rec("2024-10-11T09:00:00Z", nominal("2024-10-10", "1M=4.98", "2M=4.84", "3M=4.75", "2Y=3.98", "10Y=4.10", "30Y=4.38"))
	again := rec("2024-10-11T10:00:00Z", par20241010) // the first values read again: not a new version
	var answers []string
	for _, order := range [][]*schemas.RatesRecord{{first, revised, again}, {revised, again, first}, {again, first, revised}} {
		v := testView()
		mustApply(t, v, order...)
		a, err := v.Curve(at("2024-10-11T12:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		if a.Nominal.Revisions != 1 || *a.Nominal.point("10Y").Yield != 4.10 || a.Nominal.point("5Y").Yield != nil ||
			a.Nominal.Source.ReadAt != "2024-10-11T09:00:00.000Z" {
			t.Fatalf("revision not shown: %+v", a.Nominal)
		}
		answers = append(answers, toJSON(t, a))
	}
	if answers[0] != answers[1] || answers[1] != answers[2] {
		t.Fatal("the answer depends on the order of the records")
	}
}

func TestCurveNoData(t *testing.T) {
	if _, err := testView().Curve(at("2024-10-11T12:00:00Z")); !errors.Is(err, ErrNoData) {
		t.Fatalf("empty view: %v", err)
	}
	v := testView()
	bad := rec("2024-10-10T22:00:00Z", nominal("2024-10-10"))
	if err := v.Apply(bad); !errors.Is(err, schemas.ErrInvalidRates) {
		t.Fatalf("an empty curve was applied: %v", err)
	}
	if v.Applied() != 0 {
		t.Fatal("a rejected record counted")
	}
}

// TestOvernight uses the recorded NY Fed fixings (fixtures
// rates/nyfed_sofr_search_2024-06-01_2024-06-06.json: 2024-06-05 5.33,
// 2024-06-06 5.33 with percentiles 5.29/5.32/5.40/5.44 and 2,008 bn;
// rates/nyfed_effr_search_*: 2023-06-05 5.08, 06-06 5.08, target
// 5.00-5.25) and FRED's €STR of 2024-06-05 and 06 (3.913, 3.911).
func TestOvernight(t *testing.T) {
	sofr := func(date string, p float64) *schemas.OvernightRate {
		return &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR, Date: date, Percent: p}
	}
	s6 := sofr("2024-06-06", 5.33)
	s6.Percentile_1, s6.Percentile_25, s6.Percentile_75, s6.Percentile_99, s6.Volume = f64(5.29), f64(5.32), f64(5.40), f64(5.44), f64(2008)
	effr := &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_EFFR, Date: "2023-06-06", Percent: 5.08, TargetFrom: f64(5), TargetTo: f64(5.25), Volume: f64(144)}
	estr5 := &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, Date: "2024-06-05", Percent: 3.913}
	estr6 := &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, Date: "2024-06-06", Percent: 3.911}
	v := testView()
	mustApply(t, v,
		rec("2024-06-06T13:00:00Z", s6), rec("2024-06-05T13:00:00Z", sofr("2024-06-05", 5.33)),
		rec("2023-06-06T14:00:00Z", effr),
		rec("2024-06-07T08:00:00Z", estr6), rec("2024-06-06T08:00:00Z", estr5),
	)
	a, err := v.Curve(at("2024-06-07T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	o := a.Overnight
	if a.Nominal != nil || len(a.Slopes) != 0 || a.Breakeven10Y != nil {
		t.Fatalf("curves without data: %+v", a)
	}
	if o.SOFR.Date != "2024-06-06" || o.SOFR.Percent != 5.33 || *o.SOFR.Volume != 2008 || o.SOFR.VolumeUnit != "USD billions" ||
		*o.SOFR.Percentile99 != 5.44 || *o.SOFR.PreviousDate != "2024-06-05" || *o.SOFR.ChangeBp != 0 || o.SOFR.AgeDays != 1 {
		t.Fatalf("SOFR %+v", o.SOFR)
	}
	if o.EFFR.Date != "2023-06-06" || *o.EFFR.TargetFrom != 5 || *o.EFFR.TargetTo != 5.25 || o.EFFR.PreviousDate != nil || o.EFFR.AgeDays != 367 {
		t.Fatalf("EFFR %+v", o.EFFR)
	}
	if o.ESTR.Date != "2024-06-06" || o.ESTR.Percent != 3.911 || *o.ESTR.ChangeBp != -0.2 || o.ESTR.VolumeUnit != "EUR millions" {
		t.Fatalf("ESTR %+v", o.ESTR)
	}
	// The NY Fed flags a revision of SOFR.
	r := sofr("2024-06-06", 5.34)
	r.RevisionIndicator = "Y"
	mustApply(t, v, rec("2024-06-06T15:00:00Z", r))
	a, _ = v.Curve(at("2024-06-07T12:00:00Z"))
	if a.Overnight.SOFR.Percent != 5.34 || !a.Overnight.SOFR.Revised || a.Overnight.SOFR.Revisions != 1 {
		t.Fatalf("revised SOFR %+v", a.Overnight.SOFR)
	}
}
