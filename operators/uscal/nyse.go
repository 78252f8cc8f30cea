package uscal

import "time"

// NYSE is the New York Stock Exchange's trading days: every weekday that is
// not one of its holidays. The rules (NYSE Rule 7.2 and the holidays the
// exchange publishes each year):
//
//   - New Year's Day, January 1, or Monday January 2 when it is a Sunday;
//     not observed when it falls on a Saturday (December 31 stays open);
//   - Martin Luther King Jr. Day (third Monday of January);
//   - Washington's Birthday (third Monday of February);
//   - Good Friday (the Friday before Easter Sunday), every year;
//   - Memorial Day (last Monday of May);
//   - Juneteenth National Independence Day, June 19, from 2022;
//   - Independence Day, July 4;
//   - Labor Day (first Monday of September);
//   - Thanksgiving Day (fourth Thursday of November);
//   - Christmas Day, December 25;
//   - the unscheduled closures of nyseSpecialClosures.
//
// Juneteenth, Independence Day and Christmas Day falling on a Saturday are
// observed on the Friday before, on a Sunday on the Monday after. Unlike
// the bond market, the exchange trades on Columbus Day and Veterans Day.
// Early closes are trading days (NYSEEarlyClose).
var NYSE = newCalendar("New York Stock Exchange", 1990, 2100, nyseHolidays)

// nyseSpecialClosures are the full closes outside the rules since 2001:
// days of national mourning and emergencies, as the exchange announced them.
var nyseSpecialClosures = []Holiday{
	{NewDate(2001, time.September, 11), "September 11 attacks"},
	{NewDate(2001, time.September, 12), "September 11 attacks"},
	{NewDate(2001, time.September, 13), "September 11 attacks"},
	{NewDate(2001, time.September, 14), "September 11 attacks"},
	{NewDate(2004, time.June, 11), "National Day of Mourning (President Reagan)"},
	{NewDate(2007, time.January, 2), "National Day of Mourning (President Ford)"},
	{NewDate(2012, time.October, 29), "Hurricane Sandy"},
	{NewDate(2012, time.October, 30), "Hurricane Sandy"},
	{NewDate(2018, time.December, 5), "National Day of Mourning (President George H. W. Bush)"},
	{NewDate(2025, time.January, 9), "National Day of Mourning (President Carter)"},
}

func nyseHolidays(y int) []Holiday {
	var hs []Holiday
	add := func(d Date, name string) { hs = append(hs, Holiday{d, name}) }
	fixed := func(m time.Month, day int, name string, satToFriday bool) {
		d := NewDate(y, m, day)
		if o, ok := observed(d, satToFriday); ok {
			if o != d {
				name += " (observed)"
			}
			add(o, name)
		}
	}
	fixed(time.January, 1, "New Year's Day", false)
	add(nthWeekday(y, time.January, time.Monday, 3), "Martin Luther King Jr. Day")
	add(nthWeekday(y, time.February, time.Monday, 3), "Washington's Birthday")
	add(easter(y).AddDays(-2), "Good Friday")
	add(lastWeekday(y, time.May, time.Monday), "Memorial Day")
	if y >= 2022 {
		fixed(time.June, 19, "Juneteenth", true)
	}
	fixed(time.July, 4, "Independence Day", true)
	add(nthWeekday(y, time.September, time.Monday, 1), "Labor Day")
	add(nthWeekday(y, time.November, time.Thursday, 4), "Thanksgiving Day")
	fixed(time.December, 25, "Christmas Day", true)
	for _, h := range nyseSpecialClosures {
		if h.Date.Year() == y {
			hs = append(hs, h)
		}
	}
	return hs
}

// NYSEEarlyClose reports whether the exchange closes early (13:00 New York
// time) on d, and why. The rules: July 3 when it is a trading day (it is
// not when it is a weekend day or the observed Independence Day), the day
// after Thanksgiving, and December 24 when it is a trading day.
func NYSEEarlyClose(d Date) (string, bool) {
	if !NYSE.IsBusinessDay(d) {
		return "", false
	}
	y, m, day := d.YMD()
	switch {
	case m == time.July && day == 3:
		return "Day before Independence Day", true
	case m == time.December && day == 24:
		return "Christmas Eve", true
	case d == nthWeekday(y, time.November, time.Thursday, 4).AddDays(1):
		return "Day after Thanksgiving", true
	}
	return "", false
}
