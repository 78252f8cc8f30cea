package query

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/market"
)

// Bounds of the pre-trade check's history candles (docs/decisions.md,
// "Pre-trade check").
const (
	// historyCandleMargin is how much older than the bars asked for the
	// stored candles may be: the pipeline writes its part files with a
	// delay, and a symbol that traded within the margin still gets a
	// volatility reading. Older candles do not count.
	historyCandleMargin = time.Hour
	// historyCandleTTL is how long a read (or a miss) is reused.
	historyCandleTTL = time.Minute
	// historyCandleTimeout bounds one read.
	historyCandleTimeout = 2 * time.Second
	// historyCandleEntries bounds the reuse cache; a full cache is
	// emptied.
	historyCandleEntries = 10_000
)

// storeCandles is the pre-trade check's CandleSource: the live candle
// view first (the symbols it keeps, two hours), else the history store's
// cross-venue candles of the bar width ending at the store's now, read
// once per symbol, bars and minute.
type storeCandles struct {
	live  market.CandleSource
	store *history.Store

	mu    sync.Mutex
	cache map[string]candleRead
}

type candleRead struct {
	at     time.Time
	closes []float64
	ok     bool
}

// newStoreCandles returns the candle source over live and store.
func newStoreCandles(live market.CandleSource, store *history.Store) *storeCandles {
	return &storeCandles{live: live, store: store, cache: map[string]candleRead{}}
}

// Closes implements market.CandleSource.
func (c *storeCandles) Closes(symbol string, barMinutes, n int) ([]float64, bool) {
	if closes, ok := c.live.Closes(symbol, barMinutes, n); ok {
		return closes, true
	}
	interval := strconv.Itoa(barMinutes) + "m"
	now := c.store.Now()
	key := symbol + "/" + interval + "/" + strconv.Itoa(n)
	c.mu.Lock()
	r, hit := c.cache[key]
	c.mu.Unlock()
	if hit && now.Sub(r.at) < historyCandleTTL && !now.Before(r.at) {
		return r.closes, r.ok
	}
	r = candleRead{at: now}
	r.closes, r.ok = c.read(symbol, interval, barMinutes, n, now)
	c.mu.Lock()
	if len(c.cache) >= historyCandleEntries {
		clear(c.cache)
	}
	c.cache[key] = r
	c.mu.Unlock()
	return r.closes, r.ok
}

// read returns the closes of the latest n complete bars of interval that
// start within n bars and historyCandleMargin before now, oldest first;
// false with fewer than 2 (no return to measure) or on a read error.
func (c *storeCandles) read(symbol, interval string, barMinutes, n int, now time.Time) ([]float64, bool) {
	width := time.Duration(barMinutes) * time.Minute
	to := now.Truncate(width) // complete bars only
	from := to.Add(-time.Duration(n)*width - historyCandleMargin)
	ctx, cancel := context.WithTimeout(context.Background(), historyCandleTimeout)
	defer cancel()
	res, err := c.store.Candles(ctx, history.CandleQuery{Symbols: []string{symbol}, Interval: interval, From: from, To: to, Latest: n})
	if err != nil || len(res.Candles) < 2 {
		return nil, false
	}
	closes := make([]float64, 0, len(res.Candles))
	for _, k := range res.Candles {
		closes = append(closes, k.Close)
	}
	return closes, true
}
