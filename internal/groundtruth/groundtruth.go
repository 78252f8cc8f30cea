// Package groundtruth measures the event detectors of the operators against
// the labelled events of the seeded simulator: it runs the simulator's
// trades through an operators.Engine in process (no broker) and compares the
// event types of the documents with the injected events, per window. The
// method and the published figures are in docs/signals.md.
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
	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/schemas"
)

// Config selects the simulated market a measurement runs on.
type Config struct {
	// Seed, Start, Symbols, RateScale and EventsPerSymbolPerDay are passed
	// to the simulator (sim.Config); zero values select its defaults.
	Seed                  int64
	Start                 time.Time
	Symbols               []string
	RateScale             float64
	EventsPerSymbolPerDay float64
	// Duration is the simulated time measured; required.
	Duration time.Duration
}

// Windows are the analysis windows measured, in the order of the report.
var Windows = []string{"1m", "5m", "15m"}

// windowSeconds gives the length of each window.
var windowSeconds = map[string]int64{"1m": 60, "5m": 300, "15m": 900}

// AnyEvent names the "unusual activity" detector: a document whose event
// type is anything but NORMAL.
const AnyEvent = "ANY"

// Types are the detector rows of a report: AnyEvent, then every non-NORMAL
// event type of the operators.
var Types = []string{AnyEvent, operators.EventUnusualActivity, operators.EventBreakout, operators.EventBreakdown,
	operators.EventDistribution, operators.EventAccumulation, operators.EventMomentum}

// expected maps a detector row to the labelled event type it should find;
// "" (ACCUMULATION, MOMENTUM) has no labelled counterpart in the simulator,
// so only its false-positive rate is measured. AnyEvent is measured against
// every labelled event.
var expected = map[string]string{
	operators.EventUnusualActivity: sim.EventVolumeBurst,
	operators.EventBreakout:        sim.EventBreakout,
	operators.EventBreakdown:       sim.EventBreakdown,
	operators.EventDistribution:    sim.EventDistribution,
}

// Row is the measurement of one detector (event type) in one window.
type Row struct {
	Type string
	// Labelled is the labelled type the recall is measured against:
	// "all" for AnyEvent, "" when there is none.
	Labelled string
	// Events is the number of labelled events measured; Detected how many
	// of them had a document of this type during the event or within one
	// window length after its end.
	Events, Detected int
	// MedianDelaySeconds is the median time from an event's start to its
	// first detection (0 when nothing was detected).
	MedianDelaySeconds int64
	// Flagged is the number of quiet symbol-minutes with at least one
	// document of this type, out of QuietMinutes.
	Flagged, QuietMinutes int
}

// Recall is Detected/Events, 0 without events.
func (r Row) Recall() float64 {
	if r.Events == 0 {
		return 0
	}
	return float64(r.Detected) / float64(r.Events)
}

// FPRate is Flagged/QuietMinutes, 0 without quiet minutes.
func (r Row) FPRate() float64 {
	if r.QuietMinutes == 0 {
		return 0
	}
	return float64(r.Flagged) / float64(r.QuietMinutes)
}

// Report is the outcome of one measurement.
type Report struct {
	Config Config
	Trades int64
	// Events are the labelled events the simulator injected.
	Events []sim.Event
	// Rows holds, per window, one Row per entry of Types.
	Rows map[string][]Row
}

// warmupWindows is the number of window lengths excluded at the start of a
// run, per window: the first aligned window is partial and not sampled, and
// the baseline is ready after operators.BaselineReadySamples more.
const warmupWindows = operators.BaselineReadySamples + 1

// Warmup returns the stretch at the start of a run that is not measured in
// window w: events starting earlier are not counted, nor are minutes before.
func Warmup(w string) time.Duration {
	return time.Duration(warmupWindows*windowSeconds[w]) * time.Second
}

// flags records, per symbol, window and minute since the start, a bit per
// event type seen in that minute's documents.
type flags map[string][]uint8

// typeBit returns the bit of an event type.
func typeBit(t string) uint8 {
	i := slices.Index(Types, t)
	if i <= 0 {
		return 0
	}
	return 1 << i
}

