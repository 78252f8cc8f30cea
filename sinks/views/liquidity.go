package views

import (
	"math/big"
	"sort"
	"sync"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// Liquidity keeps the state of every on-chain pool from the records of
// mi.pool-events.v1 and answers the liquidity block of a symbol. It is safe
// for concurrent use: the side-topic follower calls ApplyRecord, the query
// tier calls Report.
type Liquidity struct {
	mu      sync.RWMutex
	pools   map[string]*operators.PoolState // chain|address -> state
	version uint64                          // bumped by every Apply

	cmu   sync.Mutex
	cache map[string]cachedReport // symbol -> report at a version
}

type cachedReport struct {
	version uint64
	report  operators.LiquidityReport
}

// NewLiquidity returns an empty liquidity view.
func NewLiquidity() *Liquidity {
	return &Liquidity{pools: map[string]*operators.PoolState{}, cache: map[string]cachedReport{}}
}

// ApplyRecord applies one record of mi.pool-events.v1: the view's side of
// the topic (pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord)). A
// record that is not a valid pool event is refused with the reason.
func (l *Liquidity) ApplyRecord(p *schemas.PoolEvent) error {
	ev, err := operators.PoolEventFromProto(p)
	if err != nil {
		return err
	}
	l.Apply(ev)
	return nil
}

// Apply applies one pool event. The pool's description is the one of its
// latest event.
func (l *Liquidity) Apply(ev operators.PoolEvent) {
	if ev.Meta == nil {
		return
	}
	k := operators.PoolKey(ev.Meta.Chain, ev.Meta.Address)
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.pools[k]
	if st == nil {
		st = operators.NewPoolState(ev.Meta)
		l.pools[k] = st
	} else if *st.Meta != *ev.Meta {
		st.Meta = ev.Meta
	}
	st.Apply(ev)
	l.version++
}

// Report returns the liquidity block of symbol from the pools whose base is
// symbol. A WETH quote is priced with the mid price of the deepest-quoted
// ETH/USD-stablecoin pool (the one with the most in-range liquidity). The
// report is computed again only after a pool event; until then the previous
// one is returned (callers must not modify it).
func (l *Liquidity) Report(symbol string) operators.LiquidityReport {
	l.mu.RLock()
	defer l.mu.RUnlock()
	l.cmu.Lock()
	c, ok := l.cache[symbol]
	l.cmu.Unlock()
	if ok && c.version == l.version {
		return c.report
	}
	r := l.compute(symbol)
	l.cmu.Lock()
	if len(l.cache) > 4096 {
		clear(l.cache)
	}
	l.cache[symbol] = cachedReport{l.version, r}
	l.cmu.Unlock()
	return r
}

// compute builds a report; l.mu is held for reading.
func (l *Liquidity) compute(symbol string) operators.LiquidityReport {
	var pools []*operators.PoolState
	var ethUSD float64
	var ethL float64
	for _, st := range l.pools {
		if st.Meta.BaseSymbol() == symbol {
			pools = append(pools, st)
		}
		b0, ok := st.Meta.BaseIsToken0()
		quoteUSD := ok && ((b0 && st.Meta.Symbol1 == "USD") || (!b0 && st.Meta.Symbol0 == "USD"))
		if quoteUSD && st.Meta.BaseSymbol() == "ETHUSD" && st.Ready() {
			if lf, _ := new(big.Float).SetInt(st.Liquidity).Float64(); lf > ethL {
				ethL, ethUSD = lf, st.MidPrice()
			}
		}
	}
	sort.Slice(pools, func(i, j int) bool { return pools[i].Meta.Address < pools[j].Meta.Address })
	return operators.EstimateLiquidity(symbol, pools, ethUSD)
}

// Symbols returns the symbols that have at least one pool, sorted.
func (l *Liquidity) Symbols() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	seen := map[string]bool{}
	for _, st := range l.pools {
		if s := st.Meta.BaseSymbol(); s != "" {
			seen[s] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
