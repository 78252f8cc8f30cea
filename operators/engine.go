package operators

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// PartitionKey is the state key of the partition-level state (watermarks and
// the document clock). Every other state key of the engine is a symbol.
const PartitionKey = "~partition"

// ReservedPrefix starts every state key that is not a symbol: PartitionKey,
// and the keys the pipeline stores beside the engine's in the same
// changelog. The engine refuses symbols that start with it.
const ReservedPrefix = "~"

// Reject reasons: the stable phrase each rejection reason starts with.
// Validation failures use the text of the schemas.Validate error instead.
const (
	// ReasonLate rejects a trade older than the watermark of its venue kind.
	ReasonLate = "late"
	// ReasonDuplicate rejects a trade whose dedupe key was already accepted.
	ReasonDuplicate = "duplicate"
	// ReasonFuture rejects a trade too far ahead of the partition's newest
	// accepted event time (Config.MaxFutureSkew).
	ReasonFuture = "future timestamp"
	// ReasonOutOfRange rejects a valid trade whose values the operators do
	// not accept; the full reason continues with ": " and details.
	ReasonOutOfRange = "out of range"
)

const (
	maxNs       = math.MaxInt64
	numKinds    = int(schemas.VenueKind_VENUE_KIND_SOLANA_DEX) + 1 // arrays indexed by VenueKind; 0 unused
	nsPerSecond = int64(1e9)
)

// Bounds beyond which a trade is rejected as out of range: they keep every
// sum, ratio and percentage the operators compute finite.
const (
	minPrice    = 1e-18
	maxPrice    = 1e12
	maxSize     = 1e18
	maxNotional = 1e15
)

// Emit receives an Engine's output. Each function is called synchronously
// from Push; the pointer, and every slice reachable from it, is only valid
// during the call (the engine reuses the struct): the caller marshals it
// immediately or copies what it keeps. Strings may be kept. The functions
// must not call back into the engine. A nil function discards that output.
type Emit struct {
	// Candle receives each closed 1m candle.
	Candle func(c *schemas.Candle)
	// Document receives each intelligence document.
	Document func(d *schemas.IntelligenceDocument)
	// Reject receives each trade the engine does not accept, with the
	// reason: "late", "duplicate", "future timestamp", "out of range: ...",
	// or the text of the schemas.Validate error.
	Reject func(t *schemas.Trade, reason string)
	// SignalChange receives each change of a symbol×window's signal, right
	// after the document that changed it; not for the very first document
	// of a symbol×window.
	SignalChange func(c *schemas.SignalChange)
	// MinuteClose receives again, after Document (and SignalChange), each
	// document taken at a minute close: the documents of the partition's
	// first document boundary in a UTC minute, one per window for every
	// symbol documented there. Such a document covers the trades before
	// that minute (see docs/operators.md); the history's signals dataset
	// is made of them.
	MinuteClose func(d *schemas.IntelligenceDocument)
}

// Engine is the operator chain of one input partition (many symbols). It is
// not safe for concurrent use.
type Engine struct {
	cfg      Config
	lateness [numKinds]int64
	emit     Emit

	// Partition state (PartitionKey).
	hasMax     [numKinds]bool
	maxEvent   [numKinds]int64 // newest accepted event time per venue kind
	hasClock   bool
	clockNs    int64 // newest accepted event time of any kind: the document clock
	coverageNs int64 // oldest accepted event time
	hasDocSec  bool
	docSec     int64 // second (Unix seconds) of the last document boundary
	partDirty  bool

	symbols map[string]*symbol
	sorted  []*symbol // all symbols by name
	touched []*symbol // symbols with accepted trades since the last documents
	dirty   []*symbol // symbols whose state changed since ClearDirty

	// nextClose[k] is at most the earliest end of an open candle of kind k.
	nextClose [numKinds]int64

	// Scratch and reused output.
	closing   []closingCandle
	candleOut schemas.Candle
	docOut    schemas.IntelligenceDocument
	obsOut    schemas.Observations
	qualOut   schemas.Quality
	interpOut schemas.Interpretation
	changeOut schemas.SignalChange
	gapOut    [MaxGaps]schemas.Gap
	gapPtrs   [MaxGaps]*schemas.Gap
	evidence  []string
	scratch   []byte
	ids       idArena

	pendingChange bool // changeOut is due after the current document
}

