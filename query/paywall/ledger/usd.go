package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadAmount: a USD amount is not a positive decimal with at most 6
// fractional digits.
var ErrBadAmount = errors.New("amount must be a positive decimal USD amount with at most 6 decimals, e.g. 5 or 0.25")

// maxMicroUSD bounds parsed amounts (one trillion USD), far inside int64.
const maxMicroUSD = 1_000_000_000_000 * 1_000_000

// ParseUSD parses a decimal USD amount such as "5", "0.25" or "12.000001"
// into micro-USD exactly, without floating point. It rejects signs,
// exponents, more than 6 decimals, zero and amounts above one trillion USD.
func ParseUSD(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" && (!dot || frac == "") || len(frac) > 6 || (dot && frac == "") {
		return 0, fmt.Errorf("cannot parse %q: %w", s, ErrBadAmount)
	}
	if !digits(whole) || !digits(frac) || len(whole) > 13 {
		return 0, fmt.Errorf("cannot parse %q: %w", s, ErrBadAmount)
	}
	var w, f int64
	if whole != "" {
		w, _ = strconv.ParseInt(whole, 10, 64)
	}
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
	}
	v := w*1_000_000 + f
	if v <= 0 || v > maxMicroUSD {
		return 0, fmt.Errorf("cannot parse %q: %w", s, ErrBadAmount)
	}
	return v, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatUSD formats micro-USD as a decimal USD string without trailing
// zeros: 5000 is "0.005", 22000000 is "22".
func FormatUSD(micro int64) string {
	sign := ""
	if micro < 0 {
		sign, micro = "-", -micro
	}
	s := strconv.FormatInt(micro/1_000_000, 10)
	if frac := micro % 1_000_000; frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(1_000_000+frac, 10)[1:], "0")
	}
	return sign + s
}
