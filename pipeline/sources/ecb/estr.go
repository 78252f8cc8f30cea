// Package ecb reads the euro short-term rate (€STR) from the European
// Central Bank's Data Portal (data-api.ecb.europa.eu, dataflow EST, series
// B.EU000A2X2A25.WT and its companions) in the portal's two data formats,
// SDMX-CSV (format=csvdata, what the live source asks for) and SDMX-JSON
// (format=jsondata). The parsers work on bytes; malformed input is an
// error wrapping ErrMalformed whose text is the dead-letter reason.
package ecb

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

	"github.com/marketintel/mi/schemas"
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

// Benchmark is the €STR benchmark item of the EST dataflow.
const Benchmark = "EU000A2X2A25"

// Data types of the EST dataflow this package reads (dimension
// DATA_TYPE_EST, the last part of a series key such as
// EST.B.EU000A2X2A25.WT).
const (
	TypeRate         = "WT"  // volume-weighted trimmed mean rate, percent
	TypePercentile25 = "R25" // 25th percentile of the volume distribution, percent
	TypePercentile75 = "R75" // 75th percentile, percent
	TypeVolume       = "TT"  // total volume, EUR millions
)

// Rejection is one observation that could not be read.
type Rejection struct {
	Raw    []byte
	Reason string
}

// Result is what a response holds.
type Result struct {
	// Rates in date order: one €STR fixing per date that has a rate, with
	// its percentiles and volume when the response has them.
	Rates    []*schemas.OvernightRate
	Rejected []Rejection
}

// fixings collects the values of each date before they become rates.
type fixings map[string]*schemas.OvernightRate

func (f fixings) set(date, dataType string, v float64) {
	o := f[date]
	if o == nil {
		o = &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_ESTR, Date: date, Percent: math.NaN()}
		f[date] = o
	}
	switch dataType {
	case TypeRate:
		o.Percent = v
	case TypePercentile25:
		o.Percentile_25 = &v
	case TypePercentile75:
		o.Percentile_75 = &v
	case TypeVolume:
		o.Volume = &v
	}
}

// rates returns the dates that have a rate, in date order.
func (f fixings) rates() []*schemas.OvernightRate {
	var out []*schemas.OvernightRate
	for _, o := range f {
		if !math.IsNaN(o.Percent) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date < out[j].Date })
	return out
}

// known reports whether a data type is one this package reads.
func known(t string) bool {
	return t == TypeRate || t == TypePercentile25 || t == TypePercentile75 || t == TypeVolume
}

// value checks a date and an observation value of a data type: rates
// within ±50 percent, volumes from 0 to 1e9.
func value(date, dataType, s string) (float64, error) {
	if _, err := time.Parse("2006-01-02", date); err != nil || len(date) != 10 {
		return 0, malformed("bad date", "%q", date)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v > 1e9 ||
		(dataType == TypeVolume && v < 0) || (dataType != TypeVolume && math.Abs(v) > 50) {
		return 0, malformed("bad value", "%q on %s", s, date)
	}
	return v, nil
}

// ParseCSV reads the Data Portal's SDMX-CSV (format=csvdata): a header
// naming the columns — KEY, FREQ, BENCHMARK_ITEM, DATA_TYPE_EST,
// TIME_PERIOD, OBS_VALUE, OBS_STATUS, ... — and one row per series and
// date. Columns are found by name; rows of other series are skipped; an
// empty OBS_VALUE is no observation.
func ParseCSV(b []byte) (Result, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return Result{}, malformed("malformed csv", "no header: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToUpper(strings.TrimSpace(h))] = i
	}
	iKey, okKey := col["KEY"]
	iDate, okDate := col["TIME_PERIOD"]
	iValue, okValue := col["OBS_VALUE"]
	if !okKey || !okDate || !okValue {
		return Result{}, malformed("malformed csv", "header lacks KEY, TIME_PERIOD or OBS_VALUE: %q", header)
	}
	var res Result
	fx := fixings{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, malformed("malformed csv", "%v", err)
		}
		raw := []byte(strings.Join(rec, ","))
		if len(rec) != len(header) {
			res.Rejected = append(res.Rejected, Rejection{raw, malformed("malformed csv", "%d fields, header has %d", len(rec), len(header)).Error()})
			continue
		}
		parts := strings.Split(strings.TrimSpace(rec[iKey]), ".")
		if len(parts) != 4 || parts[0] != "EST" || parts[1] != "B" || parts[2] != Benchmark || !known(parts[3]) {
			continue // another series
		}
		s := strings.TrimSpace(rec[iValue])
		if s == "" {
			continue
		}
		v, err := value(strings.TrimSpace(rec[iDate]), parts[3], s)
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{raw, err.Error()})
			continue
		}
		fx.set(strings.TrimSpace(rec[iDate]), parts[3], v)
	}
	res.Rates = fx.rates()
	return res, nil
}

