// Package uniswap is the venue decoder of Uniswap v3 pools: the events of
// the pool contract (Swap, Mint, Burn), decoded with the ABI and, for Swap,
// in fixed-width words without the ABI's reflection and without allocating.
// The EVM connector (pipeline/sources/evmdex) and the replay reader
// (pipeline/sources/replay) both use it; it imports neither.
package uniswap

import "github.com/holiman/uint256"

// SwapWords are the five data words of a Swap event (the indexed sender and
// recipient are topics, not data). Amount0 and Amount1 are int256 in two's
// complement: uint256.Int's Sign and Abs read them so.
type SwapWords struct {
	Amount0, Amount1        uint256.Int
	SqrtPriceX96, Liquidity uint256.Int
	Tick                    int32
}

// DecodeSwapData reads the data of a Swap log (amount0 int256, amount1
// int256, sqrtPriceX96 uint160, liquidity uint128, tick int24) into w. It
// reports false unless d is exactly five words with the uint160 and uint128
// words zero-extended and the int24 word sign-extended — the canonical
// encoding, which the ABI decoder also accepts and decodes to the same
// values (evmdex's TestDecodeSwapWordsMatchesABI and FuzzDecodeSwapWords).
// The ABI decoder accepts some non-canonical data too: callers that must
// match it exactly fall back to it when this reports false.
func DecodeSwapData(d []byte, w *SwapWords) bool {
	if len(d) != 5*32 || !zeroExtended(d[64:96], 20) || !zeroExtended(d[96:128], 16) {
		return false
	}
	tick, ok := int24Word(d[128:160])
	if !ok {
		return false
	}
	w.Amount0.SetBytes32(d[0:32])
	w.Amount1.SetBytes32(d[32:64])
	w.SqrtPriceX96.SetBytes32(d[64:96])
	w.Liquidity.SetBytes32(d[96:128])
	w.Tick = tick
	return true
}

// int24Word reads a 32-byte word holding a sign-extended int24.
func int24Word(w []byte) (int32, bool) {
	ext := byte(0)
	if w[29]&0x80 != 0 {
		ext = 0xff
	}
	for _, c := range w[:29] {
		if c != ext {
			return 0, false
		}
	}
	return int32(uint32(w[29])<<16|uint32(w[30])<<8|uint32(w[31])) << 8 >> 8, true
}

// zeroExtended reports whether a 32-byte word holds an unsigned integer of
// size bytes (the leading 32-size bytes are zero).
func zeroExtended(w []byte, size int) bool {
	for _, c := range w[:32-size] {
		if c != 0 {
			return false
		}
	}
	return true
}
