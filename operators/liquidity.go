package operators

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
)

// This file is the pure part of on-chain liquidity: the state of Uniswap
// v3-style pools kept from their events, and the cost of a market order
// executed as one swap in a pool with concentrated-liquidity math. Amounts and
// prices are exact integers (math/big) until the cost is expressed in bps.

// PoolMeta describes one pool: what the connector read with eth_call.
type PoolMeta struct {
	Chain, Address, Name string
	// Fee is the swap fee in hundredths of a bip (500 = 0.05%).
	Fee         uint32
	TickSpacing int32
	// Token0, Token1 are the token addresses (lower case); Ticker is each
	// token's symbol(), Decimals its decimals(), Symbol its normalized symbol
	// from the registry ("USD" for a stablecoin, "ETHUSD" for WETH; "" when
	// the registry does not list the token).
	Token0, Token1   string
	Ticker0, Ticker1 string
	Decimals0        int
	Decimals1        int
	Symbol0, Symbol1 string
	Resolved         bool
}

// BaseIsToken0 tells which token is the base of the pool's trades: the one
// that is not a USD stablecoin (else the one that is not WETH). ok is false
// when neither token is a USD stablecoin or WETH, or a token is unknown.
func (m *PoolMeta) BaseIsToken0() (base0 bool, ok bool) {
	quote := func(q, b string) bool {
		return b != "" && b != "USD" && (q == "USD" || (q == "ETHUSD" && b != "ETHUSD"))
	}
	switch {
	case quote(m.Symbol1, m.Symbol0):
		return true, true
	case quote(m.Symbol0, m.Symbol1):
		return false, true
	}
	return false, false
}

// BaseSymbol is the normalized symbol of the base token ("" if unsupported).
func (m *PoolMeta) BaseSymbol() string {
	b0, ok := m.BaseIsToken0()
	switch {
	case !ok:
		return ""
	case b0:
		return m.Symbol0
	}
	return m.Symbol1
}

// PoolEventKind is what a pool event did.
type PoolEventKind uint8

// Pool event kinds.
const (
	PoolSwap PoolEventKind = iota + 1
	PoolMint
	PoolBurn
	// PoolSnapshot is the whole state of a pool read from the chain at one
	// block: slot0, the in-range liquidity and every initialized tick.
	PoolSnapshot
)

// PoolEvent is one state change of a pool, from its log, or a snapshot of
// its whole state.
type PoolEvent struct {
	Meta     *PoolMeta
	Kind     PoolEventKind
	Block    uint64
	LogIndex uint32
	TimeNs   int64
	// TxHash is the log's transaction hash (lower-case hex); empty for a
	// snapshot.
	TxHash string
	// Swap: the state after the swap. Snapshot: the state at Block.
	SqrtPriceX96, Liquidity *big.Int
	Tick                    int32
	// Mint and Burn: the liquidity Amount added or removed over the range.
	TickLower, TickUpper int32
	Amount               *big.Int
	// Ticks (snapshot only) are every initialized tick at Block, ascending.
	Ticks []TickNet
	// Retracted: the event was reorged out and is undone.
	Retracted bool
}

// TickNet is one initialized tick and its liquidityNet.
type TickNet struct {
	Tick int32
	Net  *big.Int
}

// PoolState is the state of one pool kept from its events.
type PoolState struct {
	Meta *PoolMeta
	// SqrtPriceX96, Liquidity and Tick are the pool's slot0 price, in-range
	// liquidity and current tick; nil until the first swap or snapshot.
	SqrtPriceX96, Liquidity *big.Int
	Tick                    int32
	// Net is the liquidityNet of the initialized ticks: every one when
	// Complete, else those seen in Mint and Burn events since start
	// (positions opened before start are then not known).
	Net map[int32]*big.Int
	// Complete is set by a snapshot: Net holds every initialized tick, so
	// a simulated swap is exact however far it goes.
	Complete bool
	// SnapshotBlock is the block of the last snapshot; events of that
	// block or older are already in it and are ignored.
	SnapshotBlock uint64
	UpdatedNs     int64
}

