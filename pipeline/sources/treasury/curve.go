// Package treasury reads the U.S. Treasury's publications: the daily par
// yield curve and par real yield curve (home.treasury.gov's XML feed and
// CSV files) and marketable securities auctions (TreasuryDirect's
// securities API and Fiscal Data's auction datasets). The parsers work on
// bytes and return schemas records; malformed input is an error wrapping
// ErrMalformed whose text is the dead-letter reason.
package treasury

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/marketintel/mi/schemas"
)

// ErrMalformed is wrapped by the errors of inputs that cannot be read. The
// error text starts with a stable phrase ("malformed xml", "malformed
// csv", "malformed json", "bad date", "bad rate", "bad amount") followed by
// details.
var ErrMalformed = errors.New("malformed input")

func malformed(phrase, format string, a ...any) error {
	return &parseError{phrase: phrase, detail: fmt.Sprintf(format, a...)}
}

type parseError struct{ phrase, detail string }

func (e *parseError) Error() string        { return e.phrase + ": " + e.detail }
func (e *parseError) Is(target error) bool { return target == ErrMalformed }

// Rejection is one part of an input (an entry, a row, a record) that could
// not be read while the rest could: the raw part and why.
type Rejection struct {
	Raw    []byte
	Reason string
}

// CurveResult is what a yield curve document holds.
type CurveResult struct {
	// Curves in date order, oldest first; one per date (a date twice in a
	// document keeps the last).
	Curves []*schemas.YieldCurve
	// Rejected are the entries or rows that could not be read.
	Rejected []Rejection
	// Unknown lists fields or columns the parser does not know, sorted:
	// a tenor added by the publisher shows up here first.
	Unknown []string
}

// xmlFields maps the XML feed's property names to tenors, per curve kind.
var xmlFields = map[schemas.CurveKind]map[string]string{
	schemas.CurveKind_CURVE_KIND_PAR_NOMINAL: {
		"BC_1MONTH": "1M", "BC_1_5MONTH": "1.5M", "BC_2MONTH": "2M", "BC_3MONTH": "3M",
		"BC_4MONTH": "4M", "BC_6MONTH": "6M", "BC_1YEAR": "1Y", "BC_2YEAR": "2Y",
		"BC_3YEAR": "3Y", "BC_5YEAR": "5Y", "BC_7YEAR": "7Y", "BC_10YEAR": "10Y",
		"BC_20YEAR": "20Y", "BC_30YEAR": "30Y",
	},
	schemas.CurveKind_CURVE_KIND_PAR_REAL: {
		"TC_5YEAR": "5Y", "TC_7YEAR": "7Y", "TC_10YEAR": "10Y", "TC_20YEAR": "20Y", "TC_30YEAR": "30Y",
	},
}

// xmlIgnored are properties that are not tenors: the row id, the date, and
// the 30-year "display" duplicate of BC_30YEAR.
var xmlIgnored = map[string]bool{"Id": true, "NEW_DATE": true, "BC_30YEARDISPLAY": true}

// ParseCurveXML reads Treasury's daily interest rate XML feed
// (home.treasury.gov/resource-center/data-chart-center/interest-rates/pages/xml?data=daily_treasury_yield_curve
// or data=daily_treasury_real_yield_curve): an Atom feed whose entries hold
// OData properties, d:NEW_DATE and one d:BC_* (nominal) or d:TC_* (real)
// element per tenor, in percent. A tenor element that is absent, empty or
// marked m:null="true" is absent from the curve, never zero.
func ParseCurveXML(b []byte, kind schemas.CurveKind) (CurveResult, error) {
	fields, ok := xmlFields[kind]
	if !ok {
		panic(fmt.Sprintf("BUG: no XML fields for curve kind %v", kind))
	}
	var res CurveResult
	unknown := map[string]bool{}
	byDate := map[string]*schemas.YieldCurve{}
	dec := xml.NewDecoder(bytes.NewReader(b))
	sawFeed := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return CurveResult{}, malformed("malformed xml", "%v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local == "feed" {
			sawFeed = true
		}
		if se.Name.Local != "properties" {
			continue
		}
		start := dec.InputOffset()
		props, err := readProperties(dec)
		if err != nil {
			return CurveResult{}, malformed("malformed xml", "%v", err)
		}
		raw := b[min(start, int64(len(b))):min(dec.InputOffset(), int64(len(b)))]
		c, err := curveOf(props, kind, fields, unknown)
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: append([]byte(nil), raw...), Reason: err.Error()})
			continue
		}
		byDate[c.Date] = c
	}
	if !sawFeed {
		return CurveResult{}, malformed("malformed xml", "no Atom feed element")
	}
	res.Curves = sortedCurves(byDate)
	res.Unknown = sortedKeys(unknown)
	return res, nil
}

// property is one OData property of an entry.
type property struct {
	name, text string
	null       bool
}

// readProperties reads the children of an m:properties element up to its
// end.
func readProperties(dec *xml.Decoder) ([]property, error) {
	var out []property
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p := property{name: t.Name.Local}
			for _, a := range t.Attr {
				if a.Name.Local == "null" && a.Value == "true" {
					p.null = true
				}
			}
			var sb strings.Builder
		child:
			for {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				switch c := tok.(type) {
				case xml.CharData:
					sb.Write(c)
				case xml.StartElement:
					if err := dec.Skip(); err != nil {
						return nil, err
					}
				case xml.EndElement:
					break child
				}
			}
			p.text = strings.TrimSpace(sb.String())
			out = append(out, p)
		case xml.EndElement:
			return out, nil
		}
	}
}