// sdmxJSON is the part of an SDMX-JSON 1.0 data message this package reads.
type sdmxJSON struct {
	DataSets []struct {
		Series map[string]struct {
			Observations map[string][]json.RawMessage `json:"observations"`
		} `json:"series"`
	} `json:"dataSets"`
	Structure struct {
		Dimensions struct {
			Series      []sdmxDimension `json:"series"`
			Observation []sdmxDimension `json:"observation"`
		} `json:"dimensions"`
	} `json:"structure"`
}

type sdmxDimension struct {
	ID     string `json:"id"`
	Values []struct {
		ID string `json:"id"`
	} `json:"values"`
}

// ParseJSON reads the Data Portal's SDMX-JSON (format=jsondata): series
// keyed by the positions of their dimension values ("0:0:1"), each with
// observations keyed by the position of their TIME_PERIOD value, whose
// first element is the value (null when there is none).
func ParseJSON(b []byte) (Result, error) {
	var doc sdmxJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		return Result{}, malformed("malformed json", "%v", err)
	}
	dims := doc.Structure.Dimensions
	if len(doc.DataSets) == 0 || len(dims.Observation) != 1 || dims.Observation[0].ID != "TIME_PERIOD" {
		return Result{}, malformed("malformed json", "no data set or no TIME_PERIOD observation dimension")
	}
	iBench, iType := -1, -1
	for i, d := range dims.Series {
		switch d.ID {
		case "BENCHMARK_ITEM":
			iBench = i
		case "DATA_TYPE_EST":
			iType = i
		}
	}
	if iType < 0 {
		return Result{}, malformed("malformed json", "no DATA_TYPE_EST series dimension")
	}
	periods := dims.Observation[0].Values
	var res Result
	fx := fixings{}
	for _, ds := range doc.DataSets {
		for key, series := range ds.Series {
			pos := strings.Split(key, ":")
			if len(pos) != len(dims.Series) {
				res.Rejected = append(res.Rejected, Rejection{[]byte(key), malformed("malformed json", "series key %q does not match %d dimensions", key, len(dims.Series)).Error()})
				continue
			}
			id := func(i int) (string, bool) {
				n, err := strconv.Atoi(pos[i])
				if err != nil || n < 0 || n >= len(dims.Series[i].Values) {
					return "", false
				}
				return dims.Series[i].Values[n].ID, true
			}
			dataType, ok := id(iType)
			if !ok {
				res.Rejected = append(res.Rejected, Rejection{[]byte(key), malformed("malformed json", "series key %q out of range", key).Error()})
				continue
			}
			if bench, ok := id(max(iBench, 0)); iBench >= 0 && (!ok || bench != Benchmark) || !known(dataType) {
				continue
			}
			for obsKey, vals := range series.Observations {
				n, err := strconv.Atoi(obsKey)
				if err != nil || n < 0 || n >= len(periods) {
					res.Rejected = append(res.Rejected, Rejection{[]byte(obsKey), malformed("malformed json", "observation %q out of range", obsKey).Error()})
					continue
				}
				if len(vals) == 0 || string(bytes.TrimSpace(vals[0])) == "null" {
					continue
				}
				var num json.Number
				if err := json.Unmarshal(vals[0], &num); err != nil {
					res.Rejected = append(res.Rejected, Rejection{vals[0], malformed("bad value", "%s on %s", vals[0], periods[n].ID).Error()})
					continue
				}
				v, err := value(periods[n].ID, dataType, string(num))
				if err != nil {
					res.Rejected = append(res.Rejected, Rejection{vals[0], err.Error()})
					continue
				}
				fx.set(periods[n].ID, dataType, v)
			}
		}
	}
	res.Rates = fx.rates()
	sort.Slice(res.Rejected, func(i, j int) bool { return string(res.Rejected[i].Raw) < string(res.Rejected[j].Raw) })
	return res, nil
}