// symbol is the state of one symbol (one state key).
type symbol struct {
	name      string
	hasLast   bool
	lastNs    int64   // newest accepted event time
	lastPrice float64 // its price, last arrival on ties
	touched   bool    // accepted trades since the last documents
	dirty     bool

	venues     []string // venue table; bucket bitmasks index it
	venueOrder []uint8  // slots of venues sorted by name (derived, not encoded)
	hist       histogram
	dedupe     dedupe
	series     []*series // candle series in first-seen order
	win        [numWindows]ring
	base       [numWindows]baseline  // per window: samples of aligned windows
	life       [numWindows]lifecycle // per window: signal lifecycle
	gaps       []gap                 // known gaps, in gap order (see PushGap)
}

// NewEngine returns an engine with empty state. It panics if cfg is invalid:
// callers validate configuration with Config.Validate when they load it.
func NewEngine(cfg Config, emit Emit) *Engine {
	if err := cfg.Validate(); err != nil {
		panic("BUG: NewEngine with an invalid config: " + err.Error())
	}
	if emit.Candle == nil {
		emit.Candle = func(*schemas.Candle) {}
	}
	if emit.Document == nil {
		emit.Document = func(*schemas.IntelligenceDocument) {}
	}
	if emit.Reject == nil {
		emit.Reject = func(*schemas.Trade, string) {}
	}
	if emit.SignalChange == nil {
		emit.SignalChange = func(*schemas.SignalChange) {}
	}
	if emit.MinuteClose == nil {
		emit.MinuteClose = func(*schemas.IntelligenceDocument) {}
	}
	e := &Engine{
		cfg:      cfg,
		lateness: cfg.lateness(),
		emit:     emit,
		symbols:  make(map[string]*symbol),
	}
	for k := range e.nextClose {
		e.nextClose[k] = maxNs
	}
	e.obsOut.Quality = &e.qualOut
	return e
}

// Push feeds one trade through the operator chain: validation, range
// checks, lateness, future skew, dedupe; then, for an accepted trade,
// documents due before it, its insertion into candles and windows, and the
// candles its watermark closes. Push never retains t.
func (e *Engine) Push(t *schemas.Trade) {
	if err := schemas.Validate(t); err != nil {
		e.emit.Reject(t, err.Error())
		return
	}
	if reason := rangeProblem(t); reason != "" {
		e.emit.Reject(t, reason)
		return
	}
	k := int(t.VenueKind)
	ns := t.EventTimeNs
	sym := e.symbols[t.Symbol]
	if e.hasMax[k] && ns < e.watermark(k) {
		e.rejectCounted(t, sym, ReasonLate)
		return
	}
	if e.hasClock && ns-e.clockNs > int64(e.cfg.MaxFutureSkew) {
		e.emit.Reject(t, ReasonFuture)
		return
	}
	hash := tradeKeyHash(t)
	if sym != nil {
		if e.hasMax[k] && sym.dedupe.expire(k, e.watermark(k)-dedupeMargin) {
			e.markDirty(sym)
		}
		if sym.dedupe.set.has(hash) {
			e.rejectCounted(t, sym, ReasonDuplicate)
			return
		}
	}

	// Accepted. Documents first: they are "as of" a second boundary that
	// this trade is the first to cross.
	sec := floorDiv(ns, nsPerSecond)
	switch {
	case !e.hasDocSec:
		e.hasDocSec, e.docSec = true, sec
	case sec > e.docSec:
		e.emitDocuments(sec)
		e.docSec = sec
	}
	if !e.hasMax[k] || ns > e.maxEvent[k] {
		e.hasMax[k], e.maxEvent[k] = true, ns
	}
	if !e.hasClock {
		e.hasClock, e.clockNs, e.coverageNs = true, ns, ns
	} else {
		e.clockNs = max(e.clockNs, ns)
		e.coverageNs = min(e.coverageNs, ns)
	}
	e.partDirty = true

	if sym == nil {
		sym = e.newSymbol(t.Symbol)
	}
	e.insert(sym, t, hash)
	if w := e.watermark(k); w >= e.nextClose[k] {
		e.closeCandles(schemas.VenueKind(k), w)
	}
}

