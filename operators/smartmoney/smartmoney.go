// Package smartmoney ranks the wallets that traded a symbol on chain by
// realized plus unrealized PnL at average cost, after excluding the trades
// that are not a wallet's own view of the market (arbitrage, MEV
// sandwiches, two-sided bots, router-bound swaps), and compares the net
// flow of the top decile with all wallets' over the last two UTC days
// (spec §4.5, docs/smart-money.md). It has no I/O: query/history reads the
// stored trades with DuckDB and hands them over in time order.
package smartmoney

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
)

// Rules (docs/smart-money.md).
const (
	// MinTradeUSD: trades under it are ignored (the reader drops them and
	// counts them).
	MinTradeUSD = 50.0
	// Bot rule: a wallet with at least BotMinTrades trades, each side at
	// least BotMinSideShare of its trade count, and a net flow within
	// BotMaxNetShare of its gross USD volume is a two-sided bot.
	BotMinTrades    = 50
	BotMinSideShare = 0.40
	BotMaxNetShare  = 0.10
	// TopWallets is how many ranked wallets the answer lists.
	TopWallets = 20
	// CostBasis describes the PnL method in answers.
	CostBasis = "average cost: a buy adds its USD cost to the position's cost basis; a sell realizes (sell price - average cost) x size sold and removes the sold share of the cost basis; sells beyond the recorded position have no known cost and are not counted; unrealized = open size x mark price - remaining cost basis"
)

// Trade is one stored on-chain trade of the symbol by a wallet. Chain,
// Market and Wallet are ids of a Dict (no pointers: a million trades cost
// the garbage collector nothing to scan).
type Trade struct {
	TimeNs                int64
	Chain, Market, Wallet uint32
	Buy                   bool
	// Price is USD per unit, Size base units, USD the notional.
	Price, Size, USD float64
}

// Dict gives strings small ids.
type Dict struct {
	names []string
	ids   map[string]uint32
}

// NewDict returns an empty dictionary.
func NewDict() *Dict { return &Dict{ids: map[string]uint32{}} }

// ID returns s's id, adding s (copied) when new.
func (d *Dict) ID(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	s = strings.Clone(s)
	id := uint32(len(d.names))
	d.names = append(d.names, s)
	d.ids[s] = id
	return id
}

// Name returns the string of id.
func (d *Dict) Name(id uint32) string { return d.names[id] }

// Options set what Rank needs besides the trades.
type Options struct {
	Symbol string
	// Now ends the net-flow window (the last two UTC days: from midnight
	// UTC of the day before Now's day, to Now).
	Now time.Time
	// Routers are addresses (lower case) of routers and aggregators: a
	// trade whose wallet is one is router-bound (the swap's recipient is
	// the router, not a trader).
	Routers map[string]bool
	// Dict names the trades' ids.
	Dict *Dict
	// Under is the number of trades under MinTradeUSD the reader dropped.
	Under int
	// From is the first time the trades cover (for the answer).
	From time.Time
}

// Excluded counts the excluded trades and wallets of one rule.
type Excluded struct {
	Trades  int `json:"trades"`
	Wallets int `json:"wallets"`
}

// Exclusions are the counts of every exclusion rule.
type Exclusions struct {
	Arbitrage    Excluded `json:"arbitrage"`
	MEVSandwich  Excluded `json:"mevSandwich"`
	TwoSidedBots Excluded `json:"twoSidedBots"`
	RouterBound  Excluded `json:"routerBound"`
	UnderMinimum struct {
		Trades int     `json:"trades"`
		MinUSD float64 `json:"minUsd"`
	} `json:"underMinimum"`
}

// Position is a wallet's open position.
type Position struct {
	Size     float64 `json:"size"`
	ValueUSD float64 `json:"valueUsd"`
	AvgCost  float64 `json:"avgCost"`
}

