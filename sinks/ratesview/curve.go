package ratesview

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/operators/rates"
	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/schemas"
)

// CurveAnswer is the answer of /api/v1/rates/curve.
type CurveAnswer struct {
	// AsOf is the time of the question.
	AsOf string `json:"asOf"`
	// Nominal is the latest Treasury par yield curve, null before the
	// first; Real the latest par real yield curve.
	Nominal *Curve `json:"nominal"`
	Real    *Curve `json:"real"`
	// Slopes of the nominal curve: 2s10s, 3m10y, 5s30s, 3m2y.
	Slopes []SlopeFigure `json:"slopes"`
	// Breakeven10Y is the 10-year breakeven inflation of the latest day
	// with both a nominal and a real 10-year yield.
	Breakeven10Y *Breakeven `json:"breakeven10y"`
	// Overnight holds SOFR, EFFR and €STR, each with its own date.
	Overnight OvernightRates `json:"overnight"`
	// Calendar names the business-day calendar of "previous business
	// day".
	Calendar string `json:"calendar"`
	// Notice is the New York Fed's required notice for SOFR and EFFR.
	Notice    string `json:"notice"`
	NoticeURL string `json:"noticeUrl"`
}

// Curve is one day's curve with its change from the previous business
// day.
type Curve struct {
	Kind    string `json:"kind"` // par_nominal or par_real
	Date    string `json:"date"`
	AgeDays int    `json:"ageDays"`
	// PreviousBusinessDay is the bond market business day before Date.
	PreviousBusinessDay string `json:"previousBusinessDay"`
	// PreviousDate is the date the changes are computed against: the
	// previous business day, or the latest earlier curve held when that
	// day has none (PreviousNote says so); null when there is none.
	PreviousDate *string `json:"previousDate"`
	PreviousNote string  `json:"previousNote,omitempty"`
	// Points has every tenor of the curve kind; a tenor the publisher left
	// empty has a null yield.
	Points []CurvePoint `json:"points"`
	// Revisions counts the earlier versions of this date's curve the
	// service read (a publisher's revision); the points are the latest.
	Revisions int    `json:"revisions"`
	Source    Source `json:"source"`
}

// CurvePoint is one tenor's yield and its change.
type CurvePoint struct {
	Tenor    string   `json:"tenor"`
	Months   float64  `json:"months"`
	Yield    *float64 `json:"yield"`    // percent
	Previous *float64 `json:"previous"` // percent, on PreviousDate
	ChangeBp *float64 `json:"changeBp"` // basis points
}

// SlopeFigure is a curve slope, long minus short.
type SlopeFigure struct {
	Name       string   `json:"name"`
	Short      string   `json:"short"`
	Long       string   `json:"long"`
	Date       string   `json:"date"`
	Bp         *float64 `json:"bp"`
	Inverted   *bool    `json:"inverted"` // bp < 0
	PreviousBp *float64 `json:"previousBp"`
	ChangeBp   *float64 `json:"changeBp"`
}

// Breakeven is a breakeven inflation rate: nominal minus real yield.
type Breakeven struct {
	Date         string  `json:"date"`
	AgeDays      int     `json:"ageDays"`
	Percent      float64 `json:"percent"`
	NominalYield float64 `json:"nominalYield"`
	RealYield    float64 `json:"realYield"`
	Formula      string  `json:"formula"`
}

// OvernightRates are the three overnight rates; each is null before its
// first fixing.
type OvernightRates struct {
	SOFR *OvernightFigure `json:"sofr"`
	EFFR *OvernightFigure `json:"effr"`
	ESTR *OvernightFigure `json:"estr"`
}

