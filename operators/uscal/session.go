package uscal

import "time"

// A SessionLabel names the US equity market session a moment falls in
// (spec §2.11).
type SessionLabel string

// The session labels. The hours are New York time on NYSE trading days:
//
//	PRE_MARKET   04:00 to 09:30
//	REGULAR      09:30 to 16:00 (13:00 on an early close)
//	AFTER_HOURS  16:00 to 20:00 (13:00 to 17:00 on an early close)
//	OVERNIGHT    from the end of after-hours to 04:00 of the next calendar
//	             day when that day is a trading day; when it is not, from
//	             20:00 of the day before the next trading day (Sunday
//	             20:00 before a Monday session) to its 04:00
//	WEEKEND      every other moment: weekends and exchange holidays, from
//	             the end of the last after-hours session to the start of
//	             the next overnight session
const (
	Weekend    SessionLabel = "WEEKEND"
	Overnight  SessionLabel = "OVERNIGHT"
	PreMarket  SessionLabel = "PRE_MARKET"
	Regular    SessionLabel = "REGULAR"
	AfterHours SessionLabel = "AFTER_HOURS"
)

// SessionLabels lists the labels in the order of a trading day.
var SessionLabels = []SessionLabel{Overnight, PreMarket, Regular, AfterHours, Weekend}

// Session is the US equity market session of one moment.
type Session struct {
	// Label is the session.
	Label SessionLabel `json:"label"`
	// Date is the New York calendar date of the moment.
	Date Date `json:"-"`
	// Closure names why the exchange is closed all day ("Saturday",
	// "Thanksgiving Day"); empty on trading days.
	Closure string `json:"closure,omitempty"`
	// EarlyClose names why the day closes at 13:00; empty otherwise.
	EarlyClose string `json:"earlyClose,omitempty"`
}

// Minutes after New York midnight at which the sessions change.
const (
	preOpen      = 4 * 60
	regularOpen  = 9*60 + 30
	regularClose = 16 * 60
	earlyClose   = 13 * 60
	afterHours   = 4 * 60 // length of the after-hours session
	overnightAt  = 20 * 60
)

// SessionAt returns the US equity market session at t (any location: the
// moment is converted to America/New_York, from the tzdata embedded in the
// binary, so daylight-saving changes follow the zone's rules).
func SessionAt(t time.Time) Session {
	ny := t.In(NewYork)
	d := DateOf(ny)
	m := ny.Hour()*60 + ny.Minute()
	s := Session{Date: d}
	if reason, closed := NYSE.Closure(d); closed {
		s.Closure = reason
		s.Label = Weekend
		if m >= overnightAt && NYSE.IsBusinessDay(d.AddDays(1)) {
			s.Label = Overnight
		}
		return s
	}
	closeAt := regularClose
	if reason, early := NYSEEarlyClose(d); early {
		s.EarlyClose = reason
		closeAt = earlyClose
	}
	switch {
	case m < preOpen:
		s.Label = Overnight
	case m < regularOpen:
		s.Label = PreMarket
	case m < closeAt:
		s.Label = Regular
	case m < closeAt+afterHours:
		s.Label = AfterHours
	case NYSE.IsBusinessDay(d.AddDays(1)):
		s.Label = Overnight
	default:
		s.Label = Weekend
	}
	return s
}
