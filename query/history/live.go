package history

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/marketintel/mi/operators/smartmoney"
)

// What the live opportunity scan reads of the history (docs/decisions.md,
// "Opportunity scan"): the track record's 1h hit rates and the smart-money
// net flows. Both come from reads that take seconds (DuckDB over 30 days of
// files), so the scan never waits for them: it reads what these caches
// hold, and a missing or old entry is computed in the background. The
// cache's clock is the store's (Config.Now).

// Bounds of the live caches.
const (
	// HitRateDays is how far back the live hit rates read the logged
	// signal changes (the free track record's span).
	HitRateDays = 30
	// HitRateTTL is how long a computed set of hit rates is served
	// before it is recomputed in the background (served meanwhile).
	HitRateTTL = 5 * time.Minute
	// SmartMoneyFreshFor is how long a smart-money ranking counts as
	// fresh for the scan; an older one is served as stale (it neither
	// qualifies nor confirms) and recomputed when the scan asks for it.
	SmartMoneyFreshFor = time.Hour
	// smartMoneyQueue bounds the symbols waiting for a background
	// ranking; more are dropped until the queue drains.
	smartMoneyQueue = 1000
	// liveReadTimeout bounds one background read.
	liveReadTimeout = 2 * time.Minute
)

// HitRateHorizon is the horizon of the live hit rates, an element of
// TrackHorizons.
const HitRateHorizon = "1h"

// HitRate is the 1h outcome of a set of logged signal changes.
type HitRate struct {
	Samples int
	// HitRate is the percentage of samples with a positive return in the
	// signal's direction; AverageReturn their mean, percent.
	HitRate, AverageReturn float64
}

// HitRates are the 1h outcomes of the logged directional changes of one
// window over [From, To): per signal (BULLISH, BEARISH) and per symbol and
// signal.
type HitRates struct {
	Window   string
	From, To time.Time
	BySignal map[string]HitRate
	// BySymbol is keyed by symbol, then signal.
	BySymbol map[string]map[string]HitRate
}

