package uniswap

import (
	"bytes"
	"testing"
)

func word(b ...byte) []byte { return append(make([]byte, 32-len(b)), b...) }

// TestDecodeSwapData checks the word layout, the signs of the amounts and
// the range checks of the narrow words.
func TestDecodeSwapData(t *testing.T) {
	neg := bytes.Repeat([]byte{0xff}, 32)                            // -1
	tick := append(bytes.Repeat([]byte{0xff}, 29), 0xfe, 0xd4, 0x3c) // -76740
	d := bytes.Join([][]byte{word(5), neg, word(1, 2), word(3), tick}, nil)
	var w SwapWords
	if !DecodeSwapData(d, &w) {
		t.Fatal("canonical data refused")
	}
	if w.Amount0.Uint64() != 5 || w.Amount1.Sign() >= 0 || w.SqrtPriceX96.Uint64() != 258 || w.Liquidity.Uint64() != 3 || w.Tick != -76740 {
		t.Fatalf("decoded %+v", w)
	}
	big160 := append([]byte{1}, make([]byte, 31)...)          // 2^248: not a uint160
	big128 := word(append([]byte{1}, make([]byte, 16)...)...) // 2^128: not a uint128
	tickNotExt := append(make([]byte, 28), 0xff, 0xfe, 0xd4, 0x3c)
	for name, bad := range map[string][]byte{
		"short":                   d[:159],
		"long":                    append(append([]byte(nil), d...), make([]byte, 32)...),
		"uint160 too big":         bytes.Join([][]byte{word(5), neg, big160, word(3), tick}, nil),
		"uint128 too big":         bytes.Join([][]byte{word(5), neg, word(1), big128, tick}, nil),
		"int24 not sign-extended": bytes.Join([][]byte{word(5), neg, word(1), word(3), tickNotExt}, nil),
	} {
		if DecodeSwapData(bad, &w) {
			t.Fatalf("%s: accepted", name)
		}
	}
}

func BenchmarkDecodeSwapData(b *testing.B) {
	d := bytes.Join([][]byte{word(5), bytes.Repeat([]byte{0xff}, 32), word(1, 2), word(3), word(9)}, nil)
	var w SwapWords
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !DecodeSwapData(d, &w) {
			b.Fatal("refused")
		}
	}
}
