package uscal

import (
	"time"
	_ "time/tzdata" // the US markets' zone must not depend on the host's zoneinfo
)

// NewYork is the US Eastern time zone of the markets' schedules: Treasury
// publishes its curves, the New York Fed its rates and TreasuryDirect its
// auction results in it.
var NewYork = mustLoad("America/New_York")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic("BUG: embedded tzdata lacks " + name + ": " + err.Error())
	}
	return loc
}