// liveCache holds the hit rates per window and the smart-money flows per
// symbol.
type liveCache struct {
	mu         sync.Mutex
	hit        map[string]HitRates // by window
	hitRunning map[string]bool

	smart     map[string]SmartMoneyFlow // by symbol
	noWallets map[string]time.Time      // symbol → when ErrNoWalletTrades was answered
	queue     []string
	queued    map[string]bool
	working   bool

	// ctx ends when the store closes; bg counts the background reads, which
	// Close waits for before it closes DuckDB.
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

// SmartMoneyFlow is the net flow of the last smart-money ranking of a
// symbol.
type SmartMoneyFlow struct {
	Symbol        string
	AsOf          time.Time
	WalletsRanked int
	NetFlow       smartmoney.NetFlow
}

func (s *Store) live() *liveCache {
	s.liveOnce.Do(func() {
		s.lc = &liveCache{hit: map[string]HitRates{}, hitRunning: map[string]bool{}, smart: map[string]SmartMoneyFlow{},
			noWallets: map[string]time.Time{}, queued: map[string]bool{}}
		s.lc.ctx, s.lc.cancel = context.WithCancel(context.Background())
	})
	return s.lc
}

// ComputeHitRates reads the logged changes of window over the last
// HitRateDays days and returns their 1h outcomes, storing them for
// CachedHitRates. With no logged change it stores and returns empty rates.
func (s *Store) ComputeHitRates(ctx context.Context, window string) (HitRates, error) {
	now := s.Now()
	from := now.Add(-HitRateDays * 24 * time.Hour)
	outs, _, err := s.TrackRecord(ctx, window, "", from, now)
	if err != nil && !errors.Is(err, ErrNoData) {
		return HitRates{}, err
	}
	h := slices.Index(TrackHorizons, HitRateHorizon)
	hr := HitRates{Window: window, From: from, To: now, BySignal: map[string]HitRate{}, BySymbol: map[string]map[string]HitRate{}}
	bySignal := map[string][]ChangeOutcome{}
	bySymbol := map[[2]string][]ChangeOutcome{}
	for _, o := range outs { // oldest first, then by symbol: a fixed order
		bySignal[o.Signal] = append(bySignal[o.Signal], o)
		bySymbol[[2]string{o.Symbol, o.Signal}] = append(bySymbol[[2]string{o.Symbol, o.Signal}], o)
	}
	rate := func(os []ChangeOutcome) HitRate {
		st := Summarize(os)[h]
		return HitRate{Samples: st.Samples, HitRate: st.HitRate, AverageReturn: st.AverageReturn}
	}
	for sig, os := range bySignal {
		hr.BySignal[sig] = rate(os)
	}
	for k, os := range bySymbol {
		if hr.BySymbol[k[0]] == nil {
			hr.BySymbol[k[0]] = map[string]HitRate{}
		}
		hr.BySymbol[k[0]][k[1]] = rate(os)
	}
	lc := s.live()
	lc.mu.Lock()
	lc.hit[window] = hr
	lc.mu.Unlock()
	return hr, nil
}

// CachedHitRates returns the stored hit rates of window without reading
// anything. When there are none, or they are older than HitRateTTL, it
// starts computing them in the background (one read per window at a
// time); the old rates are served meanwhile, and ok is false when there
// are none yet.
func (s *Store) CachedHitRates(window string) (HitRates, bool) {
	lc := s.live()
	lc.mu.Lock()
	hr, ok := lc.hit[window]
	if (!ok || s.Now().Sub(hr.To) > HitRateTTL) && !lc.hitRunning[window] && lc.ctx.Err() == nil {
		lc.hitRunning[window] = true
		lc.bg.Add(1)
		go func() {
			defer lc.bg.Done()
			ctx, cancel := context.WithTimeout(lc.ctx, liveReadTimeout)
			defer cancel()
			_, _ = s.ComputeHitRates(ctx, window) // a failure leaves the old rates; the next call retries
			lc.mu.Lock()
			lc.hitRunning[window] = false
			lc.mu.Unlock()
		}()
	}
	lc.mu.Unlock()
	return hr, ok
}

// rememberSmartMoney stores the net flow of a ranking (every ranking the
// store computes, for the route or in the background).
func (s *Store) rememberSmartMoney(a smartmoney.Answer) {
	lc := s.live()
	lc.mu.Lock()
	lc.smart[a.Symbol] = SmartMoneyFlow{Symbol: a.Symbol, AsOf: a.AsOf, WalletsRanked: a.WalletsRanked, NetFlow: a.NetFlow}
	delete(lc.noWallets, a.Symbol)
	lc.mu.Unlock()
}

// CachedSmartMoney returns the net flow of the last ranking of symbol, and
// false when none was computed.
func (s *Store) CachedSmartMoney(symbol string) (SmartMoneyFlow, bool) {
	lc := s.live()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	f, ok := lc.smart[symbol]
	return f, ok
}

// SmartMoneySymbols returns the symbols with a stored ranking, sorted.
func (s *Store) SmartMoneySymbols() []string {
	lc := s.live()
	lc.mu.Lock()
	out := make([]string, 0, len(lc.smart))
	for sym := range lc.smart {
		out = append(out, sym)
	}
	lc.mu.Unlock()
	slices.Sort(out)
	return out
}

// WantSmartMoney queues the symbols whose ranking is missing or older than
// SmartMoneyFreshFor (and that were not found without wallet trades within
// that time) for one background worker, which ranks them one at a time in
// the order asked. At most smartMoneyQueue symbols wait; the rest are
// dropped until the queue drains.
func (s *Store) WantSmartMoney(symbols []string) {
	lc := s.live()
	now := s.Now()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for _, sym := range symbols {
		if f, ok := lc.smart[sym]; ok && now.Sub(f.AsOf) <= SmartMoneyFreshFor {
			continue
		}
		if t, ok := lc.noWallets[sym]; ok && now.Sub(t) <= SmartMoneyFreshFor {
			continue
		}
		if lc.queued[sym] || len(lc.queue) >= smartMoneyQueue {
			continue
		}
		lc.queued[sym] = true
		lc.queue = append(lc.queue, sym)
	}
	if len(lc.queue) > 0 && !lc.working && lc.ctx.Err() == nil {
		lc.working = true
		lc.bg.Add(1)
		go s.rankQueued()
	}
}

// rankQueued ranks the queued symbols until the queue is empty.
func (s *Store) rankQueued() {
	lc := s.live()
	defer lc.bg.Done()
	for {
		lc.mu.Lock()
		if len(lc.queue) == 0 || lc.ctx.Err() != nil {
			lc.working = false
			lc.mu.Unlock()
			return
		}
		sym := lc.queue[0]
		lc.queue = lc.queue[1:]
		delete(lc.queued, sym)
		lc.mu.Unlock()
		ctx, cancel := context.WithTimeout(lc.ctx, liveReadTimeout)
		_, err := s.SmartMoney(ctx, sym, nil)
		cancel()
		if errors.Is(err, ErrNoWalletTrades) {
			lc.mu.Lock()
			lc.noWallets[sym] = s.Now()
			lc.mu.Unlock()
		}
	}
}

// SmartMoneyIdle reports whether no background ranking is queued or
// running (for tests and graceful shutdown).
func (s *Store) SmartMoneyIdle() bool {
	lc := s.live()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return !lc.working
}