// NewPoolState returns the empty state of a pool.
func NewPoolState(m *PoolMeta) *PoolState {
	return &PoolState{Meta: m, Net: map[int32]*big.Int{}}
}

// Apply updates the state with one event. A snapshot replaces the whole
// state (and makes it Complete); an event of the snapshot's block or older
// is ignored, as the snapshot holds it. A swap sets the price, liquidity
// and tick (a retracted swap is ignored: the next swap sets them again); a
// mint or burn changes liquidityNet at its ticks and the in-range liquidity
// when the current tick is inside its range.
func (s *PoolState) Apply(ev PoolEvent) {
	if ev.Kind != PoolSnapshot && s.SnapshotBlock > 0 && ev.Block <= s.SnapshotBlock {
		return
	}
	switch ev.Kind {
	case PoolSnapshot:
		if ev.Retracted || ev.SqrtPriceX96 == nil || ev.Liquidity == nil {
			return
		}
		s.SqrtPriceX96 = new(big.Int).Set(ev.SqrtPriceX96)
		s.Liquidity = new(big.Int).Set(ev.Liquidity)
		s.Tick = ev.Tick
		s.Net = make(map[int32]*big.Int, len(ev.Ticks))
		for _, t := range ev.Ticks {
			if t.Net != nil && t.Net.Sign() != 0 {
				s.Net[t.Tick] = new(big.Int).Set(t.Net)
			}
		}
		s.Complete, s.SnapshotBlock = true, ev.Block
	case PoolSwap:
		if ev.Retracted || ev.SqrtPriceX96 == nil || ev.Liquidity == nil {
			return
		}
		s.SqrtPriceX96 = new(big.Int).Set(ev.SqrtPriceX96)
		s.Liquidity = new(big.Int).Set(ev.Liquidity)
		s.Tick = ev.Tick
	case PoolMint, PoolBurn:
		if ev.Amount == nil {
			return
		}
		d := new(big.Int).Set(ev.Amount)
		if (ev.Kind == PoolBurn) != ev.Retracted {
			d.Neg(d)
		}
		s.addNet(ev.TickLower, d)
		s.addNet(ev.TickUpper, new(big.Int).Neg(d))
		if s.Liquidity != nil && ev.TickLower <= s.Tick && s.Tick < ev.TickUpper {
			s.Liquidity.Add(s.Liquidity, d)
			if s.Liquidity.Sign() < 0 {
				s.Liquidity.SetInt64(0)
			}
		}
	default:
		panic(fmt.Sprintf("BUG: pool event kind %d", ev.Kind))
	}
	if ev.TimeNs > s.UpdatedNs {
		s.UpdatedNs = ev.TimeNs
	}
}

func (s *PoolState) addNet(t int32, d *big.Int) {
	n := s.Net[t]
	if n == nil {
		n = new(big.Int)
		s.Net[t] = n
	}
	n.Add(n, d)
	if n.Sign() == 0 {
		delete(s.Net, t)
	}
}

// Ready reports whether the state has a price and liquidity.
func (s *PoolState) Ready() bool { return s.SqrtPriceX96 != nil && s.Liquidity != nil }

