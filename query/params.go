package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// Parameter defaults and bounds (spec §4, §8).
const (
	defaultWindow    = "5m"
	defaultListLimit = 20
	maxListLimit     = 100
	maxSymbolLen     = 32
)

// parseWindow validates the window parameter: one of schemas.Windows; empty
// (absent) means the default 5m. The result never aliases raw.
func parseWindow(raw string) (string, *paramError) {
	if raw == "" {
		return defaultWindow, nil
	}
	for _, w := range schemas.Windows {
		if raw == w {
			return w, nil
		}
	}
	return "", &paramError{
		param:        "window",
		message:      "window must be one of 1m, 5m, 15m",
		acceptedList: schemas.Windows,
	}
}

// parseLimit validates a limit parameter: a decimal integer from 1 to max
// without sign; empty (absent) means def.
func parseLimit(raw string, def, max int) (int, *paramError) {
	if raw == "" {
		return def, nil
	}
	n := 0
	ok := len(raw) <= 4
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int(c-'0')
	}
	if !ok || n < 1 || n > max {
		r := "integer 1 to " + strconv.Itoa(max)
		return 0, &paramError{param: "limit", message: "limit must be an " + r, acceptedRange: r}
	}
	return n, nil
}

// parseSymbol normalizes the symbol path parameter to upper case and checks
// it is 1 to 32 characters of letters, digits, '.', '-' and '_'. The result
// never aliases raw, so it may be retained.
func parseSymbol(raw string) (string, *paramError) {
	ok := len(raw) >= 1 && len(raw) <= maxSymbolLen
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
	}
	if !ok {
		const r = "1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
		return "", &paramError{param: "symbol", message: "symbol must be " + r, acceptedRange: r}
	}
	return strings.Clone(strings.ToUpper(raw)), nil
}

// Defaults and bounds of the market routes (spec §4.1, §8).
const (
	defaultRankLimit      = 10
	defaultMinAnomaly     = 70
	defaultMinTrades      = 3
	maxMinTrades          = 1_000_000_000
	defaultMinBuyPressure = 60
	defaultMaxBuyPressure = 40
	maxCompareSymbols     = 20
	maxNumberLen          = 32
)

// parseNumber validates a decimal number parameter from lo to hi (both
// included); empty (absent) means def. NaN, infinities, hexadecimal and
// underscores are rejected.
func parseNumber(name, raw string, def, lo, hi float64) (float64, *paramError) {
	if raw == "" {
		return def, nil
	}
	ok := len(raw) <= maxNumberLen
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
	}
	var v float64
	if ok {
		var err error
		v, err = strconv.ParseFloat(raw, 64)
		ok = err == nil && v >= lo && v <= hi
	}
	if !ok {
		r := "number " + strconv.FormatFloat(lo, 'f', -1, 64) + " to " + strconv.FormatFloat(hi, 'f', -1, 64)
		return 0, &paramError{param: name, message: name + " must be a " + r, acceptedRange: r}
	}
	return v + 0, nil // -0 becomes 0
}

// parseCount validates a decimal integer parameter from 0 to max without
// sign; empty (absent) means def.
func parseCount(name, raw string, def, max int64) (int64, *paramError) {
	if raw == "" {
		return def, nil
	}
	var n int64
	ok := len(raw) <= len(strconv.FormatInt(max, 10))
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int64(c-'0')
	}
	if !ok || n > max {
		r := "integer 0 to " + strconv.FormatInt(max, 10)
		return 0, &paramError{param: name, message: name + " must be an " + r, acceptedRange: r}
	}
	return n, nil
}

// parseSymbols validates the symbols parameter: 1 to maxCompareSymbols
// comma-separated symbols, each as parseSymbol accepts it. Symbols are
// upper-cased; a repeated symbol counts toward the limit but is answered
// once, at its first place.
func parseSymbols(raw string) ([]string, *paramError) {
	const r = "1 to 20 comma-separated symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
	bad := &paramError{param: "symbols", message: "symbols must be " + r, acceptedRange: r}
	if raw == "" || strings.Count(raw, ",") >= maxCompareSymbols {
		return nil, bad
	}
	var out []string
	for part := range strings.SplitSeq(raw, ",") {
		s, perr := parseSymbol(part)
		if perr != nil {
			return nil, bad
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