// End is the end of input: the partition's input was read to its end (a
// finite replay or backfill) and no trade follows. It emits the documents
// as of the minute boundary after the newest accepted trade — a minute
// close, so the last minute has its signal rows — and then closes every
// open candle, oldest first, so the last trades have their candle; without
// it those wait for a watermark that never comes. It does so by moving
// each venue kind's watermark to the end of its newest minute: a trade
// that still comes for a closed minute is rejected as late, as after any
// close. Calling End again does nothing.
func (e *Engine) End() {
	if e.hasClock {
		sec := (floorDiv(e.clockNs, candleNs) + 1) * (candleNs / nsPerSecond)
		if !e.hasDocSec || sec > e.docSec {
			e.emitDocuments(sec)
			e.hasDocSec, e.docSec = true, sec
			e.partDirty = true
		}
	}
	for k := range e.hasMax {
		if !e.hasMax[k] {
			continue
		}
		end := (floorDiv(e.maxEvent[k], candleNs) + 1) * candleNs
		if w := end + e.lateness[k]; w > e.maxEvent[k] {
			e.maxEvent[k] = w
			e.partDirty = true
		}
		if w := e.watermark(k); w >= e.nextClose[k] {
			e.closeCandles(schemas.VenueKind(k), w)
		}
	}
}

// watermark returns W_k: the newest accepted event time of kind k minus the
// allowed lateness of k. Only meaningful when hasMax[k].
func (e *Engine) watermark(k int) int64 { return e.maxEvent[k] - e.lateness[k] }

// rangeProblem returns the rejection reason of a valid trade whose values
// are outside what the operators accept, or "".
func rangeProblem(t *schemas.Trade) string {
	switch {
	case t.Price < minPrice || t.Price >= maxPrice:
		return fmt.Sprintf("%s: price %v outside [%g, %g)", ReasonOutOfRange, t.Price, minPrice, maxPrice)
	case t.Size > maxSize:
		return fmt.Sprintf("%s: size %v above %g", ReasonOutOfRange, t.Size, maxSize)
	case t.NotionalUsd > maxNotional:
		return fmt.Sprintf("%s: notional %v above %g", ReasonOutOfRange, t.NotionalUsd, maxNotional)
	case strings.HasPrefix(t.Symbol, ReservedPrefix):
		return fmt.Sprintf("%s: symbol %q is reserved (no symbol starts with %q)", ReasonOutOfRange, t.Symbol, ReservedPrefix)
	}
	return ""
}

// rejectCounted rejects a late or duplicate trade and counts it in the
// quality of its symbol: in the bucket of the symbol's newest accepted event
// time, in every window. A symbol with no accepted trade counts nothing.
func (e *Engine) rejectCounted(t *schemas.Trade, sym *symbol, reason string) {
	if sym != nil && sym.hasLast {
		for w := range sym.win {
			idx := floorDiv(sym.lastNs, bucketNs(w))
			sym.win[w].changed(idx)
			b := sym.win[w].detailAt(idx)
			if reason == ReasonLate {
				b.late++
			} else {
				b.dup++
			}
		}
		e.markDirty(sym)
	}
	e.emit.Reject(t, reason)
}

// newSymbol creates the state of a symbol seen for the first time.
func (e *Engine) newSymbol(name string) *symbol {
	sym := &symbol{name: cloneString(name)}
	e.addSymbol(sym)
	e.markDirty(sym)
	return sym
}

// addSymbol registers sym, replacing a symbol of the same name, without
// marking it dirty.
func (e *Engine) addSymbol(sym *symbol) {
	i, found := slices.BinarySearchFunc(e.sorted, sym.name, func(s *symbol, name string) int {
		return strings.Compare(s.name, name)
	})
	if found {
		old := e.sorted[i]
		e.sorted[i] = sym
		if j := slices.Index(e.touched, old); j >= 0 {
			e.touched = slices.Delete(e.touched, j, j+1)
		}
		if j := slices.Index(e.dirty, old); j >= 0 {
			e.dirty = slices.Delete(e.dirty, j, j+1)
		}
	} else {
		e.sorted = slices.Insert(e.sorted, i, sym)
	}
	e.symbols[sym.name] = sym
	if sym.touched {
		e.touched = append(e.touched, sym)
	}
	for _, s := range sym.series {
		if len(s.candles) > 0 {
			k := s.kind
			e.nextClose[k] = min(e.nextClose[k], s.candles[0].startNs+candleNs)
		}
	}
}

