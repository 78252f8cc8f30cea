package uscal

import "time"

// nthWeekday returns the n-th (1-based) weekday wd of month m of year y.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) Date {
	first := NewDate(y, m, 1)
	off := (int(wd) - int(first.Weekday()) + 7) % 7
	return first.AddDays(off + 7*(n-1))
}

// lastWeekday returns the last weekday wd of month m of year y.
func lastWeekday(y int, m time.Month, wd time.Weekday) Date {
	last := NewDate(y, m+1, 0)
	off := (int(last.Weekday()) - int(wd) + 7) % 7
	return last.AddDays(-off)
}

// easter returns Easter Sunday of year y in the Gregorian calendar
// (the anonymous Gregorian algorithm, "Meeus/Jones/Butcher").
func easter(y int) Date {
	a := y % 19
	b, c := y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return NewDate(y, time.Month(month), day)
}

// observed moves a fixed-date holiday that falls on a weekend to the
// weekday the market observes it on: Sunday to the following Monday, and
// Saturday to the preceding Friday when satToFriday, otherwise not at all
// (ok false).
func observed(d Date, satToFriday bool) (Date, bool) {
	switch d.Weekday() {
	case time.Sunday:
		return d.AddDays(1), true
	case time.Saturday:
		if satToFriday {
			return d.AddDays(-1), true
		}
		return d, false
	}
	return d, true
}
