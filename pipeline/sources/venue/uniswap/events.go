package uniswap

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Event signatures (topic0) of the Uniswap v3 pool events.
var (
	TopicSwap = common.HexToHash("0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67")
	TopicMint = common.HexToHash("0x7a53080ba414158be7ec69b987b5fb7d07dee101fe85488f0853ae16239d0bde")
	TopicBurn = common.HexToHash("0x0c396cd989a39f4459b5fa1aed6a9a8dcdbc45908acfd67e028cd568da98982c")
)

const poolABI = `[
{"anonymous":false,"type":"event","name":"Swap","inputs":[
 {"indexed":true,"name":"sender","type":"address"},
 {"indexed":true,"name":"recipient","type":"address"},
 {"indexed":false,"name":"amount0","type":"int256"},
 {"indexed":false,"name":"amount1","type":"int256"},
 {"indexed":false,"name":"sqrtPriceX96","type":"uint160"},
 {"indexed":false,"name":"liquidity","type":"uint128"},
 {"indexed":false,"name":"tick","type":"int24"}]},
{"anonymous":false,"type":"event","name":"Mint","inputs":[
 {"indexed":false,"name":"sender","type":"address"},
 {"indexed":true,"name":"owner","type":"address"},
 {"indexed":true,"name":"tickLower","type":"int24"},
 {"indexed":true,"name":"tickUpper","type":"int24"},
 {"indexed":false,"name":"amount","type":"uint128"},
 {"indexed":false,"name":"amount0","type":"uint256"},
 {"indexed":false,"name":"amount1","type":"uint256"}]},
{"anonymous":false,"type":"event","name":"Burn","inputs":[
 {"indexed":true,"name":"owner","type":"address"},
 {"indexed":true,"name":"tickLower","type":"int24"},
 {"indexed":true,"name":"tickUpper","type":"int24"},
 {"indexed":false,"name":"amount","type":"uint128"},
 {"indexed":false,"name":"amount0","type":"uint256"},
 {"indexed":false,"name":"amount1","type":"uint256"}]},
{"type":"function","name":"token0","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"token1","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"fee","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint24"}]},
{"type":"function","name":"tickSpacing","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"int24"}]},
{"type":"function","name":"slot0","stateMutability":"view","inputs":[],"outputs":[
 {"name":"sqrtPriceX96","type":"uint160"},{"name":"tick","type":"int24"},{"name":"observationIndex","type":"uint16"},
 {"name":"observationCardinality","type":"uint16"},{"name":"observationCardinalityNext","type":"uint16"},
 {"name":"feeProtocol","type":"uint8"},{"name":"unlocked","type":"bool"}]},
{"type":"function","name":"liquidity","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint128"}]},
{"type":"function","name":"tickBitmap","stateMutability":"view","inputs":[{"name":"wordPosition","type":"int16"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"ticks","stateMutability":"view","inputs":[{"name":"tick","type":"int24"}],"outputs":[
 {"name":"liquidityGross","type":"uint128"},{"name":"liquidityNet","type":"int128"},
 {"name":"feeGrowthOutside0X128","type":"uint256"},{"name":"feeGrowthOutside1X128","type":"uint256"},
 {"name":"tickCumulativeOutside","type":"int56"},{"name":"secondsPerLiquidityOutsideX128","type":"uint160"},
 {"name":"secondsOutside","type":"uint32"},{"name":"initialized","type":"bool"}]}
]`

// PoolABI is the subset of the Uniswap v3 pool ABI the connectors use: the
// Swap, Mint and Burn events, the immutables, and the state a snapshot
// reads (slot0, liquidity, tickBitmap, ticks).
var PoolABI abi.ABI

func init() {
	var err error
	if PoolABI, err = abi.JSON(strings.NewReader(poolABI)); err != nil {
		panic("BUG: cannot parse the pool ABI: " + err.Error())
	}
	for name, want := range map[string]common.Hash{"Swap": TopicSwap, "Mint": TopicMint, "Burn": TopicBurn} {
		if PoolABI.Events[name].ID != want {
			panic("BUG: " + name + " topic mismatch")
		}
	}
}

// ErrMalformed is wrapped by every decoding error: the log is not a
// well-formed event of the kind its topic0 says.
var ErrMalformed = errors.New("malformed log")

// Swap is a decoded Uniswap v3 Swap event. Amounts are the pool's deltas:
// positive flows into the pool, negative out of it.
type Swap struct {
	Sender, Recipient common.Address
	Amount0, Amount1  *big.Int
	SqrtPriceX96      *big.Int
	Liquidity         *big.Int
	Tick              int32
}

// DecodeSwap decodes a Swap log with the pool ABI.
func DecodeSwap(l *types.Log) (Swap, error) {
	var s Swap
	if len(l.Topics) != 3 || l.Topics[0] != TopicSwap {
		return s, fmt.Errorf("%w: a swap has 3 topics starting with the Swap signature", ErrMalformed)
	}
	vals, err := PoolABI.Events["Swap"].Inputs.NonIndexed().Unpack(l.Data)
	if err != nil || len(vals) != 5 {
		return s, fmt.Errorf("%w: cannot decode swap data", ErrMalformed)
	}
	var ok [5]bool
	s.Amount0, ok[0] = vals[0].(*big.Int)
	s.Amount1, ok[1] = vals[1].(*big.Int)
	s.SqrtPriceX96, ok[2] = vals[2].(*big.Int)
	s.Liquidity, ok[3] = vals[3].(*big.Int)
	var tick *big.Int
	tick, ok[4] = vals[4].(*big.Int)
	if ok != [5]bool{true, true, true, true, true} {
		panic("BUG: the Swap ABI unpacks to unexpected types")
	}
	s.Tick = int32(tick.Int64())
	s.Sender = common.BytesToAddress(l.Topics[1][12:])
	s.Recipient = common.BytesToAddress(l.Topics[2][12:])
	return s, nil
}

