package poll

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Schedule says when a source polls: either every Every, aligned to the
// clock (multiples of Every since the Unix epoch, plus Offset: Every 5m
// polls at :00, :05, ...; Every 1h on the hour; Every 24h at 00:00 UTC), or
// at the times of day in Daily, in Loc (a publisher's daily release).
type Schedule struct {
	Every  time.Duration
	Offset time.Duration
	// Daily are times of day (durations since midnight, e.g.
	// 16*time.Hour+30*time.Minute) in Loc (nil: UTC); used when Every is 0.
	Daily []time.Duration
	Loc   *time.Location
	// Weekdays restricts Daily to Monday to Friday in Loc.
	Weekdays bool
}

// Every returns the schedule of every d, aligned to the clock.
func Every(d time.Duration) Schedule { return Schedule{Every: d} }

// Daily returns the schedule of the given times of day in loc, every day.
func Daily(loc *time.Location, times ...time.Duration) Schedule {
	return Schedule{Daily: times, Loc: loc}
}

// Validate rejects an empty schedule, negative values and times of day
// outside [0, 24h).
func (s Schedule) Validate() error {
	switch {
	case s.Every < 0 || s.Offset < 0:
		return errors.New("cannot use schedule: every and offset must not be negative")
	case s.Every == 0 && len(s.Daily) == 0:
		return errors.New("cannot use schedule: set every or daily times")
	}
	for _, d := range s.Daily {
		if d < 0 || d >= 24*time.Hour {
			return fmt.Errorf("cannot use schedule: time of day %v is not in [0, 24h)", d)
		}
	}
	return nil
}

// Period is the longest gap between two slots: Every, or a day for Daily
// (three days over a weekend with Weekdays).
func (s Schedule) Period() time.Duration {
	switch {
	case s.Every > 0:
		return s.Every
	case s.Weekdays:
		return 72 * time.Hour
	}
	return 24 * time.Hour
}

// Next returns the first slot strictly after t. It panics on a schedule
// Validate rejects.
func (s Schedule) Next(t time.Time) time.Time {
	if err := s.Validate(); err != nil {
		panic("BUG: " + err.Error())
	}
	if s.Every > 0 {
		e, off := int64(s.Every), int64(s.Offset%s.Every)
		n := t.UnixNano() - off
		k := n / e
		if n < 0 && n%e != 0 {
			k-- // floor for times before the epoch
		}
		return time.Unix(0, (k+1)*e+off).In(t.Location())
	}
	loc := s.Loc
	if loc == nil {
		loc = time.UTC
	}
	times := slices.Sorted(slices.Values(s.Daily))
	lt := t.In(loc)
	for day := -1; day <= 8; day++ {
		y, m, d := lt.Date()
		date := time.Date(y, m, d+day, 0, 0, 0, 0, loc)
		if s.Weekdays && (date.Weekday() == time.Saturday || date.Weekday() == time.Sunday) {
			continue
		}
		for _, tod := range times {
			h, mi, se := int(tod/time.Hour), int(tod%time.Hour/time.Minute), int(tod%time.Minute/time.Second)
			at := time.Date(date.Year(), date.Month(), date.Day(), h, mi, se, int(tod%time.Second), loc)
			if at.After(t) {
				return at.In(t.Location())
			}
		}
	}
	panic("BUG: no daily slot within 8 days")
}