// insert folds an accepted trade into its symbol.
func (e *Engine) insert(sym *symbol, t *schemas.Trade, hash uint64) {
	ns := t.EventTimeNs
	large := t.NotionalUsd >= sym.hist.threshold()
	sym.hist.add(t.NotionalUsd)
	sym.dedupe.add(int(t.VenueKind), hash, ns)
	hadLast, oldLast := sym.hasLast, sym.lastNs
	if !sym.hasLast || ns >= sym.lastNs {
		sym.hasLast, sym.lastNs, sym.lastPrice = true, ns, t.Price
	}

	s := sym.seriesFor(t)
	start := floorDiv(ns, candleNs) * candleNs
	c, created := s.candleFor(start)
	c.add(t)
	if created {
		e.nextClose[s.kind] = min(e.nextClose[s.kind], start+candleNs)
	}

	// Advance the rings first: the venue slot search needs to see only
	// buckets still in a current window.
	for w := range sym.win {
		width := bucketNs(w)
		head := floorDiv(sym.lastNs, width)
		if !hadLast {
			sym.win[w].advance(head)
			continue
		}
		if oldHead := floorDiv(oldLast, width); head != oldHead {
			// Aligned windows close before the ring drops their buckets.
			if from, to := floorDiv(oldHead, bucketsPerWindow), floorDiv(head, bucketsPerWindow); to > from {
				sym.base[w].closeWindows(&sym.win[w], from, to)
			}
			sym.win[w].advance(head)
		}
	}
	slot := sym.venueSlot(s)
	for w := range sym.win {
		width := bucketNs(w)
		sym.win[w].add(t, floorDiv(ns, width), floorDiv(sym.lastNs, width), large, slot)
	}
	if !sym.touched {
		sym.touched = true
		e.touched = append(e.touched, sym)
	}
	e.markDirty(sym)
}

// venueSlot returns the slot of the series' venue in the symbol's venue
// table, adding it if needed, or -1 when all maxVenueSlots slots are named
// by buckets of the current windows.
func (sym *symbol) venueSlot(s *series) int {
	if i := s.venueSlot; i >= 0 && i < len(sym.venues) && sym.venues[i] == s.venue {
		return i
	}
	s.venueSlot = slices.Index(sym.venues, s.venue)
	if s.venueSlot >= 0 {
		return s.venueSlot
	}
	if len(sym.venues) < maxVenueSlots {
		sym.venues = append(sym.venues, s.venue)
		s.venueSlot = len(sym.venues) - 1
		sym.sortVenues()
		return s.venueSlot
	}
	var used uint64
	for w := range sym.win {
		used |= sym.win[w].usedVenues()
	}
	for i := range maxVenueSlots {
		if used&(1<<i) == 0 {
			sym.venues[i] = s.venue
			s.venueSlot = i
			sym.sortVenues()
			return i
		}
	}
	return -1
}

// sortVenues recomputes venueOrder after the venue table changed.
func (sym *symbol) sortVenues() {
	sym.venueOrder = sym.venueOrder[:0]
	for i := range sym.venues {
		sym.venueOrder = append(sym.venueOrder, uint8(i))
	}
	slices.SortStableFunc(sym.venueOrder, func(a, b uint8) int { return strings.Compare(sym.venues[a], sym.venues[b]) })
}

// markDirty records that the state of sym changed.
func (e *Engine) markDirty(sym *symbol) {
	if !sym.dirty {
		sym.dirty = true
		e.dirty = append(e.dirty, sym)
	}
}

// bySymbolName orders symbols by name.
func bySymbolName(a, b *symbol) int { return cmp.Compare(a.name, b.name) }

// floorDiv returns floor(a/b) for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// cloneString returns a copy of s that does not share memory with the
// caller's trade.
func cloneString(s string) string { return strings.Clone(s) }
