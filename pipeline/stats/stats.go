// Package stats counts what the pipeline ingests, per source, and carries
// the operator loop's counters, for /status, /metrics and logs. It is the
// contract between the roles that count (the ingest and operator loops in
// package pipeline, the live sources) and the API tier that shows the
// counts: both import it, and neither imports the other, so the API tier
// carries no broker code.
package stats

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Stats counts what the pipeline has ingested, per source, for /status and
// logs. It is safe for concurrent use. Times are Unix nanoseconds.
type Stats struct {
	mu      sync.Mutex
	sources map[string]*SourceStats
	dlq     map[string]uint64 // rejected records by reason phrase
	proc    OperatorSource
}

// SourceStats is the state of one source as /status shows it.
type SourceStats struct {
	Name     string `json:"source"`
	State    string `json:"state"` // starting, running, finished, failed
	Trades   uint64 `json:"trades"`
	Rejected uint64 `json:"rejected"`
	// RejectedBy counts the rejected records by reason phrase
	// (ReasonClass); nil before the first.
	RejectedBy   map[string]uint64 `json:"rejectedByReason,omitempty"`
	LastEventNs  int64             `json:"-"`
	LastIngestNs int64             `json:"-"`
	Error        string            `json:"error,omitempty"`
	Reconnects   uint64            `json:"reconnects"`
	// LagNs is ingest time minus event time of the last trade.
	LagNs int64 `json:"-"`
	// Gaps counts the stretches the source could not deliver (disconnects,
	// missed trade ids); LastGap describes the last one.
	Gaps       uint64 `json:"gaps"`
	LastGap    string `json:"-"`
	LastGapNs  int64  `json:"-"` // end of the last gap
	GapTotalNs int64  `json:"-"` // summed length of the gaps
}

// New returns empty stats.
func New() *Stats {
	return &Stats{sources: map[string]*SourceStats{}, dlq: map[string]uint64{}}
}

func (s *Stats) source(name string) *SourceStats {
	st := s.sources[name]
	if st == nil {
		st = &SourceStats{Name: name, State: "starting"}
		s.sources[name] = st
	}
	return st
}

// SetState records the state of a source and, for "failed", its error.
func (s *Stats) SetState(name, state string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.source(name)
	st.State = state
	if err != nil {
		st.Error = err.Error()
	}
}

// Trade records one accepted trade of a source.
func (s *Stats) Trade(name string, eventNs, ingestNs int64) {
	s.mu.Lock()
	st := s.source(name)
	st.Trades++
	if eventNs > st.LastEventNs {
		st.LastEventNs = eventNs
	}
	st.LastIngestNs = ingestNs
	st.LagNs = ingestNs - eventNs
	s.mu.Unlock()
}

// Reconnect counts one reconnection attempt of a live source.
func (s *Stats) Reconnect(name string) {
	s.mu.Lock()
	s.source(name).Reconnects++
	s.mu.Unlock()
}

// Gap records a stretch [fromNs, toNs] (Unix ns) a source could not
// deliver, with the reason (e.g. "disconnected", "missed trades: ...").
func (s *Stats) Gap(name string, fromNs, toNs int64, reason string) {
	s.mu.Lock()
	st := s.source(name)
	st.Gaps++
	st.LastGap = reason
	st.LastGapNs = toNs
	if toNs > fromNs {
		st.GapTotalNs += toNs - fromNs
	}
	s.mu.Unlock()
}

// Reject records one dead-lettered input with the reason phrase that
// classifies it (the text before the first colon of the reason).
func (s *Stats) Reject(name, reason string) {
	s.mu.Lock()
	class := ReasonClass(reason)
	if name != "" {
		st := s.source(name)
		st.Rejected++
		if st.RejectedBy == nil {
			st.RejectedBy = map[string]uint64{}
		}
		st.RejectedBy[class]++
	}
	s.dlq[class]++
	s.mu.Unlock()
}