func curveOf(props []property, kind schemas.CurveKind, fields map[string]string, unknown map[string]bool) (*schemas.YieldCurve, error) {
	c := &schemas.YieldCurve{Kind: kind}
	values := map[string]float64{}
	for _, p := range props {
		if p.name == "NEW_DATE" {
			d, err := isoDate(p.text)
			if err != nil {
				return nil, err
			}
			c.Date = d
			continue
		}
		if xmlIgnored[p.name] {
			continue
		}
		tenor, ok := fields[p.name]
		if !ok {
			unknown[p.name] = true
			continue
		}
		if p.null || p.text == "" {
			continue
		}
		v, err := parseRate(p.text)
		if err != nil {
			return nil, fmt.Errorf("%w (%s)", err, p.name)
		}
		values[tenor] = v
	}
	if c.Date == "" {
		return nil, malformed("bad date", "entry without NEW_DATE")
	}
	return finishCurve(c, values)
}

// finishCurve orders the values by tenor into c; a curve without a single
// value is rejected.
func finishCurve(c *schemas.YieldCurve, values map[string]float64) (*schemas.YieldCurve, error) {
	for _, t := range schemas.Tenors {
		if v, ok := values[t.Name]; ok {
			c.Points = append(c.Points, &schemas.CurvePoint{Tenor: t.Name, Percent: v})
		}
	}
	if len(c.Points) == 0 {
		return nil, malformed("bad rate", "no yield on %s", c.Date)
	}
	return c, nil
}

// isoDate reads "2006-01-02" or "2006-01-02T15:04:05" and returns the date.
func isoDate(s string) (string, error) {
	d := s
	if len(d) > 10 && d[10] == 'T' {
		d = d[:10]
	}
	if _, err := time.Parse("2006-01-02", d); err != nil || len(d) != 10 {
		return "", malformed("bad date", "%q", s)
	}
	return d, nil
}

// parseRate reads a yield in percent; it must be finite and within ±50.
func parseRate(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v < -50 || v > 50 {
		return 0, malformed("bad rate", "%q", s)
	}
	return v, nil
}

// csvColumns maps the CSV files' normalized column names (lower case,
// single spaces) to tenors: "1 Mo" … "30 Yr" on the nominal curve, with
// "1.5 Month" since 2025; "5 YR" … "30 YR" on the real curve.
var csvColumns = map[schemas.CurveKind]map[string]string{
	schemas.CurveKind_CURVE_KIND_PAR_NOMINAL: {
		"1 mo": "1M", "1.5 month": "1.5M", "1.5 mo": "1.5M", "2 mo": "2M", "3 mo": "3M",
		"4 mo": "4M", "6 mo": "6M", "1 yr": "1Y", "2 yr": "2Y", "3 yr": "3Y", "5 yr": "5Y",
		"7 yr": "7Y", "10 yr": "10Y", "20 yr": "20Y", "30 yr": "30Y",
	},
	schemas.CurveKind_CURVE_KIND_PAR_REAL: {
		"5 yr": "5Y", "7 yr": "7Y", "10 yr": "10Y", "20 yr": "20Y", "30 yr": "30Y",
	},
}

// ParseCurveCSV reads Treasury's daily par yield curve CSV
// (home.treasury.gov/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/<year>/all?type=daily_treasury_yield_curve&field_tdr_date_value=<year>&page&_format=csv,
// or type=daily_treasury_real_yield_curve): a header `Date,"1 Mo",...`,
// then one row per day, newest first, dates MM/DD/YYYY, yields in percent.
// An empty or "N/A" cell is an absent tenor.
func ParseCurveCSV(b []byte, kind schemas.CurveKind) (CurveResult, error) {
	cols, ok := csvColumns[kind]
	if !ok {
		panic(fmt.Sprintf("BUG: no CSV columns for curve kind %v", kind))
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return CurveResult{}, malformed("malformed csv", "no header: %v", err)
	}
	if len(header) < 2 || !strings.EqualFold(strings.TrimSpace(header[0]), "Date") {
		return CurveResult{}, malformed("malformed csv", "header does not start with Date: %q", header)
	}
	var res CurveResult
	unknown := map[string]bool{}
	tenorOf := make([]string, len(header))
	for i, h := range header[1:] {
		n := strings.ToLower(strings.Join(strings.Fields(h), " "))
		if t, ok := cols[n]; ok {
			tenorOf[i+1] = t
		} else {
			unknown[h] = true
		}
	}
	byDate := map[string]*schemas.YieldCurve{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return CurveResult{}, malformed("malformed csv", "%v", err)
		}
		raw := []byte(strings.Join(rec, ","))
		if len(rec) != len(header) {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: malformed("malformed csv", "%d fields, header has %d", len(rec), len(header)).Error()})
			continue
		}
		t, err := time.Parse("01/02/2006", strings.TrimSpace(rec[0]))
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: malformed("bad date", "%q", rec[0]).Error()})
			continue
		}
		c := &schemas.YieldCurve{Kind: kind, Date: t.Format("2006-01-02")}
		values := map[string]float64{}
		var rowErr error
		for i, cell := range rec[1:] {
			tenor := tenorOf[i+1]
			cell = strings.TrimSpace(cell)
			if tenor == "" || cell == "" || strings.EqualFold(cell, "N/A") {
				continue
			}
			v, err := parseRate(cell)
			if err != nil {
				rowErr = fmt.Errorf("%w (%s)", err, header[i+1])
				break
			}
			values[tenor] = v
		}
		if rowErr == nil {
			c, rowErr = finishCurve(c, values)
		}
		if rowErr != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: rowErr.Error()})
			continue
		}
		byDate[c.Date] = c
	}
	res.Curves = sortedCurves(byDate)
	res.Unknown = sortedKeys(unknown)
	return res, nil
}

func sortedCurves(m map[string]*schemas.YieldCurve) []*schemas.YieldCurve {
	out := make([]*schemas.YieldCurve, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
