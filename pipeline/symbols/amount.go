package symbols

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/holiman/uint256"
)

// pow10 holds 10^0 … 10^77 (a uint256 has 78 decimal digits).
var pow10 = func() [78]*big.Float {
	var t [78]*big.Float
	for i := range t {
		t[i] = new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil))
	}
	return t
}()

// TokenAmount converts an atomic token amount to a number of tokens, given
// the token's decimals (Token.Decimals), with 128-bit precision before the
// final rounding to float64. It panics on decimals outside 0..77, which no
// registered token has.
func TokenAmount(x *big.Int, decimals int) float64 {
	if decimals < 0 || decimals >= len(pow10) {
		panic("BUG: token decimals out of range")
	}
	f := new(big.Float).SetPrec(128).SetInt(x)
	f.Quo(f, pow10[decimals])
	v, _ := f.Float64()
	return v
}

// pow10u holds 10^0 … 10^19, the powers of ten below 2^64.
var pow10u = func() [20]uint64 {
	var t [20]uint64
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// TokenAmountU256 is TokenAmount of a fixed-width amount, without
// allocating: it returns the same float64, bit for bit. For amounts below
// 2^128 and decimals up to 19 (every registered token, every real amount)
// it emulates TokenAmount's two roundings in integer arithmetic — the
// quotient x / 10^decimals rounded to nearest-even at 128 bits, then at 53;
// anything else goes through TokenAmount.
func TokenAmountU256(x *uint256.Int, decimals int) float64 {
	if decimals < 0 || decimals >= len(pow10) {
		panic("BUG: token decimals out of range")
	}
	if x[3] != 0 || x[2] != 0 || decimals >= len(pow10u) {
		return TokenAmount(x.ToBig(), decimals)
	}
	hi, lo := x[1], x[0]
	if hi == 0 && lo == 0 {
		return 0
	}
	// y = x shifted so that its top bit is bit 255: only words 3 and 2
	// are nonzero; x = y * 2^-s.
	bl := 128 - bits.LeadingZeros64(hi)
	if hi == 0 {
		bl = 64 - bits.LeadingZeros64(lo)
	}
	s := 256 - bl
	y3, y2 := shl128(hi, lo, uint(s-128))
	// N, r = y / 10^d: N has at least 192 bits.
	d := pow10u[decimals]
	q3, r := bits.Div64(0, y3, d)
	q2, r := bits.Div64(r, y2, d)
	q1, r := bits.Div64(r, 0, d)
	q0, r := bits.Div64(r, 0, d)
	// Normalize N to T with its top bit at 255: N = T * 2^-lz.
	lz := 0
	for q3 == 0 {
		q3, q2, q1, q0 = q2, q1, q0, 0
		lz += 64
	}
	if z := bits.LeadingZeros64(q3); z > 0 {
		q3 = q3<<z | q2>>(64-z)
		q2 = q2<<z | q1>>(64-z)
		q1 = q1<<z | q0>>(64-z)
		q0 <<= z
		lz += z
	}
	// First rounding, to 128 bits: keep q3:q2, the rest is q1:q0 and r.
	e := 128 - lz - s // the value is keep * 2^e
	const top = 1 << 63
	above := q1 > top || q1 == top && (q0 != 0 || r != 0)
	tie := q1 == top && q0 == 0 && r == 0
	if above || tie && q2&1 == 1 {
		var c uint64
		q2, c = bits.Add64(q2, 1, 0)
		q3 += c
		if q3 == 0 { // carried out of 128 bits
			q3, q2 = top, 0
			e++
		}
	}
	// Second rounding, to 53 bits: m is the top 53 bits of q3:q2.
	m := q3 >> 11
	rest := q3 & 0x7ff
	if rest > 0x400 || rest == 0x400 && (q2 != 0 || m&1 == 1) {
		m++
	}
	return math.Ldexp(float64(m), e+75)
}

// shl128 shifts hi:lo left by n < 128 bits.
func shl128(hi, lo uint64, n uint) (uint64, uint64) {
	if n >= 64 {
		return lo << (n - 64), 0
	}
	if n == 0 {
		return hi, lo
	}
	return hi<<n | lo>>(64-n), lo << n
}
