// Package uscal holds US market calendars as pure functions of the date:
// the US government securities (bond) market's business days, after the
// full closes SIFMA recommends (Bond), and the New York Stock Exchange's
// trading days and early closes (NYSE, NYSEEarlyClose) with the session
// label of any moment (SessionAt: WEEKEND, OVERNIGHT, PRE_MARKET, REGULAR,
// AFTER_HOURS). It does no I/O and reads no clock; times are passed in,
// and America/New_York comes from the tzdata embedded in the binary.
package uscal

import (
	"errors"
	"fmt"
	"time"
)

// Date is a calendar date without a time or a zone, counted in days since
// 1970-01-01. The zero Date is 1970-01-01. Dates compare with < and ==.
type Date int32

// DateLayout is the layout of Date.String and ParseDate (ISO 8601).
const DateLayout = "2006-01-02"

// NewDate returns the date y-m-d; out-of-range days and months normalize
// as time.Date does (January 32 is February 1).
func NewDate(y int, m time.Month, d int) Date {
	return Date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// DateOf returns the date of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return NewDate(y, m, d)
}

// ErrBadDate is wrapped by ParseDate's errors.
var ErrBadDate = errors.New("bad date")

// ParseDate parses a YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return 0, fmt.Errorf("%w: %q is not YYYY-MM-DD", ErrBadDate, s)
	}
	return DateOf(t), nil
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// In returns midnight of d in loc.
func (d Date) In(loc *time.Location) time.Time {
	y, m, dd := d.YMD()
	return time.Date(y, m, dd, 0, 0, 0, 0, loc)
}

// YMD returns the year, month and day of d.
func (d Date) YMD() (int, time.Month, int) { return d.Time().Date() }

// Year returns the year of d.
func (d Date) Year() int { y, _, _ := d.YMD(); return y }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday {
	// 1970-01-01 was a Thursday.
	w := (int(d) + int(time.Thursday)) % 7
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

// AddDays returns the date n days after d (before it when n < 0).
func (d Date) AddDays(n int) Date { return d + Date(n) }

// String formats d as YYYY-MM-DD.
func (d Date) String() string { return d.Time().Format(DateLayout) }

// IsWeekend reports whether d is a Saturday or a Sunday.
func (d Date) IsWeekend() bool {
	w := d.Weekday()
	return w == time.Saturday || w == time.Sunday
}
