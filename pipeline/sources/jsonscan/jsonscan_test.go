package jsonscan

import (
	"math"
	"strconv"
	"testing"
)

// refDecimal is ParseDecimal as it was before its fast path: strconv only.
func refDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

func checkDecimal(t *testing.T, s string) {
	got, ok := ParseDecimal([]byte(s))
	want, wok := refDecimal([]byte(s))
	if ok != wok || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("ParseDecimal(%q) = %v %v, strconv: %v %v", s, got, ok, want, wok)
	}
}

var decimalSeeds = []string{"61837.63000000", "0.00038028", "65114.20", "1", "0", "00.5", "1.", ".5", "1e5", "-1.5", "+2",
	"9007199254740991", "9007199254740992", "9007199254740993", "0.1234567890123456789012", "123456789.0123456789",
	"0.00000000000000000000001", "1..2", "", "1.7976931348623157e308", "4.9e-324", "12345678901234567890"}

func TestParseDecimal(t *testing.T) {
	for _, s := range decimalSeeds {
		checkDecimal(t, s)
	}
}

// ParseDecimal (with its exact fast path) agrees with strconv.ParseFloat,
// bit for bit, on every input.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range decimalSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDecimal)
}

// SkipString (eight bytes at a time) finds the same end as a byte loop.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, "\"a\x01\"", `"0123456789abcdef\\"x"`, `"unterminated`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		got, gerr := SkipString(b, 0)
		want, werr := -1, ErrJSON
		for i := 1; i < len(b); i++ {
			c := b[i]
			if c == '"' {
				want, werr = i+1, nil
				break
			}
			if c == '\\' {
				i++
				continue
			}
			if c < 0x20 {
				break
			}
		}
		if (gerr == nil) != (werr == nil) || gerr == nil && got != want {
			t.Fatalf("SkipString(%q) = %d %v, want %d %v", b, got, gerr, want, werr)
		}
	})
}
