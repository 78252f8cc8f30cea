package views

import (
	"slices"
	"sync"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// PreviewSymbols are the symbols whose candles Candles keeps: the symbols of
// the free preview route (spec §4.7).
var PreviewSymbols = []string{"ETHUSD", "BTCUSD", "TSLA"}

// candleRetentionNs is how far behind the market clock Candles keeps
// minutes: the preview reaches back 15 + 30 minutes, the rest is margin for
// late candles.
const candleRetentionNs = int64(2 * 60 * 60 * 1e9)

const minuteNs = int64(60 * 1e9)

// venueMinute is what Candles keeps of one closed 1m candle of one venue.
type venueMinute struct {
	close, volumeUSD, buyUSD, sellUSD float64
	trades                            uint32
}

// Candles keeps the closed 1m candles of mi.candles.v1 for a few symbols,
// per venue, over the last two hours of market time, and aggregates them
// across venues into longer bars. The market clock is the newest candle end
// (start + interval) of any symbol applied so far: it is event time, so a
// replay of an old capture has its own clock. Re-applying a candle (a
// rebuild from the topic, or a copy re-emitted after a crash) replaces it,
// so applying is idempotent. Safe for concurrent use.
type Candles struct {
	mu      sync.RWMutex
	keep    []string
	minutes map[string]map[int64]map[string]venueMinute // symbol → minute start → venue
	clockNs int64
}

// NewCandles returns an empty candle view keeping the candles of symbols.
func NewCandles(symbols []string) *Candles {
	return &Candles{keep: slices.Clone(symbols), minutes: map[string]map[int64]map[string]venueMinute{}}
}

// Apply folds one closed candle into the view. Candles of other symbols
// only advance the market clock; candles of other intervals than 1m, and
// candles older than the retention, are ignored.
func (c *Candles) Apply(k *schemas.Candle) {
	if k == nil || k.IntervalNs <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if end := k.StartNs + k.IntervalNs; end > c.clockNs {
		c.clockNs = end
		c.prune()
	}
	if k.IntervalNs != minuteNs || !slices.Contains(c.keep, k.Symbol) || k.StartNs < c.clockNs-candleRetentionNs {
		return
	}
	bySym := c.minutes[k.Symbol]
	if bySym == nil {
		bySym = map[int64]map[string]venueMinute{}
		c.minutes[k.Symbol] = bySym
	}
	byVenue := bySym[k.StartNs]
	if byVenue == nil {
		byVenue = map[string]venueMinute{}
		bySym[k.StartNs] = byVenue
	}
	byVenue[k.Venue] = venueMinute{close: k.Close, volumeUSD: k.VolumeUsd, buyUSD: k.BuyVolumeUsd,
		sellUSD: k.SellVolumeUsd, trades: k.TradeCount}
}

// prune drops the minutes older than the retention. The caller holds mu.
func (c *Candles) prune() {
	for _, bySym := range c.minutes {
		for start := range bySym {
			if start < c.clockNs-candleRetentionNs {
				delete(bySym, start)
			}
		}
	}
}

// Bar is a bar of one symbol aggregated across venues.
type Bar struct {
	// StartNs and EndNs bound the bar: [StartNs, EndNs).
	StartNs, EndNs int64
	// Close is the close of the bar's last minute with trades: the close
	// of the leading venue of that minute (operators.Leads: the most USD
	// volume, ties to the venue name that sorts first). A bar without
	// trades carries the close of the latest earlier minute with trades;
	// HasClose is false when there is none within the retention.
	Close    float64
	HasClose bool
	// VolumeUSD is the USD notional of every venue's trades in the bar.
	VolumeUSD float64
	// BuyPressure is 100 × buy USD / (buy + sell USD); 50 when both are 0.
	BuyPressure float64
	// Trades is the number of trades.
	Trades uint32
}

// Bars returns the last n bars of width widthNs (a multiple of a minute)
// of symbol that end at or before the market clock minus delayNs, oldest
// first, aligned to UTC multiples of the width, and that cut-off (asOfNs).
// ok is false while no candle has been applied (no market clock yet).
func (c *Candles) Bars(symbol string, n int, widthNs, delayNs int64) (bars []Bar, asOfNs int64, ok bool) {
	if widthNs <= 0 || widthNs%minuteNs != 0 {
		panic("BUG: bar width must be a positive multiple of a minute")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.clockNs == 0 {
		return nil, 0, false
	}
	asOfNs = c.clockNs - delayNs
	end := asOfNs - ((asOfNs%widthNs)+widthNs)%widthNs // floor to the width
	first := end - int64(n)*widthNs
	bySym := c.minutes[symbol]

	// The close carried into the first bar: the latest minute with trades
	// before it.
	var carry float64
	var hasCarry bool
	latest := int64(-1 << 63)
	for start, byVenue := range bySym {
		if start < first && start > latest {
			if cl, traded := closeOf(byVenue); traded {
				carry, hasCarry, latest = cl, true, start
			}
		}
	}
	bars = make([]Bar, n)
	for i := range bars {
		b := &bars[i]
		b.StartNs = first + int64(i)*widthNs
		b.EndNs = b.StartNs + widthNs
		var buy, sell float64
		for m := b.StartNs; m < b.EndNs; m += minuteNs {
			byVenue := bySym[m]
			for _, v := range byVenue {
				b.VolumeUSD += v.volumeUSD
				buy += v.buyUSD
				sell += v.sellUSD
				b.Trades += v.trades
			}
			if cl, traded := closeOf(byVenue); traded {
				carry, hasCarry = cl, true
			}
		}
		b.Close, b.HasClose = carry, hasCarry
		b.BuyPressure = 50
		if buy+sell > 0 {
			b.BuyPressure = 100 * buy / (buy + sell)
		}
	}
	return bars, asOfNs, true
}

// closeOf returns the close of one minute across venues, and whether any
// venue traded in it: the close of the leading venue among those that
// traded (operators.Leads, the cross-venue rule of the history routes), so
// a single venue's close comes back as stored and the result does not
// depend on map order.
func closeOf(byVenue map[string]venueMinute) (float64, bool) {
	var lead string
	var best venueMinute
	traded := false
	for name, v := range byVenue {
		if v.trades == 0 {
			continue
		}
		if !traded || operators.Leads(v.volumeUSD, name, best.volumeUSD, lead) {
			lead, best, traded = name, v, true
		}
	}
	return best.close, traded
}

// ClockNs returns the market clock: the newest candle end applied, 0
// before any.
func (c *Candles) ClockNs() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.clockNs
}
