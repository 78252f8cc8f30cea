// Package assess turns facts read from a chain into the token-analysis
// answers: the last-hour flow of a token and its verdict, and the risk
// report's checks, safety score and verdict. Every threshold and weight is
// here and in docs/token.md; it has no I/O and no clock (times come in).
package assess

import (
	"cmp"
	"slices"
	"time"
)

// Flow verdicts (spec §2.11).
const (
	Accumulation = "ACCUMULATION"
	Distribution = "DISTRIBUTION"
	Balanced     = "BALANCED"
	Illiquid     = "ILLIQUID_OR_INACTIVE"
	NoPool       = "NO_POOL"
)

// Flow thresholds.
const (
	// AccumulationPressure and DistributionPressure bound the buy
	// pressure (percent of USD volume bought) of the two directional
	// verdicts.
	AccumulationPressure = 60.0
	DistributionPressure = 40.0
	// MinSwaps, MinVolumeUSD and MinLiquidityUSD: below any of them in
	// the hour the token is ILLIQUID_OR_INACTIVE.
	MinSwaps        = 5
	MinVolumeUSD    = 1_000.0
	MinLiquidityUSD = 10_000.0
	// TopTraders is the number of wallets whose share of the volume is
	// the trader concentration.
	TopTraders = 5
)

// Trade is one swap of the token in one of its pools.
type Trade struct {
	Pool     string
	Block    uint64
	TxHash   string
	LogIndex uint
	// Trader is the transaction's sender (the wallet that signed it).
	Trader string
	// Buy is true when the token left the pool.
	Buy bool
	// Tokens is the token amount in whole tokens; USD its value from the
	// quote leg.
	Tokens, USD float64
	// PriceUSD is the pool's price of the token after the swap, USD.
	PriceUSD float64
}

// Pool is one pool of the token.
type Pool struct {
	Address string `json:"address"`
	Venue   string `json:"venue"`
	// Kind is uniswap_v2 or uniswap_v3.
	Kind  string `json:"kind"`
	Quote string `json:"quote"`
	// FeeTier is the v3 fee in hundredths of a basis point (500 = 0.05 %); 0 for v2.
	FeeTier      uint32  `json:"feeTier"`
	LiquidityUSD float64 `json:"liquidityUsd"`
	PriceUSD     float64 `json:"priceUsd"`
}

// LargestTrade is the window's largest swap by USD value.
type LargestTrade struct {
	USD    float64 `json:"usd"`
	Side   string  `json:"side"`
	Trader string  `json:"trader"`
	TxHash string  `json:"txHash"`
	Block  uint64  `json:"block"`
}

// Concentration is the share of the USD volume traded by the most active
// wallets.
type Concentration struct {
	// TopWallets is how many wallets the share covers (TopTraders, or all
	// when fewer traded).
	TopWallets int `json:"topWallets"`
	// TopSharePercent is their share of the window's USD volume.
	TopSharePercent float64 `json:"topSharePercent"`
	// Traders is the number of distinct wallets.
	Traders int `json:"traders"`
}

// Flow is the token flow answer.
type Flow struct {
	Token   string `json:"token"`
	Chain   string `json:"chain"`
	Symbol  string `json:"symbol"`
	Verdict string `json:"verdict"`
	// VerdictReason says which threshold decided the verdict.
	VerdictReason      string        `json:"verdictReason"`
	WindowStart        time.Time     `json:"windowStart"`
	WindowEnd          time.Time     `json:"windowEnd"`
	FromBlock          uint64        `json:"fromBlock"`
	ToBlock            uint64        `json:"toBlock"`
	Swaps              int           `json:"swaps"`
	Buys               int           `json:"buys"`
	Sells              int           `json:"sells"`
	BuyVolumeUSD       float64       `json:"buyVolumeUsd"`
	SellVolumeUSD      float64       `json:"sellVolumeUsd"`
	VolumeUSD          float64       `json:"volumeUsd"`
	NetFlowUSD         float64       `json:"netFlowUsd"`
	BuyPressure        float64       `json:"buyPressure"`
	PriceUSD           float64       `json:"priceUsd"`
	PriceChangePercent float64       `json:"priceChangePercent"`
	LargestTrade       *LargestTrade `json:"largestTrade"`
	Concentration      Concentration `json:"traderConcentration"`
	LiquidityUSD       float64       `json:"liquidityUsd"`
	Pools              []Pool        `json:"pools"`
	Timestamp          time.Time     `json:"timestamp"`
	// ReadAt is when the chain was read (the server's clock); Timestamp is
	// the chain's own time (the head block's).
	ReadAt time.Time `json:"readAt"`
	Notes  []string  `json:"notes"`
}