// Wallet is one ranked wallet.
type Wallet struct {
	Rank             int     `json:"rank"`
	Wallet           string  `json:"wallet"`
	Chain            string  `json:"chain"`
	RealizedPnlUSD   float64 `json:"realizedPnlUsd"`
	UnrealizedPnlUSD float64 `json:"unrealizedPnlUsd"`
	TotalPnlUSD      float64 `json:"totalPnlUsd"`
	// WinRate is the percentage of closing sells with a positive realized
	// PnL; nil when the wallet never sold what it had bought.
	WinRate *float64 `json:"winRate"`
	// AvgHoldingSeconds is the mean, over closing sells, of the time
	// since the position's quantity-weighted average acquisition time;
	// nil without closing sells.
	AvgHoldingSeconds *float64 `json:"avgHoldingSeconds"`
	Trades            int      `json:"trades"`
	BuyVolumeUSD      float64  `json:"buyVolumeUsd"`
	SellVolumeUSD     float64  `json:"sellVolumeUsd"`
	// UnmatchedSellUSD is sold beyond the recorded position (no known cost).
	UnmatchedSellUSD float64   `json:"unmatchedSellUsd"`
	OpenPosition     Position  `json:"openPosition"`
	FirstTrade       time.Time `json:"firstTrade"`
	LastTrade        time.Time `json:"lastTrade"`
}

// NetFlow compares the top decile's net flow with all wallets'.
type NetFlow struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// TopDecileWallets is ceil(10 % of the ranked wallets).
	TopDecileWallets     int     `json:"topDecileWallets"`
	TopDecileBuyUSD      float64 `json:"topDecileBuyUsd"`
	TopDecileSellUSD     float64 `json:"topDecileSellUsd"`
	TopDecileNetFlowUSD  float64 `json:"topDecileNetFlowUsd"`
	AllWalletsNetFlowUSD float64 `json:"allWalletsNetFlowUsd"`
	AllWalletsBuyUSD     float64 `json:"allWalletsBuyUsd"`
	AllWalletsSellUSD    float64 `json:"allWalletsSellUsd"`
	// TopDecileDirection is BUYING, SELLING or FLAT (net within 5 % of
	// the top decile's gross flow in the window, or no flow).
	TopDecileDirection string `json:"topDecileDirection"`
}

// Answer is the smart-money route's answer.
type Answer struct {
	Symbol        string     `json:"symbol"`
	AsOf          time.Time  `json:"asOf"`
	From          time.Time  `json:"from"`
	MarkPrice     float64    `json:"markPrice"`
	MarkTime      time.Time  `json:"markTime"`
	CostBasis     string     `json:"costBasis"`
	WalletsRanked int        `json:"walletsRanked"`
	TradesUsed    int        `json:"tradesUsed"`
	Wallets       []Wallet   `json:"wallets"`
	NetFlow       NetFlow    `json:"netFlow"`
	Excluded      Exclusions `json:"excluded"`
	Note          string     `json:"note"`
}

// Note says what the answer is.
const Note = "Public on-chain addresses only; PnL from the stored DEX trades of the symbol at average cost, marked at the last stored trade price; not investment advice."

type state struct {
	wallet, chain             uint32
	qty, cost, timeSum        float64 // timeSum: Σ size × acquisition time (s)
	realized, buyUSD, sellUSD float64
	unmatched                 float64
	closes, wins              int
	holdSum                   float64
	trades                    int
	first, last               int64
	flowBuy, flowSell         float64
}

// Exclusion rules, as marked on each trade.
const (
	keep byte = iota
	rArb
	rSandwich
	rBot
	rRouter
)

