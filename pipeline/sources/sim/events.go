package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Types of the injected events, as written to the ground truth.
const (
	// EventVolumeBurst multiplies the arrival rate by 5–10 for 3–10
	// minutes with balanced sides and no drift.
	EventVolumeBurst = "volume_burst"
	// EventBreakout is a strong upward drift (+2–6 % over the event) with
	// 2–4× the arrival rate and 72–82 % of the aggressors buying.
	EventBreakout = "breakout"
	// EventBreakdown mirrors EventBreakout: a −2–6 % drift with 18–28 %
	// of the aggressors buying.
	EventBreakdown = "breakdown"
	// EventDistribution is elevated selling (25–35 % buying, sells 3–6×
	// larger than usual) at 1.5–3× the arrival rate, with the price flat to
	// slightly down (−0.8–0 %).
	EventDistribution = "distribution"
)

// EventTypes lists the injected event types.
var EventTypes = []string{EventVolumeBurst, EventBreakout, EventBreakdown, EventDistribution}

// QuietGap is the least time between an injected event and any other event of
// the same symbol, and between Config.Start and a symbol's first event. The
// stretch of QuietGap before and after every event is therefore free of
// injected events, which makes false-positive measurements well-defined.
const QuietGap = 30 * time.Minute

// Event is one injected, labelled event: the ground truth a detector is
// measured against. Params are the event's parameters by name (see
// docs/simulator.md); they are shared, so callers must not modify them.
type Event struct {
	Symbol string
	Type   string
	// Start and End bound the event: it affects trades with Start <= event
	// time < End. Both are whole seconds after Config.Start.
	Start, End time.Time
	Params     map[string]float64
}

// Contains reports whether t lies within the event, Start <= t < End.
func (e Event) Contains(t time.Time) bool {
	return !t.Before(e.Start) && t.Before(e.End)
}

// Event kinds, indexes into eventShapes and EventTypes.
const (
	kindVolumeBurst = iota
	kindBreakout
	kindBreakdown
	kindDistribution
	numKinds
)

// eventShape gives the ranges each event parameter is drawn from, uniformly.
type eventShape struct {
	minDur, maxDur   float64 // seconds
	minRate, maxRate float64 // arrival-rate multiplier
	minBuy, maxBuy   float64 // probability that an aggressor buys
	minRet, maxRet   float64 // total drift over the event, percent
	minSell, maxSell float64 // notional multiplier of sells; 0 = none
}

var eventShapes = [numKinds]eventShape{
	kindVolumeBurst:  {minDur: 180, maxDur: 600, minRate: 5, maxRate: 10, minBuy: 0.5, maxBuy: 0.5},
	kindBreakout:     {minDur: 300, maxDur: 900, minRate: 2, maxRate: 4, minBuy: 0.72, maxBuy: 0.82, minRet: 2, maxRet: 6},
	kindBreakdown:    {minDur: 300, maxDur: 900, minRate: 2, maxRate: 4, minBuy: 0.18, maxBuy: 0.28, minRet: -6, maxRet: -2},
	kindDistribution: {minDur: 600, maxDur: 1200, minRate: 1.5, maxRate: 3, minBuy: 0.25, maxBuy: 0.35, minRet: -0.8, maxRet: 0, minSell: 3, maxSell: 6},
}

// meanEventSeconds is the mean event duration over the kinds, which are
// equally frequent.
var meanEventSeconds = func() float64 {
	var sum float64
	for _, sh := range eventShapes {
		sum += (sh.minDur + sh.maxDur) / 2
	}
	return sum / numKinds
}()

// event is a scheduled event with its parameters in the form the simulation
// uses. Times are seconds after Config.Start.
type event struct {
	Event
	symbol     int // index into Source.syms
	start, end float64
	rateMult   float64
	buyProb    float64
	drift      float64 // log-price drift per second
	sellMult   float64 // notional multiplier of sells
	wallet     int     // index of the distributing wallet
}

// eventPlan is the per-symbol state of the event schedule: a renewal process
// with its own random stream, so the schedule does not depend on the trades.
type eventPlan struct {
	rng     *rand.Rand
	on      bool
	pending event // next event, drawn but not yet scheduled
	bag     [numKinds]uint8
	bagPos  int
	queue   []*event // scheduled events not yet over, in start order
	active  bool     // queue[0] has started
}

// round3 rounds x to three decimals.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// uniform draws from [lo, hi].
func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// drawPending draws the symbol's next event, starting at least QuietGap after
// from (seconds after Config.Start).
func (s *Source) drawPending(y *symbol, from float64) {
	p := &y.plan
	if p.bagPos == 0 {
		for i := range p.bag {
			p.bag[i] = uint8(i)
		}
		p.rng.Shuffle(len(p.bag), func(i, j int) { p.bag[i], p.bag[j] = p.bag[j], p.bag[i] })
	}
	kind := int(p.bag[p.bagPos])
	p.bagPos = (p.bagPos + 1) % numKinds

	sh := &eventShapes[kind]
	start := math.Ceil(from + QuietGap.Seconds() + p.rng.ExpFloat64()*s.meanEventGap)
	dur := math.Round(uniform(p.rng, sh.minDur, sh.maxDur))
	rateMult := round3(uniform(p.rng, sh.minRate, sh.maxRate))
	buyProb := round3(uniform(p.rng, sh.minBuy, sh.maxBuy))
	ret := round3(uniform(p.rng, sh.minRet, sh.maxRet))
	sellMult := round3(uniform(p.rng, sh.minSell, sh.maxSell))
	wallet := p.rng.IntN(walletsPerChain)

	params := map[string]float64{"rate_multiplier": rateMult, "buy_prob": buyProb}
	if kind != kindVolumeBurst {
		params["return_pct"] = ret
	}
	if kind == kindDistribution {
		params["sell_size_multiplier"] = sellMult
	} else {
		sellMult = 1
	}
	p.pending = event{
		Event: Event{
			Symbol: y.spec.symbol,
			Type:   EventTypes[kind],
			Start:  s.cfg.Start.Add(time.Duration(start) * time.Second),
			End:    s.cfg.Start.Add(time.Duration(start+dur) * time.Second),
			Params: params,
		},
		symbol:   y.index,
		start:    start,
		end:      start + dur,
		rateMult: rateMult,
		buyProb:  buyProb,
		drift:    math.Log1p(ret/100) / dur,
		sellMult: sellMult,
		wallet:   wallet,
	}
}

