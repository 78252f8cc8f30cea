package ledger

import (
	"errors"
	"testing"
)

func TestParseUSD(t *testing.T) {
	f := func(in string, want int64) {
		t.Helper()
		got, err := ParseUSD(in)
		if want < 0 {
			if !errors.Is(err, ErrBadAmount) {
				t.Errorf("ParseUSD(%q) = %d, %v; want ErrBadAmount", in, got, err)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	f("5", 5_000_000)
	f("0.25", 250_000)
	f(".5", 500_000)
	f("12.000001", 12_000_001)
	f("0.1", 100_000) // exact: no float rounding
	f("0.29", 290_000)
	f("1000000000000", 1_000_000_000_000_000_000)
	f("007.10", 7_100_000)
	for _, bad := range []string{"", ".", "0", "0.0", "0.000000", "-1", "+1", "1e3", "1.", "1.0000001",
		"1,5", " 1", "1 ", "abc", "1000000000000.000001", "99999999999999", "0x10", "NaN", "Inf"} {
		f(bad, -1)
	}
}

func TestFormatUSD(t *testing.T) {
	for micro, want := range map[int64]string{0: "0", 1: "0.000001", 5000: "0.005", 22_000_000: "22",
		26_995_000: "26.995", -5000: "-0.005"} {
		if got := FormatUSD(micro); got != want {
			t.Errorf("FormatUSD(%d) = %q, want %q", micro, got, want)
		}
	}
}

// FuzzParseUSD: any accepted amount formats back to the same value.
func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{"5", "0.25", ".5", "1.000001", "-1", "1e3", "", "1000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseUSD(s)
		if err != nil {
			return
		}
		if v <= 0 || v > maxMicroUSD {
			t.Fatalf("ParseUSD(%q) = %d out of range", s, v)
		}
		back, err := ParseUSD(FormatUSD(v))
		if err != nil || back != v {
			t.Fatalf("ParseUSD(%q) = %d, FormatUSD → %q → %d, %v", s, v, FormatUSD(v), back, err)
		}
	})
}
