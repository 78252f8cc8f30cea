package uniswap

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/holiman/uint256"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Venue is the venue id of the trades.
const Venue = "uniswap_v3"

// Swaps maps the swaps of Uniswap v3 pools to trades: the one field
// mapping of the venue, which the EVM connector (pipeline/sources/evmdex)
// and the capture reader (pipeline/sources/replay) share. It keeps the
// latest ETHUSD price of the swaps it mapped, which prices WETH-quoted
// pools, so one Swaps serves one source, in block order. It is not safe
// for concurrent use.
type Swaps struct {
	ethusd float64
	vsym   struct{ base, quote, s string }
}

// Trade fills t from a swap of pool m — amount0 and amount1 are the pool's
// deltas (int256 in two's complement: positive into the pool) — or says
// why it cannot:
//
//   - side: the base token left the pool (a buy) or entered it (a sell);
//     amounts without opposite signs are malformed;
//   - size: |base amount| / 10^decimals; notional: |quote amount| /
//     10^decimals for a USD-stablecoin quote, times the latest ETHUSD
//     price of an ETH/stablecoin swap for a WETH quote (refused until
//     there is one); price = notional / size, fee included;
//   - venue, kind, chain, market (the pool), symbol (the base's
//     normalized symbol) and venue symbol (base/quote tickers).
//
// The caller sets the times, trade id, log index, wallet and source, and
// validates.
func (s *Swaps) Trade(m *operators.PoolMeta, amount0, amount1 *uint256.Int, t *schemas.Trade) string {
	baseIs0, ok := m.BaseIsToken0()
	if !ok {
		return fmt.Sprintf("unsupported pool: %s/%s is not quoted in a USD stablecoin or WETH listed in the registry", m.Ticker0, m.Ticker1)
	}
	baseAmt, quoteAmt, baseDec, quoteDec, baseTicker, quoteTicker, baseSym, quoteSym := amount1, amount0, m.Decimals1, m.Decimals0, m.Ticker1, m.Ticker0, m.Symbol1, m.Symbol0
	if baseIs0 {
		baseAmt, quoteAmt, baseDec, quoteDec, baseTicker, quoteTicker, baseSym, quoteSym = amount0, amount1, m.Decimals0, m.Decimals1, m.Ticker0, m.Ticker1, m.Symbol0, m.Symbol1
	}
	switch {
	case baseAmt.Sign() < 0 && quoteAmt.Sign() > 0: // base left the pool: bought
		t.Side = schemas.Side_SIDE_BUY
	case baseAmt.Sign() > 0 && quoteAmt.Sign() < 0:
		t.Side = schemas.Side_SIDE_SELL
	default:
		return "malformed swap: amounts do not have opposite signs"
	}
	var abs uint256.Int
	size := symbols.TokenAmountU256(abs.Abs(baseAmt), baseDec)
	quote := symbols.TokenAmountU256(abs.Abs(quoteAmt), quoteDec)
	if !(size > 0) {
		return "bad size: the base amount is zero"
	}
	t.Size = size
	if quoteSym == symbols.USD {
		t.NotionalUsd = quote
		if baseSym == "ETHUSD" {
			s.ethusd = quote / size
		}
	} else { // WETH quote
		if s.ethusd == 0 {
			return "no ETHUSD price yet: the chain's ETH/stablecoin pools have not traded since start"
		}
		t.NotionalUsd = quote * s.ethusd
	}
	t.Price = t.NotionalUsd / size
	t.Venue, t.VenueKind, t.Chain, t.Market = Venue, schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX, m.Chain, m.Address
	t.Symbol, t.VenueSymbol = baseSym, s.venueSymbol(baseTicker, quoteTicker)
	return ""
}

// SetETHUSD sets the ETHUSD price that prices WETH-quoted swaps until the
// next ETH/stablecoin swap (a price known from elsewhere, e.g. a snapshot).
func (s *Swaps) SetETHUSD(price float64) { s.ethusd = price }

// venueSymbol returns base/quote, cached for the last pair asked.
func (s *Swaps) venueSymbol(base, quote string) string {
	if s.vsym.base != base || s.vsym.quote != quote {
		s.vsym.base, s.vsym.quote, s.vsym.s = base, quote, base+"/"+quote
	}
	return s.vsym.s
}

// SwapEvent returns the pool event of a swap of pool m: the state after it
// (sqrtPriceX96, in-range liquidity, tick), in one allocation for the
// event and the two integers it owns.
func SwapEvent(m *operators.PoolMeta, block uint64, index uint32, timeNs int64, txHash string, w *SwapWords) *operators.PoolEvent {
	se := &swapEvent{PoolEvent: operators.PoolEvent{Meta: m, Kind: operators.PoolSwap, Block: block, LogIndex: index, TimeNs: timeNs, TxHash: txHash}}
	ev := &se.PoolEvent
	ev.SqrtPriceX96 = se.sqrt.SetBits(u256Words(se.w[0:4:4], &w.SqrtPriceX96))
	ev.Liquidity = se.liq.SetBits(u256Words(se.w[4:8:8], &w.Liquidity))
	ev.Tick = w.Tick
	return ev
}

// PositionEvent returns the pool event of a Mint or Burn of pool m.
func PositionEvent(m *operators.PoolMeta, block uint64, index uint32, timeNs int64, txHash string, p *Position) *operators.PoolEvent {
	ev := &operators.PoolEvent{Meta: m, Kind: operators.PoolBurn, Block: block, LogIndex: index, TimeNs: timeNs, TxHash: txHash,
		TickLower: p.TickLower, TickUpper: p.TickUpper, Amount: p.Amount}
	if p.Mint {
		ev.Kind = operators.PoolMint
	}
	return ev
}

// swapEvent holds a swap's pool event and the integers it points to.
type swapEvent struct {
	operators.PoolEvent
	sqrt, liq big.Int
	w         [8]big.Word
}

// u256Words writes x into w as big.Int words (little-endian).
func u256Words(w []big.Word, x *uint256.Int) []big.Word {
	if bits.UintSize != 64 {
		panic("BUG: big.Word is not 64 bits")
	}
	for i := range w {
		w[i] = big.Word(x[i])
	}
	return w
}

// AmountWord writes the int256 x (an amount the ABI decoded) into w in
// two's complement, as the fixed-width decoder reads amounts; false when x
// is out of the int256 range.
func AmountWord(x *big.Int, w *uint256.Int) bool {
	if x.BitLen() > 256 || (x.Sign() >= 0 && x.BitLen() > 255) {
		return false
	}
	if x.Sign() >= 0 {
		w.SetFromBig(x)
		return true
	}
	w.SetFromBig(new(big.Int).Neg(x))
	w.Neg(w)
	return w.Sign() < 0
}
