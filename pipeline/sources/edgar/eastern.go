package edgar

import (
	"time"
	_ "time/tzdata" // EDGAR times are US Eastern; do not depend on the host's zoneinfo
)

// Eastern is US Eastern time, EDGAR's clock: acceptance times in the
// SEC-HEADER, on index pages and in the submissions JSON are Eastern wall
// clock times.
var Eastern = func() *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic("BUG: embedded tzdata lacks America/New_York: " + err.Error())
	}
	return loc
}()

// parseEastern reads a wall-clock time in EDGAR's zone with the given
// layout.
func parseEastern(layout, s string) (time.Time, error) {
	return time.ParseInLocation(layout, s, Eastern)
}