// ReasonClass returns the phrase that classifies a rejection reason: the
// text before its first colon ("unknown pool: 0xab…" is "unknown pool").
func ReasonClass(reason string) string {
	for i := 0; i < len(reason); i++ {
		if reason[i] == ':' {
			return reason[:i]
		}
	}
	return reason
}

// Snapshot returns a copy of the per-source stats sorted by name and the
// dead-letter counts by reason.
func (s *Stats) Snapshot() ([]SourceStats, map[string]uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SourceStats, 0, len(s.sources))
	for _, st := range s.sources {
		c := *st
		if st.RejectedBy != nil {
			c.RejectedBy = make(map[string]uint64, len(st.RejectedBy))
			for k, v := range st.RejectedBy {
				c.RejectedBy[k] = v
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	dlq := make(map[string]uint64, len(s.dlq))
	for k, v := range s.dlq {
		dlq[k] = v
	}
	return out, dlq
}

// OperatorCounts are the operator loop's counters as /status shows them.
type OperatorCounts struct {
	Trades        uint64 `json:"trades"`
	Gaps          uint64 `json:"gaps"` // source gaps handed to the operators
	Candles       uint64 `json:"candles"`
	Documents     uint64 `json:"documents"`
	SignalChanges uint64 `json:"signalChanges"`
	Rejected      uint64 `json:"rejected"`
	Transactions  uint64 `json:"transactions"`
	Aborts        uint64 `json:"aborts"`
	Restores      uint64 `json:"restores"`
}

// OperatorSource is an operator loop's counters (pipeline.ProcessStats).
type OperatorSource interface {
	Counts() OperatorCounts
}

// AttachOperators makes Operators report the counters of an operator loop
// running in this process.
func (s *Stats) AttachOperators(p OperatorSource) {
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
}

// Operators returns the attached operator loop's counters, and false when no
// operator loop runs in this process.
func (s *Stats) Operators() (OperatorCounts, bool) {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return OperatorCounts{}, false
	}
	return p.Counts(), true
}

// Reasons tallies rejections by reason phrase (ReasonClass), keeping the
// first full reason of each as an example: what a finite source says when
// it ends. The zero value is ready to use; it is not safe for concurrent
// use.
type Reasons struct {
	counts  map[string]uint64
	example map[string]string
	total   uint64
}

// Add counts one rejection.
func (r *Reasons) Add(reason string) {
	if r.counts == nil {
		r.counts, r.example = map[string]uint64{}, map[string]string{}
	}
	c := ReasonClass(reason)
	if r.counts[c] == 0 {
		r.example[c] = reason
	}
	r.counts[c]++
	r.total++
}

// Total returns the number of rejections counted.
func (r *Reasons) Total() uint64 { return r.total }

// Counts returns a copy of the counts by reason phrase.
func (r *Reasons) Counts() map[string]uint64 {
	out := make(map[string]uint64, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// Top describes the n most frequent reasons, most frequent first (ties by
// phrase), each with its count and first full reason, e.g.
// `unknown pool ×12 (e.g. "unknown pool: 0xab…")`; "" when none.
func (r *Reasons) Top(n int) string {
	classes := make([]string, 0, len(r.counts))
	for c := range r.counts {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool {
		a, b := classes[i], classes[j]
		if r.counts[a] != r.counts[b] {
			return r.counts[a] > r.counts[b]
		}
		return a < b
	})
	var b strings.Builder
	for i, c := range classes {
		if i == n {
			more := len(classes) - n
			fmt.Fprintf(&b, "; %d more reason%s", more, map[bool]string{true: "s"}[more > 1])
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		ex := r.example[c]
		if len(ex) > 160 {
			ex = ex[:160] + "…"
		}
		fmt.Fprintf(&b, "%s ×%d", c, r.counts[c])
		if ex != c {
			fmt.Fprintf(&b, " (e.g. %q)", ex)
		}
	}
	return b.String()
}
