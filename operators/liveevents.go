package operators

import (
	"slices"
	"sync"
)

// liveExtra holds the events whose detectors run besides the signal
// detectors, as the process declared them (SetLive).
var liveExtra struct {
	sync.Mutex
	names []string
}

// SetLive declares that the detectors of the named events run with their
// sources configured (mi run calls it for news and sec_filing when a news
// source is configured), so LiveAlertEvents offers them.
func SetLive(names ...string) {
	liveExtra.Lock()
	defer liveExtra.Unlock()
	for _, n := range names {
		if IsAlertEvent(n) && !slices.Contains(liveExtra.names, n) {
			liveExtra.names = append(liveExtra.names, n)
		}
	}
}

// liveDeclared returns the events SetLive declared, in spec order.
func liveDeclared() []string {
	liveExtra.Lock()
	defer liveExtra.Unlock()
	var out []string
	for _, n := range AlertEventNames {
		if slices.Contains(liveExtra.names, n) {
			out = append(out, n)
		}
	}
	return out
}
