package query

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// statusBody is the JSON of GET /status (docs/api.md). Pointer fields are
// null when unknown.
type statusBody struct {
	Service     string            `json:"service"`
	Version     string            `json:"version"`
	GeneratedAt string            `json:"generatedAt"`
	Sources     []statusSource    `json:"sources"`
	DeadLetters map[string]uint64 `json:"deadLetters"`
	Views       statusViews       `json:"views"`
	// Operators is null when no operator loop runs in this process.
	Operators *pipeline.OperatorCounts `json:"operators"`
}

// statusSource is the ingestion state of one source.
type statusSource struct {
	Source       string  `json:"source"`
	State        string  `json:"state"`
	Trades       uint64  `json:"trades"`
	Rejected     uint64  `json:"rejected"`
	LastEventAt  *string `json:"lastEventAt"`
	LastIngestAt *string `json:"lastIngestAt"`
	FreshnessMs  *int64  `json:"freshnessMs"`
	Reconnects   uint64  `json:"reconnects"`
	Error        *string `json:"error"`
	// LagMs is ingest time minus event time of the last trade; null before
	// the first trade.
	LagMs *int64 `json:"lagMs"`
	// Gaps counts the stretches the source could not deliver; LastGap
	// describes the last one (null when none).
	Gaps    uint64  `json:"gaps"`
	LastGap *string `json:"lastGap"`
}

// statusViews counts the documents the live routes can serve.
type statusViews struct {
	Documents int            `json:"documents"`
	Symbols   int            `json:"symbols"`
	Windows   map[string]int `json:"windows"`
}

// handleStatus serves GET /status.
func (s *Server) handleStatus(c fiber.Ctx) error {
	now := s.d.Now()
	body := statusBody{
		Service:     "mi",
		Version:     s.d.Version,
		GeneratedAt: formatTime(now.UnixNano()),
		Sources:     []statusSource{},
		DeadLetters: map[string]uint64{},
		Views: statusViews{
			Documents: s.d.Views.Len(),
			Symbols:   len(s.d.Views.Symbols()),
			Windows:   make(map[string]int, len(schemas.Windows)),
		},
	}
	for _, w := range schemas.Windows {
		body.Views.Windows[w] = len(s.d.Views.List(w))
	}
	if s.d.Stats != nil {
		sources, dlq := s.d.Stats.Snapshot()
		for _, st := range sources {
			ss := sourceStatus(st.Name, st.State, st.Trades, st.Rejected,
				st.LastEventNs, st.LastIngestNs, st.Reconnects, st.Error, now)
			addLiveStatus(&ss, st)
			body.Sources = append(body.Sources, ss)
		}
		for reason, n := range dlq {
			body.DeadLetters[reason] = n
		}
		if oc, ok := s.d.Stats.Operators(); ok {
			body.Operators = &oc
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("cannot encode the status body: %w", err)
	}
	return sendJSON(c, fiber.StatusOK, b)
}

// sourceStatus builds the status of one source as of now. Freshness is now
// minus the last ingest time, never negative, and null when the source has
// ingested nothing.
func sourceStatus(name, state string, trades, rejected uint64, lastEventNs, lastIngestNs int64,
	reconnects uint64, errText string, now time.Time) statusSource {
	st := statusSource{
		Source:     name,
		State:      state,
		Trades:     trades,
		Rejected:   rejected,
		Reconnects: reconnects,
	}
	if lastEventNs != 0 {
		t := formatTime(lastEventNs)
		st.LastEventAt = &t
	}
	if lastIngestNs != 0 {
		t := formatTime(lastIngestNs)
		st.LastIngestAt = &t
		ms := max(now.Sub(time.Unix(0, lastIngestNs)).Milliseconds(), 0)
		st.FreshnessMs = &ms
	}
	if errText != "" {
		st.Error = &errText
	}
	return st
}

// formatTime formats Unix nanoseconds as RFC 3339 UTC with milliseconds,
// like every time the service renders.
func formatTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(timeLayout)
}

// addLiveStatus adds what live sources report: lag and gaps.
func addLiveStatus(ss *statusSource, st pipeline.SourceStats) {
	if st.Trades > 0 {
		ms := st.LagNs / 1e6
		ss.LagMs = &ms
	}
	ss.Gaps = st.Gaps
	if st.LastGap != "" {
		g := st.LastGap
		ss.LastGap = &g
	}
}