// Position is a decoded Mint or Burn: liquidity Amount added (Mint) or
// removed (Burn) between TickLower and TickUpper.
type Position struct {
	Mint                 bool
	TickLower, TickUpper int32
	Amount               *big.Int
}

// DecodePosition decodes a Mint or Burn log.
func DecodePosition(l *types.Log) (Position, error) {
	var p Position
	if len(l.Topics) != 4 || (l.Topics[0] != TopicMint && l.Topics[0] != TopicBurn) {
		return p, fmt.Errorf("%w: a mint or burn has 4 topics starting with its signature", ErrMalformed)
	}
	p.Mint = l.Topics[0] == TopicMint
	name := "Burn"
	if p.Mint {
		name = "Mint"
	}
	vals, err := PoolABI.Events[name].Inputs.NonIndexed().Unpack(l.Data)
	if err != nil || len(vals) < 3 {
		return p, fmt.Errorf("%w: cannot decode %s data", ErrMalformed, strings.ToLower(name))
	}
	amt, ok := vals[len(vals)-3].(*big.Int)
	if !ok {
		panic("BUG: the " + name + " ABI unpacks to unexpected types")
	}
	p.Amount = amt
	lo, ok1 := int24(l.Topics[2])
	hi, ok2 := int24(l.Topics[3])
	if !ok1 || !ok2 || lo >= hi {
		return p, fmt.Errorf("%w: bad tick range", ErrMalformed)
	}
	p.TickLower, p.TickUpper = lo, hi
	return p, nil
}

// int24 reads a sign-extended int24 topic word.
func int24(h common.Hash) (int32, bool) {
	v := new(big.Int).SetBytes(h[:])
	if h[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	if !v.IsInt64() || v.Int64() < -(1<<23) || v.Int64() >= 1<<23 {
		return 0, false
	}
	return int32(v.Int64()), true
}

// SwapFixed is a decoded Swap in fixed-width words, as the connector's hot
// path reads it: no allocation. Amount0 and Amount1 are int256 in two's
// complement (uint256.Int's Sign and Abs read them so).
type SwapFixed struct {
	Sender, Recipient common.Address
	SwapWords
}

// DecodeSwapFixed decodes a Swap log into s, reading the five 32-byte data
// words directly instead of through the ABI's reflection (DecodeSwapData).
// TestDecodeSwapWordsMatchesABI and FuzzDecodeSwapWords hold it equal to
// the ABI decoding, including its range checks (uint160, uint128, int24
// words must be sign- or zero-extended).
func DecodeSwapFixed(l *types.Log, s *SwapFixed) error {
	if len(l.Topics) != 3 || l.Topics[0] != TopicSwap {
		return fmt.Errorf("%w: a swap has 3 topics starting with the Swap signature", ErrMalformed)
	}
	if !DecodeSwapData(l.Data, &s.SwapWords) {
		return fmt.Errorf("%w: cannot decode swap data", ErrMalformed)
	}
	copy(s.Sender[:], l.Topics[1][12:])
	copy(s.Recipient[:], l.Topics[2][12:])
	return nil
}

// DecodeSwapWords is DecodeSwapFixed with the amounts as big integers, like
// DecodeSwap.
func DecodeSwapWords(l *types.Log) (Swap, error) {
	var f SwapFixed
	if err := DecodeSwapFixed(l, &f); err != nil {
		return Swap{}, err
	}
	return Swap{Sender: f.Sender, Recipient: f.Recipient, Amount0: signedBig(&f.Amount0), Amount1: signedBig(&f.Amount1),
		SqrtPriceX96: f.SqrtPriceX96.ToBig(), Liquidity: f.Liquidity.ToBig(), Tick: f.Tick}, nil
}

// signedBig converts an int256 in two's complement to a big integer.
func signedBig(x *uint256.Int) *big.Int {
	if x.Sign() >= 0 {
		return x.ToBig()
	}
	return new(big.Int).Neg(new(uint256.Int).Neg(x).ToBig())
}

// MinTick and MaxTick bound a Uniswap v3 pool's ticks.
const (
	MinTick = -887272
	MaxTick = 887272
)

// BitmapWords returns the first and last word of the tick bitmap of a pool
// with tickSpacing: the words that can hold an initialized tick (the
// bitmap indexes tick/tickSpacing, rounded down, in words of 256 bits).
func BitmapWords(tickSpacing int32) (lo, hi int16) {
	return int16(floorDiv(MinTick, tickSpacing) >> 8), int16(floorDiv(MaxTick, tickSpacing) >> 8)
}

// BitmapTicks returns the ticks a word of the tick bitmap marks
// initialized, ascending.
func BitmapTicks(word int16, bits *big.Int, tickSpacing int32) []int32 {
	var out []int32
	for i := range 256 {
		if bits.Bit(i) == 1 {
			out = append(out, (int32(word)<<8+int32(i))*tickSpacing)
		}
	}
	return out
}

func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
