// Package nyfed reads the New York Fed's Markets Data API reference rates:
// the Secured Overnight Financing Rate (SOFR) and the Effective Federal
// Funds Rate (EFFR). The parser works on bytes; malformed input is an error
// wrapping ErrMalformed whose text is the dead-letter reason. Every answer
// that shows these rates carries Notice (the New York Fed's terms of use).
package nyfed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/marketintel/mi/schemas"
)

// TermsURL is where the New York Fed posts the terms of use of its
// reference rates and Markets Data API.
const TermsURL = "https://www.newyorkfed.org/privacy/termsofuse"

// Notice returns the notice the New York Fed's terms of use require of a
// republisher of SOFR and EFFR, with publisher (the operator of this
// service) filled into the New York Fed's template, followed by the
// sentence the same terms require for SOFR's data, licensed from DTCC
// Solutions LLC. docs/rates.md quotes the template.
func Notice(publisher string) string {
	return "The SOFR and EFFR data are subject to the Terms of Use posted at newyorkfed.org. " +
		"The New York Fed is not responsible for publication of the SOFR and EFFR data by " + publisher +
		", does not sanction or endorse any particular republication, and has no liability for your use. " +
		"The Secured Overnight Financing Rate (SOFR) Data and Broad General Collateral Rate (BGCR) Data are " +
		"calculated using data provided under a license granted to the New York Fed by DTCC Solutions LLC " +
		"(\u201cSolutions\u201d), an affiliate of The Depository Trust & Clearing Corporation. Solutions, its " +
		"affiliates, and third parties from which they obtained data have no liability for the content of this material."
}

// ErrMalformed is wrapped by the errors of inputs that cannot be read; the
// text starts with "malformed json", "bad date" or "bad rate".
var ErrMalformed = errors.New("malformed input")

type parseError struct{ phrase, detail string }

func (e *parseError) Error() string        { return e.phrase + ": " + e.detail }
func (e *parseError) Is(target error) bool { return target == ErrMalformed }

func malformed(phrase, format string, a ...any) error {
	return &parseError{phrase: phrase, detail: fmt.Sprintf(format, a...)}
}

// Rejection is one rate of a response that could not be read.
type Rejection struct {
	Raw    []byte
	Reason string
}

// Result is what a reference rates response holds.
type Result struct {
	// Rates sorted by kind, then date; one per (kind, date).
	Rates []*schemas.OvernightRate
	// Rejected are the entries that could not be read.
	Rejected []Rejection
	// Unknown lists the rate types the response had that are not read
	// (TGCR, BGCR, OBFR, ...), sorted.
	Unknown []string
}

var kinds = map[string]schemas.OvernightRateKind{
	"SOFR": schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR,
	"EFFR": schemas.OvernightRateKind_OVERNIGHT_RATE_EFFR,
}

// refRate is one entry of refRates, numbers kept as written.
type refRate struct {
	EffectiveDate       string      `json:"effectiveDate"`
	Type                string      `json:"type"`
	PercentRate         json.Number `json:"percentRate"`
	PercentPercentile1  json.Number `json:"percentPercentile1"`
	PercentPercentile25 json.Number `json:"percentPercentile25"`
	PercentPercentile75 json.Number `json:"percentPercentile75"`
	PercentPercentile99 json.Number `json:"percentPercentile99"`
	VolumeInBillions    json.Number `json:"volumeInBillions"`
	TargetRateFrom      json.Number `json:"targetRateFrom"`
	TargetRateTo        json.Number `json:"targetRateTo"`
	RevisionIndicator   string      `json:"revisionIndicator"`
}

// ParseRefRates reads a reference rates response of the Markets Data API
// (markets.newyorkfed.org/api/rates/secured/sofr/last/N.json,
// .../unsecured/effr/search.json?startDate=&endDate=, .../all/latest.json):
// {"refRates":[{effectiveDate, type, percentRate, percentPercentile1/25/75/99,
// volumeInBillions, targetRateFrom/To (EFFR), revisionIndicator}]}. Rates
// are percent per year; volumes USD billions.
func ParseRefRates(b []byte) (Result, error) {
	var doc struct {
		RefRates []json.RawMessage `json:"refRates"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return Result{}, malformed("malformed json", "%v", err)
	}
	if doc.RefRates == nil {
		return Result{}, malformed("malformed json", "no refRates array")
	}
	var res Result
	unknown := map[string]bool{}
	keep := map[string]*schemas.OvernightRate{}
	for _, raw := range doc.RefRates {
		var r refRate
		rd := json.NewDecoder(bytes.NewReader(raw))
		rd.UseNumber()
		if err := rd.Decode(&r); err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: malformed("malformed json", "%v", err).Error()})
			continue
		}
		kind, ok := kinds[strings.ToUpper(r.Type)]
		if !ok {
			unknown[r.Type] = true
			continue
		}
		o, err := rateOf(r, kind)
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: err.Error()})
			continue
		}
		keep[r.Type+o.Date] = o
	}
	for _, o := range keep {
		res.Rates = append(res.Rates, o)
	}
	sort.Slice(res.Rates, func(i, j int) bool {
		a, b := res.Rates[i], res.Rates[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Date < b.Date
	})
	for k := range unknown {
		res.Unknown = append(res.Unknown, k)
	}
	sort.Strings(res.Unknown)
	return res, nil
}

func rateOf(r refRate, kind schemas.OvernightRateKind) (*schemas.OvernightRate, error) {
	if _, err := time.Parse("2006-01-02", r.EffectiveDate); err != nil || len(r.EffectiveDate) != 10 {
		return nil, malformed("bad date", "effectiveDate %q", r.EffectiveDate)
	}
	o := &schemas.OvernightRate{Kind: kind, Date: r.EffectiveDate, RevisionIndicator: strings.TrimSpace(r.RevisionIndicator)}
	var err error
	num := func(n json.Number, name string, required bool) *float64 {
		if err != nil {
			return nil
		}
		if n == "" {
			if required {
				err = malformed("bad rate", "%s missing", name)
			}
			return nil
		}
		v, e := strconv.ParseFloat(string(n), 64)
		if e != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e9 {
			err = malformed("bad rate", "%s %q", name, n)
			return nil
		}
		return &v
	}
	rate := num(r.PercentRate, "percentRate", true)
	o.Percentile_1 = num(r.PercentPercentile1, "percentPercentile1", false)
	o.Percentile_25 = num(r.PercentPercentile25, "percentPercentile25", false)
	o.Percentile_75 = num(r.PercentPercentile75, "percentPercentile75", false)
	o.Percentile_99 = num(r.PercentPercentile99, "percentPercentile99", false)
	o.Volume = num(r.VolumeInBillions, "volumeInBillions", false)
	o.TargetFrom = num(r.TargetRateFrom, "targetRateFrom", false)
	o.TargetTo = num(r.TargetRateTo, "targetRateTo", false)
	if err != nil {
		return nil, err
	}
	if *rate < -20 || *rate > 50 {
		return nil, malformed("bad rate", "percentRate %v", *rate)
	}
	o.Percent = *rate
	return o, nil
}