// Rank ranks the wallets of trades (in time order; ties in any fixed
// order) and builds the answer. The mark price is the last trade's (any
// wallet's, excluded or not).
func Rank(trades []Trade, o Options) Answer {
	d := o.Dict
	a := Answer{Symbol: o.Symbol, AsOf: o.Now.UTC(), From: o.From.UTC(), CostBasis: CostBasis, Note: Note, Wallets: []Wallet{}}
	a.Excluded.UnderMinimum.Trades, a.Excluded.UnderMinimum.MinUSD = o.Under, MinTradeUSD
	if len(trades) > 0 {
		last := trades[len(trades)-1]
		a.MarkPrice, a.MarkTime = last.Price, time.Unix(0, last.TimeNs).UTC()
	}
	excl := make([]byte, len(trades))
	markRoundTrips(trades, excl)
	// Router-bound swaps: the wallet is a router, or the pool itself.
	// Per dictionary id (dense): whether the name is a router, and the
	// first id of its lower-cased name (a wallet that is its market).
	router := make([]bool, len(d.names))
	canon := make([]uint32, len(d.names))
	byLower := make(map[string]uint32, len(d.names))
	for id, n := range d.names {
		l := strings.ToLower(n)
		router[id] = o.Routers[l]
		c, ok := byLower[l]
		if !ok {
			c = uint32(id)
			byLower[l] = c
		}
		canon[id] = c
	}
	for k, t := range trades {
		if excl[k] == keep && (router[t.Wallet] || canon[t.Wallet] == canon[t.Market]) {
			excl[k] = rRouter
		}
	}
	markBots(trades, excl, len(d.names))
	// Count the exclusions and the wallets of each.
	var seen [rRouter + 1][]bool
	var walletsBy [rRouter + 1]int
	for k, t := range trades {
		r := excl[k]
		if r == keep {
			continue
		}
		if seen[r] == nil {
			seen[r] = make([]bool, len(d.names))
		}
		if !seen[r][t.Wallet] {
			seen[r][t.Wallet] = true
			walletsBy[r]++
		}
		switch r {
		case rArb:
			a.Excluded.Arbitrage.Trades++
		case rSandwich:
			a.Excluded.MEVSandwich.Trades++
		case rBot:
			a.Excluded.TwoSidedBots.Trades++
		case rRouter:
			a.Excluded.RouterBound.Trades++
		}
	}
	a.Excluded.Arbitrage.Wallets = walletsBy[rArb]
	a.Excluded.MEVSandwich.Wallets = walletsBy[rSandwich]
	a.Excluded.TwoSidedBots.Wallets = walletsBy[rBot]
	a.Excluded.RouterBound.Wallets = walletsBy[rRouter]

	// Average-cost PnL, wallet by wallet in time order.
	day := time.Date(o.Now.Year(), o.Now.Month(), o.Now.Day(), 0, 0, 0, 0, time.UTC)
	flowFrom := day.AddDate(0, 0, -1)
	a.NetFlow.From, a.NetFlow.To = flowFrom, o.Now.UTC()
	fromNs, toNs := flowFrom.UnixNano(), o.Now.UnixNano()
	states := make([]*state, len(d.names)) // by wallet id
	nStates := 0
	for k := range trades {
		t := &trades[k]
		if excl[k] != keep || t.Size <= 0 || t.Price <= 0 {
			continue
		}
		a.TradesUsed++
		s := states[t.Wallet]
		if s == nil {
			s = &state{wallet: t.Wallet, chain: t.Chain, first: t.TimeNs}
			states[t.Wallet] = s
			nStates++
		}
		s.apply(t, t.TimeNs >= fromNs && t.TimeNs <= toNs)
	}
	ranked := make([]Wallet, 0, nStates)
	for _, s := range states {
		if s == nil {
			continue
		}
		w := Wallet{Wallet: d.names[s.wallet], Chain: d.names[s.chain], RealizedPnlUSD: s.realized, Trades: s.trades, BuyVolumeUSD: s.buyUSD, SellVolumeUSD: s.sellUSD,
			UnmatchedSellUSD: s.unmatched, FirstTrade: time.Unix(0, s.first).UTC(), LastTrade: time.Unix(0, s.last).UTC()}
		if s.qty > 0 {
			w.OpenPosition = Position{Size: s.qty, ValueUSD: s.qty * a.MarkPrice, AvgCost: s.cost / s.qty}
			w.UnrealizedPnlUSD = s.qty*a.MarkPrice - s.cost
		}
		w.TotalPnlUSD = w.RealizedPnlUSD + w.UnrealizedPnlUSD
		if s.closes > 0 {
			wr := 100 * float64(s.wins) / float64(s.closes)
			hold := s.holdSum / float64(s.closes)
			w.WinRate, w.AvgHoldingSeconds = &wr, &hold
		}
		ranked = append(ranked, w)
	}
	slices.SortFunc(ranked, func(x, y Wallet) int {
		return cmp.Or(cmp.Compare(y.TotalPnlUSD, x.TotalPnlUSD), strings.Compare(x.Wallet, y.Wallet))
	})
	for i := range ranked {
		ranked[i].Rank = i + 1
	}
	a.WalletsRanked = len(ranked)
	decile := (len(ranked) + 9) / 10
	nf := &a.NetFlow
	nf.TopDecileWallets = decile
	for i, w := range ranked {
		s := states[d.ids[w.Wallet]]
		nf.AllWalletsBuyUSD += s.flowBuy
		nf.AllWalletsSellUSD += s.flowSell
		if i < decile {
			nf.TopDecileBuyUSD += s.flowBuy
			nf.TopDecileSellUSD += s.flowSell
		}
	}
	nf.TopDecileNetFlowUSD = nf.TopDecileBuyUSD - nf.TopDecileSellUSD
	nf.AllWalletsNetFlowUSD = nf.AllWalletsBuyUSD - nf.AllWalletsSellUSD
	gross := nf.TopDecileBuyUSD + nf.TopDecileSellUSD
	switch {
	case gross == 0 || math.Abs(nf.TopDecileNetFlowUSD) <= 0.05*gross:
		nf.TopDecileDirection = "FLAT"
	case nf.TopDecileNetFlowUSD > 0:
		nf.TopDecileDirection = "BUYING"
	default:
		nf.TopDecileDirection = "SELLING"
	}
	a.Wallets = ranked[:min(TopWallets, len(ranked))]
	return a
}

