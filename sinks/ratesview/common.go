package ratesview

import (
	"time"

	"github.com/marketintel/mi/operators/uscal"
)

// Source says where a figure comes from and when it was read.
type Source struct {
	// Publisher published the figures, e.g. "U.S. Department of the
	// Treasury".
	Publisher string `json:"publisher"`
	// Name is the configured source that read them, e.g. "treasury:par".
	Name string `json:"name"`
	// URL is what was read: the publisher's URL, or "eth_call <chain>
	// <contract>".
	URL string `json:"url"`
	// ReadAt is when the service first read these values (RFC 3339, UTC,
	// milliseconds).
	ReadAt string `json:"readAt"`
}

func sourceOf(v *version) Source {
	r := v.rec
	return Source{Publisher: r.Publisher, Name: r.Source, URL: r.Url, ReadAt: timestamp(v.first)}
}

// timestamp formats Unix ns as RFC 3339 UTC with milliseconds (truncated),
// as every time of the API.
func timestamp(ns int64) string {
	return time.Unix(0, ns).UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
}

// unixTimestamp formats Unix seconds like timestamp.
func unixTimestamp(s int64) string { return timestamp(s * 1e9) }

// ageDays is the number of calendar days from an observation date to the
// date of now (UTC); negative when the observation is dated after now.
func ageDays(date string, now time.Time) int {
	d, err := uscal.ParseDate(date)
	if err != nil {
		panic("BUG: a validated date does not parse: " + date)
	}
	return int(uscal.DateOf(now.UTC()) - d)
}

func ptr(v float64) *float64 { return &v }

func i64ptr(v int64) *int64 { return &v }

// opt returns nil or a copy of *p.
func opt(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return ptr(*p)
}
