package uscal

import (
	"sort"
	"time"
)

// Holiday is a weekday on which a market is closed all day.
type Holiday struct {
	Date Date
	// Name says why, e.g. "Good Friday" or "Independence Day (observed)".
	Name string
}

// Calendar is a market's business days: every weekday that is not one of
// its holidays. Its methods are safe for concurrent use.
type Calendar struct {
	name  string
	rules func(year int) []Holiday
	// Holidays of the years first..first+len(years)-1, computed once.
	first int
	years [][]Holiday
}

// newCalendar returns a calendar whose holidays of year y are rules(y), kept
// ready for the years first..last (other years are computed when asked).
func newCalendar(name string, first, last int, rules func(year int) []Holiday) *Calendar {
	c := &Calendar{name: name, rules: rules, first: first, years: make([][]Holiday, last-first+1)}
	for i := range c.years {
		hs := rules(first + i)
		sort.Slice(hs, func(a, b int) bool { return hs[a].Date < hs[b].Date })
		c.years[i] = hs
	}
	return c
}

// Name names the calendar, e.g. "US bond market (SIFMA)".
func (c *Calendar) Name() string { return c.name }

// Holidays returns the holidays of year y in date order. The slice must not
// be modified.
func (c *Calendar) Holidays(y int) []Holiday {
	if i := y - c.first; i >= 0 && i < len(c.years) {
		return c.years[i]
	}
	hs := c.rules(y)
	sort.Slice(hs, func(a, b int) bool { return hs[a].Date < hs[b].Date })
	return hs
}

// Closure reports whether the market is closed all day on d and why:
// "Saturday", "Sunday" or the holiday's name.
func (c *Calendar) Closure(d Date) (string, bool) {
	switch d.Weekday() {
	case time.Saturday:
		return "Saturday", true
	case time.Sunday:
		return "Sunday", true
	}
	// A holiday observed on another day stays in its own year's list
	// (New Year's Day of year y+1 observed on December 31 of y would be in
	// y+1's list; the bond market does not observe it then, but other
	// calendars may), so look in both neighbours too.
	y := d.Year()
	for _, yy := range [...]int{y, y + 1, y - 1} {
		for _, h := range c.Holidays(yy) {
			if h.Date == d {
				return h.Name, true
			}
		}
	}
	return "", false
}

// IsBusinessDay reports whether the market is open on d.
func (c *Calendar) IsBusinessDay(d Date) bool {
	_, closed := c.Closure(d)
	return !closed
}

// Prev returns the last business day strictly before d.
func (c *Calendar) Prev(d Date) Date {
	for p := d.AddDays(-1); ; p = p.AddDays(-1) {
		if c.IsBusinessDay(p) {
			return p
		}
	}
}

// Next returns the first business day strictly after d.
func (c *Calendar) Next(d Date) Date {
	for n := d.AddDays(1); ; n = n.AddDays(1) {
		if c.IsBusinessDay(n) {
			return n
		}
	}
}

// BusinessDays returns the business days from..to, both included.
func (c *Calendar) BusinessDays(from, to Date) []Date {
	var out []Date
	for d := from; d <= to; d++ {
		if c.IsBusinessDay(d) {
			out = append(out, d)
		}
	}
	return out
}