var (
	q96         = new(big.Int).Lsh(big.NewInt(1), 96)
	maxUint256  = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	tickFactors = func() []*big.Int {
		hexes := []string{
			"fffcb933bd6fad37aa2d162d1a594001", "fff97272373d413259a46990580e213a", "fff2e50f5f656932ef12357cf3c7fdcc",
			"ffe5caca7e10e4e61c3624eaa0941cd0", "ffcb9843d60f6159c9db58835c926644", "ff973b41fa98c081472e6896dfb254c0",
			"ff2ea16466c96a3843ec78b326b52861", "fe5dee046a99a2a811c461f1969c3053", "fcbe86c7900a88aedcffc83b479aa3a4",
			"f987a7253ac413176f2b074cf7815e54", "f3392b0822b70005940c7a398e4b70f3", "e7159475a2c29b7443b29c7fa6e889d9",
			"d097f3bdfd2022b8845ad8f792aa5825", "a9f746462d870fdf8a65dc1f90e061e5", "70d869a156d2a1b890bb3df62baf32f7",
			"31be135f97d08fd981231505542fcfa6", "9aa508b5b7a84e1c677de54f3e99bc9", "5d6af8dedb81196699c329225ee604",
			"2216e584f5fa1ea926041bedfe98", "48a170391f7dc42444e8fa2",
		}
		out := make([]*big.Int, len(hexes))
		for i, h := range hexes {
			v, ok := new(big.Int).SetString(h, 16)
			if !ok {
				panic("BUG: tick factor " + h)
			}
			out[i] = v
		}
		return out
	}()
)

// MaxTick is the largest tick of a Uniswap v3 pool.
const MaxTick = 887272

// SqrtRatioAtTick is Uniswap v3's TickMath.getSqrtRatioAtTick: the Q64.96
// square root of 1.0001^tick, rounded up, exactly as the contract computes it.
func SqrtRatioAtTick(tick int32) *big.Int {
	abs := int64(tick)
	if abs < 0 {
		abs = -abs
	}
	if abs > MaxTick {
		panic("BUG: tick out of range")
	}
	ratio := new(big.Int).Lsh(big.NewInt(1), 128)
	if abs&1 != 0 {
		ratio.Set(tickFactors[0])
	}
	for bit := 1; bit < len(tickFactors); bit++ {
		if abs&(1<<bit) != 0 {
			ratio.Mul(ratio, tickFactors[bit])
			ratio.Rsh(ratio, 128)
		}
	}
	if tick > 0 {
		ratio.Quo(maxUint256, ratio)
	}
	rem := new(big.Int).And(ratio, big.NewInt(1<<32-1))
	ratio.Rsh(ratio, 32)
	if rem.Sign() != 0 {
		ratio.Add(ratio, big.NewInt(1))
	}
	return ratio
}

