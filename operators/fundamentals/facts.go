package fundamentals

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by the errors of Decode: the input is not a
// companyfacts document. The message is the dead-letter reason.
var ErrMalformed = errors.New("malformed companyfacts json")

// Date is a calendar date written as the integer YYYYMMDD (20250927); 0 is
// no date. Dates compare as integers.
type Date int32

// ParseDate reads YYYY-MM-DD.
func ParseDate(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	n := 0
	for i := 0; i < 10; i++ {
		if i == 4 || i == 7 {
			continue
		}
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	y, m, d := n/10000, n/100%100, n%100
	if y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return Date(n), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Year, Month and Day are the date's parts.
func (d Date) Year() int  { return int(d) / 10000 }
func (d Date) Month() int { return int(d) / 100 % 100 }
func (d Date) Day() int   { return int(d) % 100 }

// String is YYYY-MM-DD, or "" for no date.
func (d Date) String() string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year(), d.Month(), d.Day())
}

// MarshalJSON writes "YYYY-MM-DD", or null for no date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d == 0 {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// Days is the number of days since 1970-01-01 (days from civil, H.
// Hinnant's algorithm).
func (d Date) Days() int {
	y, m, dd := d.Year(), d.Month(), d.Day()
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + dd - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// DaysTo is the number of days from d to e (negative when e is earlier).
func (d Date) DaysTo(e Date) int { return e.Days() - d.Days() }

// Fact is one XBRL fact of companyfacts: a value of a concept in a unit,
// for a period, as reported in one filing.
type Fact struct {
	// Start is the first day of a duration; 0 for an instant.
	Start Date
	// End is the last day of the duration, or the instant.
	End Date
	Val float64
	// Accn is the accession number of the filing that reported the fact.
	Accn string
	// FY and FP are the fiscal year and period of that filing ("FY",
	// "Q1".."Q4"), not necessarily of this fact: a 10-K reports the
	// prior years' comparatives under its own FY.
	FY   int32
	FP   string
	Form string
	// Filed is the filing date.
	Filed Date
	// Frame is the SEC's calendar frame ("CY2024Q2", "CY2025Q3I") when the
	// SEC chose this fact for it.
	Frame string
}

// Concept is one XBRL concept with its facts by unit.
type Concept struct {
	Taxonomy string // "us-gaap", "ifrs-full", "dei"
	Name     string // "Revenues"
	Label    string
	Units    map[string][]Fact // "USD", "USD/shares", "shares", "EUR", ...
}

// Facts is a decoded companyfacts document.
type Facts struct {
	CIK        uint64
	EntityName string
	// Concepts are keyed "taxonomy:Name" ("us-gaap:Revenues").
	Concepts map[string]*Concept
	// Skipped counts facts left out because a field was unreadable (a
	// bad date, a missing accession number); SkipReason is the first
	// such reason.
	Skipped    int
	SkipReason string
}

// Decode reads a companyfacts JSON document
// (https://data.sec.gov/api/xbrl/companyfacts/CIK##########.json).
// Structural problems (not JSON, no facts) are errors wrapping
// ErrMalformed; a fact with an unreadable field is skipped and counted.
func Decode(b []byte) (*Facts, error) { return decodeFast(b) }

// decodeReference is Decode written with encoding/json: the definition the
// scanner of decodeFast is tested against.
func decodeReference(b []byte) (*Facts, error) {
	var raw struct {
		CIK        json.RawMessage                   `json:"cik"`
		EntityName string                            `json:"entityName"`
		Facts      map[string]map[string]*rawConcept `json:"facts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var decoded map[string]map[string]*conceptAcc
	if raw.Facts != nil {
		decoded = make(map[string]map[string]*conceptAcc, len(raw.Facts))
		for tax, concepts := range raw.Facts {
			if concepts == nil {
				decoded[tax] = nil
				continue
			}
			m := make(map[string]*conceptAcc, len(concepts))
			for name, rc := range concepts {
				if rc == nil {
					m[name] = nil
					continue
				}
				ca := &conceptAcc{label: rc.Label}
				if rc.Units != nil {
					ca.units = make(map[string]*unitAcc, len(rc.Units))
				}
				for unit, rfs := range rc.Units {
					ua := &unitAcc{}
					for i := range rfs {
						ua.add(i, &rfs[i])
					}
					ca.units[unit] = ua
				}
				m[name] = ca
			}
			decoded[tax] = m
		}
	}
	return build(raw.CIK, raw.EntityName, decoded)
}

// conceptAcc and unitAcc are a decoded concept before build: its facts and
// the facts it skipped (with their index in the unit's array).
type conceptAcc struct {
	label string
	units map[string]*unitAcc
}

type unitAcc struct {
	facts []Fact
	skips []skipAt
}

type skipAt struct {
	i      int
	reason string
}

func (u *unitAcc) add(i int, rf *rawFact) {
	f, reason := rf.fact()
	if reason != "" {
		u.skips = append(u.skips, skipAt{i, reason})
		return
	}
	u.facts = append(u.facts, f)
}

// build checks and assembles the decoded document. Skips are counted and
// the first reason taken in sorted (taxonomy, concept, unit, index) order,
// so the answer does not depend on map order.
func build(cikRaw []byte, entityName string, facts map[string]map[string]*conceptAcc) (*Facts, error) {
	cikText := strings.Trim(string(cikRaw), `"`)
	cik, err := strconv.ParseUint(cikText, 10, 64)
	if err != nil || cik == 0 {
		return nil, fmt.Errorf("%w: cik %q is not a positive integer", ErrMalformed, cikText)
	}
	if facts == nil {
		return nil, fmt.Errorf("%w: no facts object", ErrMalformed)
	}
	f := &Facts{CIK: cik, EntityName: strings.TrimSpace(entityName), Concepts: map[string]*Concept{}}
	for _, tax := range sortedKeys(facts) {
		concepts := facts[tax]
		for _, name := range sortedKeys(concepts) {
			ca := concepts[name]
			if ca == nil {
				continue
			}
			c := &Concept{Taxonomy: tax, Name: name, Label: ca.label, Units: make(map[string][]Fact, len(ca.units))}
			for _, unit := range sortedKeys(ca.units) {
				ua := ca.units[unit]
				for _, sk := range ua.skips {
					if f.Skipped == 0 {
						f.SkipReason = fmt.Sprintf("%s:%s %s fact %d: %s", tax, name, unit, sk.i, sk.reason)
					}
					f.Skipped++
				}
				if ua.facts == nil {
					ua.facts = []Fact{}
				}
				c.Units[unit] = ua.facts
			}
			f.Concepts[tax+":"+name] = c
		}
	}
	return f, nil
}

type rawConcept struct {
	Label string               `json:"label"`
	Units map[string][]rawFact `json:"units"`
}

type rawFact struct {
	Start string     `json:"start"`
	End   string     `json:"end"`
	Val   jsonNumber `json:"val"`
	Accn  string     `json:"accn"`
	FY    int32      `json:"fy"`
	FP    string     `json:"fp"`
	Form  string     `json:"form"`
	Filed string     `json:"filed"`
	Frame string     `json:"frame"`
}

func (r *rawFact) fact() (Fact, string) {
	var f Fact
	var ok bool
	if f.End, ok = ParseDate(r.End); !ok {
		return f, fmt.Sprintf("end %q", r.End)
	}
	if r.Start != "" {
		if f.Start, ok = ParseDate(r.Start); !ok || f.Start > f.End {
			return f, fmt.Sprintf("start %q", r.Start)
		}
	}
	v, err := strconv.ParseFloat(string(r.Val), 64)
	if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
		err = strconv.ErrRange
	}
	if err != nil {
		return f, fmt.Sprintf("val %q", string(r.Val))
	}
	f.Val = v
	if r.Accn == "" {
		return f, "no accn"
	}
	f.Accn = r.Accn
	if f.Filed, ok = ParseDate(r.Filed); !ok {
		return f, fmt.Sprintf("filed %q", r.Filed)
	}
	f.FY, f.FP = r.FY, r.FP
	f.Form, f.Frame = r.Form, r.Frame
	return f, ""
}

// jsonNumber is json.Number under a name the scanner can fill.
type jsonNumber = json.Number

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FromDays is the date n days after 1970-01-01 (civil from days, H.
// Hinnant's algorithm).
func FromDays(n int) Date {
	z := n + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return Date(y*10000 + m*100 + d)
}

// AddDays is the date n days after d.
func (d Date) AddDays(n int) Date { return FromDays(d.Days() + n) }
