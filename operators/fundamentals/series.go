package fundamentals

import (
	"fmt"
	"sort"
	"strings"
)

// Period lengths, in days from start to end (a 52-week year is 363 or 364,
// a 53-week year 370; a 13-week quarter 90 or 91, a 14-week one 97).
const (
	quarterMin, quarterMax = 80, 100
	halfMin, halfMax       = 170, 195
	nineMin, nineMax       = 260, 290
	annualMin, annualMax   = 350, 380
)

// span names a duration by its length: "3M", "6M", "9M", "FY" or "".
func span(start, end Date) string {
	d := start.DaysTo(end)
	switch {
	case d >= quarterMin && d <= quarterMax:
		return "3M"
	case d >= halfMin && d <= halfMax:
		return "6M"
	case d >= nineMin && d <= nineMax:
		return "9M"
	case d >= annualMin && d <= annualMax:
		return "FY"
	}
	return ""
}

type period struct{ start, end Date } // start 0: an instant

func (p period) instant() bool { return p.start == 0 }

// point is one value of a metric for one period, with where it came from.
type point struct {
	period
	val     float64
	unit    string
	concept string // "us-gaap:Revenues"; "a + b" for sums
	// fy and fp label the period: the fiscal year and period of the
	// filing that first reported it as its own period.
	fy int32
	fp string
	// form, filed and accn are the filing the value is taken from: the
	// first filing that reported the latest value (see resolve).
	form  string
	filed Date
	accn  string
	// restated is the earlier value a later filing replaced, if any.
	restated *point
	// derivation says how a computed value was made ("FY − 9M YTD");
	// components are its inputs.
	derivation string
	components []*point
}

// book holds what every series of one company needs: the period end of
// each filing and the fiscal-year labelling offset.
type book struct {
	facts *Facts
	// docEnd is, per accession number, the latest end date of its
	// duration facts: the period the filing reports on.
	docEnd map[string]Date
	// fyOffset is FY − end year of the company's labelled annual periods
	// (0 for most; −1 for retailers whose fiscal 2024 ends in early 2025).
	fyOffset int32
}

func newBook(f *Facts) *book {
	b := &book{facts: f, docEnd: map[string]Date{}}
	for _, c := range f.Concepts {
		if c.Taxonomy == "dei" {
			continue
		}
		for _, facts := range c.Units {
			for i := range facts {
				x := &facts[i]
				if x.Start != 0 && x.End > b.docEnd[x.Accn] {
					b.docEnd[x.Accn] = x.End
				}
			}
		}
	}
	// The offset from the annual facts of original 10-K/20-F/40-F filings.
	votes := map[int32]int{}
	for _, c := range f.Concepts {
		if c.Taxonomy == "dei" {
			continue
		}
		for _, facts := range c.Units {
			for i := range facts {
				x := &facts[i]
				if x.FP == "FY" && x.FY != 0 && x.Start != 0 && span(x.Start, x.End) == "FY" && b.docEnd[x.Accn] == x.End {
					votes[x.FY-int32(x.End.Year())]++
				}
			}
		}
	}
	best := -1
	for off, n := range votes {
		if n > best || (n == best && off == 0) {
			b.fyOffset, best = off, n
		}
	}
	return b
}

// series is one concept's points in one unit, by period.
type series map[period]*point

// conceptSeries resolves the facts of one concept in one unit into one
// point per period, instants or durations as asked.
func (b *book) conceptSeries(key, unit string, instant bool) series {
	c := b.facts.Concepts[key]
	if c == nil {
		return nil
	}
	facts := c.Units[unit]
	if len(facts) == 0 {
		return nil
	}
	byPeriod := map[period][]*Fact{}
	for i := range facts {
		x := &facts[i]
		if (x.Start == 0) != instant {
			continue
		}
		p := period{x.Start, x.End}
		byPeriod[p] = append(byPeriod[p], x)
	}
	out := make(series, len(byPeriod))
	for p, fs := range byPeriod {
		out[p] = b.resolve(key, unit, p, fs)
	}
	return out
}