func divRoundUp(a, b *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// NextSqrtPriceFromInput is SqrtPriceMath.getNextSqrtPriceFromInput: the
// price after adding amountIn (fee already taken) of token0 (zeroForOne) or
// token1 at liquidity L.
func NextSqrtPriceFromInput(sqrtP, L, amountIn *big.Int, zeroForOne bool) *big.Int {
	if amountIn.Sign() == 0 {
		return new(big.Int).Set(sqrtP)
	}
	if zeroForOne {
		// ceil(L·2^96·sqrtP / (L·2^96 + amountIn·sqrtP))
		num := new(big.Int).Lsh(L, 96)
		den := new(big.Int).Mul(amountIn, sqrtP)
		den.Add(den, num)
		return divRoundUp(num.Mul(num, sqrtP), den)
	}
	// sqrtP + floor(amountIn·2^96 / L)
	q := new(big.Int).Lsh(amountIn, 96)
	q.Quo(q, L)
	return q.Add(q, sqrtP)
}

// Amount0Delta is SqrtPriceMath.getAmount0Delta for a < b.
func Amount0Delta(a, b, L *big.Int, roundUp bool) *big.Int {
	if a.Cmp(b) > 0 {
		a, b = b, a
	}
	num := new(big.Int).Lsh(L, 96)
	num.Mul(num, new(big.Int).Sub(b, a))
	if roundUp {
		return divRoundUp(divRoundUp(num, b), a)
	}
	num.Quo(num, b)
	return num.Quo(num, a)
}

// Amount1Delta is SqrtPriceMath.getAmount1Delta.
func Amount1Delta(a, b, L *big.Int, roundUp bool) *big.Int {
	if a.Cmp(b) > 0 {
		a, b = b, a
	}
	num := new(big.Int).Mul(L, new(big.Int).Sub(b, a))
	if roundUp {
		return divRoundUp(num, q96)
	}
	return num.Quo(num, q96)
}

// ErrPriceMove means the order would move the price more than the limit.
var ErrPriceMove = errors.New("price would move more than 1%")

// ErrNoLiquidity means the pool has no liquidity where the order would go.
var ErrNoLiquidity = errors.New("no liquidity in range")

// SwapResult is the outcome of a simulated exact-input swap.
type SwapResult struct {
	AmountIn, AmountOut *big.Int // atomic units, AmountIn fee included
	SqrtPriceX96        *big.Int // after the swap
	TicksCrossed        int
}

// SwapExactIn simulates a swap of amountIn (fee included) of token0
// (zeroForOne) or token1 against the pool state as the pool contract's
// swap loop runs it: step by step to the next initialized tick or the edge
// of the current tick-bitmap word, each step's amounts rounded as the
// contract rounds them, crossing the initialized ticks the state knows (all
// of them when Complete). With a complete state the amounts are the ones
// the pool would pay, to the wei (TestSnapshotEstimateEqualsChain). It
// returns ErrPriceMove when the price would move more than maxMove (0.01 =
// 1%) and ErrNoLiquidity when the in-range liquidity runs out.
func (s *PoolState) SwapExactIn(amountIn *big.Int, zeroForOne bool, maxMove float64) (SwapResult, error) {
	if !s.Ready() {
		return SwapResult{}, ErrNoLiquidity
	}
	feeDen := big.NewInt(1_000_000)
	feeNum := big.NewInt(int64(1_000_000 - s.Meta.Fee))
	sqrtP := new(big.Int).Set(s.SqrtPriceX96)
	L := new(big.Int).Set(s.Liquidity)
	limit := limitPrice(sqrtP, zeroForOne, maxMove)
	ticks := s.sortedTicks()
	tick := s.Tick
	remaining := new(big.Int).Set(amountIn)
	out := new(big.Int)
	crossed := 0
	for remaining.Sign() > 0 {
		// The next tick the pool's swap loop stops at: the next initialized
		// tick in the swap's direction, but no further than the end of the
		// current word of the tick bitmap (nextInitializedTickWithinOneWord:
		// the pool steps a word at a time, and each step rounds its amounts
		// on its own, so stepping as it does gives its amounts exactly).
		var next int32
		var haveNext, initialized bool
		if zeroForOne {
			i := sort.Search(len(ticks), func(i int) bool { return ticks[i] > tick }) - 1
			if i >= 0 {
				next, haveNext, initialized = ticks[i], true, true
			}
			if w, ok := wordEdge(tick, s.Meta.TickSpacing, true); ok && (!haveNext || next < w) {
				next, haveNext, initialized = w, true, false
			}
		} else {
			i := sort.Search(len(ticks), func(i int) bool { return ticks[i] > tick })
			if i < len(ticks) {
				next, haveNext, initialized = ticks[i], true, true
			}
			if w, ok := wordEdge(tick, s.Meta.TickSpacing, false); ok && (!haveNext || next > w) {
				next, haveNext, initialized = w, true, false
			}
		}
		target, atLimit := limit, true
		if haveNext {
			tp := SqrtRatioAtTick(next)
			if (zeroForOne && tp.Cmp(limit) > 0) || (!zeroForOne && tp.Cmp(limit) < 0) {
				target, atLimit = tp, false
			}
		}
		if L.Sign() == 0 {
			if atLimit {
				return SwapResult{}, ErrNoLiquidity
			}
			sqrtP = target
		} else {
			lessFee := new(big.Int).Mul(remaining, feeNum)
			lessFee.Quo(lessFee, feeDen)
			var toTarget *big.Int
			if zeroForOne {
				toTarget = Amount0Delta(target, sqrtP, L, true)
			} else {
				toTarget = Amount1Delta(sqrtP, target, L, true)
			}
			var nextP, in, fee *big.Int
			if lessFee.Cmp(toTarget) >= 0 {
				nextP, in = target, toTarget
				fee = divRoundUp(new(big.Int).Mul(in, big.NewInt(int64(s.Meta.Fee))), feeNum)
			} else {
				nextP = NextSqrtPriceFromInput(sqrtP, L, lessFee, zeroForOne)
				if zeroForOne {
					in = Amount0Delta(nextP, sqrtP, L, true)
				} else {
					in = Amount1Delta(sqrtP, nextP, L, true)
				}
				fee = new(big.Int).Sub(remaining, in)
			}
			if zeroForOne {
				out.Add(out, Amount1Delta(nextP, sqrtP, L, false))
			} else {
				out.Add(out, Amount0Delta(sqrtP, nextP, L, false))
			}
			remaining.Sub(remaining, in)
			remaining.Sub(remaining, fee)
			if remaining.Sign() < 0 {
				remaining.SetInt64(0)
			}
			sqrtP = nextP
			if sqrtP.Cmp(target) != 0 {
				break
			}
		}
		if remaining.Sign() == 0 {
			break
		}
		if atLimit {
			return SwapResult{}, ErrPriceMove
		}
		// Cross the tick (a word's edge that is not initialized changes
		// nothing but the tick).
		if net := s.Net[next]; initialized && net != nil {
			if zeroForOne {
				L.Sub(L, net)
			} else {
				L.Add(L, net)
			}
			crossed++
		}
		if zeroForOne {
			tick = next - 1
		} else {
			tick = next
		}
		if L.Sign() < 0 {
			L.SetInt64(0) // positions opened before start are unknown
		}
	}
	return SwapResult{AmountIn: new(big.Int).Sub(amountIn, remaining), AmountOut: out, SqrtPriceX96: sqrtP, TicksCrossed: crossed}, nil
}

// wordEdge is where the pool's swap loop stops for lack of an initialized
// tick in the current word of its tick bitmap: going down (lte), the first
// tick of the word holding tick; going up, the last tick of the word
// holding the next compressed tick; clamped to ±MaxTick. ok is false
// without a tick spacing.
func wordEdge(tick, spacing int32, lte bool) (int32, bool) {
	if spacing <= 0 {
		return 0, false
	}
	c := floorDiv(int64(tick), int64(spacing))
	var edge int64
	if lte {
		edge = floorDiv(c, 256) * 256 * int64(spacing)
	} else {
		edge = (floorDiv(c+1, 256)*256 + 255) * int64(spacing)
	}
	return int32(max(-MaxTick, min(MaxTick, edge))), true
}

func (s *PoolState) sortedTicks() []int32 {
	t := make([]int32, 0, len(s.Net))
	for k := range s.Net {
		t = append(t, k)
	}
	sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
	return t
}

// limitPrice is the sqrt price at which the price has moved by maxMove.
func limitPrice(sqrtP *big.Int, down bool, maxMove float64) *big.Int {
	f := math.Sqrt(1 + maxMove)
	if down {
		f = math.Sqrt(1 - maxMove)
	}
	x := new(big.Float).SetPrec(256).SetInt(sqrtP)
	x.Mul(x, new(big.Float).SetPrec(256).SetFloat64(f))
	v, _ := x.Int(nil)
	return v
}

// Price1Per0 is the pool price in whole token1 per whole token0.
func (s *PoolState) Price1Per0() float64 {
	if s.SqrtPriceX96 == nil {
		return 0
	}
	x := new(big.Float).SetPrec(256).SetInt(s.SqrtPriceX96)
	x.Quo(x, new(big.Float).SetInt(q96))
	x.Mul(x, x)
	v, _ := x.Float64()
	return v * math.Pow10(s.Meta.Decimals0-s.Meta.Decimals1)
}

// MidPrice is the pool price in quote per base, in the quote token.
func (s *PoolState) MidPrice() float64 {
	b0, ok := s.Meta.BaseIsToken0()
	p := s.Price1Per0()
	if !ok || p == 0 {
		return 0
	}
	if b0 {
		return p
	}
	return 1 / p
}

// OrderSizesUSD are the market order sizes the liquidity block estimates.
var OrderSizesUSD = []int{1000, 10000, 50000}

// MaxPriceMove is the largest price move an estimate allows: a larger one
// makes the estimate null with a reason.
const MaxPriceMove = 0.01

// LiquidityMethod is the method label of the estimates.
const LiquidityMethod = "uniswap_v3 concentrated liquidity: one exact-input swap in the best pool, fee included, stepping as the pool does across its initialized ticks (every one when its state was read from the chain, else those seen in Mint and Burn events)"

// Estimate is the cost of one market order.
type Estimate struct {
	Side    string // "buy" or "sell"
	SizeUSD int
	// CostBps is the cost against the pool's mid price in basis points, fee
	// included; nil when no pool can fill the order within MaxPriceMove.
	CostBps *float64
	// Reason says why CostBps is nil.
	Reason string
	// Chain and Pool name the best pool; empty when CostBps is nil.
	Chain, Pool  string
	FeeBps       float64
	TicksCrossed int
}

// PoolSummary describes one pool of a symbol.
type PoolSummary struct {
	Chain, Address, Name string
	FeeBps               float64
	// PriceUSD is the pool's mid price of the base in USD.
	PriceUSD     float64
	SqrtPriceX96 string
	Liquidity    string
	Tick         int32
	KnownTicks   int
	UpdatedNs    int64
}

// LiquidityReport is the liquidity block of one symbol.
type LiquidityReport struct {
	Symbol    string
	AsOfNs    int64
	Score     *int
	Estimates []Estimate // buy then sell, by OrderSizesUSD
	Pools     []PoolSummary
}

// Cost returns the estimate of a side and size, if any.
func (r *LiquidityReport) Cost(side string, size int) (Estimate, bool) {
	for _, e := range r.Estimates {
		if e.Side == side && e.SizeUSD == size {
			return e, true
		}
	}
	return Estimate{}, false
}

// EstimateLiquidity computes the liquidity block of symbol from the states of
// its pools (pools whose base is symbol; others are ignored). ethUSD prices a
// WETH quote; pools quoted in WETH are skipped when it is 0. The report is
// empty (no estimates) when no pool is ready. The result depends only on
// the arguments.
func EstimateLiquidity(symbol string, pools []*PoolState, ethUSD float64) LiquidityReport {
	r := LiquidityReport{Symbol: symbol}
	var ready []*PoolState
	for _, p := range pools {
		if p.Meta == nil || p.Meta.BaseSymbol() != symbol || !p.Ready() {
			continue
		}
		q := quoteUSD(p.Meta, ethUSD)
		if q == 0 || p.MidPrice() == 0 {
			continue
		}
		ready = append(ready, p)
		r.AsOfNs = max(r.AsOfNs, p.UpdatedNs)
		r.Pools = append(r.Pools, PoolSummary{
			Chain: p.Meta.Chain, Address: p.Meta.Address, Name: p.Meta.Name,
			FeeBps: float64(p.Meta.Fee) / 100, PriceUSD: p.MidPrice() * q,
			SqrtPriceX96: p.SqrtPriceX96.String(), Liquidity: p.Liquidity.String(), Tick: p.Tick,
			KnownTicks: len(p.Net), UpdatedNs: p.UpdatedNs,
		})
	}
	sort.Slice(r.Pools, func(i, j int) bool {
		if r.Pools[i].Chain != r.Pools[j].Chain {
			return r.Pools[i].Chain < r.Pools[j].Chain
		}
		return r.Pools[i].Address < r.Pools[j].Address
	})
	if len(ready) == 0 {
		return r
	}
	for _, side := range []string{"buy", "sell"} {
		for _, size := range OrderSizesUSD {
			best := Estimate{Side: side, SizeUSD: size, Reason: ErrNoLiquidity.Error()}
			for _, p := range ready {
				e := costIn(p, side, size, ethUSD)
				if e.CostBps != nil && (best.CostBps == nil || *e.CostBps < *best.CostBps) {
					best = e
				} else if best.CostBps == nil && e.Reason == ErrPriceMove.Error() {
					best.Reason = e.Reason
				}
			}
			r.Estimates = append(r.Estimates, best)
		}
	}
	b, okB := r.Cost("buy", 10000)
	s, okS := r.Cost("sell", 10000)
	if okB && okS && b.CostBps != nil && s.CostBps != nil {
		bps := (*b.CostBps + *s.CostBps) / 2
		score := int(math.Round(100 * math.Exp(-bps/50)))
		score = max(0, min(100, score))
		r.Score = &score
	}
	return r
}

func quoteUSD(m *PoolMeta, ethUSD float64) float64 {
	b0, ok := m.BaseIsToken0()
	if !ok {
		return 0
	}
	q := m.Symbol1
	if !b0 {
		q = m.Symbol0
	}
	if q == "USD" {
		return 1
	}
	return ethUSD
}

// atomic converts a number of tokens to atomic units.
func atomic(tokens float64, decimals int) *big.Int {
	x := new(big.Float).SetPrec(256).SetFloat64(tokens)
	x.Mul(x, new(big.Float).SetPrec(256).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	v, _ := x.Int(nil)
	return v
}

func tokens(x *big.Int, decimals int) float64 {
	f := new(big.Float).SetPrec(256).SetInt(x)
	f.Quo(f, new(big.Float).SetPrec(256).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	v, _ := f.Float64()
	return v
}

// costIn estimates a market order of sizeUSD in one pool.
func costIn(p *PoolState, side string, sizeUSD int, ethUSD float64) Estimate {
	e := Estimate{Side: side, SizeUSD: sizeUSD}
	m := p.Meta
	b0, _ := m.BaseIsToken0()
	baseDec, quoteDec := m.Decimals1, m.Decimals0
	if b0 {
		baseDec, quoteDec = m.Decimals0, m.Decimals1
	}
	qUSD := quoteUSD(m, ethUSD)
	mid := p.MidPrice()
	var in *big.Int
	var zeroForOne bool
	if side == "buy" { // quote in, base out
		in = atomic(float64(sizeUSD)/qUSD, quoteDec)
		zeroForOne = !b0
	} else { // base in, quote out
		in = atomic(float64(sizeUSD)/(mid*qUSD), baseDec)
		zeroForOne = b0
	}
	res, err := p.SwapExactIn(in, zeroForOne, MaxPriceMove)
	if err != nil {
		e.Reason = err.Error()
		return e
	}
	if res.AmountOut.Sign() == 0 || res.AmountIn.Sign() == 0 {
		e.Reason = ErrNoLiquidity.Error()
		return e
	}
	var exec, cost float64
	if side == "buy" {
		exec = tokens(res.AmountIn, quoteDec) / tokens(res.AmountOut, baseDec)
		cost = (exec/mid - 1) * 1e4
	} else {
		exec = tokens(res.AmountOut, quoteDec) / tokens(res.AmountIn, baseDec)
		cost = (1 - exec/mid) * 1e4
	}
	e.CostBps = &cost
	e.Chain, e.Pool = m.Chain, m.Address
	e.FeeBps = float64(m.Fee) / 100
	e.TicksCrossed = res.TicksCrossed
	return e
}