// chunkSeconds is how far ahead the event schedule is extended at a time.
const chunkSeconds = 3600

// scheduleChunk schedules the events starting in the next chunk of simulated
// time, appends them to the ground truth in start order (ties by symbol
// order) and moves the horizon to the chunk's end.
func (s *Source) scheduleChunk() error {
	from := s.horizon
	to := from + chunkSeconds
	final := false
	if to >= s.endSec {
		to, final = s.endSec, true
	}
	batch := s.batch[:0]
	for i := range s.syms {
		y := &s.syms[i]
		p := &y.plan
		for p.on && p.pending.start < to {
			if p.pending.end > s.endSec {
				p.on = false
				break
			}
			e := new(event)
			*e = p.pending
			p.queue = append(p.queue, e)
			batch = append(batch, e)
			s.drawPending(y, e.end)
		}
	}
	slices.SortFunc(batch, func(a, b *event) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return a.symbol - b.symbol
	})
	for _, e := range batch {
		s.events = append(s.events, e.Event)
		if s.gt != nil {
			s.line = appendEventJSON(s.line[:0], e.Event)
			if _, err := s.gt.Write(s.line); err != nil {
				return fmt.Errorf("cannot write ground truth to %q: %w", s.cfg.GroundTruthPath, err)
			}
		}
	}
	clear(batch)
	s.batch = batch[:0]
	if s.gt != nil && len(batch) > 0 {
		if err := s.gt.Flush(); err != nil {
			return fmt.Errorf("cannot write ground truth to %q: %w", s.cfg.GroundTruthPath, err)
		}
	}
	s.horizon = to
	if final {
		s.horizon = math.Inf(1)
	}
	return nil
}

// gtLine is one line of the ground-truth file.
type gtLine struct {
	Symbol string             `json:"symbol"`
	Type   string             `json:"type"`
	Start  string             `json:"start"`
	End    string             `json:"end"`
	Params map[string]float64 `json:"params"`
}

// appendEventJSON appends e as one NDJSON line of the ground-truth file.
func appendEventJSON(b []byte, e Event) []byte {
	line, err := json.Marshal(gtLine{
		Symbol: e.Symbol,
		Type:   e.Type,
		Start:  e.Start.UTC().Format(time.RFC3339Nano),
		End:    e.End.UTC().Format(time.RFC3339Nano),
		Params: e.Params,
	})
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot marshal event: %v", err))
	}
	b = append(b, line...)
	return append(b, '\n')
}

// ErrBadGroundTruth is wrapped by the errors ReadGroundTruth returns for
// malformed input.
var ErrBadGroundTruth = errors.New("bad ground truth")

// maxGroundTruthLine bounds the length of one ground-truth line.
const maxGroundTruthLine = 64 << 10

// ReadGroundTruth parses a ground-truth file as the simulator writes it: one
// JSON object per line with symbol, type, start, end (RFC 3339) and params.
// Blank lines are skipped. It rejects unknown fields and types, events that
// end before they start, non-finite parameters, and events out of start
// order, with an error wrapping ErrBadGroundTruth that names the line.
func ReadGroundTruth(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxGroundTruthLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parseEventLine(line)
		if err != nil {
			return nil, fmt.Errorf("cannot parse ground truth line %d: %w", n, err)
		}
		if k := len(out); k > 0 && e.Start.Before(out[k-1].Start) {
			return nil, fmt.Errorf("cannot parse ground truth line %d: %w: event starts before the previous one", n, ErrBadGroundTruth)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read ground truth: %w", err)
	}
	return out, nil
}

func parseEventLine(line []byte) (Event, error) {
	var l gtLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrBadGroundTruth, err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: trailing data", ErrBadGroundTruth)
	}
	if l.Symbol == "" {
		return Event{}, fmt.Errorf("%w: missing symbol", ErrBadGroundTruth)
	}
	if !slices.Contains(EventTypes, l.Type) {
		return Event{}, fmt.Errorf("%w: unknown type %q", ErrBadGroundTruth, l.Type)
	}
	start, err := time.Parse(time.RFC3339Nano, l.Start)
	if err != nil {
		return Event{}, fmt.Errorf("%w: bad start: %w", ErrBadGroundTruth, err)
	}
	end, err := time.Parse(time.RFC3339Nano, l.End)
	if err != nil {
		return Event{}, fmt.Errorf("%w: bad end: %w", ErrBadGroundTruth, err)
	}
	if !end.After(start) {
		return Event{}, fmt.Errorf("%w: end %s is not after start %s", ErrBadGroundTruth, l.End, l.Start)
	}
	for _, k := range slices.Sorted(maps.Keys(l.Params)) {
		if v := l.Params[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return Event{}, fmt.Errorf("%w: param %q is not finite", ErrBadGroundTruth, k)
		}
	}
	if l.Params == nil {
		l.Params = map[string]float64{}
	}
	return Event{Symbol: l.Symbol, Type: l.Type, Start: start.UTC(), End: end.UTC(), Params: l.Params}, nil
}