// resolve makes one point of the facts reported for one period.
//
// Value: the latest filing wins (restatements). Source: the first filing
// that reported that value, after the last change, so an unchanged number
// is attributed to its original filing and a restated one to the filing
// that restated it (restated keeps the value it replaced). Ties in filing
// date go to the larger accession number.
//
// Label: fy and fp of the first filing whose own reporting period ends
// with this period (its original report); otherwise the period is only a
// comparative, labelled from its end year and the company's offset, fp
// "FY" for a year, "" otherwise.
func (b *book) resolve(key, unit string, p period, fs []*Fact) *point {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Filed != fs[j].Filed {
			return fs[i].Filed < fs[j].Filed
		}
		return fs[i].Accn < fs[j].Accn
	})
	pt := &point{period: p, unit: unit, concept: key}
	src := fs[0]
	var prev *Fact
	for i, x := range fs {
		if i > 0 && x.Val != src.Val {
			prev, src = src, x
		}
	}
	pt.val, pt.form, pt.filed, pt.accn = src.Val, src.Form, src.Filed, src.Accn
	if prev != nil {
		pt.restated = &point{period: p, unit: unit, concept: key, val: prev.Val, form: prev.Form, filed: prev.Filed, accn: prev.Accn}
	}
	for _, x := range fs {
		if b.docEnd[x.Accn] == p.end && x.FP != "" {
			pt.fy, pt.fp = x.FY, x.FP
			break
		}
	}
	if pt.fp == "" {
		pt.fy = int32(p.end.Year()) + b.fyOffset
		if !p.instant() && span(p.start, p.end) == "FY" {
			pt.fp = "FY"
		}
	}
	switch sp := span(p.start, p.end); {
	case p.instant():
	case sp == "FY":
		pt.fp = "FY" // a year is FY even when first seen in a 10-Q
	case sp == "3M" && pt.fp == "FY":
		pt.fp = "Q4" // the last quarter, reported in the annual report
	}
	return pt
}

// latestEnd is the latest period end of s.
func (s series) latestEnd() Date {
	var e Date
	for p := range s {
		if p.end > e {
			e = p.end
		}
	}
	return e
}

// merge builds a metric's series from its candidate concepts: the primary
// concept is the one with the most recent period (ties: the earlier
// candidate); the others fill only the periods it lacks. It returns the
// merged series and the candidates that contributed.
func (b *book) merge(candidates []string, unit string, instant bool) series {
	type cand struct {
		key string
		s   series
	}
	var cs []cand
	for _, k := range candidates {
		if s := b.conceptSeries(k, unit, instant); len(s) > 0 {
			cs = append(cs, cand{k, s})
		}
	}
	if len(cs) == 0 {
		return nil
	}
	primary := 0
	for i := range cs {
		if cs[i].s.latestEnd() > cs[primary].s.latestEnd() {
			primary = i
		}
	}
	out := series{}
	for p, pt := range cs[primary].s {
		out[p] = pt
	}
	for i, c := range cs {
		if i == primary {
			continue
		}
		for p, pt := range c.s {
			if _, ok := out[p]; !ok {
				out[p] = pt
			}
		}
	}
	return out
}

// annuals returns the fiscal-year points of s, latest first.
func (s series) annuals() []*point {
	var out []*point
	for p, pt := range s {
		if !p.instant() && span(p.start, p.end) == "FY" {
			out = append(out, pt)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].end > out[j].end })
	return out
}

// annualEnding returns the fiscal-year point of s ending on end.
func (s series) annualEnding(end Date) *point {
	for p, pt := range s {
		if p.end == end && span(p.start, p.end) == "FY" {
			return pt
		}
	}
	return nil
}