// Summarize builds the flow of trades (any order; sorted by block and log
// index here) over pools in the window ending at the head block's time.
// The price change is the deepest pool's: its last price in the window
// against its price before the window's first swap (prevPrice, 0 when
// unknown: then the first swap's price).
func Summarize(f *Flow, trades []Trade, prevPrice map[string]float64) {
	slices.SortFunc(trades, func(a, b Trade) int {
		return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.LogIndex, b.LogIndex))
	})
	var deepest string
	best := -1.0
	f.LiquidityUSD = 0
	for _, p := range f.Pools {
		f.LiquidityUSD += p.LiquidityUSD
		if p.LiquidityUSD > best {
			best, deepest = p.LiquidityUSD, p.Address
		}
	}
	byTrader := map[string]float64{}
	var first, last float64
	for _, t := range trades {
		f.Swaps++
		if t.Buy {
			f.Buys++
			f.BuyVolumeUSD += t.USD
		} else {
			f.Sells++
			f.SellVolumeUSD += t.USD
		}
		if f.LargestTrade == nil || t.USD > f.LargestTrade.USD {
			f.LargestTrade = &LargestTrade{USD: t.USD, Side: side(t.Buy), Trader: t.Trader, TxHash: t.TxHash, Block: t.Block}
		}
		if t.Trader != "" {
			byTrader[t.Trader] += t.USD
		}
		if t.Pool == deepest && t.PriceUSD > 0 {
			if first == 0 {
				first = t.PriceUSD
			}
			last = t.PriceUSD
		}
	}
	f.VolumeUSD = f.BuyVolumeUSD + f.SellVolumeUSD
	f.NetFlowUSD = f.BuyVolumeUSD - f.SellVolumeUSD
	f.BuyPressure = 50
	if f.VolumeUSD > 0 {
		f.BuyPressure = 100 * f.BuyVolumeUSD / f.VolumeUSD
	}
	for _, p := range f.Pools {
		if p.Address == deepest {
			f.PriceUSD = p.PriceUSD
		}
	}
	if p := prevPrice[deepest]; p > 0 {
		first = p
	}
	if first > 0 && last > 0 {
		f.PriceChangePercent = 100 * (last/first - 1)
	}
	vols := make([]float64, 0, len(byTrader))
	for _, v := range byTrader {
		vols = append(vols, v)
	}
	slices.SortFunc(vols, func(a, b float64) int { return cmp.Compare(b, a) })
	f.Concentration = Concentration{TopWallets: min(TopTraders, len(vols)), Traders: len(vols)}
	var top, all float64
	for i, v := range vols {
		if i < TopTraders {
			top += v
		}
		all += v
	}
	if all > 0 {
		f.Concentration.TopSharePercent = 100 * top / all
	}
	f.Verdict, f.VerdictReason = FlowVerdict(f)
}

func side(buy bool) string {
	if buy {
		return "BUY"
	}
	return "SELL"
}

// FlowVerdict applies the thresholds, first match wins: no pool → NO_POOL;
// liquidity under MinLiquidityUSD, fewer than MinSwaps swaps or less than
// MinVolumeUSD of volume → ILLIQUID_OR_INACTIVE; buy pressure at or above
// AccumulationPressure → ACCUMULATION; at or below DistributionPressure →
// DISTRIBUTION; else BALANCED.
func FlowVerdict(f *Flow) (verdict, reason string) {
	switch {
	case len(f.Pools) == 0:
		return NoPool, "no pool of the token on the listed venues"
	case f.LiquidityUSD < MinLiquidityUSD:
		return Illiquid, "liquidity under $10,000"
	case f.Swaps < MinSwaps:
		return Illiquid, "fewer than 5 swaps in the hour"
	case f.VolumeUSD < MinVolumeUSD:
		return Illiquid, "less than $1,000 traded in the hour"
	case f.BuyPressure >= AccumulationPressure:
		return Accumulation, "buy pressure at or above 60%"
	case f.BuyPressure <= DistributionPressure:
		return Distribution, "buy pressure at or below 40%"
	}
	return Balanced, "buy pressure between 40% and 60%"
}