// MergeRuns returns trades in time order, given where each run of trades
// already in time order starts (runs[0] is 0; a reader that receives its
// rows in sorted chunks records them as it appends). Runs are merged with
// a heap, O(n log runs); trades of equal time keep no particular order
// (OrderTies fixes it). When the runs are short — the rows came in no
// order — it sorts instead. The result may share trades' memory.
func MergeRuns(trades []Trade, runs []int) []Trade {
	if len(runs) <= 1 {
		return trades
	}
	if len(runs) > len(trades)/16 {
		slices.SortFunc(trades, func(a, b Trade) int { return cmp.Compare(a.TimeNs, b.TimeNs) })
		return trades
	}
	// h is a min-heap of run cursors by the time of their next trade.
	type cursor struct{ next, end int }
	h := make([]cursor, len(runs))
	for i, st := range runs {
		end := len(trades)
		if i+1 < len(runs) {
			end = runs[i+1]
		}
		h[i] = cursor{st, end}
	}
	less := func(a, b cursor) bool { return trades[a.next].TimeNs < trades[b.next].TimeNs }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && less(h[r], h[l]) {
				m = r
			}
			if !less(h[m], h[i]) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out := make([]Trade, 0, len(trades))
	for len(h) > 0 {
		c := &h[0]
		out = append(out, trades[c.next])
		if c.next++; c.next == c.end {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return out
}

// OrderTies puts runs of trades with the same time (in a time-ordered
// slice) in a fixed order: chain, market, wallet names, then buys first,
// then size, price and USD value. Readers that sort only by time call it
// so that the same stored trades always give the same answer, down to the
// last bit of the sums.
func OrderTies(trades []Trade, d *Dict) {
	for i := 0; i < len(trades); {
		j := i + 1
		for j < len(trades) && trades[j].TimeNs == trades[i].TimeNs {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(trades[i:j], func(a, b Trade) int {
				return cmp.Or(strings.Compare(d.names[a.Chain], d.names[b.Chain]), strings.Compare(d.names[a.Market], d.names[b.Market]),
					strings.Compare(d.names[a.Wallet], d.names[b.Wallet]), cmpBool(b.Buy, a.Buy), cmp.Compare(a.Size, b.Size), cmp.Compare(a.Price, b.Price), cmp.Compare(a.USD, b.USD))
			})
		}
		i = j
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// apply books one kept trade at average cost.
func (s *state) apply(t *Trade, inFlow bool) {
	s.trades++
	s.last = t.TimeNs
	sec := float64(t.TimeNs) / 1e9
	if t.Buy {
		s.qty += t.Size
		s.cost += t.USD
		s.timeSum += t.Size * sec
		s.buyUSD += t.USD
		if inFlow {
			s.flowBuy += t.USD
		}
		return
	}
	s.sellUSD += t.USD
	if inFlow {
		s.flowSell += t.USD
	}
	q := math.Min(t.Size, s.qty)
	if q < t.Size {
		s.unmatched += (t.Size - q) * (t.USD / t.Size)
	}
	if q <= 0 {
		return
	}
	avg := s.cost / s.qty
	acq := s.timeSum / s.qty
	pnl := q * (t.USD/t.Size - avg)
	s.realized += pnl
	s.closes++
	if pnl > 0 {
		s.wins++
	}
	s.holdSum += sec - acq
	s.cost -= q * avg
	s.timeSum -= q * acq
	s.qty -= q
	if s.qty <= 1e-12*math.Max(1, t.Size) {
		s.qty, s.cost, s.timeSum = 0, 0, 0
	}
}

// markRoundTrips marks the trades of a wallet that both bought and sold in
// one block (the same chain and block time; a transaction is inside a
// block): a sandwich when another wallet traded a market of the round trip
// in that block, else arbitrage.
func markRoundTrips(trades []Trade, excl []byte) {
	for i := 0; i < len(trades); {
		j := i + 1
		for j < len(trades) && trades[j].TimeNs == trades[i].TimeNs && trades[j].Chain == trades[i].Chain {
			j++
		}
		if j-i > 1 {
			block := trades[i:j]
			for x := range block {
				w := block[x].Wallet
				var buy, sell bool
				for _, t := range block {
					if t.Wallet == w {
						buy, sell = buy || t.Buy, sell || !t.Buy
					}
				}
				if !buy || !sell || excl[i+x] != keep {
					continue
				}
				rule := rArb
				for _, t := range block {
					if t.Wallet == w {
						continue
					}
					for _, u := range block {
						if u.Wallet == w && u.Market == t.Market {
							rule = rSandwich
						}
					}
				}
				for y, t := range block {
					if t.Wallet == w {
						excl[i+y] = rule
					}
				}
			}
		}
		i = j
	}
}

// markBots marks every kept trade of the two-sided bots.
func markBots(trades []Trade, excl []byte, ids int) {
	type tally struct {
		n, buys         int
		buyUSD, sellUSD float64
	}
	tallies := make([]tally, ids) // by wallet id
	for k := range trades {
		t := &trades[k]
		if excl[k] != keep {
			continue
		}
		tl := &tallies[t.Wallet]
		tl.n++
		if t.Buy {
			tl.buys++
			tl.buyUSD += t.USD
		} else {
			tl.sellUSD += t.USD
		}
	}
	bots := make([]bool, ids)
	for w, tl := range tallies {
		sells := tl.n - tl.buys
		if tl.n >= BotMinTrades && float64(tl.buys) >= BotMinSideShare*float64(tl.n) && float64(sells) >= BotMinSideShare*float64(tl.n) &&
			math.Abs(tl.buyUSD-tl.sellUSD) <= BotMaxNetShare*(tl.buyUSD+tl.sellUSD) {
			bots[w] = true
		}
	}
	for k, t := range trades {
		if excl[k] == keep && bots[t.Wallet] {
			excl[k] = rBot
		}
	}
}