// OvernightFigure is an overnight rate's latest fixing.
type OvernightFigure struct {
	Rate    string  `json:"rate"` // SOFR, EFFR, ESTR
	Date    string  `json:"date"`
	AgeDays int     `json:"ageDays"`
	Percent float64 `json:"percent"`
	// Distribution of the day's transactions and the underlying volume.
	Percentile1  *float64 `json:"percentile1"`
	Percentile25 *float64 `json:"percentile25"`
	Percentile75 *float64 `json:"percentile75"`
	Percentile99 *float64 `json:"percentile99"`
	Volume       *float64 `json:"volume"`
	VolumeUnit   string   `json:"volumeUnit"`
	// The FOMC target range (EFFR).
	TargetFrom *float64 `json:"targetFrom"`
	TargetTo   *float64 `json:"targetTo"`
	// The previous fixing held and the change to this one.
	PreviousDate    *string  `json:"previousDate"`
	PreviousPercent *float64 `json:"previousPercent"`
	ChangeBp        *float64 `json:"changeBp"`
	// Revised is the publisher's revision flag; Revisions counts the
	// earlier versions of this fixing the service read.
	Revised   bool   `json:"revised"`
	Revisions int    `json:"revisions"`
	Source    Source `json:"source"`
}

// BreakevenFormula documents Breakeven.Percent.
const BreakevenFormula = "nominal 10-year par yield minus real 10-year par yield of the same day (as FRED's T10YIE)"

// Curve answers /api/v1/rates/curve as of now. It fails with ErrNoData
// when the view holds no curve and no overnight rate.
func (v *View) Curve(now time.Time) (*CurveAnswer, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	a := &CurveAnswer{
		AsOf:      timestamp(now.UnixNano()),
		Calendar:  uscal.Bond.Name(),
		Notice:    v.cfg.Notice,
		NoticeURL: v.cfg.NoticeURL,
		Slopes:    []SlopeFigure{},
	}
	nominal := v.curves[schemas.CurveKind_CURVE_KIND_PAR_NOMINAL]
	real := v.curves[schemas.CurveKind_CURVE_KIND_PAR_REAL]
	a.Nominal = buildCurve(nominal, schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, now)
	a.Real = buildCurve(real, schemas.CurveKind_CURVE_KIND_PAR_REAL, now)
	if a.Nominal != nil {
		for _, s := range rates.Slopes {
			a.Slopes = append(a.Slopes, slopeOf(s, a.Nominal))
		}
	}
	a.Breakeven10Y = breakeven(nominal, real, now)
	a.Overnight.SOFR = v.overnightFigure(schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR, "SOFR", "USD billions", now)
	a.Overnight.EFFR = v.overnightFigure(schemas.OvernightRateKind_OVERNIGHT_RATE_EFFR, "EFFR", "USD billions", now)
	a.Overnight.ESTR = v.overnightFigure(schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, "ESTR", "EUR millions", now)
	if a.Nominal == nil && a.Real == nil && a.Overnight.SOFR == nil && a.Overnight.EFFR == nil && a.Overnight.ESTR == nil {
		return nil, ErrNoData
	}
	return a, nil
}

// tenorsOf are the tenors a curve kind reports.
func tenorsOf(kind schemas.CurveKind) []schemas.Tenor {
	if kind == schemas.CurveKind_CURVE_KIND_PAR_REAL {
		return schemas.Tenors[schemas.TenorIndex("5Y"):]
	}
	return schemas.Tenors
}

func pointsOf(c *schemas.YieldCurve) map[string]float64 {
	m := make(map[string]float64, len(c.Points))
	for _, p := range c.Points {
		m[p.Tenor] = p.Percent
	}
	return m
}

// buildCurve returns the latest curve of d with its changes, or nil.
func buildCurve(d *dated, kind schemas.CurveKind, now time.Time) *Curve {
	if d == nil || len(d.dates) == 0 {
		return nil
	}
	date := d.dates[len(d.dates)-1]
	vs := d.byDate[date]
	latest := vs.latest
	day, err := uscal.ParseDate(date)
	if err != nil {
		panic("BUG: a validated date does not parse: " + date)
	}
	c := &Curve{
		Kind:                schemas.CurveKindName(kind),
		Date:                date,
		AgeDays:             ageDays(date, now),
		PreviousBusinessDay: uscal.Bond.Prev(day).String(),
		Revisions:           len(vs.all) - 1,
		Source:              sourceOf(latest),
	}
	var prev map[string]float64
	if pv := d.byDate[c.PreviousBusinessDay]; pv != nil {
		prev = pointsOf(pv.latest.rec.GetCurve())
		c.PreviousDate = &c.PreviousBusinessDay
	} else if len(d.dates) > 1 {
		pd := d.dates[len(d.dates)-2]
		prev = pointsOf(d.byDate[pd].latest.rec.GetCurve())
		c.PreviousDate = &pd
		c.PreviousNote = fmt.Sprintf("no curve is held for the previous business day %s; changes are against %s, the latest earlier curve", c.PreviousBusinessDay, pd)
	} else {
		c.PreviousNote = fmt.Sprintf("no curve is held for the previous business day %s or before", c.PreviousBusinessDay)
	}
	cur := pointsOf(latest.rec.GetCurve())
	for _, t := range tenorsOf(kind) {
		p := CurvePoint{Tenor: t.Name, Months: t.Months}
		if y, ok := cur[t.Name]; ok {
			p.Yield = ptr(y)
		}
		if y, ok := prev[t.Name]; ok {
			p.Previous = ptr(y)
		}
		if p.Yield != nil && p.Previous != nil {
			p.ChangeBp = ptr(rates.ChangeBp(*p.Previous, *p.Yield))
		}
		c.Points = append(c.Points, p)
	}
	return c
}