// Run runs the simulator through the operators and measures the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Duration <= 0 {
		return nil, fmt.Errorf("cannot measure: Duration %s must be positive", cfg.Duration)
	}
	src, err := sim.New(sim.Config{
		Seed: cfg.Seed, Start: cfg.Start, End: cfg.Start.Add(cfg.Duration), Symbols: cfg.Symbols,
		RateScale: cfg.RateScale, EventsPerSymbolPerDay: cfg.EventsPerSymbolPerDay,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot start the simulator: %w", err)
	}
	defer src.Close()

	minutes := int(cfg.Duration / time.Minute)
	startNs := cfg.Start.UnixNano()
	seen := map[string]flags{}
	for _, w := range Windows {
		seen[w] = flags{}
	}
	// detections[w][symbol] lists documents with a non-NORMAL event type.
	type hit struct {
		ns   int64
		bits uint8
	}
	hits := map[string]map[string][]hit{}
	for _, w := range Windows {
		hits[w] = map[string][]hit{}
	}
	eng := operators.NewEngine(operators.DefaultConfig(), operators.Emit{
		Document: func(d *schemas.IntelligenceDocument) {
			if d.EventType == operators.EventNormal || d.EventType == "" {
				return
			}
			bits := typeBit(d.EventType) | 1 // bit 0: AnyEvent
			f := seen[d.Window]
			m := int((d.TimestampNs - startNs) / int64(time.Minute))
			if m < 0 || m >= minutes {
				return
			}
			row := f[d.Symbol]
			if row == nil {
				row = make([]uint8, minutes)
				f[d.Symbol] = row
			}
			row[m] |= bits
			hits[d.Window][d.Symbol] = append(hits[d.Window][d.Symbol], hit{d.TimestampNs, bits})
		},
	})
	var trades int64
	for {
		rec, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the simulator: %w", err)
		}
		if rec.Trade == nil {
			continue
		}
		eng.Push(rec.Trade)
		trades++
	}

	rep := &Report{Config: cfg, Trades: trades, Events: src.Events(), Rows: map[string][]Row{}}
	symbols := cfg.Symbols
	if len(symbols) == 0 {
		symbols = sim.DefaultSymbols()
	}
	quietGap := int64(sim.QuietGap)
	for _, w := range Windows {
		warm := startNs + int64(Warmup(w))
		graceNs := windowSeconds[w] * int64(time.Second)
		rows := make([]Row, len(Types))
		for i, t := range Types {
			rows[i].Type = t
			rows[i].Labelled = expected[t]
			if t == AnyEvent {
				rows[i].Labelled = "all"
			}
		}
		// Recall.
		delays := make([][]int64, len(Types))
		for _, ev := range rep.Events {
			s, e := ev.Start.UnixNano(), ev.End.UnixNano()
			if s < warm {
				continue
			}
			var first [8]int64
			var got uint8
			for _, h := range hits[w][ev.Symbol] {
				if h.ns < s || h.ns >= e+graceNs {
					continue
				}
				for i := range Types {
					if h.bits&(1<<i) != 0 && got&(1<<i) == 0 {
						got |= 1 << i
						first[i] = h.ns - s
					}
				}
			}
			for i, t := range Types {
				if t != AnyEvent && expected[t] != ev.Type {
					continue
				}
				rows[i].Events++
				if got&(1<<i) != 0 {
					rows[i].Detected++
					delays[i] = append(delays[i], first[i])
				}
			}
		}
		for i := range rows {
			if d := delays[i]; len(d) > 0 {
				slices.Sort(d)
				rows[i].MedianDelaySeconds = d[len(d)/2] / int64(time.Second)
			}
		}
		// False positives on quiet minutes.
		for _, sym := range symbols {
			var busy [][2]int64
			for _, ev := range rep.Events {
				if ev.Symbol == sym {
					busy = append(busy, [2]int64{ev.Start.UnixNano() - quietGap, ev.End.UnixNano() + quietGap})
				}
			}
			row := seen[w][sym]
			for m := range minutes {
				lo := startNs + int64(m)*int64(time.Minute)
				hi := lo + int64(time.Minute)
				if lo < warm || slices.ContainsFunc(busy, func(b [2]int64) bool { return lo < b[1] && hi > b[0] }) {
					continue
				}
				var bits uint8
				if row != nil {
					bits = row[m]
				}
				for i := range rows {
					rows[i].QuietMinutes++
					if bits&(1<<i) != 0 {
						rows[i].Flagged++
					}
				}
			}
		}
		rep.Rows[w] = rows
	}
	return rep, nil
}

// Row returns the row of detector typ in window w.
func (r *Report) Row(w, typ string) Row {
	i := slices.Index(Types, typ)
	if i < 0 || r.Rows[w] == nil {
		panic("BUG: no row " + w + " " + typ)
	}
	return r.Rows[w][i]
}

// Markdown renders the report as the table published in docs/signals.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, start %s, %s simulated, %d symbols, rate scale %g, %g events/symbol/day: %d trades, %d labelled events\n\n",
		r.Config.Seed, r.Config.Start.UTC().Format(time.RFC3339), r.Config.Duration, r.symbolCount(),
		nonZero(r.Config.RateScale, 1), nonZero(r.Config.EventsPerSymbolPerDay, sim.DefaultEventsPerSymbolPerDay),
		r.Trades, len(r.Events))
	b.WriteString("| window | detector (eventType) | labelled type | events | detected | recall | median delay (s) | quiet minutes | flagged | FP rate |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range Windows {
		for _, row := range r.Rows[w] {
			name := row.Type
			if name == AnyEvent {
				name = "any non-NORMAL (unusual activity)"
			}
			recall, events, detected, delay := "—", "—", "—", "—"
			if row.Labelled != "" {
				events, detected = fmt.Sprint(row.Events), fmt.Sprint(row.Detected)
				recall = fmt.Sprintf("%.2f", row.Recall())
				delay = fmt.Sprint(row.MedianDelaySeconds)
			}
			labelled := row.Labelled
			if labelled == "" {
				labelled = "—"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %d | %.3f |\n",
				w, name, labelled, events, detected, recall, delay, row.QuietMinutes, row.Flagged, row.FPRate())
		}
	}
	return b.String()
}

func (r *Report) symbolCount() int {
	if len(r.Config.Symbols) == 0 {
		return len(sim.DefaultSymbols())
	}
	return len(r.Config.Symbols)
}

func nonZero(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}