// quarters returns the discrete quarters of s, oldest first: the reported
// 3-month periods, then those derived from year-to-date figures of the
// same concept (Q2 = 6M − 3M, Q3 = 9M − 6M, Q4 = FY − 9M), then a Q4 as
// FY − (Q1 + Q2 + Q3) where only quarters and the year are reported.
func (s series) quarters() []*point {
	byEnd := map[Date]*point{}
	for p, pt := range s {
		if !p.instant() && span(p.start, p.end) == "3M" {
			if old := byEnd[p.end]; old == nil || closer91(p, old.period) {
				byEnd[p.end] = pt
			}
		}
	}
	// Year-to-date chains: periods sharing a start.
	chains := map[Date][]*point{}
	for p, pt := range s {
		if !p.instant() && span(p.start, p.end) != "" {
			chains[p.start] = append(chains[p.start], pt)
		}
	}
	for _, ch := range chains {
		sort.Slice(ch, func(i, j int) bool { return ch[i].end < ch[j].end })
		for i := 1; i < len(ch); i++ {
			a, c := ch[i-1], ch[i]
			if _, ok := byEnd[c.end]; ok || a.concept != c.concept {
				continue
			}
			if g := a.end.DaysTo(c.end); g < quarterMin-1 || g > quarterMax+1 {
				continue
			}
			byEnd[c.end] = derived(period{a.end.AddDays(1), c.end}, c.val-a.val,
				fmt.Sprintf("%s − %s YTD", ytdName(c), ytdName(a)), c, a)
		}
	}
	// Q4 = FY − (Q1 + Q2 + Q3).
	for _, y := range s.annuals() {
		if _, ok := byEnd[y.end]; ok {
			continue
		}
		q := make([]*point, 0, 3)
		next := y.start
		for len(q) < 3 {
			var found *point
			for _, cand := range byEnd {
				if cand.start == next && cand.concept == y.concept {
					found = cand
					break
				}
			}
			if found == nil {
				break
			}
			q = append(q, found)
			next = found.end.AddDays(1)
		}
		if len(q) == 3 {
			if g := q[2].end.DaysTo(y.end); g >= quarterMin-1 && g <= quarterMax+1 {
				byEnd[y.end] = derived(period{q[2].end.AddDays(1), y.end}, y.val-q[0].val-q[1].val-q[2].val,
					"FY − (Q1 + Q2 + Q3)", y, q[0], q[1], q[2])
			}
		}
	}
	out := make([]*point, 0, len(byEnd))
	for _, pt := range byEnd {
		out = append(out, pt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].end < out[j].end })
	return out
}

func ytdName(p *point) string {
	if sp := span(p.start, p.end); sp == "FY" {
		return "FY"
	} else if sp == "3M" {
		return "3M"
	} else {
		return sp
	}
}

func closer91(a, b period) bool {
	da, db := abs(a.start.DaysTo(a.end)-91), abs(b.start.DaysTo(b.end)-91)
	return da < db || (da == db && a.start > b.start)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// derived makes a computed point. Its source (form, filed, accn) is that of
// its latest-filed input, fy from the first input (the longer period), fp
// the quarter's position or "Q4".
func derived(p period, val float64, how string, inputs ...*point) *point {
	pt := &point{period: p, val: val, unit: inputs[0].unit, concept: inputs[0].concept, derivation: how, components: inputs}
	pt.fy = inputs[0].fy
	latest := inputs[0]
	for _, in := range inputs[1:] {
		if in.filed > latest.filed {
			latest = in
		}
	}
	pt.form, pt.filed, pt.accn = latest.form, latest.filed, latest.accn
	switch {
	case strings.HasPrefix(how, "FY"):
		pt.fp = "Q4"
	case strings.HasPrefix(how, "6M"):
		pt.fp = "Q2"
	case strings.HasPrefix(how, "9M"):
		pt.fp = "Q3"
	}
	if pt.fp == "" && inputs[0].fp != "" && inputs[0].fp != "FY" {
		pt.fp = inputs[0].fp
	}
	return pt
}

// ttm sums the latest four contiguous quarters of qs (oldest first); ok
// is false with a reason when there are fewer than four or they are not
// contiguous (a gap or overlap of more than 7 days).
func ttm(qs []*point) (*point, string) {
	if len(qs) < 4 {
		return nil, fmt.Sprintf("%d discrete quarters reported or derivable, need 4", len(qs))
	}
	q := qs[len(qs)-4:]
	sum := 0.0
	for i, x := range q {
		if i > 0 {
			if g := q[i-1].end.DaysTo(x.start); g < 1-7 || g > 1+7 {
				return nil, fmt.Sprintf("the last four quarters are not contiguous (%s to %s)", q[i-1].end, x.start)
			}
		}
		sum += x.val
	}
	pt := derived(period{q[0].start, q[3].end}, sum, "Q + Q + Q + Q (trailing twelve months)", q[3], q[0], q[1], q[2])
	pt.components = q
	pt.fp = "TTM"
	pt.fy = q[3].fy
	return pt, ""
}