func (c *Curve) point(tenor string) CurvePoint {
	for _, p := range c.Points {
		if p.Tenor == tenor {
			return p
		}
	}
	return CurvePoint{}
}

func slopeOf(s rates.Slope, c *Curve) SlopeFigure {
	f := SlopeFigure{Name: s.Name, Short: s.Short, Long: s.Long, Date: c.Date}
	short, long := c.point(s.Short), c.point(s.Long)
	if short.Yield != nil && long.Yield != nil {
		bp := rates.SlopeBp(*short.Yield, *long.Yield)
		inv := bp < 0
		f.Bp, f.Inverted = &bp, &inv
	}
	if short.Previous != nil && long.Previous != nil {
		f.PreviousBp = ptr(rates.SlopeBp(*short.Previous, *long.Previous))
	}
	if f.Bp != nil && f.PreviousBp != nil {
		f.ChangeBp = ptr(rates.DiffBp(*f.PreviousBp, *f.Bp))
	}
	return f
}

// breakevenSearch bounds how many real-curve dates, newest first, are
// tried for a matching nominal 10-year yield.
const breakevenSearch = 30

func breakeven(nominal, real *dated, now time.Time) *Breakeven {
	if nominal == nil || real == nil {
		return nil
	}
	for i, n := len(real.dates)-1, 0; i >= 0 && n < breakevenSearch; i, n = i-1, n+1 {
		date := real.dates[i]
		r, ok := pointsOf(real.byDate[date].latest.rec.GetCurve())["10Y"]
		if !ok {
			continue
		}
		nv := nominal.byDate[date]
		if nv == nil {
			continue
		}
		y, ok := pointsOf(nv.latest.rec.GetCurve())["10Y"]
		if !ok {
			continue
		}
		return &Breakeven{Date: date, AgeDays: ageDays(date, now), Percent: rates.BreakevenPercent(y, r),
			NominalYield: y, RealYield: r, Formula: BreakevenFormula}
	}
	return nil
}

func (v *View) overnightFigure(kind schemas.OvernightRateKind, name, unit string, now time.Time) *OvernightFigure {
	d := v.overnight[kind]
	if d == nil || len(d.dates) == 0 {
		return nil
	}
	date := d.dates[len(d.dates)-1]
	vs := d.byDate[date]
	o := vs.latest.rec.GetOvernight()
	f := &OvernightFigure{
		Rate: name, Date: date, AgeDays: ageDays(date, now), Percent: o.Percent,
		Percentile1: opt(o.Percentile_1), Percentile25: opt(o.Percentile_25), Percentile75: opt(o.Percentile_75), Percentile99: opt(o.Percentile_99),
		Volume: opt(o.Volume), VolumeUnit: unit, TargetFrom: opt(o.TargetFrom), TargetTo: opt(o.TargetTo),
		Revised: o.RevisionIndicator == "Y" || len(vs.all) > 1, Revisions: len(vs.all) - 1,
		Source: sourceOf(vs.latest),
	}
	if len(d.dates) > 1 {
		pd := d.dates[len(d.dates)-2]
		p := d.byDate[pd].latest.rec.GetOvernight().Percent
		f.PreviousDate, f.PreviousPercent = &pd, ptr(p)
		f.ChangeBp = ptr(rates.ChangeBp(p, o.Percent))
	}
	return f
}
