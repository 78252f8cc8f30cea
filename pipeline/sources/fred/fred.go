// Package fred reads FRED (Federal Reserve Bank of St. Louis) series in its
// two formats: the fredgraph CSV download and the API's observations JSON.
// The project uses FRED files as stand-ins where a publisher's own capture
// was not found — the 10-year TIPS yield (DFII10) for the Treasury real
// yield curve and €STR (ECBESTRVOLWGTTRMDMNRT, ECBESTRTOTVOL) for the ECB
// Data Portal — so that the offline demo and the tests replay real numbers;
// the live sources read the publishers themselves (docs/rates.md).
package fred

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrMalformed is wrapped by the errors of inputs that cannot be read; the
// text starts with "malformed csv", "malformed json", "bad date" or "bad
// value".
var ErrMalformed = errors.New("malformed input")

type parseError struct{ phrase, detail string }

func (e *parseError) Error() string        { return e.phrase + ": " + e.detail }
func (e *parseError) Is(target error) bool { return target == ErrMalformed }

func malformed(phrase, format string, a ...any) error {
	return &parseError{phrase: phrase, detail: fmt.Sprintf(format, a...)}
}

// Observation is one dated value of a series.
type Observation struct {
	Date  string // YYYY-MM-DD
	Value float64
}

// Rejection is one observation that could not be read.
type Rejection struct {
	Raw    []byte
	Reason string
}

// Series is what a FRED document holds for one series.
type Series struct {
	// ID is the series id (DGS10, DFII10, ...): the CSV's value column
	// name; "" for the observations JSON, which does not name it.
	ID string
	// Observations in date order; dates FRED marks missing (".") are left
	// out and counted in Missing.
	Observations []Observation
	Missing      int
	Rejected     []Rejection
}

// ParseCSV reads a fredgraph CSV (fred.stlouisfed.org/graph/fredgraph.csv?id=<ID>):
// a header "DATE,<ID>" (before 2024) or "observation_date,<ID>", then one
// row per date, "." or empty where FRED has no value.
func ParseCSV(b []byte) (Series, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return Series{}, malformed("malformed csv", "no header: %v", err)
	}
	h0 := strings.ToLower(strings.TrimSpace(header[0]))
	if len(header) != 2 || (h0 != "date" && h0 != "observation_date") || strings.TrimSpace(header[1]) == "" {
		return Series{}, malformed("malformed csv", "header is not DATE,<series>: %q", header)
	}
	s := Series{ID: strings.TrimSpace(header[1])}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Series{}, malformed("malformed csv", "%v", err)
		}
		raw := []byte(strings.Join(rec, ","))
		if len(rec) != 2 {
			s.Rejected = append(s.Rejected, Rejection{raw, malformed("malformed csv", "%d fields", len(rec)).Error()})
			continue
		}
		if err := s.add(rec[0], rec[1]); err != nil {
			s.Rejected = append(s.Rejected, Rejection{raw, err.Error()})
		}
	}
	s.sort()
	return s, nil
}

// ParseObservationsJSON reads the FRED API's series observations
// (api.stlouisfed.org/fred/series/observations?series_id=<ID>&file_type=json):
// {"observations":[{"date","value"}, ...]} with values as strings, "." where
// FRED has none.
func ParseObservationsJSON(b []byte) (Series, error) {
	var doc struct {
		Observations []json.RawMessage `json:"observations"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return Series{}, malformed("malformed json", "%v", err)
	}
	if doc.Observations == nil {
		return Series{}, malformed("malformed json", "no observations array")
	}
	var s Series
	for _, raw := range doc.Observations {
		var o struct {
			Date  string `json:"date"`
			Value string `json:"value"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			s.Rejected = append(s.Rejected, Rejection{raw, malformed("malformed json", "%v", err).Error()})
			continue
		}
		if err := s.add(o.Date, o.Value); err != nil {
			s.Rejected = append(s.Rejected, Rejection{raw, err.Error()})
		}
	}
	s.sort()
	return s, nil
}

func (s *Series) add(date, value string) error {
	date, value = strings.TrimSpace(date), strings.TrimSpace(value)
	if _, err := time.Parse("2006-01-02", date); err != nil || len(date) != 10 {
		return malformed("bad date", "%q", date)
	}
	if value == "." || value == "" {
		s.Missing++
		return nil
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return malformed("bad value", "%q on %s", value, date)
	}
	s.Observations = append(s.Observations, Observation{date, v})
	return nil
}

// sort orders the observations by date, keeping the last of a date given
// twice.
func (s *Series) sort() {
	sort.SliceStable(s.Observations, func(i, j int) bool { return s.Observations[i].Date < s.Observations[j].Date })
	out := s.Observations[:0]
	for i, o := range s.Observations {
		if i+1 < len(s.Observations) && s.Observations[i+1].Date == o.Date {
			continue
		}
		out = append(out, o)
	}
	s.Observations = out
}
