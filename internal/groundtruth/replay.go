package groundtruth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// WindowCounts summarizes the documents of one window of a replay.
type WindowCounts struct {
	// Documents is the number of documents; Ready how many had a ready
	// baseline; MaxSamples the most baseline samples any document had.
	Documents, Ready int
	MaxSamples       int64
	// Events counts documents per event type (NORMAL included).
	Events map[string]int
	// Changes counts signal changes.
	Changes int
	// MaxAnomaly is the highest anomalyScore seen.
	MaxAnomaly float64
}

// ReplayCounts is what the operators made of a recorded capture.
type ReplayCounts struct {
	Trades, Rejected int
	// First and Last are the event times of the first and last accepted
	// trades.
	First, Last time.Time
	Windows     map[string]*WindowCounts
}

// Replay runs every record of src through a fresh operators.Engine and
// counts the documents per window and event type.
func Replay(ctx context.Context, src sources.Source) (*ReplayCounts, error) {
	rc := &ReplayCounts{Windows: map[string]*WindowCounts{}}
	for _, w := range Windows {
		rc.Windows[w] = &WindowCounts{Events: map[string]int{}}
	}
	var first, last int64
	eng := operators.NewEngine(operators.DefaultConfig(), operators.Emit{
		Document: func(d *schemas.IntelligenceDocument) {
			wc := rc.Windows[d.Window]
			wc.Documents++
			if d.BaselineReady {
				wc.Ready++
			}
			wc.MaxSamples = max(wc.MaxSamples, d.BaselineSamples)
			wc.Events[d.EventType]++
			wc.MaxAnomaly = max(wc.MaxAnomaly, d.AnomalyScore)
		},
		SignalChange: func(c *schemas.SignalChange) { rc.Windows[c.Window].Changes++ },
		Reject:       func(*schemas.Trade, string) { rc.Rejected++ },
	})
	for {
		rec, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", src.Name(), err)
		}
		if rec.Trade == nil {
			rc.Rejected++
			continue
		}
		ns := rec.Trade.EventTimeNs
		if rc.Trades == 0 || ns < first {
			first = ns
		}
		last = max(last, ns)
		rc.Trades++
		eng.Push(rec.Trade)
	}
	if rc.Trades > 0 {
		rc.First, rc.Last = time.Unix(0, first).UTC(), time.Unix(0, last).UTC()
	}
	return rc, nil
}

// NonNormal returns the event types other than NORMAL seen in window w,
// as "TYPE×count" sorted by type, or "none".
func (rc *ReplayCounts) NonNormal(w string) string {
	var out []string
	for t, n := range rc.Windows[w].Events {
		if t != operators.EventNormal {
			out = append(out, fmt.Sprintf("%s×%d", t, n))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
