package uscal

import "time"

// Bond is the US government securities market: the days on which Treasury
// publishes its daily yield curves and the New York Fed its SOFR and EFFR
// ("US government securities business days"). A weekday is closed when
// SIFMA recommends a full close for the trading of US dollar fixed income
// in the United States:
//
//   - New Year's Day, January 1, or Monday January 2 when it is a Sunday;
//     not observed when it falls on a Saturday (December 31 stays open);
//   - Martin Luther King Jr. Day (third Monday of January);
//   - Washington's Birthday (third Monday of February);
//   - Good Friday, except in the years SIFMA recommended an early close
//     instead because the Bureau of Labor Statistics published the
//     employment report that morning (goodFridayOpen);
//   - Memorial Day (last Monday of May);
//   - Juneteenth, June 19, from 2022;
//   - Independence Day, July 4;
//   - Labor Day (first Monday of September);
//   - Columbus Day (second Monday of October);
//   - Veterans Day, November 11, or Monday November 12 when it is a
//     Sunday; not observed when it falls on a Saturday;
//   - Thanksgiving Day (fourth Thursday of November);
//   - Christmas Day, December 25;
//   - the unscheduled closures of specialClosures.
//
// Juneteenth, Independence Day and Christmas Day falling on a Saturday are
// observed on the Friday before, on a Sunday on the Monday after. Early
// closes (2 p.m. before holidays) are business days. Holidays are kept
// ready from 1986 to 2100; SIFMA publishes its recommendations a year or
// two ahead, so goodFridayOpen and specialClosures must be extended as it
// announces them (docs/rates.md says how).
var Bond = newCalendar("US bond market (SIFMA full closes)", 1986, 2100, bondHolidays)

// goodFridayOpen lists the years whose Good Friday was a bond market
// business day (SIFMA recommended a noon early close because the
// employment report came out that morning). 1986–2024: the weekdays FRED's
// DGS10 series (Treasury's 10-year constant-maturity yield) has a value on,
// checked by TestBondMatchesTreasuryPublicationDays; 2025 and 2026: SIFMA's
// announcements (the bond market closed on April 18, 2025 after a 2 p.m.
// early close the day before, as reported at the time; "SIFMA recommends an early close at 12:00 p.m. EST on Friday, April 3,
// 2026 in observance of Good Friday", March 20, 2026).
var goodFridayOpen = map[int]bool{
	1996: true, 1999: true, 2007: true, 2010: true, 2012: true,
	2015: true, 2021: true, 2023: true, 2026: true,
}

// specialClosures are the full closes outside the rules: days of national
// mourning and emergencies. Each is a weekday without a DGS10 value. The
// national day of mourning for President Carter (January 9, 2025) is not
// one: SIFMA recommended a 2 p.m. early close.
var specialClosures = []Holiday{
	{NewDate(1994, time.April, 27), "National Day of Mourning (President Nixon)"},
	{NewDate(2001, time.September, 11), "September 11 attacks"},
	{NewDate(2001, time.September, 12), "September 11 attacks"},
	{NewDate(2004, time.June, 11), "National Day of Mourning (President Reagan)"},
	{NewDate(2012, time.October, 30), "Hurricane Sandy"},
	{NewDate(2018, time.December, 5), "National Day of Mourning (President George H. W. Bush)"},
}

func bondHolidays(y int) []Holiday {
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
	if !goodFridayOpen[y] {
		add(easter(y).AddDays(-2), "Good Friday")
	}
	add(lastWeekday(y, time.May, time.Monday), "Memorial Day")
	if y >= 2022 {
		fixed(time.June, 19, "Juneteenth", true)
	}
	fixed(time.July, 4, "Independence Day", true)
	add(nthWeekday(y, time.September, time.Monday, 1), "Labor Day")
	add(nthWeekday(y, time.October, time.Monday, 2), "Columbus Day")
	fixed(time.November, 11, "Veterans Day", false)
	add(nthWeekday(y, time.November, time.Thursday, 4), "Thanksgiving Day")
	fixed(time.December, 25, "Christmas Day", true)
	for _, h := range specialClosures {
		if h.Date.Year() == y {
			hs = append(hs, h)
		}
	}
	return hs
}
