package operators

import (
	"slices"
	"sort"
	"sync"
)

// Alert events per detector: what each detector of this package fires. A
// stage that runs a detector registers its events in the instance's
// LiveEvents.
var (
	// SignalAlertEvents are fired by HourlyDecision (decision_change) and
	// AlertDetector (unusual_flow), which run in the process stage over the
	// engine's documents and candles.
	SignalAlertEvents = []string{AlertDecisionChange, AlertUnusualFlow}
	// NewsAlertEvents are fired by NewsAlertDetector in the news stage:
	// news always, sec_filing when the news source reads EDGAR's filings.
	NewsAlertEvents = []string{AlertNews, AlertSECFiling}
)

// LiveEvents is the registry of the alert events whose detector runs in
// this instance with its sources configured. The stages that run a
// detector register its events when they are wired (mi run: the process
// stage the signal events, the news stage news and, with EDGAR filings
// configured, sec_filing); the alert subscription route accepts only
// registered events and /coverage marks them live. Every other name of
// AlertEventNames is a valid event that nothing here would deliver. The
// zero value is not usable; use NewLiveEvents. It is safe for concurrent
// use.
type LiveEvents struct {
	mu        sync.Mutex
	detectors map[string][]string // event -> detectors that fire it
}

// NewLiveEvents returns an empty registry: no event is live.
func NewLiveEvents() *LiveEvents { return &LiveEvents{detectors: map[string][]string{}} }

// Register declares that detector runs in this instance and fires events.
// An event name outside AlertEventNames is a BUG: the detector and the
// spec's list disagree.
func (l *LiveEvents) Register(detector string, events ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range events {
		if !IsAlertEvent(e) {
			panic("BUG: detector " + detector + " registers " + e + ", which is not an alert event of the spec")
		}
		if !slices.Contains(l.detectors[e], detector) {
			l.detectors[e] = append(l.detectors[e], detector)
			sort.Strings(l.detectors[e])
		}
	}
}

// Names returns the live events in spec order (AlertEventNames), never
// nil.
func (l *LiveEvents) Names() []string {
	out := []string{}
	if l == nil {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range AlertEventNames {
		if len(l.detectors[e]) > 0 {
			out = append(out, e)
		}
	}
	return out
}

// Live reports whether a detector of event runs in this instance. A nil
// registry has no live event.
func (l *LiveEvents) Live(event string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.detectors[event]) > 0
}

// Detectors returns the detectors registered for event, sorted.
func (l *LiveEvents) Detectors(event string) []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.detectors[event])
}
