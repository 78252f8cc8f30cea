package symbols

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/holiman/uint256"
)

func checkU256(t *testing.T, x *uint256.Int, dec int) {
	t.Helper()
	got := TokenAmountU256(x, dec)
	want := TokenAmount(x.ToBig(), dec)
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("TokenAmountU256(%s, %d) = %v, TokenAmount %v", x.Dec(), dec, got, want)
	}
}

// TokenAmountU256 returns TokenAmount's float64 bit for bit: on random
// amounts of every size, and on amounts whose quotient lies on or next to
// a rounding midpoint (at 53 and at 128 bits), where a wrong rounding
// would show.
func TestTokenAmountU256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200_000; i++ {
		var x uint256.Int
		switch i % 4 {
		case 0:
			x[0] = r.Uint64() >> r.IntN(64)
		case 1:
			x[0], x[1] = r.Uint64(), r.Uint64()>>r.IntN(64)
		case 2: // a float64 mantissa times a power of ten, plus or minus a little
			m := uint64(1)<<52 | r.Uint64()>>12
			m = m<<1 | 1 // a 54-bit odd number: a midpoint between two float64s
			dec := r.IntN(20)
			b := new(big.Int).Mul(new(big.Int).SetUint64(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil))
			b.Lsh(b, uint(r.IntN(20)))
			b.Add(b, big.NewInt(int64(r.IntN(3)-1)))
			if b.Sign() < 0 || b.BitLen() > 256 {
				continue
			}
			x.SetFromBig(b)
			checkU256(t, &x, dec)
			continue
		case 3:
			x[0], x[1], x[2], x[3] = r.Uint64(), r.Uint64(), r.Uint64()>>r.IntN(64), r.Uint64()>>r.IntN(64)
		}
		checkU256(t, &x, r.IntN(26))
	}
	for dec := 0; dec < len(pow10); dec++ {
		checkU256(t, uint256.NewInt(0), dec)
		checkU256(t, uint256.NewInt(1), dec)
		checkU256(t, new(uint256.Int).SetAllOne(), dec)
		checkU256(t, new(uint256.Int).Lsh(uint256.NewInt(1), 128), dec)
		checkU256(t, new(uint256.Int).Sub(new(uint256.Int).Lsh(uint256.NewInt(1), 128), uint256.NewInt(1)), dec)
	}
}

func FuzzTokenAmountU256(f *testing.F) {
	f.Add(uint64(1), uint64(0), uint64(0), uint64(0), uint8(18))
	f.Add(uint64(1e18), uint64(0), uint64(0), uint64(0), uint8(18))
	f.Add(uint64(12345678901234567), uint64(77), uint64(0), uint64(0), uint8(6))
	f.Fuzz(func(t *testing.T, a, b, c, d uint64, dec uint8) {
		x := uint256.Int{a, b, c, d}
		checkU256(t, &x, int(dec)%len(pow10))
	})
}

func BenchmarkTokenAmount(b *testing.B) {
	x := uint256.NewInt(1_234_567_890_123_456_789)
	bx := x.ToBig()
	b.Run("big", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = TokenAmount(bx, 18)
		}
	})
	b.Run("u256", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = TokenAmountU256(x, 18)
		}
	})
}
