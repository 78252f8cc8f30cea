// Package views keeps the materialized views the live query routes read: the
// latest IntelligenceDocument per (symbol, window), in memory.
//
// The pipeline feeds a Views every record of the compacted topic
// mi.signals.v1 from the beginning on start, then live; because an older
// document never replaces a newer one, replays and rebuilds are idempotent.
// It also feeds the candle view (Candles, for the free preview) every closed
// 1m candle of mi.candles.v1.
//
// Reads are lock-free: a reader loads an immutable index (which keys exist,
// in symbol order) and then the current document of a key, each with one
// atomic load. A write replaces the document of a known key with one atomic
// store; only a key never seen before copies the index.
package views

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// Views holds the latest IntelligenceDocument per (symbol, window). It is
// safe for concurrent use; it is built for many concurrent readers and one
// writer (several writers are safe too, they only serialize). The zero value
// is not usable: call New.
type Views struct {
	mu  sync.Mutex            // serializes writers
	idx atomic.Pointer[index] // immutable; replaced when a new key appears

	candles *Candles      // closed 1m candles of PreviewSymbols (candles.go)
	gen     atomic.Uint64 // incremented by every Apply that changes a document
}

// key identifies one view entry.
type key struct {
	symbol, window string
}

// entry is the slot of one key. Its document is replaced atomically.
type entry struct {
	symbol string // immutable
	doc    atomic.Pointer[schemas.IntelligenceDocument]
}

// index is an immutable snapshot of the keys. Only the documents inside the
// entries change after it is published.
type index struct {
	byKey    map[key]*entry
	byWindow map[string][]*entry // sorted by symbol
	symbols  []string            // sorted, distinct, over all windows
}

// New returns empty views.
func New() *Views {
	v := &Views{candles: NewCandles(PreviewSymbols)}
	v.idx.Store(&index{byKey: map[key]*entry{}, byWindow: map[string][]*entry{}})
	return v
}

// Candles returns the candle view of PreviewSymbols, fed from
// mi.candles.v1 alongside the documents.
func (v *Views) Candles() *Candles { return v.candles }

// Apply stores a deep copy of d as the latest document of its (symbol,
// window), so the caller may reuse d. A document whose timestamp_ns is older
// than the stored one for the same key is ignored; an equal or newer one
// replaces it, keeping the stored evidence when d carries none (operators
// refresh evidence only on changes and once a minute). A nil d, or one
// without a symbol or window, is ignored.
func (v *Views) Apply(d *schemas.IntelligenceDocument) {
	if d == nil || d.Symbol == "" || d.Window == "" {
		return
	}
	k := key{symbol: d.Symbol, window: d.Window}

	v.mu.Lock()
	defer v.mu.Unlock()
	idx := v.idx.Load()
	if e := idx.byKey[k]; e != nil {
		cur := e.doc.Load()
		if cur != nil && d.TimestampNs < cur.TimestampNs {
			return
		}
		c := clone(d)
		defer v.gen.Add(1)
		if len(c.Evidence) == 0 && cur != nil {
			// The operators write evidence sentences only when the signal
			// or event type changes, or once a minute (docs/signals.md);
			// the view keeps the latest ones in between. Evidence slices
			// are never modified after Apply, so sharing is safe.
			c.Evidence = cur.Evidence
		}
		e.doc.Store(c)
		return
	}
	// A new key: its strings are cloned so they never alias the caller's
	// buffers, and the document is in place before the index is published.
	c := clone(d)
	e := &entry{symbol: c.Symbol}
	e.doc.Store(c)
	v.idx.Store(idx.with(key{symbol: c.Symbol, window: c.Window}, e))
	v.gen.Add(1)
}

// Generation returns a number that changes after every Apply that stores a
// document (readers use it to tell whether their derived data is current).
func (v *Views) Generation() uint64 { return v.gen.Load() }

// clone returns a deep copy of d.
func clone(d *schemas.IntelligenceDocument) *schemas.IntelligenceDocument {
	c, ok := proto.Clone(d).(*schemas.IntelligenceDocument)
	if !ok {
		panic("BUG: proto.Clone of an IntelligenceDocument returned another type")
	}
	return c
}

// with returns a copy of idx that also holds e under k.
func (idx *index) with(k key, e *entry) *index {
	n := &index{
		byKey:    make(map[key]*entry, len(idx.byKey)+1),
		byWindow: make(map[string][]*entry, len(idx.byWindow)+1),
		symbols:  idx.symbols,
	}
	for kk, ee := range idx.byKey {
		n.byKey[kk] = ee
	}
	n.byKey[k] = e
	for w, es := range idx.byWindow {
		n.byWindow[w] = es
	}
	es := idx.byWindow[k.window]
	i, _ := slices.BinarySearchFunc(es, k.symbol, func(e *entry, s string) int {
		return strings.Compare(e.symbol, s)
	})
	n.byWindow[k.window] = slices.Insert(slices.Clone(es), i, e)
	if i, found := slices.BinarySearch(idx.symbols, k.symbol); !found {
		n.symbols = slices.Insert(slices.Clone(idx.symbols), i, k.symbol)
	}
	return n
}

// Get returns the latest document of symbol and window, and whether there is
// one. Symbols are matched exactly (the query tier normalizes case). Callers
// must not modify the result; it stays valid after later Apply calls.
func (v *Views) Get(symbol, window string) (*schemas.IntelligenceDocument, bool) {
	e := v.idx.Load().byKey[key{symbol: symbol, window: window}]
	if e == nil {
		return nil, false
	}
	return e.doc.Load(), true
}

// List returns the latest documents of every symbol for window, sorted by
// symbol; it returns an empty slice for a window without documents. The
// slice is the caller's; the documents must not be modified.
func (v *Views) List(window string) []*schemas.IntelligenceDocument {
	es := v.idx.Load().byWindow[window]
	out := make([]*schemas.IntelligenceDocument, len(es))
	for i, e := range es {
		out[i] = e.doc.Load()
	}
	return out
}

// Symbols returns the sorted, distinct symbols that have a document in any
// window. The slice is the caller's.
func (v *Views) Symbols() []string {
	return append([]string{}, v.idx.Load().symbols...)
}

// Len returns the number of (symbol, window) documents held.
func (v *Views) Len() int {
	return len(v.idx.Load().byKey)
}
