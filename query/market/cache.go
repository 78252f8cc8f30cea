package market

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marketintel/mi/schemas"
)

// The cross-symbol step (buildMarket, about 0.8 ms for 1,000 symbols) is
// cached per window: a built market is immutable and is reused
//
//   - while the views have not changed (views.Generation) and it is less
//     than marketMaxAge old, and
//   - in any case for marketMinAge after it was built, on a clock that
//     moved: documents arrive about once a second per symbol and window,
//     so under load the step runs at most about ten times a second per
//     window, and the answers lag the views by less than marketMinAge.
//
// A market older than marketMaxAge, or built at a later time than now (a
// clock stepped back), is rebuilt. The market's generation time and
// freshness ages are those of the build (docs/api.md).
const (
	marketMaxAge = time.Second
	marketMinAge = 100 * time.Millisecond
)

// marketCache holds the cached market of every window of schemas.Windows.
type marketCache struct {
	slots [3]marketSlot
}

type marketSlot struct {
	mu  sync.Mutex // serializes rebuilds, so concurrent misses build once
	cur atomic.Pointer[cachedMarket]
}

// cachedMarket is a market with the views generation and the time it was
// built from.
type cachedMarket struct {
	gen uint64
	at  time.Time
	m   *market
}

// usable reports whether c may answer at now with the views at gen.
func (c *cachedMarket) usable(gen uint64, now time.Time) bool {
	age := now.Sub(c.at)
	switch {
	case age < 0 || age >= marketMaxAge:
		return false
	case c.gen == gen:
		return true
	}
	return age > 0 && age < marketMinAge
}

// market returns the market of window as of now, from the cache or built
// from the views.
func (rt *Routes) market(window string) *market {
	i := slices.Index(schemas.Windows, window)
	if i < 0 || i >= len(rt.markets.slots) {
		panic("BUG: market of unknown window " + window)
	}
	slot := &rt.markets.slots[i]
	now := rt.now()
	gen := rt.views.Generation()
	if c := slot.cur.Load(); c != nil && c.usable(gen, now) {
		return c.m
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if c := slot.cur.Load(); c != nil && c.usable(gen, now) {
		return c.m
	}
	// The generation is read before the documents, so a change during the
	// build makes the next call rebuild.
	m := buildMarket(window, rt.views.List(window), now)
	slot.cur.Store(&cachedMarket{gen: gen, at: now, m: m})
	return m
}

// Bodies a market renders once (memo).
const (
	memoSummary = iota
	memoRegime
	numMemos
)

// marketMemos holds the bodies of the routes that depend on the market
// alone (summary, regime), rendered on first use: a market is immutable,
// so every request answered from it gets the same bytes.
type marketMemos [numMemos]struct {
	once sync.Once
	body []byte
}

// memo returns the body of kind, rendering it with render on first use.
// The result must not be modified.
func (m *market) memo(kind int, render func([]byte) []byte) []byte {
	e := &m.memos[kind]
	e.once.Do(func() { e.body = render(nil) })
	return e.body
}
