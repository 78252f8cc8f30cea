package symbols

import "math/big"

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
